import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';

/**
 * GNU cmp (diffutils 3.8) in the C locale: the first differing byte and line, or every
 * differing byte (-l), with the bytes shown (-b); -s prints nothing; -n limits, -i skips
 * (SKIP or SKIP1:SKIP2, and the operands SKIP1 SKIP2). Files are read through the zone.
 */
const SUFFIXES: Record<string, number> = { '': 1, kB: 1000, K: 1024, k: 1024, KiB: 1024, MB: 1e6, M: 1024 ** 2, MiB: 1024 ** 2, GB: 1e9, G: 1024 ** 3, GiB: 1024 ** 3 };

function byteCount(v: string, what: string): number {
  const m = /^(\d+)([A-Za-z]*)$/.exec(v);
  const mult = m ? SUFFIXES[m[2]!] : undefined;
  if (!m || mult === undefined) throw new UsageError(`invalid ${what} value ${gnuQuote(v)}`);
  return Number(m[1]) * mult;
}

function skips(v: string): [number, number] {
  const i = v.indexOf(':');
  if (i < 0) {
    const n = byteCount(v, '--ignore-initial');
    return [n, n];
  }
  return [byteCount(v.slice(0, i), '--ignore-initial'), byteCount(v.slice(i + 1), '--ignore-initial')];
}

/** cmp's sprintc: the byte in caret / M- notation. */
function showByte(c: number): string {
  let s = '';
  if (c >= 128) {
    s += 'M-';
    c -= 128;
  }
  if (c < 32) return s + '^' + String.fromCharCode(c + 64);
  if (c === 127) return s + '^?';
  return s + String.fromCharCode(c);
}

const oct = (n: number) => n.toString(8).padStart(3, ' ');

export default defineCommand({
  name: 'cmp',
  summary: 'Compare two files byte by byte.',
  usage: 'FILE1 [FILE2 [SKIP1 [SKIP2]]]',
  mutates: false,
  reference: 'GNU diffutils 3.8',
  tryHelpNamed: true,
  flags: [
    { key: 'b', short: 'b', long: 'print-bytes', help: 'print differing bytes' },
    { key: 'i', short: 'i', long: 'ignore-initial', kind: 'string', arg: 'SKIP', help: 'skip first SKIP bytes of both inputs (SKIP1:SKIP2: of each)' },
    { key: 'l', short: 'l', long: 'verbose', help: 'output byte numbers and differing byte values' },
    { key: 'n', short: 'n', long: 'bytes', kind: 'string', arg: 'LIMIT', help: 'compare at most LIMIT bytes' },
    { key: 's', short: 's', long: 'quiet', help: 'suppress all normal output' },
    { key: 's', long: 'silent', help: 'suppress all normal output' },
  ],
  async run(ctx) {
    const v = ctx.opts;
    if (v.has('l') && v.has('s')) throw new UsageError('options -l and -s are incompatible');
    const skip: [number, number] = [0, 0];
    for (const iv of v.all('i')) {
      const [a, b] = skips(iv);
      skip[0] = a;
      skip[1] = b;
    }
    let limit = Infinity;
    for (const nv of v.all('n')) limit = Math.min(limit, byteCount(nv, '--bytes'));
    const ops = ctx.operands;
    if (ops.length === 0) throw new UsageError(`missing operand after ${gnuQuote('cmp')}`);
    if (ops.length > 4) throw new UsageError(`extra operand ${gnuQuote(ops[4]!)}`);
    if (ops[2] !== undefined) skip[0] = byteCount(ops[2], '--ignore-initial');
    if (ops[3] !== undefined) skip[1] = byteCount(ops[3], '--ignore-initial');
    const names = [ops[0]!, ops[1] ?? '-'];
    const data: Buffer[] = [];
    const regular: boolean[] = [];
    for (const name of names) {
      try {
        if (name === '-') {
          data.push(data.length === 1 && names[0] === '-' ? data[0]! : await ctx.stdin.readAll());
          regular.push(false);
        } else {
          data.push(ctx.fs.readFile(name, ctx.cwd));
          regular.push(true);
        }
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await ctx.warn(`${name}: ${e.reason}`);
        return 2;
      }
    }
    const mode = v.has('s') ? 's' : v.has('l') ? 'l' : 'first';
    return compare(ctx, names, data.map((d, i) => d.subarray(Math.min(skip[i]!, d.length))), regular, limit, mode, v.has('b'));
  },
});

async function compare(ctx: CommandContext, names: string[], d: Buffer[], regular: boolean[], limit: number, mode: 's' | 'l' | 'first', bytes: boolean): Promise<number> {
  const [a, b] = d as [Buffer, Buffer];
  if (names[0] === names[1] && names[0] !== '-' && a.length === b.length) return 0;
  // -s: files of different sizes differ, nothing read
  const n = Math.min(a.length, b.length, limit);
  if (mode === 'l') {
    let max = limit;
    for (let f = 0; f < 2; f++) if (regular[f]) max = Math.min(max, d[f]!.length);
    const width = String(max === Infinity ? 0 : max).length;
    let out = '';
    let differ = false;
    for (let i = 0; i < n; i++) {
      if (a[i] === b[i]) continue;
      differ = true;
      const off = String(i + 1).padStart(width, ' ');
      out += bytes ? `${off} ${oct(a[i]!)} ${showByte(a[i]!).padEnd(4, ' ')} ${oct(b[i]!)} ${showByte(b[i]!)}\n` : `${off} ${oct(a[i]!)} ${oct(b[i]!)}\n`;
      if (out.length > 1 << 16) {
        await ctx.stdout.write(out);
        out = '';
      }
    }
    if (out) await ctx.stdout.write(out);
    if (n < limit && a.length !== b.length) {
      const short = a.length < b.length ? 0 : 1;
      await eof(ctx, names[short]!, d[short]!, n, false);
      return 1;
    }
    return differ ? 1 : 0;
  }
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  if (i < n) {
    if (mode === 's') return 1;
    let line = 1;
    for (let k = 0; k < i; k++) if (a[k] === 10) line++;
    const extra = bytes ? ` is ${oct(a[i]!)} ${showByte(a[i]!)} ${oct(b[i]!)} ${showByte(b[i]!)}` : '';
    await ctx.stdout.write(`${names[0]} ${names[1]} differ: ${bytes ? 'byte' : 'char'} ${i + 1}, line ${line}${extra}\n`);
    return 1;
  }
  if (n < limit && a.length !== b.length) {
    if (mode === 's') return 1;
    const short = a.length < b.length ? 0 : 1;
    await eof(ctx, names[short]!, d[short]!, n, true);
    return 1;
  }
  return 0;
}

async function eof(ctx: CommandContext, name: string, data: Buffer, at: number, withLine: boolean): Promise<void> {
  if (at === 0) {
    await ctx.warn(`EOF on ${name} which is empty`);
    return;
  }
  if (!withLine) {
    await ctx.warn(`EOF on ${name} after byte ${at}`);
    return;
  }
  let lines = 0;
  for (let k = 0; k < at; k++) if (data[k] === 10) lines++;
  const complete = data[at - 1] === 10;
  await ctx.warn(`EOF on ${name} after byte ${at}, ${complete ? 'line' : 'in line'} ${complete ? lines : lines + 1}`);
}
