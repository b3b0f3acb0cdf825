/** awk values: numbers, strings, strnums (input that may look numeric), uninitialised; conversions and comparisons as gawk. */
import { formatFloat } from '../../src/gnulib/cformat.js';

/** A string that came from input (fields, getline, ARGV, -v): compares as a number when it looks like one. */
export class SN {
  private k = 0; // 0 unknown, 1 numeric, 2 not
  private n = 0;
  constructor(readonly s: string) {}
  get isNum(): boolean {
    if (this.k === 0) this.check();
    return this.k === 1;
  }
  get num(): number {
    if (this.k === 0) this.check();
    return this.n;
  }
  private check(): void {
    this.n = strToNum(this.s);
    this.k = looksNumeric(this.s) ? 1 : 2;
  }
}

export type V = number | string | SN | undefined;

const INT_SUB = /^(?:0|-?[1-9]\d{0,17})$/;

/**
 * An awk array: subscripts are strings. `intFirst` records what gawk decides from the first
 * subscript stored into an empty array (an integer: its cint_array, else its str_array), which
 * fixes the order of `for (k in a)`.
 */
export class AwkArr extends Map<string, V> {
  intFirst = false;
  /** Once an element was deleted: every insertion and deletion in order (a deletion as [key]), for gawk's hash order. */
  events: (string | [string])[] | null = null;
  override set(k: string, v: V): this {
    if (this.size === 0) {
      this.intFirst = INT_SUB.test(k);
      this.events = null;
    }
    if (this.events !== null && !this.has(k)) this.events.push(k);
    return super.set(k, v);
  }
  override delete(k: string): boolean {
    if (!this.has(k)) return false;
    if (this.size === 1) this.events = null;
    else {
      this.events ??= [...this.keys()];
      this.events.push([k]);
      // a long history of churn: keep only the live keys (the order may then differ from gawk's)
      if (this.events.length > 4 * this.size + 64) this.events = null;
    }
    return super.delete(k);
  }
  override clear(): void {
    super.clear();
    this.events = null;
  }
}

export function isIntSubscript(k: string): boolean {
  return INT_SUB.test(k);
}

const NUM_RE = /^[ \t\n\r\f\v]*[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)/;
const FULL_RE = /^[ \t\n\r\f\v]*[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)[ \t\n\r\f\v]*$/;
const MAGIC_RE = /^[ \t\n\r\f\v]*([-+])(inf|nan)[ \t\n\r\f\v]*$/i;
const MAGIC_FULL = /^[ \t\n\r\f\v]*[-+](?:inf|nan)[ \t\n\r\f\v]*$/i;

/** strtod of the longest numeric prefix (0 if none), as awk converts a string to a number. */
export function strToNum(s: string): number {
  const n = +s;
  if (n === n && n !== Infinity && n !== -Infinity) {
    if (s.length < 3) return n;
    const c = s.charCodeAt(1);
    // Number() reads 0x.. 0b.. 0o..; awk does not
    if (!(c === 120 || c === 88 || c === 98 || c === 66 || c === 111 || c === 79 || /[xXbBoO]/.test(s))) return n;
  }
  const m = NUM_RE.exec(s);
  if (m) return Number(m[0].trim());
  const g = MAGIC_RE.exec(s);
  if (g) return g[2]!.toLowerCase() === 'inf' ? (g[1] === '-' ? -Infinity : Infinity) : NaN;
  return 0;
}

export function looksNumeric(s: string): boolean {
  return FULL_RE.test(s) || MAGIC_FULL.test(s);
}

export function toNum(v: V): number {
  if (typeof v === 'number') return v;
  if (v === undefined) return 0;
  if (typeof v === 'string') return strToNum(v);
  return v.num;
}

export function toBool(v: V): boolean {
  if (typeof v === 'number') return v !== 0;
  if (v === undefined) return false;
  if (typeof v === 'string') return v !== '';
  return v.isNum ? v.num !== 0 : v.s !== '';
}

export interface Fmt {
  /** CONVFMT or OFMT. */
  fmt: string;
}

/** Number to string: integers as integers, others through the format (CONVFMT or OFMT). */
export function numToStr(n: number, fmt: string): string {
  if (Number.isInteger(n)) {
    if (n < 1e16 && n > -1e16) return '' + n;
    return BigInt(n).toString();
  }
  if (n !== n) return '-nan';
  if (n === Infinity) return '+inf';
  if (n === -Infinity) return '-inf';
  if (fmt === '%.6g') return g6(n);
  return sprintfNum(fmt, n);
}

/** %.6g. */
function g6(n: number): string {
  return formatFloat('g', { flags: '', precision: 6 }, n);
}

let sprintfHook: (fmt: string, n: number) => string = (_f, n) => g6(n);
export function setSprintfHook(f: (fmt: string, n: number) => string): void {
  sprintfHook = f;
}
function sprintfNum(fmt: string, n: number): string {
  return sprintfHook(fmt, n);
}

export function toStr(v: V, convfmt: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return numToStr(v, convfmt);
  if (v === undefined) return '';
  return v.s;
}

/** Is it compared as a number (a number, uninitialised, or a numeric-looking strnum)? */
export function isNumeric(v: V): boolean {
  return typeof v === 'number' || v === undefined || (v instanceof SN && v.isNum);
}

/** awk's comparison: numeric when both sides are numeric, else as strings (CONVFMT). */
export function compare(a: V, b: V, convfmt: string): number {
  if (isNumeric(a) && isNumeric(b)) {
    const x = toNum(a);
    const y = toNum(b);
    return x < y ? -1 : x > y ? 1 : x === y ? 0 : cmpNaN(x, y);
  }
  const s = toStr(a, convfmt);
  const t = toStr(b, convfmt);
  return s < t ? -1 : s > t ? 1 : 0;
}

function cmpNaN(x: number, y: number): number {
  // gawk orders NaN after everything (and equal to itself)
  if (x !== x) return y !== y ? 0 : 1;
  return -1;
}

/** Array subscript of a value: integers as integers, others through CONVFMT. */
export function subscript(v: V, convfmt: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) && v < 1e16 && v > -1e16 ? '' + v : numToStr(v, convfmt);
  if (v === undefined) return '';
  return v.s;
}
