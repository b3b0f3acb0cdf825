/** sort's comparisons: numbers (-n -g -h), months, versions, the key comparator (sort.c keycompare). */
import { filevercmp } from '../../src/gnulib/filevercmp.js';
import { compareRandom } from './options.js';
import { BLANKS, FOLD, SIZE_MAX, type Key } from './keys.js';

// ---- comparison -------------------------------------------------------------------------

export interface Config {
  keys: Key[];
  tab: number; // -1: blank-to-nonblank transitions
  reverse: boolean;
  stable: boolean;
  unique: boolean;
}

function begfield(buf: Uint8Array, start: number, lim: number, key: Key, tab: number): number {
  let ptr = start;
  let sword = key.sword;
  if (tab >= 0) {
    while (ptr < lim && sword-- > 0) {
      while (ptr < lim && buf[ptr] !== tab) ++ptr;
      if (ptr < lim) ++ptr;
    }
  } else {
    while (ptr < lim && sword-- > 0) {
      while (ptr < lim && BLANKS[buf[ptr]!]) ++ptr;
      while (ptr < lim && !BLANKS[buf[ptr]!]) ++ptr;
    }
  }
  if (key.skipsblanks) while (ptr < lim && BLANKS[buf[ptr]!]) ++ptr;
  return Math.min(lim, ptr + key.schar);
}

function limfield(buf: Uint8Array, start: number, lim: number, key: Key, tab: number): number {
  let ptr = start;
  let eword = key.eword;
  const echar = key.echar;
  if (echar === 0) eword++;
  if (tab >= 0) {
    while (ptr < lim && eword-- > 0) {
      while (ptr < lim && buf[ptr] !== tab) ++ptr;
      if (ptr < lim && (eword || echar)) ++ptr;
    }
  } else {
    while (ptr < lim && eword-- > 0) {
      while (ptr < lim && BLANKS[buf[ptr]!]) ++ptr;
      while (ptr < lim && !BLANKS[buf[ptr]!]) ++ptr;
    }
  }
  if (echar !== 0) {
    if (key.skipeblanks) while (ptr < lim && BLANKS[buf[ptr]!]) ++ptr;
    ptr = Math.min(lim, ptr + echar);
  }
  return ptr;
}

export function keyBegin(buf: Uint8Array, start: number, lim: number, key: Key, tab: number): number {
  if (key.sword !== SIZE_MAX) return begfield(buf, start, lim, key, tab);
  let p = start;
  if (key.skipsblanks) while (p < lim && BLANKS[buf[p]!]) ++p;
  return p;
}

export function keyLimit(buf: Uint8Array, start: number, lim: number, key: Key, tab: number): number {
  return key.eword === SIZE_MAX ? lim : limfield(buf, start, lim, key, tab);
}

export const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * GNU sort's thousands separator in the C locale. The locale has none, so sort stores its
 * "no character" value, CHAR_MAX + 1: 128 where char is signed (x86), and strnumcmp, which
 * reads unsigned bytes, then skips byte 0x80 in the integer part of -n and -h numbers
 * ('1\x80000' is 1000). (find_unit_order compares signed chars and never matches it.)
 */
const TSEP = 0x80;

/** fraccompare: '.' as decimal point (no separator in fractions); bytes past `lim` read as NUL. */
function fraccompare(a: Uint8Array, pa: number, la: number, b: Uint8Array, pb: number, lb: number): number {
  const A = (p: number) => (p < la ? a[p]! : 0);
  const B = (p: number) => (p < lb ? b[p]! : 0);
  if (A(pa) === 0x2e && B(pb) === 0x2e) {
    for (;;) {
      const ca = A(++pa);
      const cb = B(++pb);
      if (ca !== cb) break;
      if (!isDigit(ca)) return 0;
    }
    const ca = A(pa);
    const cb = B(pb);
    if (isDigit(ca) && isDigit(cb)) return ca - cb;
    if (isDigit(ca)) {
      while (A(pa) === 0x30) pa++;
      return isDigit(A(pa)) ? 1 : 0;
    }
    if (isDigit(cb)) {
      while (B(pb) === 0x30) pb++;
      return isDigit(B(pb)) ? -1 : 0;
    }
    return 0;
  }
  if (A(pa++) === 0x2e) {
    while (A(pa) === 0x30) pa++;
    return isDigit(A(pa)) ? 1 : 0;
  }
  if (B(pb++) === 0x2e) {
    while (B(pb) === 0x30) pb++;
    return isDigit(B(pb)) ? -1 : 0;
  }
  return 0;
}

