/** printf / sprintf as gawk formats (C locale). */
import { formatFloat, formatInt, type Spec } from '../../src/gnulib/cformat.js';
import { numToStr, setSprintfHook, toNum, toStr, type V } from './values.js';

export class FormatError extends Error {}

function padStr(s: string, spec: Spec): string {
  const w = spec.width ?? 0;
  if (s.length >= Math.abs(w)) return s;
  if (spec.flags.includes('-') || w < 0) return s + ' '.repeat(Math.abs(w) - s.length);
  return ' '.repeat(w - s.length) + s;
}

function magic(n: number, spec: Spec, upper: boolean): string {
  let t = n !== n ? 'nan' : 'inf';
  if (upper) t = t.toUpperCase();
  const sign = n !== n ? '-' : n < 0 ? '-' : spec.flags.includes(' ') && !spec.flags.includes('+') ? ' ' : '+';
  return padStr(sign + t, { flags: spec.flags.replace('0', ''), width: spec.width });
}

/** One integer conversion of a number (gawk: values too big for an integer print through %.0f / %g). */
function intConv(conv: string, spec: Spec, n: number): string {
  if (!Number.isFinite(n)) return magic(n, spec, conv === 'X');
  const t = Math.trunc(n);
  if (conv === 'd' || conv === 'i') {
    if (Math.abs(t) >= 2 ** 63) {
      const body = BigInt(t).toString();
      return formatInt('d', spec, BigInt(body));
    }
    return formatInt('d', spec, BigInt(t));
  }
  let b = BigInt(t);
  if (b < 0n) {
    if (b < -(2n ** 63n)) return formatFloat('g', { flags: spec.flags, width: spec.width, precision: 6 }, n);
    b = BigInt.asUintN(64, b);
  } else if (b >= 2n ** 64n) return formatFloat('g', { flags: spec.flags, width: spec.width, precision: 6 }, n);
  return formatInt(conv, spec, b);
}

/** %a of a double as glibc prints it: 0x1.8p+1. */
function hexFloat(v: number, spec: Spec, upper: boolean): string {
  const neg = v < 0 || Object.is(v, -0);
  let x = Math.abs(v);
  let e = 0;
  let lead = 1;
  if (x === 0) lead = 0;
  else {
    e = Math.floor(Math.log2(x));
    if (e < -1022) e = -1022;
    x /= 2 ** e;
    while (x >= 2) { x /= 2; e++; }
    while (x < 1 && e > -1022) { x *= 2; e--; }
    if (x < 1) lead = 0;
  }
  let frac = BigInt(Math.round((x - lead) * 2 ** 52));
  let digits = 13;
  if (spec.precision !== undefined && spec.precision < 13) {
    const drop = BigInt(4 * (13 - spec.precision));
    const half = 1n << (drop - 1n);
    const rem = frac & ((1n << drop) - 1n);
    frac >>= drop;
    if (rem > half || (rem === half && (frac & 1n) === 1n)) frac++;
    digits = spec.precision;
    if (frac >= 1n << BigInt(4 * digits) && digits > 0) { frac -= 1n << BigInt(4 * digits); lead++; }
    else if (digits === 0 && frac > 0n) { lead += Number(frac); frac = 0n; }
  }
  let hex = digits > 0 ? frac.toString(16).padStart(digits, '0') : '';
  if (spec.precision === undefined) hex = hex.replace(/0+$/, '');
  else if (spec.precision > 13) hex = hex.padEnd(spec.precision, '0');
  const dot = hex !== '' || spec.flags.includes('#') ? '.' : '';
  let body = `0x${lead}${dot}${hex}p${e < 0 ? '-' : '+'}${Math.abs(e)}`;
  if (upper) body = body.toUpperCase();
  const sign = neg ? '-' : spec.flags.includes('+') ? '+' : spec.flags.includes(' ') ? ' ' : '';
  const w = spec.width ?? 0;
  if (spec.flags.includes('0') && !spec.flags.includes('-') && sign.length + body.length < w) {
    return sign + body.slice(0, 2) + '0'.repeat(w - sign.length - body.length) + body.slice(2);
  }
  return padStr(sign + body, spec);
}

export function sprintf(fmt: string, args: V[], convfmt: string, fname = 'sprintf'): string {
  let out = '';
  let ai = 0;
  const n = fmt.length;
  let i = 0;
  const need = (): V => {
    void fname;
    if (ai >= args.length) throw new FormatError(`not enough arguments to satisfy format string\n\t\`${fmt}'\n\t${' '.repeat(Math.max(0, i - 1))}^ ran out for this one`);
    return args[ai++];
  };
  while (i < n) {
    const pc = fmt.indexOf('%', i);
    if (pc < 0) { out += fmt.slice(i); break; }
    out += fmt.slice(i, pc);
    i = pc + 1;
    if (i >= n) { out += '%'; break; }
    let flags = '';
    while (i < n && '-+ #0\''.includes(fmt[i]!)) { if (fmt[i] !== '\'') flags += fmt[i]; i++; }
    let width: number | undefined;
    if (fmt[i] === '*') {
      i++;
      width = Math.trunc(toNum(need()));
      if (width < 0) { flags += '-'; width = -width; }
    } else {
      let w = '';
      while (i < n && fmt[i]! >= '0' && fmt[i]! <= '9') w += fmt[i++];
      if (w) width = parseInt(w, 10);
    }
    let precision: number | undefined;
    if (fmt[i] === '.') {
      i++;
      if (fmt[i] === '*') {
        i++;
        precision = Math.trunc(toNum(need()));
        if (precision < 0) precision = undefined;
      } else {
        let p = '';
        while (i < n && fmt[i]! >= '0' && fmt[i]! <= '9') p += fmt[i++];
        precision = p ? parseInt(p, 10) : 0;
      }
    }
    // length modifiers are accepted and ignored
    while (i < n && 'hlLqjzt'.includes(fmt[i]!)) i++;
    if (i >= n) { out += fmt.slice(pc); break; }
    const conv = fmt[i++]!;
    const spec: Spec = { flags };
    if (width !== undefined) spec.width = width;
    if (precision !== undefined) spec.precision = precision;
    switch (conv) {
      case '%': out += '%'; break;
      case 'c': {
        const v = need();
        let ch: string;
        if (typeof v === 'number') ch = String.fromCharCode(Math.trunc(v) & 0xff);
        else ch = toStr(v, convfmt).slice(0, 1) || '\0';
        out += padStr(ch, spec);
        break;
      }
      case 's': {
        let s = toStr(need(), convfmt);
        if (precision !== undefined) s = s.slice(0, precision);
        out += padStr(s, spec);
        break;
      }
      case 'd': case 'i': case 'o': case 'x': case 'X': case 'u':
        out += intConv(conv, spec, toNum(need()));
        break;
      case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A': {
        const v = toNum(need());
        if (!Number.isFinite(v)) out += magic(v, spec, conv === conv.toUpperCase());
        else if (conv === 'a' || conv === 'A') out += hexFloat(v, spec, conv === 'A');
        else out += formatFloat(conv, spec, v);
        break;
      }
      default:
        // gawk prints an unknown conversion as it is
        out += fmt.slice(pc, i);
    }
  }
  return out;
}

/** CONVFMT/OFMT conversion of a non-integer number. */
export function fmtNum(fmt: string, n: number): string {
  return sprintf(fmt, [n], '%.6g');
}

setSprintfHook(fmtNum);

export { numToStr };
