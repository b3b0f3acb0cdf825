// od (coreutils 9.1): the input as octal, decimal, hex, float or characters, block by block.
import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import { ConcatReader } from '../../src/gnulib/byte-input.js';
import { gnuQuote, toCount, xstrtoumax, type StrtolError } from '../../src/gnulib/gnu-number.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { decodeFormat, makeRenderer, type Spec } from './format.js';

const MULTIPLIERS = 'bEGKkMmPTYZ0';
const LONG_NAMES: Record<string, string> = { j: 'skip-bytes', N: 'read-bytes', S: 'strings', w: 'width' };

/** xstrtol_fatal: the message for a bad number argument, named as it was given. */
function numberError(err: StrtolError, flag: string, arg: string): string {
  if (err === 'invalid') return `invalid ${flag} argument ${gnuQuote(arg)}`;
  if (err === 'overflow') return `${flag} argument ${gnuQuote(arg)} too large`;
  return `invalid suffix in ${flag} argument ${gnuQuote(arg)}`;
}

class Fatal extends Error {}

/** POSIX's old offset operand: [+]N[b|B], octal unless 0x (a '.' would mean decimal, but 9.1 refuses it). */
function parseOldOffset(s: string): number | undefined {
  if (s === '') return undefined;
  if (s[0] === '+') s = s.slice(1);
  const base = s.includes('.') ? 10 : s[0] === '0' && (s[1] === 'x' || s[1] === 'X') ? 16 : 8;
  const r = xstrtoumax(s, 'Bb', base);
  if (r.err !== 'ok' || s.startsWith('-') || /^\s/.test(s)) return undefined;
  return toCount(r.value);
}

export default defineCommand({
  name: 'od',
  summary: 'Write an unambiguous representation, octal bytes by default, of FILE to standard output. With more than one FILE argument, concatenate them in the listed order to form the input. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'A', short: 'A', long: 'address-radix', kind: 'string', arg: 'RADIX', help: 'output format for file offsets; RADIX is one of [doxn], for Decimal, Octal, Hex or None' },
    { key: 'endian', long: 'endian', kind: 'string', arg: '{big|little}', help: 'swap input bytes according the specified order' },
    { key: 'j', short: 'j', long: 'skip-bytes', kind: 'string', arg: 'BYTES', help: 'skip BYTES input bytes first' },
    { key: 'N', short: 'N', long: 'read-bytes', kind: 'string', arg: 'BYTES', help: 'limit dump to BYTES input bytes' },
    { key: 'S', short: 'S', kind: 'string', arg: 'BYTES', help: 'output strings of at least BYTES graphic chars; 3 is implied when BYTES is not specified' },
    { key: 'S', long: 'strings', kind: 'optional', arg: 'BYTES', help: 'same as -S' },
    { key: 't', short: 't', long: 'format', kind: 'string', arg: 'TYPE', help: 'select output format or formats' },
    { key: 'v', short: 'v', long: 'output-duplicates', help: 'do not use * to mark line suppression' },
    { key: 'w', short: 'w', long: 'width', kind: 'optional', arg: 'BYTES', help: 'output BYTES bytes per output line; 32 is implied when BYTES is not specified' },
    { key: 'traditional', long: 'traditional', help: 'accept arguments in third form above' },
    { key: 'old', short: 'a', value: 'a', help: 'same as -t a,  select named characters, ignoring high-order bit' },
    { key: 'old', short: 'b', value: 'o1', help: 'same as -t o1, select octal bytes' },
    { key: 'old', short: 'c', value: 'c', help: 'same as -t c,  select printable characters or backslash escapes' },
    { key: 'old', short: 'd', value: 'u2', help: 'same as -t u2, select unsigned decimal 2-byte units' },
    { key: 'old', short: 'f', value: 'fF', help: 'same as -t fF, select floats' },
    { key: 'old', short: 'i', value: 'dI', help: 'same as -t dI, select decimal ints' },
    { key: 'old', short: 'l', value: 'dL', help: 'same as -t dL, select decimal longs' },
    { key: 'old', short: 'o', value: 'o2', help: 'same as -t o2, select octal 2-byte units' },
    { key: 'old', short: 's', value: 'd2', help: 'same as -t d2, select decimal 2-byte units' },
    { key: 'old', short: 'x', value: 'x2', help: 'same as -t x2, select hexadecimal 2-byte units' },
    { key: 'old', short: 'B', value: 'o2', help: 'same as -o (obsolescent)' },
    { key: 'old', short: 'D', value: 'u4', help: 'same as -t u4 (obsolescent)' },
    { key: 'old', short: 'e', value: 'fD', help: 'same as -t fD (obsolescent)' },
    { key: 'old', short: 'F', value: 'fD', help: 'same as -t fD (obsolescent)' },
    { key: 'old', short: 'H', value: 'x4', help: 'same as -t x4 (obsolescent)' },
    { key: 'old', short: 'X', value: 'x4', help: 'same as -t x4 (obsolescent)' },
    { key: 'old', short: 'I', value: 'dL', help: 'same as -t dL (obsolescent)' },
    { key: 'old', short: 'L', value: 'dL', help: 'same as -t dL (obsolescent)' },
    { key: 'old', short: 'O', value: 'o4', help: 'same as -t o4 (obsolescent)' },
    { key: 'old', short: 'h', value: 'x2', help: 'same as -t x2 (obsolescent)' },
  ],
  notes: 'TYPE is made up of one or more of these specifications: a (named character), c (printable character or backslash escape), d[SIZE] (signed decimal), f[SIZE] (floating point), o[SIZE] (octal), u[SIZE] (unsigned decimal), x[SIZE] (hexadecimal); SIZE is a number or C, S, I, L (integers) or F, D, L (floats); a z suffix adds the printable characters.',
  async run(ctx) {
    try {
      return await od(ctx);
    } catch (e) {
      if (e instanceof Fatal) {
        await ctx.warn(e.message);
        return 1;
      }
      throw e;
    }
  },
});