function strnumcmp(a: Uint8Array, pa: number, la: number, b: Uint8Array, pb: number, lb: number): number {
  const A = (p: number) => (p < la ? a[p]! : 0);
  const B = (p: number) => (p < lb ? b[p]! : 0);
  let ta = A(pa);
  let tb = B(pb);
  if (ta === 0x2d) {
    do ta = A(++pa); while (ta === 0x30 || ta === TSEP);
    if (tb !== 0x2d) {
      if (ta === 0x2e) do ta = A(++pa); while (ta === 0x30);
      if (isDigit(ta)) return -1;
      while (tb === 0x30 || tb === TSEP) tb = B(++pb);
      if (tb === 0x2e) do tb = B(++pb); while (tb === 0x30);
      return isDigit(tb) ? -1 : 0;
    }
    do tb = B(++pb); while (tb === 0x30 || tb === TSEP);
    while (ta === tb && isDigit(ta)) {
      do ta = A(++pa); while (ta === TSEP);
      do tb = B(++pb); while (tb === TSEP);
    }
    if ((ta === 0x2e && !isDigit(tb)) || (tb === 0x2e && !isDigit(ta))) return fraccompare(b, pb, lb, a, pa, la);
    const tmp = tb - ta;
    let loga = 0;
    let logb = 0;
    while (isDigit(ta)) { loga++; do ta = A(++pa); while (ta === TSEP); }
    while (isDigit(tb)) { logb++; do tb = B(++pb); while (tb === TSEP); }
    if (loga !== logb) return loga < logb ? 1 : -1;
    if (!loga) return 0;
    return tmp;
  }
  if (tb === 0x2d) {
    do tb = B(++pb); while (tb === 0x30 || tb === TSEP);
    if (tb === 0x2e) do tb = B(++pb); while (tb === 0x30);
    if (isDigit(tb)) return 1;
    while (ta === 0x30 || ta === TSEP) ta = A(++pa);
    if (ta === 0x2e) do ta = A(++pa); while (ta === 0x30);
    return isDigit(ta) ? 1 : 0;
  }
  while (ta === 0x30 || ta === TSEP) ta = A(++pa);
  while (tb === 0x30 || tb === TSEP) tb = B(++pb);
  while (ta === tb && isDigit(ta)) {
    do ta = A(++pa); while (ta === TSEP);
    do tb = B(++pb); while (tb === TSEP);
  }
  if ((ta === 0x2e && !isDigit(tb)) || (tb === 0x2e && !isDigit(ta))) return fraccompare(a, pa, la, b, pb, lb);
  const tmp = ta - tb;
  let loga = 0;
  let logb = 0;
  while (isDigit(ta)) { loga++; do ta = A(++pa); while (ta === TSEP); }
  while (isDigit(tb)) { logb++; do tb = B(++pb); while (tb === TSEP); }
  if (loga !== logb) return loga < logb ? -1 : 1;
  if (!loga) return 0;
  return tmp;
}

function skipBlanks(buf: Uint8Array, p: number, lim: number): number {
  while (p < lim && BLANKS[buf[p]!]) p++;
  return p;
}

function numcompare(a: Uint8Array, pa: number, la: number, b: Uint8Array, pb: number, lb: number): number {
  return strnumcmp(a, skipBlanks(a, pa, la), la, b, skipBlanks(b, pb, lb), lb);
}

/** A key compared as plain bytes (no -n -g -h -M -V, no -d -i -f). */
export function isTextKey(k: Key): boolean {
  return !k.numeric && !k.general && !k.human && !k.month && !k.version && !k.ignore && !k.translate;
}

/**
 * Each line's key [kb, max(kb, ke)) by its first 6 bytes, packed big-endian into a double (a
 * key that ends sooner is padded with 0): a key before another in byte order never packs
 * larger.
 */
export function prefixKeys(data: Buffer, kb: Uint32Array, ke: Uint32Array, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const s = kb[i]!;
    const e = Math.max(s, ke[i]!);
    let v = 0;
    for (let k = 0; k < 6; k++) v = v * 256 + (s + k < e ? data[s + k]! : 0);
    out[i] = v;
  }
  return out;
}

/**
 * The number strnumcmp reads in each line's key [kb, max(kb, ke)), as a double: blanks, an
 * optional '-', digits (TSEP bytes among them skipped), an optional '.' and digits; anything
 * else ends it, and no digits is 0.
 */
