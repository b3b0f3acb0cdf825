import { gnuQuote } from '../command/options/argmatch.js';
export { gnuQuote };
/**
 * GNU coreutils number arguments (gnulib xstrtoumax / xdectoumax): decimal digits, optional
 * leading blanks and '+', and multiplier suffixes such as 1K (1024), 1KB (1000), 1KiB (1024),
 * b (512). Counts beyond 2^53 are returned as Infinity (more than any input can hold).
 */
export type StrtolError = 'ok' | 'invalid' | 'overflow' | 'suffix' | 'suffix-overflow';

const UINTMAX_MAX = (1n << 64n) - 1n;
const POWERS: Record<string, number> = { k: 1, K: 1, m: 2, M: 2, g: 3, G: 3, t: 4, T: 4, P: 5, E: 6, Z: 7, Y: 8, R: 9, Q: 10 };

/** gnulib xstrtoumax(s, NULL, base, &v, validSuffixes); base 10 (default), 8, 16 or 0 (C prefixes: 0x hex, 0 octal). */
export function xstrtoumax(s: string, validSuffixes: string, numberBase: 0 | 8 | 10 | 16 = 10): { err: StrtolError; value: bigint } {
  let i = 0;
  while (i < s.length && ' \t\n\v\f\r'.includes(s[i]!)) i++;
  if (s[i] === '-') return { err: 'invalid', value: 0n };
  let j = i;
  if (s[j] === '+') j++;
  let radix: number = numberBase;
  if ((numberBase === 0 || numberBase === 16) && s[j] === '0' && (s[j + 1] === 'x' || s[j + 1] === 'X') && /[0-9a-fA-F]/.test(s[j + 2] ?? '')) {
    j += 2;
    radix = 16;
  } else if (numberBase === 0) radix = s[j] === '0' ? 8 : 10;
  const digitsStart = j;
  const isDigit = (ch: string) => (radix === 16 ? /[0-9a-fA-F]/.test(ch) : ch >= '0' && ch < String.fromCharCode(48 + radix));
  while (j < s.length && isDigit(s[j]!)) j++;
  let value: bigint;
  let overflow = false;
  if (j === digitsStart) {
    // No number: a valid suffix alone means 1 ("head -c K").
    // (strtoumax leaves its end pointer at the very start, blanks included.)
    if (s.length > 0 && validSuffixes.includes(s[0]!)) {
      value = 1n;
      j = 0;
    } else return { err: 'invalid', value: 0n };
  } else {
    const digits = s.slice(digitsStart, j);
    value = radix === 10 ? BigInt(digits) : BigInt((radix === 16 ? '0x' : '0o') + digits);
    if (value > UINTMAX_MAX) {
      value = UINTMAX_MAX;
      overflow = true;
    }
  }
  if (j === s.length) return { err: overflow ? 'overflow' : 'ok', value };
  const c = s[j]!;
  if (!validSuffixes.includes(c)) return { err: overflow ? 'suffix-overflow' : 'suffix', value };
  let base = 1024n;
  let used = 1;
  if (c in POWERS && validSuffixes.includes('0')) {
    if (s[j + 1] === 'i' && s[j + 2] === 'B') used += 2;
    else if (s[j + 1] === 'B' || s[j + 1] === 'D') {
      base = 1000n;
      used++;
    }
  }
  let scale: bigint;
  if (c === 'b') scale = 512n;
  else if (c === 'B') scale = 1024n;
  else if (c === 'c') scale = 1n;
  else if (c === 'w') scale = 2n;
  else if (c in POWERS) scale = base ** BigInt(POWERS[c]!);
  else return { err: overflow ? 'suffix-overflow' : 'suffix', value };
  value *= scale;
  if (value > UINTMAX_MAX) {
    value = UINTMAX_MAX;
    overflow = true;
  }
  if (j + used !== s.length) return { err: overflow ? 'suffix-overflow' : 'suffix', value };
  return { err: overflow ? 'overflow' : 'ok', value };
}

/** Suffixes head and tail accept for -n / -c. */
export const SIZE_SUFFIXES = 'bkKmMGTPEZY0';

/** A count as a JS number; Infinity when it is beyond what any input can reach. */
export function toCount(v: bigint): number {
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(v);
}

/**
 * gnulib xdectoumax(s, 0, UINTMAX_MAX, suffixes, what): the value, or the GNU diagnostic
 * ("invalid number of lines: 'x'", with ": Value too large..." on overflow).
 */
export function parseCount(s: string, what: string, suffixes = SIZE_SUFFIXES): { value: number } | { error: string } {
  const r = xstrtoumax(s, suffixes);
  if (r.err === 'ok') return { value: toCount(r.value) };
  const msg = `${what}: ${gnuQuote(s)}`;
  return { error: r.err === 'overflow' ? `${msg}: Value too large for defined data type` : msg };
}

