import type * as fs from 'node:fs';
import { defineCommand, OptionError, UsageError, type CommandContext } from '../../src/command/index.js';
import { errnoOf, quoteAlways, reasonOf } from '../../src/gnulib/fileops.js';
import { xstrtoumax } from '../../src/gnulib/gnu-number.js';

type SizeOp = '=' | '+' | '-' | '<' | '>' | '/' | '%';
interface SizeSpec { op: SizeOp; n: number }

export default defineCommand({
  name: 'truncate',
  summary: 'Shrink or extend the size of each FILE to the specified size. A FILE argument that does not exist is created. '
    + 'If a FILE is larger than the specified size, the extra data is lost; if it is shorter, it is extended and the extended part reads as zero bytes. '
    + '(Written atomically through the zone, counted against its quota: the file is rewritten, not sparse.)',
  usage: 'OPTION... FILE...',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'c', short: 'c', long: 'no-create', help: 'do not create any files' },
    { key: 'o', short: 'o', long: 'io-blocks', help: 'treat SIZE as number of IO blocks instead of bytes' },
    { key: 'r', short: 'r', long: 'reference', kind: 'string', arg: 'RFILE', help: "base size on RFILE" },
    { key: 's', short: 's', long: 'size', kind: 'string', arg: 'SIZE', parse: parseSize, help: 'set or adjust the file size by SIZE bytes' },
  ],
  notes: 'SIZE is an integer and optional unit (example: 10K is 10*1024). Units are K,M,G,T,P,E,Z,Y (powers of 1024) or KB,MB,... (powers of 1000).\n'
    + "SIZE may also be prefixed by one of the following modifying characters: '+' extend by, '-' reduce by, '<' at most, '>' at least, '/' round down to multiple of, '%' round up to multiple of.",
  async run(ctx) {
    const v = ctx.values;
    const size = v.s;
    if (size === undefined && v.r === undefined) throw new UsageError("you must specify either '--size' or '--reference'");
    if (size !== undefined && v.r !== undefined && size.op === '=') throw new UsageError("you must specify a relative '--size' with '--reference'");
    if (v.o && size === undefined) throw new UsageError("'--io-blocks' was specified but '--size' was not");
    if (ctx.operands.length === 0) throw new UsageError('missing file operand');
    let refSize: number | undefined;
    if (v.r !== undefined) {
      try {
        refSize = ctx.fs.stat(v.r, ctx.cwd).size;
      } catch (e) {
        await ctx.warn(`cannot stat ${quoteAlways(v.r)}: ${reasonOf(e)}`);
        return 1;
      }
    }
    let status = 0;
    for (const file of ctx.operands) if (!(await truncateOne(ctx, file, size, refSize, v.o === true, v.c === true))) status = 1;
    return status;
  },
});

async function truncateOne(ctx: CommandContext, file: string, size: SizeSpec | undefined, refSize: number | undefined, blocks: boolean, noCreate: boolean): Promise<boolean> {
  let st: fs.Stats | null = null;
  try {
    st = ctx.fs.stat(file, ctx.cwd);
  } catch (e) {
    if (errnoOf(e) !== 'ENOENT' || file.endsWith('/')) {
      await ctx.warn(`cannot open ${quoteAlways(file)} for writing: ${reasonOf(e)}`);
      return false;
    }
  }
  if (!st && noCreate) return true;
  if (st?.isDirectory()) {
    await ctx.warn(`cannot open ${quoteAlways(file)} for writing: Is a directory`);
    return false;
  }
  const old = st?.size ?? 0;
  let n = size ? size.n : 0;
  if (blocks && size) n *= st?.blksize || 4096;
  const base = refSize ?? old;
  let target: number;
  switch (size?.op ?? '=') {
    case '=': target = size ? n : refSize!; break;
    case '+': target = base + n; break;
    case '-': target = Math.max(0, base - n); break;
    case '<': target = Math.min(base, n); break;
    case '>': target = Math.max(base, n); break;
    case '/': target = Math.floor(base / n) * n; break;
    case '%': target = Math.ceil(base / n) * n; break;
  }
  if (st && target === old) return true;
  try {
    resize(ctx, file, old, target, st !== null);
  } catch (e) {
    await ctx.warn(`${st ? `failed to truncate ${quoteAlways(file)} at ${target} bytes` : `cannot open ${quoteAlways(file)} for writing`}: ${reasonOf(e)}`);
    return false;
  }
  return true;
}

const CHUNK = 256 * 1024;

/** Rewrites the file at its new size: the kept prefix copied, zeros after it (an atomic replace). */
function resize(ctx: CommandContext, file: string, old: number, target: number, exists: boolean): void {
  const w = ctx.fs.createWriter(file, ctx.cwd);
  try {
    const keep = Math.min(old, target);
    if (exists && keep > 0) {
      const r = ctx.fs.openRandom(file, ctx.cwd);
      try {
        const buf = Buffer.alloc(Math.min(CHUNK, keep));
        for (let at = 0; at < keep;) {
          const got = r.readAt(buf, at, Math.min(buf.length, keep - at));
          if (got <= 0) break;
          w.write(buf.subarray(0, got));
          at += got;
        }
      } finally {
        r.close();
      }
    }
    const zeros = Buffer.alloc(Math.min(CHUNK, Math.max(0, target - keep)));
    for (let left = target - keep; left > 0; left -= zeros.length) w.write(left >= zeros.length ? zeros : zeros.subarray(0, left));
    w.commit();
  } catch (e) {
    w.abort();
    throw e;
  }
}

/** -s [+-<>/%]NUM[unit], as GNU truncate reads it. */
function parseSize(value: string): SizeSpec {
  let s = value.replace(/^\s+/, '');
  let op: SizeOp = '=';
  if ('+-<>/%'.includes(s[0] ?? 'x')) {
    op = s[0] as SizeOp;
    s = s.slice(1).replace(/^\s+/, '');
  }
  // xstrtoimax: a sign after the modifier is the number's own.
  const neg = s.startsWith('-');
  const r = xstrtoumax(neg ? s.slice(1) : s, 'EgGkKmMPtTYZ0');
  if (r.err !== 'ok' || (neg && op !== '=') || r.value > BigInt(Number.MAX_SAFE_INTEGER)) throw new OptionError(`Invalid number: ${quoteAlways(value)}`, false);
  let n = Number(r.value);
  if (neg) {
    if (n !== 0) throw new OptionError(`Invalid number: ${quoteAlways(value)}`, false);
    n = 0;
  }
  if ((op === '/' || op === '%') && n === 0) throw new OptionError('division by zero', false);
  return { op, n };
}