export function numericKeys(data: Buffer, kb: Uint32Array, ke: Uint32Array, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const lim = Math.max(kb[i]!, ke[i]!);
    let p = skipBlanks(data, kb[i]!, lim);
    const neg = p < lim && data[p] === 0x2d;
    if (neg) p++;
    const start = p;
    let seps = false;
    for (; p < lim && (isDigit(data[p]!) || data[p] === TSEP); p++) if (data[p] === TSEP) seps = true;
    if (p < lim && data[p] === 0x2e) {
      p++;
      while (p < lim && isDigit(data[p]!)) p++;
    }
    let text = data.toString('latin1', start, p);
    if (seps) text = text.replaceAll('\x80', '');
    const v = text === '' || text === '.' ? 0 : Number(text);
    out[i] = neg ? -v : v;
  }
  return out;
}

const UNIT_ORDER: Record<number, number> = { 0x4b: 1, 0x6b: 1, 0x4d: 2, 0x47: 3, 0x54: 4, 0x50: 5, 0x45: 6, 0x5a: 7, 0x59: 8 };

function unitOrder(buf: Uint8Array, p: number, lim: number): number {
  const at = (i: number) => (i < lim ? buf[i]! : 0);
  const minus = at(p) === 0x2d;
  if (minus) p++;
  let nonzero = 0;
  let ch = at(p++);
  while (isDigit(ch)) {
    nonzero |= ch - 0x30;
    ch = at(p++);
  }
  if (ch === 0x2e) {
    ch = at(p++);
    while (isDigit(ch)) {
      nonzero |= ch - 0x30;
      ch = at(p++);
    }
  }
  if (nonzero) {
    const order = UNIT_ORDER[ch] ?? 0;
    return minus ? -order : order;
  }
  return 0;
}

function humancompare(a: Uint8Array, pa: number, la: number, b: Uint8Array, pb: number, lb: number): number {
  pa = skipBlanks(a, pa, la);
  pb = skipBlanks(b, pb, lb);
  const diff = unitOrder(a, pa, la) - unitOrder(b, pb, lb);
  return diff || strnumcmp(a, pa, la, b, pb, lb);
}

/** strtold's accepted prefix: null when no conversion. Values are doubles (long double in GNU). */
function strtold(buf: Uint8Array, p: number, lim: number): number | null {
  let s = '';
  for (let i = p; i < lim && buf[i] !== 0; i++) s += String.fromCharCode(buf[i]!);
  const m = /^[ \t\n\v\f\r]*([+-]?)(?:(inf(?:inity)?)|(nan(?:\([0-9A-Za-z_]*\))?)|0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)|((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?))/i.exec(s);
  if (!m) return null;
  const neg = m[1] === '-';
  let v: number;
  if (m[2]) v = Infinity;
  else if (m[3]) v = NaN;
  else if (m[4] !== undefined) v = parseHexFloat(m[4]);
  else v = Number(m[5]);
  return neg ? -v : v;
}

function parseHexFloat(s: string): number {
  const m = /^([0-9a-fA-F]*)\.?([0-9a-fA-F]*)(?:[pP]([+-]?[0-9]+))?$/.exec(s)!;
  let v = 0;
  for (const d of m[1]!) v = v * 16 + parseInt(d, 16);
  let scale = 1 / 16;
  for (const d of m[2]!) {
    v += parseInt(d, 16) * scale;
    scale /= 16;
  }
  return v * Math.pow(2, Number(m[3] ?? 0));
}

function generalcompare(a: Uint8Array, pa: number, la: number, b: Uint8Array, pb: number, lb: number): number {
  const x = strtold(a, pa, la);
  const y = strtold(b, pb, lb);
  if (x === null) return y === null ? 0 : -1;
  if (y === null) return 1;
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) return 0;
  if (y === y) return -1;
  if (x === x) return 1;
  // Two NaNs: GNU compares the long doubles' bytes, where the sign byte puts 'nan' before
  // '-nan'; the rest (padding) is whatever was on the stack, taken here as equal.
  return nanSign(a, pa, la) - nanSign(b, pb, lb);
}

