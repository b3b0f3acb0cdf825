import { defineCommand, OptionError, type CommandContext, type CommandDef, type ObsoleteMatch, type ValueContext } from '../../src/command/index.js';
import { gnuQuote, parseCount, xstrtoumax } from '../../src/gnulib/gnu-number.js';
import {
  asBuffer, fileChunks, headerName, LastUnits, nthSeparator, quoteAlways, openOperand,
} from '../../src/gnulib/head-tail.js';
import type { RandomReader } from '../../src/vfs/index.js';

const def: CommandDef = defineCommand({
  name: 'tail',
  summary: 'Print the last 10 lines of each FILE to standard output. With more than one FILE, precede each with a header giving the file name. With no FILE, or when FILE is -, read standard input. (-f on standard input, a pipe here, is ignored as GNU ignores it for a pipe; following a file is refused: nosh runs each command to completion.)',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'count', short: 'c', long: 'bytes', kind: 'string', parse: parseUnits, repeat: true, arg: '[+]NUM', help: 'output the last NUM bytes; or use -c +NUM to output starting with byte NUM of each file' },
    { key: 'count', short: 'n', long: 'lines', kind: 'string', parse: parseUnits, repeat: true, arg: '[+]NUM', help: 'output the last NUM lines, instead of the last 10; or use -n +NUM to skip NUM-1 lines at the start' },
    { key: 'headers', short: 'q', long: 'quiet', value: 'never', help: 'never output headers giving file names' },
    { key: 'headers', long: 'silent', value: 'never', help: 'same as --quiet' },
    { key: 'headers', short: 'v', long: 'verbose', value: 'always', help: 'always output headers giving file names' },
    { key: 'zero', short: 'z', long: 'zero-terminated', help: 'line delimiter is NUL, not newline' },
    { key: 'follow', short: 'f', value: 'descriptor', help: 'same as --follow=descriptor' },
    // '--follow=' (an empty WHEN) is ambiguous for GNU's argmatch; a bare --follow is descriptor.
    { key: 'follow', long: 'follow', kind: 'optional', arg: '{name|descriptor}', value: 'descriptor', choices: { words: ['descriptor', 'name'] }, help: 'ignored for standard input (a pipe), as GNU; refused for a file: nosh runs each command to completion; run tail again to see what was added' },
    { key: 'follow', short: 'F', value: 'F', help: 'same as --follow=name --retry (refused for a file, as -f)' },
    // Meaningful only with -f; GNU still checks their values and warns that two are ignored.
    { key: 'maxUnchangedStats', long: 'max-unchanged-stats', kind: 'string', parse: (v: string) => count(v, 'invalid maximum number of unchanged stats between opens'), arg: 'N', help: 'only for -f (refused): the value is checked, then ignored' },
    { key: 'pid', long: 'pid', kind: 'string', parse: parsePid, arg: 'PID', help: 'only for -f (refused): the value is checked, then ignored with a warning' },
    { key: 'retry', long: 'retry', help: 'only for -f (refused): ignored with a warning' },
    { key: 'sleep', short: 's', long: 'sleep-interval', kind: 'string', parse: parseSeconds, arg: 'N', help: 'only for -f (refused): the value is checked, then ignored' },
  ],
  notes: 'NUM may have a multiplier suffix: b 512, kB 1000, K 1024, MB 1000*1000, M 1024*1024, GB, G, T, P, E, Z, Y (also KiB, MiB...).',
  obsoleteLeading,
  digits: { reject: (d) => new OptionError(`option used in invalid context -- ${d}`, false) },
  async run(ctx) {
    const v = ctx.values;
    const follow = v.follow ?? null;
    const retry = v.retry === true || follow === 'F';
    if (v.retry && !follow) await ctx.warn('warning: --retry ignored; --retry is useful only when following');
    else if (retry && follow === 'descriptor') await ctx.warn('warning: --retry only effective for the initial open');
    if ((v.pid ?? 0) !== 0 && !follow) await ctx.warn('warning: PID ignored; --pid=PID is useful only when following');
    const operandsGiven = ctx.operands.length === 0 ? ['-'] : ctx.operands;
    if (follow && follow !== 'descriptor' && operandsGiven.includes('-')) {
      await ctx.warn("cannot follow '-' by name");
      return 1;
    }
    // GNU ignores -f for standard input that is a pipe (nosh's always is). A file it would
    // follow forever (a regular file, or one --retry waits for) cannot be: refused.
    if (follow && operandsGiven.some((op) => op !== '-' && (retry || followable(ctx, op)))) {
      await ctx.warn('following a file (-f, -F, --follow) is not supported: nosh runs each command to completion; run tail again to see what was added');
      return 1;
    }
    const counts = v.count ?? [];
    const last = counts[counts.length - 1];
    const unit = last?.unit ?? 'lines';
    let count = last?.count ?? 10;
    // As in GNU tail, a '+' once given stays in force for later -n/-c.
    const fromStart = counts.some((c) => c.plus);
    // Nothing can be output: GNU does not even open the files (no headers, no errors).
    if (count === 0 && !fromStart && !follow) return 0;
    if (fromStart && count > 0) count--; // +N starts at item N: skip N-1 (+0 is +1)
    const sep = v.zero ? 0 : 0x0a;
    const operands = ctx.operands.length === 0 ? ['-'] : ctx.operands;
    const mode = v.headers ?? (operands.length > 1 ? 'always' : 'never');
    let first = true;
    let status = 0;
    for (const operand of operands) {
      const opened = await openOperand(ctx, operand);
      if (opened === null) {
        status = 1;
        continue;
      }
      if (mode === 'always') {
        await ctx.stdout.write(`${first ? '' : '\n'}==> ${headerName(operand)} <==\n`);
        first = false;
      }
      if (opened === 'unreadable') {
        await ctx.warn(`error reading ${quoteAlways(operand)}: Is a directory`);
        // GNU exits on a read error where it copies to the end without reading first: after
        // seeking (-c +N, and -c N as on ext4, where a directory's end can be sought, when N
        // fits in off_t) and for -n +1. Elsewhere (-n N, -n +N from 2) it goes on.
        if (unit === 'bytes' ? Number.isFinite(count) : fromStart && count === 0) return 1;
        if (follow) await ctx.warn(`${operand}: cannot follow end of this type of file; giving up on this name`);
        status = 1;
        continue;
      }
      if (opened.kind === 'stdin') {
        if (fromStart) await skipThenCopy(ctx, ctx.stdin, count, unit, sep);
        else await lastOfStream(ctx, ctx.stdin, count, unit, sep);
        continue;
      }
      const reader = opened.reader;
      try {
        if (fromStart) {
          if (unit === 'bytes') {
            if (Number.isFinite(count)) await copy(ctx, fileChunks(reader, count));
          } else await skipThenCopy(ctx, fileChunks(reader, 0), count, unit, sep);
        } else {
          const start = unit === 'bytes' ? Math.max(0, reader.size - count) : lastLinesStart(reader, count, sep);
          await copy(ctx, fileChunks(reader, start));
        }
      } finally {
        reader.close();
      }
    }
    // With -f, the operands other than a pipe could not be opened (or followed): GNU's
    // tail_forever finds no live file.
    if (follow && operands.some((op) => op !== '-')) {
      await ctx.warn('no files remaining');
      return 1;
    }
    return status;
  },
});

