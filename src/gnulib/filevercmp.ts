/**
 * gnulib's filevercmp/filenvercmp (as in coreutils 9.1): version-aware comparison of byte
 * strings, used by sort -V (and usable by ls -v). Operates on buf[start, end).
 */

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

function order(s: Uint8Array, pos: number, len: number): number {
  if (pos === len) return -1;
  const c = s[pos]!;
  if (isDigit(c)) return 0;
  if (isAlpha(c)) return c;
  if (c === 0x7e) return -2;
  return c + 256;
}

/**
 * Length of S without its file suffix, the longest match of (\.[A-Za-z~][A-Za-z0-9~]*)*$.
 * In coreutils 9.1 the suffix may be all of S ('.hidden' has an empty prefix, so it sorts
 * before '.5'; later gnulib keeps the first byte).
 */
function prefixLen(s: Uint8Array, n: number): number {
  for (let i = 0; ; i++) {
    const prefix = i;
    while (i + 1 < n && s[i] === 0x2e && (isAlpha(s[i + 1]!) || s[i + 1] === 0x7e)) {
      for (i += 2; i < n && (isAlpha(s[i]!) || isDigit(s[i]!) || s[i] === 0x7e); i++);
    }
    if (i === n) return prefix;
  }
}

function verrevcmp(s1: Uint8Array, l1: number, s2: Uint8Array, l2: number): number {
  let p1 = 0;
  let p2 = 0;
  while (p1 < l1 || p2 < l2) {
    let firstDiff = 0;
    while ((p1 < l1 && !isDigit(s1[p1]!)) || (p2 < l2 && !isDigit(s2[p2]!))) {
      const c1 = order(s1, p1, l1);
      const c2 = order(s2, p2, l2);
      if (c1 !== c2) return c1 - c2;
      p1++;
      p2++;
    }
    while (p1 < l1 && s1[p1] === 0x30) p1++;
    while (p2 < l2 && s2[p2] === 0x30) p2++;
    while (p1 < l1 && p2 < l2 && isDigit(s1[p1]!) && isDigit(s2[p2]!)) {
      if (!firstDiff) firstDiff = s1[p1]! - s2[p2]!;
      p1++;
      p2++;
    }
    if (p1 < l1 && isDigit(s1[p1]!)) return 1;
    if (p2 < l2 && isDigit(s2[p2]!)) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}

/** Compare versions A and B (byte arrays, whole). */
export function filevercmp(a: Uint8Array, b: Uint8Array): number {
  const alen = a.length;
  const blen = b.length;
  if (alen === 0) return blen === 0 ? 0 : -1;
  if (blen === 0) return 1;
  if (a[0] === 0x2e) {
    if (b[0] !== 0x2e) return -1;
    const adot = alen === 1;
    const bdot = blen === 1;
    if (adot) return bdot ? 0 : -1;
    if (bdot) return 1;
    const adotdot = a[1] === 0x2e && alen === 2;
    const bdotdot = b[1] === 0x2e && blen === 2;
    if (adotdot) return bdotdot ? 0 : -1;
    if (bdotdot) return 1;
  } else if (b[0] === 0x2e) return 1;
  const ap = prefixLen(a, alen);
  const bp = prefixLen(b, blen);
  const onePass = ap === alen && bp === blen;
  const r = verrevcmp(a, ap, b, bp);
  return r || onePass ? r : verrevcmp(a, alen, b, blen);
}
