import { defineCommand, OptionError, parseArgs, toBytes, UsageError, type CommandContext, type CommandDef, type FlagSpec, type ObsoleteMatch, type Output, type Values } from '../../src/command/index.js';
import { openInput, reportFileError } from '../../src/gnulib/helpers.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { quoteAlways } from '../../src/gnulib/fileops.js';
import { FatalError, LineReader, OutBuffer } from '../../src/gnulib/text-lines.js';
import { VfsError } from '../../src/vfs/index.js';

const DELIMIT = ['none', 'prepend', 'separate'];
const GROUP = ['prepend', 'append', 'separate', 'both'];

const FLAGS = [
  { key: 'count', short: 'c', long: 'count', help: 'prefix lines by the number of occurrences' },
  { key: 'repeated', short: 'd', long: 'repeated', help: 'only print duplicate lines, one for each group' },
  { key: 'allRepeated', short: 'D', value: 'none', help: 'print all duplicate lines' },
  { key: 'allRepeated', long: 'all-repeated', kind: 'optional', arg: 'METHOD', value: 'none', choices: { words: DELIMIT }, help: "like -D, but allow separating groups with an empty line; METHOD={none(default),prepend,separate}" },
  { key: 'skipFields', short: 'f', long: 'skip-fields', kind: 'string', parse: (v: string) => sizeOpt(v, SIZE_ERRORS.f!), arg: 'N', help: 'avoid comparing the first N fields' },
  { key: 'group', long: 'group', kind: 'optional', arg: 'METHOD', value: 'separate', choices: { words: GROUP }, help: 'show all items, separating groups with an empty line; METHOD={separate(default),prepend,append,both}' },
  { key: 'ignoreCase', short: 'i', long: 'ignore-case', help: 'ignore differences in case when comparing' },
  { key: 'skipChars', short: 's', long: 'skip-chars', kind: 'string', parse: (v: string) => sizeOpt(v, SIZE_ERRORS.s!), arg: 'N', help: 'avoid comparing the first N characters' },
  { key: 'unique', short: 'u', long: 'unique', help: 'only print unique lines' },
  { key: 'zero', short: 'z', long: 'zero-terminated', help: 'line delimiter is NUL, not newline' },
  { key: 'checkChars', short: 'w', long: 'check-chars', kind: 'string', parse: (v: string) => sizeOpt(v, SIZE_ERRORS.w!), arg: 'N', help: 'compare no more than N characters in lines' },
] as const satisfies readonly FlagSpec[];

/** GNU uniq (coreutils 9.1): adjacent matching lines, streamed; INPUT [OUTPUT]. */
const def: CommandDef = defineCommand({
  name: 'uniq',
  summary: 'Filter adjacent matching lines from INPUT (or standard input), writing to OUTPUT (or standard output).',
  usage: '[INPUT [OUTPUT]]',
  usageStatus: 1,
  mutates: (args) => {
    try {
      const ops = parseArgs(def, args).operands;
      return ops.length >= 2 && ops[1] !== '-';
    } catch {
      return false;
    }
  },
  flags: FLAGS,
  notes: "A field is a run of blanks (usually spaces and/or TABs), then non-blank characters.\nFields are skipped before chars.",
  // GNU uniq acts on each option and operand as getopt returns them, in argv order: the first
  // bad value or extra operand is the one reported; "+N" (skip chars) and -N digits (skip
  // fields, digits accumulating across options until the next -f) take effect in that order.
  digits: { key: 'skipFields', accumulate: 'run' },
  obsoleteOperand: plusSkipChars,
  maxOperands: 2,
  async run(ctx) {
    try {
      return await uniq(ctx);
    } catch (e) {
      if (e instanceof FatalError) {
        await ctx.warn(e.message);
        return 1;
      }
      throw e;
    }
  },
});

export default def;