/** A FILE operand tail -f would go on following: one that exists and is not a directory. */
function followable(ctx: CommandContext, op: string): boolean {
  try {
    return !ctx.fs.stat(op, ctx.cwd).isDirectory();
  } catch {
    return false;
  }
}

export default def;

type Source = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

async function copy(ctx: CommandContext, source: Source): Promise<void> {
  for await (const chunk of source as AsyncIterable<Uint8Array>) await ctx.stdout.write(chunk);
}

/** tail -n +N / -c +N: drop the first `skip` units, copy the rest as it comes. */
async function skipThenCopy(ctx: CommandContext, source: Source, skip: number, unit: 'lines' | 'bytes', sep: number): Promise<void> {
  let left = skip;
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    let buf = asBuffer(chunk);
    if (left > 0) {
      if (unit === 'bytes') {
        if (buf.length <= left) {
          left -= buf.length;
          continue;
        }
        buf = buf.subarray(left);
        left = 0;
      } else {
        const { at, found } = nthSeparator(buf, left, sep);
        if (at < 0) {
          left -= found;
          continue;
        }
        left = 0;
        buf = buf.subarray(at + 1);
      }
    }
    if (buf.length > 0) await ctx.stdout.write(buf);
  }
}

/** The last N units of a stream (stdin, a pipe): only those are held in memory. */
async function lastOfStream(ctx: CommandContext, source: Source, count: number, unit: 'lines' | 'bytes', sep: number): Promise<void> {
  const ring = new LastUnits(count, unit, sep);
  for await (const chunk of source as AsyncIterable<Uint8Array>) ring.push(chunk);
  const { kept } = ring.finish();
  if (kept.length > 0) await ctx.stdout.write(Buffer.concat(kept));
}

