/**
 * od -tfL on x86-64: the 80-bit extended long double in 16 bytes (little-endian), printed as
 * gnulib's ldtoastr does: %.{p}Lg with the fewest digits from LDBL_DIG (18) up that strtold
 * reads back as the same value. Exact, with BigInt: the value is m * 2^q.
 */
const LDBL_DIG = 18;

/** The exact decimal digits of m * 2^q: value = I * 10^-k. */
function exact(m: bigint, q: number): { digits: string; k: number } {
  const I = q < 0 ? m * 5n ** BigInt(-q) : m << BigInt(q);
  return { digits: I.toString(), k: q < 0 ? -q : 0 };
}

/** %.{p}g of the exact value, rounded half to even as glibc rounds; calls back to test each try. */
function shortest(m: bigint, q: number, from: number, upTo: number, ok: (s: string, head: bigint, r: number) => boolean): string {
  const { digits, k } = exact(m, q);
  for (let p = from; ; p++) {
    let E = digits.length - 1 - k;
    let head: string;
    if (digits.length <= p) head = digits.padEnd(p, '0');
    else {
      head = digits.slice(0, p);
      const rest = digits.slice(p);
      const half = '5'.padEnd(rest.length, '0');
      const up = rest > half || (rest === half && Number(head[head.length - 1]) % 2 === 1);
      if (up) {
        const h = (BigInt(head) + 1n).toString();
        if (h.length > p) {
          E++;
          head = h.slice(0, p);
        } else head = h;
      }
    }
    const s = gFormat(head, E, p);
    if (p >= upTo || ok(s, BigInt(head), E - p + 1)) return s;
  }
}

/** float (4) and double (8), from their bits: gnulib ftoastr/dtoastr. */
export function ieeeText(bits: bigint, size: 4 | 8): string {
  const mbits = size === 4 ? 23n : 52n;
  const ebits = size === 4 ? 8n : 11n;
  const bias = size === 4 ? 127 : 1023;
  const sign = (bits >> (mbits + ebits)) & 1n ? '-' : '';
  const e = Number((bits >> mbits) & ((1n << ebits) - 1n));
  const frac = bits & ((1n << mbits) - 1n);
  if (e === (1 << Number(ebits)) - 1) return sign + (frac === 0n ? 'inf' : 'nan');
  if (e === 0 && frac === 0n) return sign + '0';
  const m = e === 0 ? frac : frac | (1n << mbits);
  const q = (e === 0 ? 1 : e) - bias - Number(mbits);
  const x = Number(m) * 2 ** q; // exact: m has at most 53 bits (2 ** q may underflow for doubles: checked below)
  const value = size === 8 ? new DataView(new BigUint64Array([bits]).buffer).getFloat64(0, true) : x;
  const target = sign ? -value : value;
  return sign + shortest(m, q, e === 0 ? 1 : size === 4 ? 6 : 15, size === 4 ? 9 : 17, (s) => {
    const back = Number(s);
    return (size === 4 ? Math.fround(back) : back) === Math.abs(target);
  });
}

export function ldtoastr(b: Uint8Array): string {
  let m = 0n;
  for (let k = 7; k >= 0; k--) m = (m << 8n) | BigInt(b[k]!);
  const se = b[8]! | (b[9]! << 8);
  const sign = se & 0x8000 ? '-' : '';
  const e = se & 0x7fff;
  const top = (m >> 63n) & 1n;
  if (e === 0x7fff) {
    if (top && (m & ((1n << 63n) - 1n)) === 0n) return sign + 'inf';
    return sign + 'nan';
  }
  if (e !== 0 && !top) return sign + 'nan'; // an unnormal: glibc prints it as nan
  if (m === 0n) return sign + '0';
  const q = (e === 0 ? 1 : e) - 16383 - 63;
  // A pseudo-denormal (exponent 0, integer bit set): glibc prints it without that bit.
  const shown = e === 0 && top && (m & ((1n << 63n) - 1n)) !== 0n ? m & ((1n << 63n) - 1n) : m;
  return sign + shortest(shown, q, e === 0 && !top ? 1 : LDBL_DIG, 21, (_s, head, r) => roundTrips(head, r, m, q, e));
}

/** Does strtold(h * 10^r) give back m * 2^q (round to nearest, ties to even)? */
function roundTrips(h: bigint, r: number, m: bigint, q: number, e: number): boolean {
  const down = m === 1n << 63n && e > 1 ? 1 : 2; // the spacing below, in units of 2^(q-1)
  // Scale everything by 2^s2 * 10^s10 so that all are integers.
  const s2 = Math.max(0, -(q - 2));
  const s10 = Math.max(0, -r);
  const pow2 = (n: number) => (n >= 0 ? 1n << BigInt(n) : 0n);
  const R = h * 10n ** BigInt(r + s10) * pow2(s2);
  const unit = pow2(q - 2 + s2) * 10n ** BigInt(s10); // 2^(q-2) scaled
  const X = m * 4n * unit;
  const lo = X - BigInt(down) * unit;
  const hi = X + 2n * unit;
  if (R > lo && R < hi) return true;
  return (R === lo || R === hi) && (m & 1n) === 0n;
}

/** %g from p rounded digits and the decimal exponent of the first. */
function gFormat(head: string, E: number, p: number): string {
  if (E < -4 || E >= p) {
    let mant = head[0]! + (p > 1 ? '.' + head.slice(1) : '');
    if (mant.includes('.')) mant = mant.replace(/0+$/, '').replace(/\.$/, '');
    return `${mant}e${E < 0 ? '-' : '+'}${String(Math.abs(E)).padStart(2, '0')}`;
  }
  let s: string;
  if (E >= 0) s = head.slice(0, E + 1) + '.' + head.slice(E + 1);
  else s = '0.' + '0'.repeat(-E - 1) + head;
  return s.replace(/0+$/, '').replace(/\.$/, '');
}
