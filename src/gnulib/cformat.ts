/**
 * C printf conversions as glibc prints them (printf, seq): integers from bigints, floating
 * point from JS doubles with exact decimal rounding (GNU uses long double: values whose
 * digits go past a double's 17 significant ones may differ), and C strtold / strtoimax parsing.
 */

export interface Spec {
  flags: string;
  width?: number;
  precision?: number;
}

function pad(body: string, sign: string, spec: Spec, zeroOk: boolean): string {
  const w = spec.width ?? 0;
  const left = spec.flags.includes('-') || w < 0;
  const width = Math.abs(w);
  const len = sign.length + body.length;
  if (len >= width) return sign + body;
  if (left) return sign + body + ' '.repeat(width - len);
  if (zeroOk && spec.flags.includes('0')) {
    // Zeros go after the sign and any 0x prefix.
    const m = /^(0[xX])?/.exec(body)![0];
    return sign + m + '0'.repeat(width - len) + body.slice(m.length);
  }
  return ' '.repeat(width - len) + sign + body;
}

function signOf(neg: boolean, flags: string): string {
  return neg ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
}

/** %d %i %o %u %x %X of an integer (already wrapped to its C type by the caller). */
export function formatInt(conv: string, spec: Spec, v: bigint): string {
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const base = conv === 'o' ? 8 : conv === 'x' || conv === 'X' ? 16 : 10;
  let digits = abs.toString(base);
  if (conv === 'X') digits = digits.toUpperCase();
  const p = spec.precision;
  if (p !== undefined && p >= 0) {
    if (p === 0 && abs === 0n) digits = '';
    if (digits.length < p) digits = '0'.repeat(p - digits.length) + digits;
  }
  if (spec.flags.includes('#')) {
    if (conv === 'o' && !digits.startsWith('0')) digits = '0' + digits;
    if ((conv === 'x' || conv === 'X') && abs !== 0n) digits = (conv === 'x' ? '0x' : '0X') + digits;
  }
  const sign = conv === 'd' || conv === 'i' ? signOf(neg, spec.flags) : '';
  return pad(digits, sign, spec, p === undefined || p < 0);
}

/** The exact decimal digits of a finite non-negative double: value = 0.DIGITS x 10^point. */
function exactDecimal(x: number): { digits: string; point: number } {
  if (x === 0) return { digits: '0', point: 1 };
  if (Number.isSafeInteger(x)) {
    // a whole number below 2^53: its shortest form is its exact digits
    const s = String(x);
    return { digits: s, point: s.length };
  }
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (bexp === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = bexp - 1075;
  }
  if (e >= 0) {
    const s = (mant << BigInt(e)).toString();
    return { digits: s, point: s.length };
  }
  const s = (mant * pow5(-e)).toString();
  return { digits: s, point: s.length + e };
}

/** 5^k, kept (k <= 1074): numfmt formats a number per field, each needed one. */
const POW5: bigint[] = [];
function pow5(k: number): bigint {
  return (POW5[k] ??= 5n ** BigInt(k));
}

/** Round 0.DIGITS x 10^point to `keep` digits (counted from the first digit), half to even. */
function roundDigits(d: { digits: string; point: number }, keep: number): { digits: string; point: number } {
  let { digits, point } = d;
  if (keep < 0) return { digits: '0', point: point };
  if (digits.length <= keep) return { digits: digits + '0'.repeat(keep - digits.length), point };
  const rest = digits.slice(keep);
  let head = digits.slice(0, keep);
  const first = rest.charCodeAt(0) - 48;
  const tail = /[1-9]/.test(rest.slice(1));
  const lastOdd = keep > 0 && (head.charCodeAt(keep - 1) - 48) % 2 === 1;
  const up = first > 5 || (first === 5 && (tail || lastOdd));
  if (up) {
    const n = (BigInt(head === '' ? '0' : head) + 1n).toString();
    if (head === '' ) {
      return { digits: '1', point: point + 1 };
    }
    if (n.length > head.length) {
      head = n.slice(0, keep);
      point++;
    } else head = n.padStart(keep, '0');
  }
  return { digits: head, point };
}

function fixedBody(x: number, prec: number, alt: boolean): string {
  const d = exactDecimal(x);
  const r = roundDigits(d, d.point + prec);
  let digits = r.digits;
  let point = r.point;
  if (d.point + prec < 0) {
    digits = '';
    point = d.point;
  }
  // digits holds the integer part (point digits) then prec fraction digits.
  const all = point > 0 ? digits : '0'.repeat(-point) + digits;
  const ip = Math.max(point, 0);
  let intPart = all.slice(0, ip).replace(/^0+(?=\d)/, '') || '0';
  let frac = all.slice(ip, ip + prec).padEnd(prec, '0');
  if (intPart === '') intPart = '0';
  return intPart + (prec > 0 || alt ? '.' : '') + frac;
}

function expParts(x: number, prec: number): { mant: string; exp: number } {
  if (x === 0) return { mant: '0'.repeat(prec + 1), exp: 0 };
  const d = exactDecimal(x);
  const lead = d.digits.search(/[1-9]/);
  const norm = { digits: d.digits.slice(lead), point: d.point - lead };
  const r = roundDigits(norm, prec + 1);
  return { mant: r.digits.slice(0, prec + 1), exp: r.point - 1 };
}

function expBody(x: number, prec: number, alt: boolean, upper: boolean): string {
  const { mant, exp } = expParts(x, prec);
  const e = (upper ? 'E' : 'e') + (exp < 0 ? '-' : '+') + String(Math.abs(exp)).padStart(2, '0');
  return mant[0] + (prec > 0 || alt ? '.' : '') + mant.slice(1) + e;
}

