/**
 * tree 2.1's own formatting, which differs from GNU's: its -h / --si sizes (psize), its
 * version order (glibc strverscmp, not gnulib filevercmp) and its -D dates (strftime in the
 * C locale, UTC), its -I / -P patterns and its printing of names. Kept apart from format.ts,
 * which is GNU's.
 */
import { strftime } from '../../src/gnulib/strftime.js';

/**
 * tree's psize(): ' %11lld' bytes, or with -h / --si ' %4d' under one unit and else the
 * C float quotient as ' %3.1f%c' (below ten units, by integer division) or ' %3.0f%c'.
 * So 10189 bytes is "10.0K" (9.95 rounds up) where ls -h says "10K".
 */
export function treeSize(size: number, human: boolean, si: boolean): string {
  if (!human) return ' ' + String(size).padStart(11);
  const usize = si ? 1000 : 1024;
  const unit = si ? 'dkMGTPEZY' : 'BKMGTPEZY';
  let idx = size < usize ? 0 : 1;
  for (; size >= usize * usize; idx++) size = Math.floor(size / usize);
  if (idx === 0) return ' ' + String(size).padStart(4);
  // (float)size / (float)usize, printed from the exact float value with round-half-even.
  const v = Math.fround(Math.fround(size) / usize);
  const digits = Math.floor(size / usize) >= 10 ? 0 : 1;
  const scaled = digits ? v * 10 : v; // exact: a float has 24 bits
  let n = Math.floor(scaled);
  const frac = scaled - n;
  if (frac > 0.5 || (frac === 0.5 && n % 2 === 1)) n++;
  const text = digits ? `${Math.floor(n / 10)}.${n % 10}` : String(n);
  return ' ' + text.padStart(3) + unit[idx];
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** glibc strverscmp() on bytes (what tree -v and --sort=version use under glibc). */
export function strverscmp(a: Uint8Array, b: Uint8Array): number {
  // States S_N=0, S_I=3, S_F=6, S_Z=9; results CMP=2, LEN=3 (as in glibc).
  const next = [0, 3, 9, 0, 3, 3, 0, 6, 6, 0, 6, 9];
  const result = [
    2, 2, 2, 2, 3, 2, 2, 2, 2,
    2, -1, -1, 1, 3, 3, 1, 3, 3,
    2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 1, 1, -1, 2, 2, -1, 2, 2,
  ];
  const cls = (c: number) => (c === 0x30 ? 1 : 0) + (isDigit(c) ? 1 : 0);
  let i = 0;
  let c1 = a[i] ?? 0;
  let c2 = b[i] ?? 0;
  i++;
  let state = cls(c1);
  let diff: number;
  while ((diff = c1 - c2) === 0) {
    if (c1 === 0) return 0;
    state = next[state]!;
    c1 = a[i] ?? 0;
    c2 = b[i] ?? 0;
    i++;
    state += cls(c1);
  }
  const r = result[state * 3 + cls(c2)]!;
  if (r === 2) return diff;
  if (r === 3) {
    let p1 = i;
    let p2 = i;
    while (isDigit(a[p1++] ?? 0)) if (!isDigit(b[p2++] ?? 0)) return 1;
    return isDigit(b[p2] ?? 0) ? -1 : diff;
  }
  return r;
}

const SIX_MONTHS = 6 * 31 * 24 * 60 * 60;

/** The strftime conversions nosh does for --timefmt (C locale, UTC); widest output of each. */
const CONVERSIONS: Record<string, number> = {
  a: 3, A: 9, b: 3, h: 3, B: 9, c: 30, C: 4, d: 2, D: 8, e: 2, F: 20, H: 2, I: 2, j: 3, k: 2, l: 2,
  m: 2, M: 2, n: 1, p: 2, r: 11, R: 5, s: 20, S: 2, t: 1, T: 8, u: 1, w: 1, x: 8, X: 8, y: 2, Y: 11,
  z: 5, Z: 3, '%': 1,
};

/** Why nosh cannot format FMT as tree would (a conversion it lacks, or too long for tree's buffer), or null. */
export function timefmtProblem(fmt: string): string | null {
  let width = 0;
  for (let i = 0; i < fmt.length; i++) {
    if (fmt[i] !== '%') {
      width += Buffer.byteLength(fmt[i]!);
      continue;
    }
    const c = fmt[++i];
    if (c === undefined || CONVERSIONS[c] === undefined) return `--timefmt conversion %${c ?? ''} is not supported by nosh`;
    width += CONVERSIONS[c]!;
  }
  // tree formats into 255 bytes; what would not fit comes out differently.
  return width > 254 ? '--timefmt format too long for nosh' : null;
}

/** tree's do_date(): FMT through strftime, or "%b %e  %Y" / "%b %e %R" (within 6*31 days, not future). */
export function treeDate(sec: number, fmt: string | undefined, now = Math.floor(Date.now() / 1000)): string {
  if (fmt === undefined) fmt = sec > now || sec + SIX_MONTHS < now ? '%b %e  %Y' : '%b %e %R';
  return strftime(fmt, sec);
}

/**
 * tree 2.x's patmatch() for -I and -P, on the name's bytes: 1 match, 0 none, -1 a syntax error
 * (a lone '|' at either end, an unclosed '['), which tree takes as a match ("ignore", "include").
 * Only '^' negates a class; '*' does not cross '/'; --ignore-case folds A-Z (C tolower) in
 * classes and literals. Memoised on (name position, pattern position).
 */
export function patmatch(buf: Uint8Array, pat: Uint8Array, isdir: boolean, fold: boolean): number {
  const bar = pat.indexOf(0x7c);
  if (bar >= 0) {
    if (bar === 0 || bar === pat.length - 1) return -1;
    const m = patmatch(buf, pat.subarray(0, bar), isdir, fold);
    return m !== 0 ? m : patmatch(buf, pat.subarray(bar + 1), isdir, fold);
  }
  const low = (c: number) => (fold && c >= 0x41 && c <= 0x5a ? c + 32 : c);
  const B = (i: number) => buf[i] ?? 0;
  const P = (i: number) => pat[i] ?? 0;
  const memo = new Map<number, number>();
  const sub = (b: number, p: number): number => {
    const key = b * (pat.length + 2) + p;
    let r = memo.get(key);
    if (r === undefined) memo.set(key, (r = from(b, p)));
    return r;
  };
  function from(b: number, p: number): number {
    let match = 1;
    let pprev = 0;
    while (P(p) && match) {
      const c = P(p);
      if (c === 0x5b) { // [
        p++;
        let n = 0;
        if (P(p) !== 0x5e) {
          n = 1;
          match = 0;
        } else p++;
        while (P(p) !== 0x5d) {
          if (P(p) === 0x5c) p++;
          if (!P(p)) return -1;
          if (P(p + 1) === 0x2d) {
            const m = P(p);
            p += 2;
            if (P(p) === 0x5c) p++;
            if (low(B(b)) >= low(m) && low(B(b)) <= low(P(p))) match = n;
            if (!P(p)) p--;
          } else if (low(B(b)) === low(P(p))) match = n;
          p++;
        }
        b++;
      } else if (c === 0x2a) { // *
        p++;
        if (!P(p)) return buf.indexOf(0x2f, b) < 0 ? 1 : 0;
        match = 0;
        if (P(p) === 0x2a) {
          p++;
          if (!P(p)) return 1;
          while (B(b) && !(match = sub(b, p))) {
            if (pprev === 0x2f && P(p) === 0x2f && P(p + 1) && (match = sub(b, p + 1))) return match;
            b++;
            while (B(b) && B(b) !== 0x2f) b++;
          }
        } else {
          while (B(b) && !(match = sub(b++, p))) if (B(b) === 0x2f) break;
        }
        if (!match && (!B(b) || B(b) === 0x2f)) match = sub(b, p);
        return match;
      } else if (c === 0x3f) { // ?
        if (!B(b)) return 0;
        b++;
      } else if (c === 0x2f && !P(p + 1) && !B(b)) {
        return isdir ? 1 : 0;
      } else {
        // A backslash quotes the next byte; tree reads past a trailing one (nothing matches).
        if (c === 0x5c && !P(++p)) return 0;
        match = low(B(b++)) === low(P(p)) ? 1 : 0;
      }
      pprev = P(p++);
      if (match < 1) return match;
    }
    return B(b) ? 0 : match;
  }
  return sub(0, 0);
}

/** tree's printit() without a UTF-8 locale: \ escapes for controls, backslash and space; octal for the rest. */
export function escapeName(name: string): string {
  let out = '';
  for (const c of Buffer.from(name, 'utf8')) {
    if (c >= 7 && c <= 13) out += '\\' + 'abtnvfr'[c - 7];
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x20) out += '\\ ';
    else if (c > 0x20 && c < 0x7f) out += String.fromCharCode(c);
    else out += '\\' + c.toString(8).padStart(3, '0');
  }
  return out;
}
