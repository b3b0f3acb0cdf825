/**
 * od's output types (coreutils 9.1 od.c decode_one_format and the print_* functions): each
 * -t spec renders one line of a block, its fields right-aligned in widths that make every
 * spec's columns line up (the pad spread over the fields as GNU spreads it).
 */
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { ieeeText, ldtoastr } from './float-text.js';

export type Kind = 'd' | 'o' | 'u' | 'x' | 'f' | 'a' | 'c';

export interface Spec {
  kind: Kind;
  size: number;
  fieldWidth: number;
  /** 'z': the >printable< trailer. */
  trailer: boolean;
  pad: number;
}

const OCT_DIGITS = [0, 3, 6, 8, 11, 14, 16, 19, 22];
const SDEC_DIGITS = [1, 4, 6, 8, 11, 13, 16, 18, 20];
const UDEC_DIGITS = [0, 3, 5, 8, 10, 13, 15, 17, 20];
const FLOAT_WIDTH: Record<number, number> = { 4: 15, 8: 24, 16: 29 };
const INT_SIZES = new Set([1, 2, 4, 8]);

/** Decode one -t argument into specs, or the error GNU prints. */
export function decodeFormat(arg: string): Spec[] | string {
  const specs: Spec[] = [];
  let i = 0;
  while (i < arg.length) {
    const c = arg[i]!;
    let kind: Kind;
    let size: number;
    if (c === 'd' || c === 'o' || c === 'u' || c === 'x' || c === 'f') {
      kind = c;
      i++;
      const named: Record<string, number> = c === 'f' ? { F: 4, D: 8, L: 16 } : { C: 1, S: 2, I: 4, L: 8 };
      const ch = arg[i];
      if (ch !== undefined && ch in named) {
        size = named[ch]!;
        i++;
      } else {
        let j = i;
        while (j < arg.length && arg[j]! >= '0' && arg[j]! <= '9') j++;
        if (j === i) size = c === 'f' ? 8 : 4;
        else {
          const n = Number(arg.slice(i, j));
          if (n > 2147483647) return `invalid type string ${gnuQuote(arg)}`;
          const ok = c === 'f' ? n in FLOAT_WIDTH : INT_SIZES.has(n);
          if (!ok) {
            return `invalid type string ${gnuQuote(arg)};\nthis system doesn't provide a ${n}-byte ${c === 'f' ? 'floating point' : 'integral'} type`;
          }
          size = n;
          i = j;
        }
      }
    } else if (c === 'a' || c === 'c') {
      kind = c;
      size = 1;
      i++;
    } else {
      return `invalid character '${c}' in type string ${gnuQuote(arg)}`;
    }
    const fieldWidth = kind === 'd' ? SDEC_DIGITS[size]! : kind === 'o' ? OCT_DIGITS[size]! : kind === 'u' ? UDEC_DIGITS[size]!
      : kind === 'x' ? size * 2 : kind === 'f' ? FLOAT_WIDTH[size]! : 3;
    const trailer = arg[i] === 'z';
    if (trailer) i++;
    specs.push({ kind, size, fieldWidth, trailer, pad: 0 });
  }
  return specs;
}

const CHARNAME = ['nul', 'soh', 'stx', 'etx', 'eot', 'enq', 'ack', 'bel', 'bs', 'ht', 'nl', 'vt', 'ff', 'cr', 'so', 'si',
  'dle', 'dc1', 'dc2', 'dc3', 'dc4', 'nak', 'syn', 'etb', 'can', 'em', 'sub', 'esc', 'fs', 'gs', 'rs', 'us', 'sp'];