/** x86 long double %La: the leading hex digit holds the top four bits of the 64-bit significand. */
function hexBody(x: number, prec: number | undefined, upper: boolean): string {
  let s: string;
  if (x === 0) {
    s = '0x0' + (prec ? '.' + '0'.repeat(prec) : '') + 'p+0';
  } else {
    let e = Math.floor(Math.log2(x));
    if (2 ** e > x) e--;
    if (2 ** (e + 1) <= x) e++;
    // 64-bit significand with the explicit leading 1 at bit 63.
    let m = BigInt(Math.round(x / 2 ** (e - 52))) << 11n;
    let nib = 15;
    let exp = e - 3;
    if (prec !== undefined && prec < 15) {
      const drop = BigInt((15 - prec) * 4);
      const rem = m & ((1n << drop) - 1n);
      m >>= drop;
      const half = 1n << (drop - 1n);
      if (rem > half || (rem === half && (m & 1n) === 1n)) m += 1n;
      nib = prec;
      if (m >> BigInt(nib * 4 + 4) !== 0n) {
        m >>= 4n;
        exp += 4;
      }
    }
    let hex = m.toString(16).padStart(nib + 1, '0');
    let frac = hex.slice(1);
    if (prec === undefined) frac = frac.replace(/0+$/, '');
    else frac = frac.padEnd(prec, '0');
    s = '0x' + hex[0] + (frac ? '.' + frac : '') + 'p' + (exp < 0 ? '-' : '+') + Math.abs(exp);
  }
  return upper ? s.toUpperCase() : s;
}

/** %f %F %e %E %g %G %a %A of a double. */
export function formatFloat(conv: string, spec: Spec, v: number, negNaN = false): string {
  const neg = v < 0 || Object.is(v, -0) || (negNaN && Number.isNaN(v));
  const x = Math.abs(v);
  const sign = signOf(neg, spec.flags);
  const upper = conv === conv.toUpperCase();
  const alt = spec.flags.includes('#');
  const p = spec.precision !== undefined && spec.precision >= 0 ? spec.precision : undefined;
  if (!Number.isFinite(x)) {
    const t = Number.isNaN(x) ? 'nan' : 'inf';
    return pad(upper ? t.toUpperCase() : t, sign, spec, false);
  }
  let body: string;
  switch (conv) {
    case 'f': case 'F':
      body = fixedBody(x, p ?? 6, alt);
      break;
    case 'e': case 'E':
      body = expBody(x, p ?? 6, alt, upper);
      break;
    case 'a': case 'A':
      body = hexBody(x, p, upper);
      break;
    default: {
      const P = p === undefined ? 6 : p === 0 ? 1 : p;
      const X = x === 0 ? 0 : expParts(x, P - 1).exp;
      if (P > X && X >= -4) body = fixedBody(x, P - 1 - X, alt);
      else body = expBody(x, P - 1, alt, upper);
      if (!alt) {
        const m = /^([^eE]*?)(\.?0*)?([eE].*)?$/.exec(body)!;
        let mant = m[1]! + (m[2] ?? '');
        if (mant.includes('.')) mant = mant.replace(/\.?0+$/, '');
        body = mant + (m[3] ?? '');
      }
    }
  }
  return pad(body, sign, spec, true);
}

/** C strtold: the value and how many characters it took (0: no number). erange: overflow. */
export function strtold(s: string): { value: number; end: number; erange: boolean; neg: boolean } {
  const m = /^[ \t\n\v\f\r]*([+-]?)(?:(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?)|((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?))/i.exec(s);
  if (!m) return { value: 0, end: 0, erange: false, neg: false };
  const neg = m[1] === '-';
  let value: number;
  if (m[2] !== undefined) {
    const hm = /^0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)(?:[pP]([+-]?\d+))?$/.exec(m[2])!;
    const digits = hm[1]! + hm[2]!;
    value = Number(BigInt('0x' + (digits || '0'))) * 2 ** (Number(hm[3] ?? 0) - 4 * hm[2]!.length);
  } else if (m[3] !== undefined) value = Number(m[3]);
  else value = /^n/i.test(m[4]!) ? NaN : Infinity;
  const erange = m[4] === undefined && !Number.isFinite(value);
  return { value: neg ? -value : value, end: m[0].length, erange, neg };
}

/** C strtoimax / strtoumax with base 0: the value, characters taken, and overflow (clamped). */
export function strtoint(s: string, unsigned: boolean): { value: bigint; end: number; erange: boolean } {
  const m = /^[ \t\n\v\f\r]*([+-]?)(?:0[xX]([0-9a-fA-F]+)|(0[0-7]*)|([1-9]\d*))/.exec(s);
  if (!m) return { value: 0n, end: 0, erange: false };
  const neg = m[1] === '-';
  let v = m[2] !== undefined ? BigInt('0x' + m[2]) : m[3] !== undefined ? BigInt('0o' + (m[3].slice(1) || '0')) : BigInt(m[4]!);
  let erange = false;
  const MAX64 = (1n << 64n) - 1n;
  if (unsigned) {
    if (v > MAX64) {
      erange = true;
      v = MAX64;
    } else if (neg) v = (1n << 64n) - v & MAX64;
  } else {
    if (neg) v = -v;
    if (v > (1n << 63n) - 1n) {
      erange = true;
      v = (1n << 63n) - 1n;
    } else if (v < -(1n << 63n)) {
      erange = true;
      v = -(1n << 63n);
    }
  }
  return { value: v, end: m[0].length, erange };
}