async function od(ctx: CommandContext): Promise<number> {
  let modern = false;
  let ok = true;
  let radix = 8;
  let addrPad = 7;
  let noAddress = false;
  let skip = 0;
  let limit: number | undefined;
  let stringsMin: number | undefined;
  let width: number | undefined;
  let traditional = false;
  let bigEndian = false;
  let verbose = false;
  const specs: Spec[] = [];
  for (const o of ctx.opts.order) {
    const flag = o.flag.startsWith('--') ? '--' + longOf(o.key) : o.flag;
    switch (o.key) {
      case 'A': {
        modern = true;
        const c = o.value[0] ?? '\0';
        if (c === 'd' || c === 'o') [radix, addrPad, noAddress] = [c === 'd' ? 10 : 8, 7, false];
        else if (c === 'x') [radix, addrPad, noAddress] = [16, 6, false];
        else if (c === 'n') [addrPad, noAddress] = [0, true];
        else throw new Fatal(`invalid output address radix '${c}'; it must be one character from [doxn]`);
        break;
      }
      case 'j':
        modern = true;
        skip = numArg(flag, o.value);
        break;
      case 'N':
        modern = true;
        limit = numArg(flag, o.value);
        break;
      case 'S':
        modern = true;
        stringsMin = o.value === '' && o.flag.startsWith('--') ? 3 : numArg(flag, o.value);
        break;
      case 't': {
        modern = true;
        const d = decodeFormat(o.value);
        if (typeof d === 'string') {
          await ctx.warn(d);
          ok = false;
        } else specs.push(...d);
        break;
      }
      case 'old': {
        const d = decodeFormat(o.value);
        if (typeof d !== 'string') specs.push(...d);
        break;
      }
      case 'v':
        modern = true;
        verbose = true;
        break;
      case 'w': {
        modern = true;
        if (o.value === '') width = 32;
        else {
          const r = xstrtoumax(o.value, '', 10);
          if (r.err !== 'ok') throw new Fatal(numberError(r.err, flag, o.value));
          width = toCount(r.value);
        }
        break;
      }
      case 'traditional':
        traditional = true;
        break;
      case 'endian': {
        const hits = ['little', 'big'].filter((n) => n.startsWith(o.value));
        const exact = ['little', 'big'].includes(o.value);
        if (!exact && hits.length !== 1) {
          const what = hits.length === 0 ? 'invalid' : 'ambiguous';
          throw new UsageError(`${what} argument ${gnuQuote(o.value)} for '--endian'\nValid arguments are:\n  - 'little'\n  - 'big'`);
        }
        bigEndian = (exact ? o.value : hits[0]) === 'big';
        break;
      }
    }
  }
  if (!ok) return 1;
  if (stringsMin !== undefined && specs.length > 0) throw new Fatal('no type may be specified when dumping strings');

  let files = [...ctx.operands];
  let pseudo: number | undefined;
  if (!modern || traditional) {
    if (files.length === 1) {
      const o1 = (traditional || files[0]![0] === '+') ? parseOldOffset(files[0]!) : undefined;
      if (o1 !== undefined) {
        skip = o1;
        files = [];
      }
    } else if (files.length === 2) {
      const second = files[1]!;
      const o2 = (traditional || second[0] === '+' || /^[0-9]/.test(second)) ? parseOldOffset(second) : undefined;
      if (o2 !== undefined) {
        const o1 = traditional ? parseOldOffset(files[0]!) : undefined;
        if (o1 !== undefined) {
          skip = o1;
          pseudo = o2;
          files = [];
        } else {
          skip = o2;
          files = [files[0]!];
        }
      }
    } else if (files.length === 3 && traditional) {
      const o1 = parseOldOffset(files[1]!);
      const o2 = parseOldOffset(files[2]!);
      if (o1 !== undefined && o2 !== undefined) {
        skip = o1;
        pseudo = o2;
        files = [files[0]!];
      }
    }
    if (traditional && files.length > 1) {
      await ctx.warn(`extra operand ${gnuQuote(files[1]!)}`);
      throw new UsageError('compatibility mode supports at most one file');
    }
  }
  let address: (n: number) => string;
  const std = (n: number) => {
    const v = n < 0 ? (1n << 64n) + BigInt(n) : n;
    return v.toString(radix).padStart(addrPad, '0');
  };
  if (pseudo !== undefined) {
    const shift = pseudo - skip;
    if (noAddress) {
      [radix, addrPad] = [8, 7];
      address = (n) => `(${std(n + shift)})`;
    } else address = (n) => `${std(n)} (${std(n + shift)})`;
  } else address = noAddress ? () => '' : std;

  const end = limit === undefined ? Infinity : skip + limit;
  if (specs.length === 0) specs.push(...(decodeFormat('oS') as Spec[]));
  const input = new ConcatReader(ctx, files.length > 0 ? files : ['-'], (name, e) => ctx.warn(`${quoteNameColon(name)}: ${e.reason}`));
  try {
    if (!(await input.start())) return 1;
    if ((await input.skip(skip)) > 0) throw new Fatal('cannot skip past end of combined input');
    if (stringsMin !== undefined) await dumpStrings(ctx, input, stringsMin, skip, end, address);
    else await dump(ctx, input, specs, { width, skip, end, verbose, bigEndian, address, addrPad });
  } finally {
    input.finish();
  }
  return input.ok ? 0 : 1;

  function numArg(flag: string, v: string): number {
    const r = xstrtoumax(v, MULTIPLIERS, 0);
    if (r.err !== 'ok') throw new Fatal(numberError(r.err, flag, v));
    return toCount(r.value);
  }
}