const ESCAPES: Record<number, string> = { 0: '\\0', 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v' };

function byteText(kind: Kind, b: number): string {
  switch (kind) {
    case 'a': {
      const m = b & 0x7f;
      return m === 127 ? 'del' : m <= 32 ? CHARNAME[m]! : String.fromCharCode(m);
    }
    case 'c':
      return ESCAPES[b] ?? (b >= 32 && b < 127 ? String.fromCharCode(b) : b.toString(8).padStart(3, '0'));
    case 'o':
      return b.toString(8).padStart(3, '0');
    case 'x':
      return b.toString(16).padStart(2, '0');
    case 'u':
      return String(b);
    default:
      return String(b >= 128 ? b - 256 : b);
  }
}

/** A renderer for one spec: the fields of a block as one string (no address, no newline). */
export type Render = (block: Uint8Array, at: number, nBytes: number, bytesPerBlock: number) => string;

export function makeRenderer(spec: Spec, bytesPerBlock: number, bigEndian: boolean): Render {
  const fields = bytesPerBlock / spec.size;
  // The width of field k: GNU spreads spec.pad over the fields, the same for every line.
  const widths: number[] = [];
  let remaining = spec.pad;
  for (let i = fields; i > 0; i--) {
    const nextPad = Math.floor((spec.pad * (i - 1)) / fields);
    widths.push(remaining - nextPad + spec.fieldWidth);
    remaining = nextPad;
  }
  const trailerPad = (blank: number) => ' '.repeat(blank * spec.fieldWidth + Math.floor((spec.pad * blank) / fields));
  const trailer = (block: Uint8Array, at: number, n: number, blank: number) => {
    let s = trailerPad(blank) + '  >';
    for (let k = 0; k < n; k++) {
      const b = block[at + k]!;
      s += b >= 32 && b < 127 ? String.fromCharCode(b) : '.';
    }
    return s + '<';
  };
  if (spec.size === 1) {
    // One table of padded texts per distinct width.
    const tables = new Map<number, string[]>();
    const perField = widths.map((w) => {
      let t = tables.get(w);
      if (!t) {
        t = [];
        for (let b = 0; b < 256; b++) t.push(byteText(spec.kind, b).padStart(w));
        tables.set(w, t);
      }
      return t;
    });
    return (block, at, n, bpb) => {
      const blank = bpb - n;
      let s = '';
      for (let k = 0; k < fields - blank; k++) s += perField[k]![block[at + k]!]!;
      return spec.trailer ? s + trailer(block, at, n, blank) : s;
    };
  }
  const text = valueText(spec, bigEndian);
  return (block, at, n, bpb) => {
    const blank = Math.floor((bpb - n) / spec.size);
    const dv = new DataView(block.buffer, block.byteOffset + at, fields * spec.size);
    let s = '';
    for (let k = 0; k < fields - blank; k++) s += text(dv, k * spec.size).padStart(widths[k]!);
    return spec.trailer ? s + trailer(block, at, n, blank) : s;
  };
}

function valueText(spec: Spec, bigEndian: boolean): (dv: DataView, off: number) => string {
  const le = !bigEndian;
  const { kind, size } = spec;
  if (kind === 'f') {
    if (size === 4) return (dv, off) => ieeeText(BigInt(dv.getUint32(off, le)), 4);
    if (size === 8) return (dv, off) => ieeeText(dv.getBigUint64(off, le), 8);
    return (dv, off) => {
      const bytes = new Uint8Array(16);
      for (let k = 0; k < 16; k++) bytes[k] = dv.getUint8(off + (le ? k : 15 - k));
      return ldtoastr(bytes);
    };
  }
  const digits = kind === 'o' ? OCT_DIGITS[size]! : kind === 'x' ? size * 2 : 0;
  const radix = kind === 'o' ? 8 : kind === 'x' ? 16 : 10;
  if (size === 8) {
    return (dv, off) => {
      const v = kind === 'd' ? dv.getBigInt64(off, le) : dv.getBigUint64(off, le);
      return v.toString(radix).padStart(digits, '0');
    };
  }
  const get = size === 2 ? (kind === 'd' ? (dv: DataView, o: number) => dv.getInt16(o, le) : (dv: DataView, o: number) => dv.getUint16(o, le))
    : kind === 'd' ? (dv: DataView, o: number) => dv.getInt32(o, le) : (dv: DataView, o: number) => dv.getUint32(o, le);
  if (digits === 0) return (dv, off) => String(get(dv, off));
  return (dv, off) => get(dv, off).toString(radix).padStart(digits, '0');
}

