import { defineCommand, OptionError, UsageError, type CommandContext, type CommandDef, type Input, type ObsoleteMatch, type ValueContext } from '../../src/command/index.js';
import { parseCount } from '../../src/gnulib/gnu-number.js';
import {
  asBuffer, fileChunks, headerName, LastUnits, nthSeparator, quoteAlways, openOperand,
} from '../../src/gnulib/head-tail.js';

const def: CommandDef = defineCommand({
  name: 'head',
  summary: 'Print the first 10 lines of each FILE to standard output. With more than one FILE, precede each with a header giving the file name. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'count', short: 'c', long: 'bytes', kind: 'string', parse: parseUnits, arg: '[-]NUM', help: 'print the first NUM bytes of each file; with the leading \'-\', print all but the last NUM bytes of each file' },
    { key: 'count', short: 'n', long: 'lines', kind: 'string', parse: parseUnits, arg: '[-]NUM', help: 'print the first NUM lines instead of the first 10; with the leading \'-\', print all but the last NUM lines of each file' },
    { key: 'headers', short: 'q', long: 'quiet', value: 'never', help: 'never print headers giving file names' },
    { key: 'headers', long: 'silent', value: 'never', help: 'same as --quiet' },
    { key: 'headers', short: 'v', long: 'verbose', value: 'always', help: 'always print headers giving file names' },
    { key: 'zero', short: 'z', long: 'zero-terminated', help: 'line delimiter is NUL, not newline' },
  ],
  notes: 'NUM may have a multiplier suffix: b 512, kB 1000, K 1024, MB 1000*1000, M 1024*1024, GB, G, T, P, E, Z, Y (also KiB, MiB...).',
  obsoleteLeading,
  // Digits met later by getopt are an error, as in GNU.
  digits: { reject: (d) => new UsageError(`invalid trailing option -- ${d}`) },
  async run(ctx) {
    const { unit, count, elide } = ctx.values.count ?? { unit: 'lines', count: 10, elide: false };
    const sep = ctx.values.zero ? 0 : 0x0a;
    const operands = ctx.operands.length === 0 ? ['-'] : ctx.operands;
    const mode = ctx.values.headers ?? (operands.length > 1 ? 'always' : 'never');
    let first = true;
    let status = 0;
    const stdin = new SharedStdin(ctx.stdin);
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
        if (count === 0 && !elide) continue; // GNU reads nothing, so a directory is no error
        await ctx.warn(`error reading ${quoteAlways(operand)}: Is a directory`);
        status = 1;
        continue;
      }
      const source = opened.kind === 'file' ? fileChunks(opened.reader, 0, undefined, FIRST_CHUNK) : stdin.chunks();
      try {
        if (elide) await headElide(ctx, source, count, unit, sep);
        else {
          const rest = await headFirst(ctx, source, count, unit, sep);
          if (opened.kind === 'stdin' && unit === 'bytes' && rest !== undefined) stdin.unread(rest);
        }
      } finally {
        if (opened.kind === 'file') opened.reader.close();
      }
    }
    return status;
  },
});

export default def;

type Source = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** head usually stops in its first few KiB: it reads 16 KiB first, then larger chunks. */
const FIRST_CHUNK = 16 * 1024;

/**
 * Standard input named by several '-' operands. GNU head -c reads only the bytes it prints,
 * so the next '-' starts right after them; head -n reads whole blocks, and on a pipe (as
 * nosh's stdin is) the rest of the block it stopped in is gone.
 */
class SharedStdin {
  private it: AsyncIterator<Uint8Array> | undefined;
  private rest: Buffer | undefined;

  constructor(private readonly input: Input) {}

  async *chunks(): AsyncGenerator<Uint8Array> {
    const rest = this.rest;
    this.rest = undefined;
    if (rest !== undefined) yield rest;
    this.it ??= this.input[Symbol.asyncIterator]();
    for (;;) {
      const r = await this.it.next();
      if (r.done === true) return;
      yield r.value;
    }
  }

  unread(rest: Buffer): void {
    if (rest.length > 0) this.rest = rest;
  }
}

/** The first `count` lines or bytes; stops reading as soon as they are out. Returns the rest of the last chunk read. */
async function headFirst(ctx: CommandContext, source: Source, count: number, unit: 'lines' | 'bytes', sep: number): Promise<Buffer | undefined> {
  let left = count;
  if (left === 0) return undefined;
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    const buf = asBuffer(chunk);
    if (unit === 'bytes') {
      if (buf.length >= left) {
        await ctx.stdout.write(buf.subarray(0, left));
        return buf.subarray(left);
      }
      left -= buf.length;
      await ctx.stdout.write(buf);
      continue;
    }
    const { at, found } = nthSeparator(buf, left, sep);
    if (at >= 0) {
      await ctx.stdout.write(buf.subarray(0, at + 1));
      return buf.subarray(at + 1);
    }
    left -= found;
    await ctx.stdout.write(buf);
  }
  return undefined;
}

/** All but the last `count` lines or bytes (head -n -N, head -c -N). */
async function headElide(ctx: CommandContext, source: Source, count: number, unit: 'lines' | 'bytes', sep: number): Promise<void> {
  const ring = new LastUnits(count, unit, sep);
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    const front = ring.push(chunk);
    if (front.length > 0) await ctx.stdout.write(Buffer.concat(front));
  }
  const { front } = ring.finish();
  if (front.length > 0) await ctx.stdout.write(Buffer.concat(front));
}

/**
 * GNU head's obsolete form, only as the first argument: -NUM[bkm][clqvz]... ('head -5',
 * 'head -3c').
 */
function obsoleteLeading(args: readonly string[]): ObsoleteMatch | null {
  const a = args[0];
  if (a === undefined || !/^-[0-9]/.test(a)) return null;
  const m = /^-([0-9]+)(.*)$/.exec(a)!;
  let lines = true;
  let mult = '';
  const flags: string[] = [];
  for (const ch of m[2]!) {
    if (ch === 'c') {
      lines = false;
      mult = '';
    } else if (ch === 'b' || ch === 'k' || ch === 'm') {
      lines = false;
      mult = ch;
    } else if (ch === 'l') lines = true;
    else if (ch === 'q' || ch === 'v' || ch === 'z') flags.push(`-${ch}`);
    else throw new UsageError(`invalid trailing option -- ${ch}`);
  }
  return { items: [{ flag: lines ? '-n' : '-c', value: m[1]! + mult }, ...flags.map((flag) => ({ flag }))], words: 1 };
}

/** The count of -n or -c (VALUE may start with '-': all but the last). */
function parseUnits(value: string, at: ValueContext): { unit: 'lines' | 'bytes'; count: number; elide: boolean } {
  const lines = at.option === '--lines';
  const r = parseCount(value.startsWith('-') ? value.slice(1) : value, lines ? 'invalid number of lines' : 'invalid number of bytes');
  if ('error' in r) throw new OptionError(r.error, false);
  return { unit: lines ? 'lines' : 'bytes', count: r.value, elide: value.startsWith('-') };
}