function longOf(key: string): string {
  return key === 'A' ? 'address-radix' : key === 't' ? 'format' : LONG_NAMES[key] ?? key;
}

interface DumpOptions {
  width: number | undefined;
  skip: number;
  end: number;
  verbose: boolean;
  bigEndian: boolean;
  address: (n: number) => string;
  addrPad: number;
}

const FLUSH_AT = 64 * 1024;

async function dump(ctx: CommandContext, input: ConcatReader, specs: Spec[], o: DumpOptions): Promise<void> {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const lcm = specs.reduce((l, s) => (l * s.size) / gcd(l, s.size), 1);
  let bpb: number;
  if (o.width !== undefined) {
    if (o.width !== 0 && o.width % lcm === 0) bpb = o.width;
    else {
      await ctx.warn(`warning: invalid width ${o.width}; using ${lcm} instead`);
      bpb = lcm;
    }
  } else bpb = lcm < 16 ? lcm * Math.floor(16 / lcm) : lcm;
  let widthPerBlock = 0;
  for (const s of specs) widthPerBlock = Math.max(widthPerBlock, (s.fieldWidth + 1) * (bpb / s.size));
  for (const s of specs) s.pad = widthPerBlock - s.fieldWidth * (bpb / s.size);
  const renders = specs.map((s) => makeRenderer(s, bpb, o.bigEndian));
  const indent = ' '.repeat(o.addrPad);

  let out: string[] = [];
  let outLen = 0;
  const emit = async (s: string) => {
    out.push(s);
    outLen += s.length;
    if (outLen >= FLUSH_AT) {
      const b = Buffer.from(out.join(''), 'latin1');
      out = [];
      outLen = 0;
      await ctx.stdout.write(b);
    }
  };
  let offset = o.skip;
  let prev: Uint8Array | null = null;
  let prevAt = 0;
  let starred = false;
  const block = (buf: Uint8Array, at: number, n: number): string => {
    let s = '';
    for (let k = 0; k < renders.length; k++) s += (k === 0 ? o.address(offset) : indent) + renders[k]!(buf, at, n, bpb) + '\n';
    return s;
  };
  let carry: Uint8Array = new Uint8Array(0);
  let done = false;
  while (!done) {
    const want = Math.min(o.end - offset - carry.length, 256 * 1024);
    let chunk = want > 0 ? await input.read(want) : null;
    if (!chunk) {
      done = true;
      chunk = new Uint8Array(0);
    }
    let buf: Uint8Array;
    if (carry.length > 0) {
      buf = new Uint8Array(carry.length + chunk.length);
      buf.set(carry);
      buf.set(chunk, carry.length);
    } else buf = chunk;
    let at = 0;
    let lines = '';
    for (; at + bpb <= buf.length; at += bpb) {
      if (!o.verbose && prev && equal(prev, prevAt, buf, at, bpb)) {
        if (!starred) {
          lines += '*\n';
          starred = true;
        }
      } else {
        starred = false;
        lines += block(buf, at, bpb);
      }
      prev = buf;
      prevAt = at;
      offset += bpb;
      if (lines.length >= FLUSH_AT) {
        await emit(lines);
        lines = '';
      }
    }
    if (lines) await emit(lines);
    carry = buf.slice(at);
    if (prev === buf) {
      prev = buf.slice(prevAt, prevAt + bpb);
      prevAt = 0;
    }
  }
  if (carry.length > 0) {
    const padded = new Uint8Array(bpb);
    padded.set(carry);
    await emit(block(padded, 0, carry.length));
    offset += carry.length;
  }
  const last = o.address(offset);
  await emit(last === '' ? '' : last + '\n');
  if (outLen > 0) await ctx.stdout.write(Buffer.from(out.join(''), 'latin1'));
}