function nanSign(buf: Uint8Array, p: number, lim: number): number {
  while (p < lim && (BLANKS[buf[p]!] || (buf[p]! >= 0x0b && buf[p]! <= 0x0d))) p++;
  return p < lim && buf[p] === 0x2d ? 1 : 0;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

function getmonth(buf: Uint8Array, p: number, lim: number): number {
  const at = (i: number) => (i < lim ? buf[i]! : 0);
  while (BLANKS[at(p)] && p < lim) p++;
  for (let m = 0; m < 12; m++) {
    const name = MONTHS[m]!;
    let k = 0;
    while (k < 3 && FOLD[at(p + k)] === name.charCodeAt(k)) k++;
    if (k === 3) return m + 1;
  }
  return 0;
}

export function translated(buf: Uint8Array, p: number, lim: number, key: Key): Uint8Array {
  const out = new Uint8Array(lim - p);
  let n = 0;
  for (let i = p; i < lim; i++) {
    const c = buf[i]!;
    if (key.ignore && key.ignore[c]) continue;
    out[n++] = key.translate ? key.translate[c]! : c;
  }
  return out.subarray(0, n);
}

export function compareKey(key: Key, a: Uint8Array, ta: number, la: number, b: Uint8Array, tb: number, lb: number): number {
  la = Math.max(ta, la);
  lb = Math.max(tb, lb);
  const ignore = key.ignore;
  const translate = key.translate;
  if (key.numeric || key.general || key.human || key.month || key.version || key.random) {
    if (ignore || translate) {
      a = translated(a, ta, la, key);
      b = translated(b, tb, lb, key);
      ta = 0;
      la = a.length;
      tb = 0;
      lb = b.length;
    }
    if (key.numeric) return numcompare(a, ta, la, b, tb, lb);
    if (key.general) return generalcompare(a, ta, la, b, tb, lb);
    if (key.human) return humancompare(a, ta, la, b, tb, lb);
    if (key.month) return getmonth(a, ta, la) - getmonth(b, tb, lb);
    if (key.random) return compareRandom(key.salt!, a.subarray(ta, la), b.subarray(tb, lb));
    return filevercmp(a.subarray(ta, la), b.subarray(tb, lb));
  }
  if (ignore) {
    for (;;) {
      while (ta < la && ignore[a[ta]!]) ++ta;
      while (tb < lb && ignore[b[tb]!]) ++tb;
      if (!(ta < la && tb < lb)) break;
      const diff = translate ? translate[a[ta]!]! - translate[b[tb]!]! : a[ta]! - b[tb]!;
      if (diff) return diff;
      ++ta;
      ++tb;
    }
    return (ta < la ? 1 : 0) - (tb < lb ? 1 : 0);
  }
  const lena = la - ta;
  const lenb = lb - tb;
  if (lena === 0) return lenb ? -1 : 0;
  if (lenb === 0) return 1;
  const n = Math.min(lena, lenb);
  if (translate) {
    for (let i = 0; i < n; i++) {
      const diff = translate[a[ta + i]!]! - translate[b[tb + i]!]!;
      if (diff) return diff;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const diff = a[ta + i]! - b[tb + i]!;
      if (diff) return diff;
    }
  }
  return lena < lenb ? -1 : lena !== lenb ? 1 : 0;
}

export function makeComparator(cfg: Config) {
  const { keys, tab, reverse, stable, unique } = cfg;
  const keycompare = (a: Uint8Array, sa: number, ea: number, b: Uint8Array, sb: number, eb: number, first?: [number, number, number, number], from = 0): number => {
    for (let k = from; k < keys.length; k++) {
      const key = keys[k]!;
      let ta: number, la: number, tb: number, lb: number;
      if (k === 0 && first) [ta, la, tb, lb] = first;
      else {
        la = keyLimit(a, sa, ea, key, tab);
        lb = keyLimit(b, sb, eb, key, tab);
        if (key.sword !== SIZE_MAX) {
          ta = begfield(a, sa, ea, key, tab);
          tb = begfield(b, sb, eb, key, tab);
        } else {
          ta = sa;
          tb = sb;
          if (key.skipsblanks) {
            while (ta < la && BLANKS[a[ta]!]) ++ta;
            while (tb < lb && BLANKS[b[tb]!]) ++tb;
          }
        }
      }
      const diff = compareKey(key, a, ta, la, b, tb, lb);
      if (diff) return key.reverse ? -diff : diff;
    }
    return 0;
  };
  /** `from`: the keys before it are known equal (the sort compared them already). */
  const compare = (a: Uint8Array, sa: number, ea: number, b: Uint8Array, sb: number, eb: number, first?: [number, number, number, number], from = 0): number => {
    if (keys.length) {
      const d = keycompare(a, sa, ea, b, sb, eb, first, from);
      if (d || unique || stable) return d;
    }
    const alen = ea - sa;
    const blen = eb - sb;
    let diff: number;
    if (alen === 0) diff = blen ? -1 : 0;
    else if (blen === 0) diff = 1;
    else {
      diff = 0;
      const n = Math.min(alen, blen);
      for (let i = 0; i < n; i++) {
        diff = a[sa + i]! - b[sb + i]!;
        if (diff) break;
      }
      if (!diff) diff = alen < blen ? -1 : alen !== blen ? 1 : 0;
    }
    return reverse ? -diff : diff;
  };
  return { compare, keycompare };
}