/** Where the last `n` lines of a file start, reading backwards from its end. */
function lastLinesStart(reader: RandomReader, n: number, sep: number): number {
  const size = reader.size;
  if (n === 0) return size;
  const CHUNK = 64 * 1024;
  let needed = n;
  let pos = size;
  let last = true;
  const buf = Buffer.allocUnsafe(CHUNK);
  while (pos > 0) {
    const len = Math.min(CHUNK, pos);
    const start = pos - len;
    const got = reader.readAt(buf, start, len);
    let i = got - 1;
    // The terminator of the last line does not start a line.
    if (last && got === len && buf[len - 1] === sep) i--;
    last = false;
    while (i >= 0) {
      i = buf.lastIndexOf(sep, i);
      if (i < 0) break;
      if (--needed === 0) return start + i + 1;
      i--;
    }
    pos = start;
  }
  return 0;
}

/** --pid: a count, at most PID_T_MAX (xdectoumax's range check gives EOVERFLOW above). */
function parsePid(v: string): number {
  const n = count(v, 'invalid PID');
  if (n > 2 ** 31 - 1) throw new OptionError(`invalid PID: ${gnuQuote(v)}: Value too large for defined data type`, false);
  return n;
}

function count(v: string, what: string): number {
  const r = parseCount(v, what, '');
  if ('error' in r) throw new OptionError(r.error, false);
  return r.value;
}

function parseSeconds(v: string): string {
  if (!validSeconds(v)) throw new OptionError(`invalid number of seconds: ${gnuQuote(v)}`, false);
  return v;
}

/**
 * -s: xstrtod with C strtod's syntax (blanks first; decimal or hex, inf, nan), the whole
 * string, no overflow, and not negative (nan is not >= 0).
 */
function validSeconds(v: string): boolean {
  const t = v.replace(/^[ \t\n\v\f\r]+/, '');
  let x: number;
  const hex = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?[0-9]+))?$/.exec(t);
  if (/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(t)) x = Number(t);
  else if (hex && (hex[2]! + (hex[3] ?? '')).length > 0) {
    const m = Number(BigInt('0x' + hex[2]! + (hex[3] ?? '')));
    x = m === 0 ? 0 : m * 2 ** (Number(hex[4] ?? 0) - 4 * (hex[3] ?? '').length);
    if (hex[1] === '-') x = -x;
  } else if (/^[+-]?inf(inity)?$/i.test(t)) return !t.startsWith('-');
  else return false;
  return Number.isFinite(x) && x >= 0;
}

/** The count of -n or -c (VALUE may start with '+': from the start, or '-', which changes nothing). */
function parseUnits(value: string, at: ValueContext): { unit: 'lines' | 'bytes'; count: number; plus: boolean } {
  const lines = at.option === '--lines';
  const r = parseCount(value.startsWith('-') ? value.slice(1) : value, lines ? 'invalid number of lines' : 'invalid number of bytes');
  if ('error' in r) throw new OptionError(r.error, false);
  return { unit: lines ? 'lines' : 'bytes', count: r.value, plus: value.startsWith('+') };
}

/**
 * GNU tail's obsolete forms, recognised only as the first argument and when at most one
 * file follows: -NUM[bcl][f], +NUM[bcl][f] ('tail -3', 'tail +2', 'tail -c'...).
 * -f (follow) is not supported, so '-3f' ends as the usage error for -f.
 */
function obsoleteLeading(args: readonly string[]): ObsoleteMatch | null {
  const n = args.length;
  const second = args[1];
  const ok = n === 1
    || (n === 2 && !(second!.startsWith('-') && second!.length > 1))
    || ((n === 2 || n === 3) && second === '--');
  if (!ok) return null;
  const a = args[0]!;
  let p: string;
  let fromStart: boolean;
  if (a.startsWith('+')) {
    fromStart = true;
    p = a.slice(1);
  } else if (a.startsWith('-')) {
    p = a.slice(1);
    if (!p[p[0] === 'c' ? 1 : 0]) return null; // '-' is stdin, '-c' wants its value
    fromStart = false;
  } else return null;
  const digits = /^[0-9]*/.exec(p)![0];
  let rest = p.slice(digits.length);
  let lines = true;
  let defaultCount = 10n;
  if (rest[0] === 'b') defaultCount *= 512n;
  if (rest[0] === 'b' || rest[0] === 'c') lines = false;
  if (rest[0] === 'b' || rest[0] === 'c' || rest[0] === 'l') rest = rest.slice(1);
  let forever = false;
  if (rest[0] === 'f') {
    forever = true;
    rest = rest.slice(1);
  }
  if (rest !== '') return null;
  let count = defaultCount;
  if (digits !== '') {
    const r = xstrtoumax(p, 'b');
    if (r.err !== 'ok' && r.err !== 'suffix') throw new OptionError(`invalid number: ${gnuQuote(a)}: Numerical result out of range`, false);
    count = r.value;
  }
  const items = [{ flag: lines ? '-n' : '-c', value: (fromStart ? '+' : '') + count.toString() }];
  if (forever) items.push({ flag: '-f', value: 'descriptor' });
  return { items, words: 1 };
}