async function uniq(ctx: CommandContext<Values<typeof FLAGS>>): Promise<number> {
    const v = ctx.values;
    const skipFields = v.skipFields ?? 0;
    const skipChars = v.skipChars ?? 0;
    const checkChars = v.checkChars ?? Infinity;
    const count = v.count === true;
    // -d, -D and -u say which lines of a group are printed (-D: all repeated ones, later ones too).
    const outputUnique = !v.repeated && v.allRepeated === undefined;
    const outputFirst = !v.unique;
    const outputLater = v.allRepeated !== undefined;
    const delimit = v.allRepeated ?? 'none';
    const grouping = v.group ?? 'none';
    // The walk checked the operands and turned "+N" into -s N.
    const files = ctx.operands;
    if (grouping !== 'none' && (count || !outputUnique || !outputFirst || outputLater)) {
      throw new UsageError('--group is mutually exclusive with -c/-d/-D/-u');
    }
    if (count && outputLater) throw new UsageError('printing all duplicated lines and repeat counts is meaningless');
    const ignoreCase = v.ignoreCase === true;
    const delim = v.zero ? 0 : 0x0a;
    const nl = Buffer.from([delim]);
    const infile = files[0] ?? '-';
    const outfile = files[1] ?? '-';

    let readError = false;
    let reader: { next(): Buffer | null | Promise<Buffer | null> };
    let first: Buffer | null;
    try {
      reader = new LineReader(openInput(ctx, infile), delim);
      first = await reader.next();
    } catch (e) {
      if (!(e instanceof VfsError && e.errno === 'EISDIR')) {
        await reportFileError(ctx, infile, e);
        return 1;
      }
      // GNU opens a directory fine, sets up the output, then fails reading it.
      const deferred = e;
      reader = { next: () => Promise.reject(deferred) };
      first = null;
      readError = true;
    }
    let sink: Output = ctx.stdout;
    let writer: ReturnType<typeof ctx.fs.createWriter> | null = null;
    if (outfile !== '-') {
      try {
        writer = ctx.fs.createWriter(outfile, ctx.cwd);
      } catch (e) {
        if (e instanceof VfsError) {
          await ctx.warn(`${quoteNameColon(outfile)}: ${e.reason}`);
          return 1;
        }
        throw e;
      }
      const w = writer;
      sink = { write: (d) => w.write(toBytes(d)), get bytes() { return w.bytesWritten; } };
    }
    const out = new OutBuffer(sink);
    if (readError) {
      writer?.commit();
      await ctx.warn(`error reading ${quoteAlways(infile)}`);
      return 1;
    }

    const key = (line: Buffer): Buffer => {
      const size = line.length;
      let i = 0;
      // Fields end at blanks and, with -z, at newlines too (GNU's field_sep).
      for (let n = 0; n < skipFields && i < size; n++) {
        while (i < size && (line[i] === 0x20 || line[i] === 0x09 || line[i] === 0x0a)) i++;
        while (i < size && line[i] !== 0x20 && line[i] !== 0x09 && line[i] !== 0x0a) i++;
      }
      i += Math.min(skipChars, size - i);
      return line.subarray(i, Math.min(size, i + checkChars));
    };
    const different = (a: Buffer, b: Buffer): boolean => {
      if (a.length !== b.length) return true;
      if (!ignoreCase) return !a.equals(b);
      for (let i = 0; i < a.length; i++) {
        let x = a[i]!;
        let y = b[i]!;
        if (x >= 65 && x <= 90) x += 32;
        if (y >= 65 && y <= 90) y += 32;
        if (x !== y) return true;
      }
      return false;
    };
    const next = (): Buffer | null | Promise<Buffer | null> => {
      const v = reader.next();
      return v instanceof Promise ? v.catch((e: unknown) => Promise.reject(new InputError(e))) : v;
    };
    const writeLine = async (line: Buffer, match: boolean, n: number) => {
      if (!(n === 0 ? outputUnique : !match ? outputFirst : outputLater)) return;
      if (count) if (out.add(Buffer.from(`${String(n + 1).padStart(7)} `))) await out.flush();
      if (out.add(line)) await out.flush();
      if (out.add(nl)) await out.flush();
    };

    try {
      if (outputUnique && outputFirst && !count) {
        let prev: Buffer | null = null;
        let printed = false;
        for (let line = first; line !== null; ) {
          const k = key(line);
          const newGroup = prev === null || different(k, prev);
          if (newGroup && grouping !== 'none' && (grouping === 'prepend' || grouping === 'both' || (printed && (grouping === 'append' || grouping === 'separate')))) {
            if (out.add(nl)) await out.flush();
          }
          if (newGroup || grouping !== 'none') {
            if (out.add(line)) await out.flush();
            if (out.add(nl)) await out.flush();
            prev = k;
            printed = true;
          }
          const n = next();
          line = n instanceof Promise ? await n : n;
        }
        if ((grouping === 'both' || grouping === 'append') && printed) if (out.add(nl)) await out.flush();
      } else if (first !== null) {
        let prevLine = first;
        let prevKey = key(prevLine);
        let matches = 0;
        let firstDelimiter = true;
        for (;;) {
          const n = next();
          const line = n instanceof Promise ? await n : n;
          if (line === null) break;
          const k = key(line);
          const match = !different(k, prevKey);
          if (match) matches++;
          if (delimit !== 'none') {
            if (!match) {
              if (matches) firstDelimiter = false;
            } else if (matches === 1 && (delimit === 'prepend' || (delimit === 'separate' && !firstDelimiter))) {
              if (out.add(nl)) await out.flush();
            }
          }
          if (!match || outputLater) {
            await writeLine(prevLine, match, matches);
            prevLine = line;
            prevKey = k;
            if (!match) matches = 0;
          }
        }
        await writeLine(prevLine, false, matches);
      }
      await out.flush();
    } catch (e) {
      if (e instanceof InputError) {
        await out.flush().catch(() => undefined);
        writer?.commit();
        if (e.inner instanceof VfsError && e.inner.errno === 'EISDIR') await ctx.warn(`error reading ${quoteAlways(infile)}`);
        else await reportFileError(ctx, infile, e.inner);
        return 1;
      }
      writer?.abort();
      if (e instanceof VfsError) {
        await ctx.warn(`${quoteNameColon(outfile)}: ${e.reason}`);
        return 1;
      }
      throw e;
    }
    writer?.commit();
    return 0;
}

class InputError extends Error {
  constructor(readonly inner: unknown) {
    super('input error');
  }
}

/** "+N" where an operand stands: --skip-chars=N (N below 2^64; after '--' it is a file). */
function plusSkipChars(args: readonly string[], at: number): ObsoleteMatch | null {
  const plus = /^\+([0-9]+)$/.exec(args[at]!);
  return plus && BigInt(plus[1]!) < 2n ** 64n ? { items: [{ flag: '-s', value: plus[1]! }], words: 1 } : null;
}

const SIZE_ERRORS: Record<string, string> = {
  f: 'invalid number of fields to skip', s: 'invalid number of bytes to skip', w: 'invalid number of bytes to compare',
};

/** uniq's size_opt: a non-negative decimal, huge values clamp; bad ones end the command. */
function sizeOpt(opt: string, msg: string): number {
  // xstrtoumax: leading white space, an optional '+', digits; any '-' (even -0) is invalid.
  const m = /^[ \t\n\v\f\r]*\+?([0-9]+)$/.exec(opt);
  if (!m) throw new OptionError(`${opt}: ${msg}`, false);
  return Number(m[1]);
}
