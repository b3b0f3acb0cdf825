import { defineCommand, OptionError, UsageError } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { quoteAlways } from '../../src/gnulib/quote.js';
import { xstrtoumax } from '../../src/gnulib/gnu-number.js';
import { xdectoint } from '../../src/gnulib/xdectoint.js';
import { ByteSource, RandInt, RandomSourceError, randperm } from './random.js';

const RESERVOIR_MIN_INPUT = 8192 * 1024;

/**
 * GNU shuf (coreutils 9.1) with gnulib's randint/randperm: given --random-source=FILE (a
 * file in the zone), the output is GNU's for the same bytes, reservoir sampling included
 * (standard input with -n, or a file over 8 MiB). Without it the bytes come from
 * node:crypto. -o writes its file through the Vfs. -r without -n stops at the output cap.
 */
export default defineCommand({
  name: 'shuf',
  summary: 'Write a random permutation of the input lines to standard output. With no FILE, or when FILE is -, read standard input.',
  usage: '[OPTION]... [FILE]\n  or:  shuf -e [OPTION]... [ARG]...\n  or:  shuf -i LO-HI [OPTION]...',
  mutates: (args) => args.some((a) => a === '-o' || a.startsWith('--o') || /^-[^-]*o/.test(a)),
  usageStatus: 1,
  flags: [
    { key: 'e', short: 'e', long: 'echo', help: 'treat each ARG as an input line' },
    { key: 'i', short: 'i', long: 'input-range', kind: 'string', arg: 'LO-HI', help: 'treat each number LO through HI as an input line' },
    { key: 'n', short: 'n', long: 'head-count', kind: 'string', arg: 'COUNT', help: 'output at most COUNT lines' },
    { key: 'o', short: 'o', long: 'output', kind: 'string', arg: 'FILE', help: 'write result to FILE instead of standard output' },
    { key: 'rs', long: 'random-source', kind: 'string', arg: 'FILE', help: 'get random bytes from FILE' },
    { key: 'r', short: 'r', long: 'repeat', help: 'output lines can be repeated' },
    { key: 'z', short: 'z', long: 'zero-terminated', help: 'line delimiter is NUL, not newline' },
  ],
  async run(ctx) {
    const v = ctx.values;
    let lo = 0n;
    let hi = -1n;
    let range = false;
    let head = Infinity;
    let rs: string | undefined;
    let outFile: string | undefined;
    for (const o of ctx.opts.order) {
      if (o.key === 'i') {
        if (range) throw new OptionError('multiple -i options specified', false);
        range = true;
        const dash = o.value.indexOf('-');
        const num = (t: string) => {
          const x = xdectoint(t, 0n, (1n << 64n) - 1n, '', 'invalid input range');
          if ('error' in x) throw new OptionError(x.error, false);
          return x.value;
        };
        if (dash >= 0) lo = num(o.value.slice(0, dash));
        hi = num(o.value.slice(dash + 1));
        if (dash < 0 || hi < lo - 1n || (lo === 0n && hi === (1n << 64n) - 1n)) throw new OptionError(`invalid input range: ${gnuQuote(o.value)}`, false);
      } else if (o.key === 'n') {
        const r = xstrtoumax(o.value, '');
        if (r.err !== 'ok' && r.err !== 'overflow') throw new OptionError(`invalid line count: ${gnuQuote(o.value)}`, false);
        head = Math.min(head, r.value > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(r.value));
      } else if (o.key === 'rs') {
        if (rs !== undefined && rs !== o.value) throw new OptionError('multiple random sources specified', false);
        rs = o.value;
      } else if (o.key === 'o') {
        if (outFile !== undefined && outFile !== o.value) throw new OptionError('multiple output files specified', false);
        outFile = o.value;
      }
    }
    if (v.e && range) throw new UsageError('cannot combine -e and -i options');
    const eol = v.z ? 0 : 0x0a;
    let lines: Buffer[] | null = null;
    let nLines = 0;
    let reservoirFrom: Buffer | null = null;
    if (v.e) {
      lines = ctx.operands.map((s) => Buffer.from(s, 'utf8'));
      nLines = lines.length;
    } else if (range) {
      if (ctx.operands.length) throw new UsageError(`extra operand ${quoteAlways(ctx.operands[0]!)}`);
      nLines = Number(hi - lo + 1n);
    } else {
      if (ctx.operands.length > 1) throw new UsageError(`extra operand ${quoteAlways(ctx.operands[1]!)}`);
      const name = ctx.operands[0] ?? '-';
      let data: Buffer;
      try {
        data = name === '-' ? await ctx.stdin.readAll() : ctx.fs.readFile(name, ctx.cwd);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await ctx.warn(e.errno === 'EISDIR' ? `read error: ${e.reason}` : `${name}: ${e.reason}`);
        return 1;
      }
      const big = name === '-' || data.length > RESERVOIR_MIN_INPUT;
      if (!v.r && head !== Infinity && big) reservoirFrom = data;
      else {
        lines = split(data, eol);
        nLines = lines.length;
      }
    }
    let source: ByteSource;
    if (rs !== undefined) {
      try {
        source = new ByteSource(ctx.fs.readFile(rs, ctx.cwd), rs);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await ctx.warn(e.errno === 'EISDIR' ? `${gnuQuote(rs)}: read error: ${e.reason}` : `${rs}: ${e.reason}`);
        return 1;
      }
    } else source = new ByteSource(null, '');
    const r = new RandInt(source);
    const parts: Buffer[] = [];
    const term = Buffer.from([eol]);
    const line = (i: number) => (lines ? lines[i]! : Buffer.from(String(lo + BigInt(i))));
    // Lines go to standard output as they are drawn (stopping at the output cap), or are kept
    // for -o FILE, up to the buffer limit: false when no more should be drawn.
    const room = () => (ctx.stdout.room ? ctx.stdout.room() : Infinity);
    let size = 0;
    let tooBig = false;
    const emit = async (chunk: Buffer[]): Promise<boolean> => {
      if (outFile === undefined) {
        await ctx.stdout.write(Buffer.concat(chunk));
        return room() > 0;
      }
      parts.push(...chunk);
      for (const c of chunk) size += c.length;
      tooBig = size > ctx.limits.maxBufferBytes;
      return !tooBig;
    };
    try {
      if (reservoirFrom) {
        lines = reservoir(reservoirFrom, eol, head, r);
        nLines = lines.length;
        head = nLines;
      }
      if (v.r) {
        if (head === 0) return 0;
        if (nLines === 0) {
          await ctx.warn('no lines to repeat');
          return 1;
        }
        if (head === Infinity && outFile !== undefined) {
          // GNU writes without end; standard output at least stops at the output cap
          await ctx.warn(`${outFile}: --repeat without -n would write without end: give -n COUNT`);
          return 1;
        }
        for (let i = 0; i < head;) {
          const chunk: Buffer[] = [];
          for (let k = 0; k < 1024 && i < head; k++, i++) chunk.push(line(r.choose(nLines)), term);
          if (!(await emit(chunk))) break;
        }
      } else {
        // Without --random-source the permutation is drawn as it is written, so `shuf -i
        // 1-99999999` stops at the output cap; with one, it is drawn whole first (GNU fails with
        // nothing written when the file runs out).
        const perm = randperm(r, Math.min(head, nLines), nLines);
        let chunk: Buffer[] = [];
        let more = true;
        for (const i of rs === undefined ? perm : [...perm]) {
          chunk.push(line(i), term);
          if (chunk.length < 2048) continue;
          more = await emit(chunk);
          chunk = [];
          if (!more) break;
        }
        if (more && chunk.length) await emit(chunk);
      }
      if (tooBig) {
        await ctx.warn(`${outFile}: refusing to write more than ${ctx.limits.maxBufferBytes} bytes (give -n COUNT)`);
        return 1;
      }
    } catch (e) {
      if (e instanceof RandomSourceError) {
        await ctx.warn(e.message);
        return 1;
      }
      throw e;
    }
    const data = Buffer.concat(parts);
    if (outFile !== undefined) {
      try {
        ctx.fs.writeFile(outFile, data, ctx.cwd);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await ctx.warn(`${outFile}: ${e.reason}`);
        return 1;
      }
    } else if (data.length) await ctx.stdout.write(data);
    return 0;
  },
});

function split(data: Buffer, eol: number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const i = data.indexOf(eol, at);
    const end = i < 0 ? data.length : i;
    out.push(data.subarray(at, end));
    at = end + 1;
  }
  return out;
}

/** read_input_reservoir_sampling: the first k lines, then each next line replaces a random one (a draw after the last line too, as GNU makes). */
function reservoir(data: Buffer, eol: number, k: number, r: RandInt): Buffer[] {
  const all = split(data, eol);
  const rsrv: Buffer[] = all.slice(0, k);
  let n = rsrv.length;
  if (k > 0 && all.length >= k && k < Infinity) {
    let next = k;
    for (;;) {
      const j = r.choose(n + 1);
      if (next >= all.length) break;
      if (j < k) rsrv[j] = all[next]!;
      next++;
      n++;
    }
  }
  return rsrv;
}
