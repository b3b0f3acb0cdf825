/**
 * SQLite 3.40's printf of a REAL ("%!.15g", "%!.20g"), digit for digit. Its digits come from
 * arithmetic in C's `long double`, which on x86-64 is the 80-bit extended format (64-bit
 * significand): 91.5 prints as 91.499999999999999996 under "%!.20g". That arithmetic is
 * emulated here exactly with BigInt (every operation rounded to 64 bits, ties to even).
 */

/** An extended-precision value m * 2^e (m has exactly 64 significant bits, or is 0). */
interface Ext { m: bigint; e: number }

const BITS = 64n;
const ZERO: Ext = { m: 0n, e: 0 };

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/** Round an exact m * 2^e (m > 0) to 64 bits, ties to even. */
function norm(m: bigint, e: number, sticky = false): Ext {
  if (m === 0n) return ZERO;
  const len = bitLength(m);
  const shift = len - Number(BITS);
  if (shift <= 0) return { m: m << BigInt(-shift), e: e + shift };
  const s = BigInt(shift);
  let q = m >> s;
  const rem = m - (q << s);
  const half = 1n << (s - 1n);
  if (rem > half || (rem === half && (sticky || (q & 1n) === 1n)) || (rem === half && sticky)) q += 1n;
  else if (rem === half && !sticky && (q & 1n) === 1n) q += 1n;
  if (bitLength(q) > Number(BITS)) return { m: q >> 1n, e: e + shift + 1 };
  return { m: q, e: e + shift };
}

function fromDouble(x: number): Ext {
  if (x === 0) return ZERO;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const exp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (exp === 0) e = -1074;
  else { mant |= 1n << 52n; e = exp - 1075; }
  return norm(mant, e);
}

function mul(a: Ext, b: Ext): Ext {
  if (a.m === 0n || b.m === 0n) return ZERO;
  return norm(a.m * b.m, a.e + b.e);
}

function div(a: Ext, b: Ext): Ext {
  if (a.m === 0n) return ZERO;
  const num = a.m << 130n;
  const q = num / b.m;
  const r = num - q * b.m;
  return norm(q, a.e - 130 - b.e, r !== 0n);
}

function add(a: Ext, b: Ext): Ext {
  if (a.m === 0n) return b;
  if (b.m === 0n) return a;
  const e = Math.min(a.e, b.e);
  return norm((a.m << BigInt(a.e - e)) + (b.m << BigInt(b.e - e)), e);
}

function sub(a: Ext, b: Ext): Ext {
  if (b.m === 0n) return a;
  const e = Math.min(a.e, b.e);
  const d = (a.m << BigInt(a.e - e)) - (b.m << BigInt(b.e - e));
  if (d < 0n) throw new Error('negative');
  return norm(d, e);
}

function cmp(a: Ext, b: Ext): number {
  if (a.m === 0n || b.m === 0n) return a.m === b.m ? 0 : a.m === 0n ? -1 : 1;
  const e = Math.min(a.e, b.e);
  const x = a.m << BigInt(a.e - e);
  const y = b.m << BigInt(b.e - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** (int) of a non-negative value below 2^53. */
function trunc(a: Ext): number {
  if (a.m === 0n) return 0;
  return Number(a.e >= 0 ? a.m << BigInt(a.e) : a.m >> BigInt(-a.e));
}

const D = (x: number) => fromDouble(x);
const AR_ROUND = [5.0e-01, 5.0e-02, 5.0e-03, 5.0e-04, 5.0e-05, 5.0e-06, 5.0e-07, 5.0e-08, 5.0e-09, 5.0e-10];

/** SQLite's "%!.<precision>g" of a double (3.40 printf.c, etGENERIC with flag_altform2). */
export function sqlitePrintfG(value: number, precisionIn: number): string {
  if (Number.isNaN(value)) return 'NaN';
  let prefix = '';
  let x = value;
  if (x < 0 || Object.is(x, -0)) { x = -x; prefix = x === 0 ? '' : '-'; }
  if (x === Infinity) return prefix + 'Inf';
  let precision = precisionIn;
  if (precision > 0) precision--;
  let idx = precision & 0xfff;
  let rounder = D(AR_ROUND[idx % 10]!);
  while (idx >= 10) { rounder = mul(rounder, D(1.0e-10)); idx -= 10; }
  let realvalue = D(x);
  let exp = 0;
  if (realvalue.m !== 0n) {
    let scale = D(1.0);
    while (cmp(realvalue, mul(D(1e100), scale)) >= 0 && exp <= 350) { scale = mul(scale, D(1e100)); exp += 100; }
    while (cmp(realvalue, mul(D(1e10), scale)) >= 0 && exp <= 350) { scale = mul(scale, D(1e10)); exp += 10; }
    while (cmp(realvalue, mul(D(10.0), scale)) >= 0 && exp <= 350) { scale = mul(scale, D(10.0)); exp++; }
    realvalue = div(realvalue, scale);
    while (cmp(realvalue, D(1e-8)) < 0) { realvalue = mul(realvalue, D(1e8)); exp -= 8; }
    while (cmp(realvalue, D(1.0)) < 0) { realvalue = mul(realvalue, D(10.0)); exp--; }
    if (exp > 350) return prefix + 'Inf';
  }
  realvalue = add(realvalue, rounder);
  if (cmp(realvalue, D(10.0)) >= 0) { realvalue = mul(realvalue, D(0.1)); exp++; }
  let etExp: boolean;
  if (exp < -4 || exp > precision) etExp = true;
  else { precision = precision - exp; etExp = false; }
  let e2 = etExp ? 0 : exp;
  let nsd = 26;
  const TEN = D(10.0);
  const digit = (): string => {
    if (nsd <= 0) return '0';
    nsd--;
    const d = trunc(realvalue);
    realvalue = mul(sub(realvalue, D(d)), TEN);
    return String(d);
  };
  let out = '';
  if (e2 < 0) out += '0';
  else for (; e2 >= 0; e2--) out += digit();
  out += '.';
  for (e2++; e2 < 0; precision--, e2++) out += '0';
  while (precision-- > 0) out += digit();
  out = out.replace(/0+$/, '');
  if (out.endsWith('.')) out += '0';
  if (etExp) {
    const ex = exp;
    out += `e${ex < 0 ? '-' : '+'}${Math.abs(ex) < 10 ? '0' : ''}${Math.abs(ex)}`;
  }
  return prefix + out;
}