function equal(a: Uint8Array, ai: number, b: Uint8Array, bi: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (a[ai + k] !== b[bi + k]) return false;
  return true;
}

/** -S: NUL-terminated runs of at least `min` printable bytes (od.c dump_strings, its quirks included). */
async function dumpStrings(ctx: CommandContext, input: ConcatReader, min: number, skip: number, end: number, address: (n: number) => string): Promise<void> {
  let chunk: Uint8Array | null = null;
  let ci = 0;
  const next = async (): Promise<number> => {
    while (!chunk || ci >= chunk.length) {
      chunk = await input.read();
      ci = 0;
      if (!chunk) return -1;
    }
    return chunk[ci++]!;
  };
  const printable = (c: number) => c >= 32 && c < 127;
  let addr = skip;
  let out = '';
  const limited = end !== Infinity;
  outer: for (;;) {
    if (limited && (end < min || end - min <= addr)) break;
    const buf: number[] = [];
    for (let i = 0; i < min; i++) {
      const c = await next();
      addr++;
      if (c < 0) break outer;
      if (!printable(c)) continue outer;
      buf.push(c);
    }
    while (!limited || addr < end) {
      const c = await next();
      addr++;
      if (c < 0) break outer;
      if (c === 0) break;
      if (!printable(c)) continue outer;
      buf.push(c);
    }
    const a = address(addr - buf.length - 1);
    out += (a === '' ? '' : a + ' ') + Buffer.from(buf).toString('latin1') + '\n';
    if (out.length >= FLUSH_AT) {
      await ctx.stdout.write(Buffer.from(out, 'latin1'));
      out = '';
    }
  }
  if (out) await ctx.stdout.write(Buffer.from(out, 'latin1'));
}
