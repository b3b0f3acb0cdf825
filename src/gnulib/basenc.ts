/**
 * base64, base32 and basenc (coreutils 9.1's basenc.c with gnulib's decoders): encoders that
 * wrap at -w columns, and decoders that keep the bytes a bad quantum still gave before
 * "invalid input", as GNU writes them. Both stream: input is taken in blocks (GNU's own
 * sizes, which decide what z85 prints before its length error), output is written per block.
 */
import { VfsError } from '../vfs/index.js';
import { quoteAlways, quoteNameColon } from './quote.js';
import { UsageError } from '../command/options.js';
import type { CommandContext, CommandDef, FlagSpec } from '../command/types.js';

export type Encoding = 'base64' | 'base64url' | 'base32' | 'base32hex' | 'base16' | 'base2msbf' | 'base2lsbf' | 'z85';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64URL = B64.slice(0, 62) + '-_';
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B32HEX = '0123456789ABCDEFGHIJKLMNOPQRSTUV';
const B16 = '0123456789ABCDEF';
const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';

const ALPHABET: Record<Encoding, string> = {
  base64: B64, base64url: B64URL, base32: B32, base32hex: B32HEX, base16: B16, base2msbf: '01', base2lsbf: '01', z85: Z85,
};

function table(alphabet: string): Int16Array {
  const t = new Int16Array(256).fill(-1);
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  return t;
}

/** Input block of the encoder: a multiple of 3, 4 and 5 (basenc.c's ENC_BLOCKSIZE). */
const ENC_BLOCK = 1024 * 3 * 10;

function encodeBlock(enc: Encoding, b: Uint8Array): string {
  // a view, not Buffer.from(b): that copies a Buffer byte by byte in JavaScript
  const view = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (enc === 'base64') return view.toString('base64');
  if (enc === 'base64url') return view.toString('base64url') + '='.repeat((3 - (b.length % 3)) % 3);
  if (enc === 'base16') return view.toString('hex').toUpperCase();
  if (enc === 'base2msbf' || enc === 'base2lsbf') {
    let s = '';
    for (const byte of b) {
      const bits = byte.toString(2).padStart(8, '0');
      s += enc === 'base2msbf' ? bits : [...bits].reverse().join('');
    }
    return s;
  }
  if (enc === 'z85') {
    let s = '';
    for (let i = 0; i + 4 <= b.length; i += 4) {
      let v = ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
      const group = new Array<string>(5);
      for (let k = 4; k >= 0; k--) {
        group[k] = Z85[v % 85]!;
        v = Math.floor(v / 85);
      }
      s += group.join('');
    }
    return s;
  }
  // base32 / base32hex: 5 bytes -> 8 characters, '=' padded.
  const alpha = ALPHABET[enc];
  // Whole 5-byte groups into bytes, one latin1 string at the end (a string built a character
  // at a time made base32 of 10 MB take 1.5 s of CPU).
  const codes = Buffer.from(alpha, 'latin1');
  const whole = b.length - (b.length % 5);
  const out = Buffer.allocUnsafe((whole / 5) * 8);
  let o = 0;
  for (let i = 0; i < whole; i += 5) {
    const b0 = b[i]!, b1 = b[i + 1]!, b2 = b[i + 2]!, b3 = b[i + 3]!, b4 = b[i + 4]!;
    out[o++] = codes[b0 >> 3]!;
    out[o++] = codes[((b0 & 7) << 2) | (b1 >> 6)]!;
    out[o++] = codes[(b1 >> 1) & 31]!;
    out[o++] = codes[((b1 & 1) << 4) | (b2 >> 4)]!;
    out[o++] = codes[((b2 & 15) << 1) | (b3 >> 7)]!;
    out[o++] = codes[(b3 >> 2) & 31]!;
    out[o++] = codes[((b3 & 3) << 3) | (b4 >> 5)]!;
    out[o++] = codes[b4 & 31]!;
  }
  let s = out.toString('latin1', 0, o);
  for (let i = whole; i < b.length; i += 5) {
    const n = Math.min(5, b.length - i);
    // 40 bits: exact in a double.
    let bits = 0;
    for (let k = 0; k < 5; k++) bits = bits * 256 + (k < n ? b[i + k]! : 0);
    const chars = [2, 4, 5, 7, 8][n - 1]!;
    for (let k = 0; k < 8; k++) s += k < chars ? alpha[Math.floor(bits / 2 ** (35 - 5 * k)) % 32] : '=';
  }
  return s;
}

/**
 * A streaming decoder: `push` takes input with newlines already dropped and returns the
 * bytes decoded, or `{ bytes, bad: true }` at the first invalid quantum; `flush` decodes
 * what is left at the end.
 */
interface Decoder {
  push(chars: Uint8Array): { bytes: Buffer; bad: boolean };
  flush(): { bytes: Buffer; bad: boolean };
}

/** gnulib's decode_4 / decode_8 / z85 / base16 / base2 over quanta of `size` characters. */
function makeDecoder(enc: Encoding): Decoder {
  const t = table(ALPHABET[enc]);
  const size = enc === 'base64' || enc === 'base64url' ? 4 : enc === 'base32' || enc === 'base32hex' ? 8 : enc === 'z85' ? 5 : enc === 'base16' ? 2 : 8;
  const q: number[] = [];
  const valid = (c: number | undefined) => c !== undefined && t[c]! >= 0;
  const EQ = 0x3d;
  const quantum = (c: number[], out: number[]): boolean => {
    const v = (k: number) => t[c[k]!]!;
    if (enc === 'base64' || enc === 'base64url') {
      if (c.length < 2 || !valid(c[0]) || !valid(c[1])) return false;
      out.push(((v(0) << 2) | (v(1) >> 4)) & 0xff);
      if (c.length === 2) return false;
      if (c[2] === EQ) return c.length === 4 && c[3] === EQ;
      if (!valid(c[2])) return false;
      out.push(((v(1) << 4) | (v(2) >> 2)) & 0xff);
      if (c.length === 3) return false;
      if (c[3] === EQ) return c.length === 4;
      if (!valid(c[3])) return false;
      out.push(((v(2) << 6) | v(3)) & 0xff);
      return true;
    }
    if (enc === 'base32' || enc === 'base32hex') {
      if (c.length < 8 || !valid(c[0]) || !valid(c[1])) return false;
      out.push(((v(0) << 3) | (v(1) >> 2)) & 0xff);
      const pad = (from: number) => c.slice(from).every((x) => x === EQ);
      if (c[2] === EQ) return pad(2);
      if (!valid(c[2]) || !valid(c[3])) return false;
      out.push(((v(1) << 6) | (v(2) << 1) | (v(3) >> 4)) & 0xff);
      if (c[4] === EQ) return pad(4);
      if (!valid(c[4])) return false;
      out.push(((v(3) << 4) | (v(4) >> 1)) & 0xff);
      if (c[5] === EQ) return pad(5);
      if (!valid(c[5]) || !valid(c[6])) return false;
      out.push(((v(4) << 7) | (v(5) << 2) | (v(6) >> 3)) & 0xff);
      if (c[7] === EQ) return true;
      if (!valid(c[7])) return false;
      out.push(((v(6) << 5) | v(7)) & 0xff);
      return true;
    }
    if (c.length < size || !c.every(valid)) return false;
    if (enc === 'z85') {
      let n = 0;
      for (let k = 0; k < 5; k++) n = n * 85 + v(k);
      if (n > 0xffffffff) return false;
      out.push(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
      return true;
    }
    if (enc === 'base16') {
      out.push((v(0) << 4) | v(1));
      return true;
    }
    let byte = 0;
    for (let k = 0; k < 8; k++) byte |= v(k) << (enc === 'base2msbf' ? 7 - k : k);
    out.push(byte);
    return true;
  };
  return {
    push(chars) {
      const out: number[] = [];
      let fast: Buffer | undefined;
      // The quantum the last chunk began: finished first, so the rest of this chunk can take the
      // fast path (a chunk of a length not a multiple of 4 sent every later one to the byte loop:
      // base64 -d of 10 MB took 2.2 s of CPU).
      let head: Buffer | undefined;
      const b32 = enc === 'base32' || enc === 'base32hex';
      if ((size === 4 || b32) && q.length > 0) {
        let i = 0;
        while (q.length > 0 && i < chars.length) {
          q.push(chars[i++]!);
          if (q.length === size) {
            const ok = quantum(q, out);
            q.length = 0;
            if (!ok) return { bytes: Buffer.from(out), bad: true };
          }
        }
        chars = chars.subarray(i);
        head = Buffer.from(out);
        out.length = 0;
      }
      if (size === 4 && q.length === 0) {
        // Whole quanta of alphabet characters: node's decoder, which agrees on them.
        let end = 0;
        while (end < chars.length && t[chars[end]!]! >= 0) end++;
        end -= end % 4;
        if (end > 0) {
          fast = Buffer.from(Buffer.from(chars.buffer, chars.byteOffset, end).toString('latin1'), enc === 'base64' ? 'base64' : 'base64url');
          chars = chars.subarray(end);
        }
      } else if (b32 && q.length === 0) {
        // Whole quanta of alphabet characters (no '='): 8 characters, 5 bytes.
        let end = 0;
        while (end < chars.length && t[chars[end]!]! >= 0) end++;
        end -= end % 8;
        if (end > 0) {
          fast = Buffer.allocUnsafe((end / 8) * 5);
          let o = 0;
          for (let i = 0; i < end; i += 8) {
            const v0 = t[chars[i]!]!, v1 = t[chars[i + 1]!]!, v2 = t[chars[i + 2]!]!, v3 = t[chars[i + 3]!]!;
            const v4 = t[chars[i + 4]!]!, v5 = t[chars[i + 5]!]!, v6 = t[chars[i + 6]!]!, v7 = t[chars[i + 7]!]!;
            fast[o++] = ((v0 << 3) | (v1 >> 2)) & 0xff;
            fast[o++] = ((v1 << 6) | (v2 << 1) | (v3 >> 4)) & 0xff;
            fast[o++] = ((v3 << 4) | (v4 >> 1)) & 0xff;
            fast[o++] = ((v4 << 7) | (v5 << 2) | (v6 >> 3)) & 0xff;
            fast[o++] = ((v6 << 5) | v7) & 0xff;
          }
          chars = chars.subarray(end);
        }
      }
      const result = (bad: boolean, bytes: number[]) => ({ bytes: head || fast ? Buffer.concat([head ?? Buffer.alloc(0), fast ?? Buffer.alloc(0), Buffer.from(bytes)]) : Buffer.from(bytes), bad });
      for (const ch of chars) {
        q.push(ch);
        if (q.length === size) {
          const ok = quantum(q, out);
          q.length = 0;
          if (!ok) return result(true, enc === 'z85' ? [] : out);
        }
      }
      return result(false, out);
    },
    flush() {
      if (q.length === 0) return { bytes: Buffer.alloc(0), bad: false };
      // A partial quantum is bad; base64's decode_4 still gives the bytes its first characters make.
      const out: number[] = [];
      if (size === 4) quantum(q, out);
      return { bytes: Buffer.from(out), bad: true };
    },
  };
}

export function basencFlags(): FlagSpec[] {
  return [
    { key: 'd', short: 'd', long: 'decode', help: 'decode data' },
    { key: 'i', short: 'i', long: 'ignore-garbage', help: 'when decoding, ignore non-alphabet characters' },
    { key: 'w', short: 'w', long: 'wrap', kind: 'string', arg: 'COLS', help: 'wrap encoded lines after COLS character (default 76). Use 0 to disable line wrapping' },
  ];
}

/** base64 / base32 / basenc's run: `fixed` encoding, or the one chosen by basenc's flags. */
export async function runBasenc(ctx: CommandContext, fixed: Encoding | undefined): Promise<number> {
  const enc = fixed ?? (ctx.opts.get('enc') as Encoding | undefined);
  if (ctx.operands.length > 1) throw new UsageError(`extra operand ${quoteAlways(ctx.operands[1]!)}`);
  if (enc === undefined) throw new UsageError('missing encoding type');
  let wrap = 76;
  // GNU checks every -w as getopt meets it (xstrtoimax): a bad one dies even if a later one is
  // good; a value past intmax_t is no wrapping at all, a huge one a line that never fills.
  for (const w of ctx.opts.all('w')) {
    const m = /^[ \t\n\v\f\r]*([+-]?)(\d+)$/.exec(w);
    const v = m ? BigInt(m[2]!) : 0n;
    if (!m || (m[1] === '-' && v !== 0n)) {
      await ctx.warn(`invalid wrap size: ${quoteAlways(w)}`);
      return 1;
    }
    wrap = v > (1n << 63n) - 1n ? 0 : v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
  }
  const operand = ctx.operands[0] ?? '-';
  const source = (): AsyncIterable<Uint8Array> => (operand === '-' ? ctx.stdin : (ctx.fs.readChunks(operand, ctx.cwd) as unknown as AsyncIterable<Uint8Array>));
  try {
    return ctx.opts.has('d') ? await decode(ctx, enc, source(), ctx.opts.has('i')) : await encode(ctx, enc, source(), wrap);
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    if (e.errno === 'EISDIR') await ctx.warn(`read error: ${e.reason}`);
    else await ctx.warn(`${quoteNameColon(operand)}: ${e.reason}`);
    return 1;
  }
}

async function encode(ctx: CommandContext, enc: Encoding, source: AsyncIterable<Uint8Array>, wrap: number): Promise<number> {
  // The block stays small: V8 makes a string past 128 KiB in its large-object space, and
  // base64 of 100 MB in 768 KB blocks took 13x longer than in these.
  const size = ENC_BLOCK;
  const block = Buffer.allocUnsafe(size);
  let have = 0;
  let column = 0;
  // Encoded text goes out as bytes, a newline every `wrap` columns (lines copied into one
  // buffer, written per MiB, instead of joined as strings and written per block).
  const OUT = 1 << 20;
  let out = Buffer.allocUnsafe(OUT);
  let n = 0;
  const flushOut = async () => {
    if (n === 0) return;
    const b = out.subarray(0, n);
    out = Buffer.allocUnsafe(OUT);
    n = 0;
    await ctx.stdout.write(b);
  };
  const emit = async (text: string) => {
    const len = text.length;
    const lines = wrap === 0 ? 0 : Math.floor((column + len) / wrap);
    const need = len + lines;
    if (n + need > OUT) await flushOut();
    if (need > OUT) out = Buffer.allocUnsafe(need);
    // The text is written once, at the end of the room it will take with its newlines, and
    // its lines moved down into place (copyWithin: a memmove, no view or copy per line).
    let src = n + lines;
    out.write(text, src, len, 'latin1');
    if (wrap !== 0) {
      const end = src + len;
      while (src < end) {
        const take = Math.min(wrap - column, end - src);
        if (src !== n) out.copyWithin(n, src, src + take);
        n += take;
        src += take;
        column += take;
        if (column === wrap) {
          out[n++] = 0x0a;
          column = 0;
        }
      }
    } else n += len;
    if (n >= OUT - 64 * 1024) await flushOut();
  };
  try {
    for await (const chunk of source) {
      for (let at = 0; at < chunk.length; ) {
        const take = Math.min(size - have, chunk.length - at);
        block.set(chunk.subarray(at, at + take), have);
        have += take;
        at += take;
        if (have === size) {
          await emit(encodeBlock(enc, block));
          have = 0;
        }
      }
    }
  } catch (e) {
    await flushOut(); // what was encoded before a read error is written, as GNU does
    throw e;
  }
  if (enc === 'z85' && have % 4 !== 0) {
    await flushOut();
    await ctx.warn('invalid input (length must be multiple of 4 characters)');
    return 1;
  }
  if (have > 0) await emit(encodeBlock(enc, block.subarray(0, have)));
  await flushOut();
  if (wrap > 0 && column > 0) await ctx.stdout.write('\n');
  return 0;
}

/** The chunk without its newlines (decoders skip them wherever they are). */
function dropNewlines(chunk: Uint8Array): Uint8Array {
  let nl = chunk.indexOf(0x0a);
  if (nl < 0) return chunk;
  const out = Buffer.allocUnsafe(chunk.length);
  let n = 0;
  let start = 0;
  while (nl >= 0) {
    out.set(chunk.subarray(start, nl), n);
    n += nl - start;
    start = nl + 1;
    nl = chunk.indexOf(0x0a, start);
  }
  out.set(chunk.subarray(start), n);
  return out.subarray(0, n + chunk.length - start);
}

async function decode(ctx: CommandContext, enc: Encoding, source: AsyncIterable<Uint8Array>, ignoreGarbage: boolean): Promise<number> {
  const dec = makeDecoder(enc);
  const t = table(ALPHABET[enc]);
  // basenc.c keeps '=' under -i for every alphabet (base16 and base2 then find it invalid)
  const keep = (c: number) => t[c]! >= 0 || c === 0x3d;
  for await (const chunk of source) {
    const chars = ignoreGarbage ? chunk.filter(keep) : dropNewlines(chunk);
    const r = dec.push(chars);
    if (r.bytes.length) await ctx.stdout.write(r.bytes);
    if (r.bad) {
      await ctx.warn('invalid input');
      return 1;
    }
  }
  const r = dec.flush();
  if (r.bytes.length) await ctx.stdout.write(Buffer.from(r.bytes));
  if (r.bad) {
    await ctx.warn('invalid input');
    return 1;
  }
  return 0;
}

/** The declaration of base64 or base32 (one encoding). */
export function basencCommand(name: 'base64' | 'base32', enc: Encoding): CommandDef {
  return {
    name,
    summary: `${enc === 'base64' ? 'Base64' : 'Base32'} encode or decode FILE, or standard input, to standard output. With no FILE, or when FILE is -, read standard input.`,
    usage: '[FILE]',
    mutates: false,
    usageStatus: 1,
    flags: basencFlags(),
    run: (ctx) => runBasenc(ctx, enc),
  };
}
