import { gnuQuote, xstrtoumax } from './gnu-number.js';

/**
 * gnulib xdectoimax / xdectoumax: a decimal number (blanks, '+', and the given multiplier
 * suffixes allowed) within [min, max], or GNU's diagnostic: "MSG: 'S'", with
 * ": Numerical result out of range" outside [min, max] (": Value too large for defined data
 * type" past INT_MAX/2, as gnulib's heuristic says) or on overflow. A negative number is
 * invalid (xdectoumax) unless `signed` (xdectoimax: then a range error).
 */
export function xdectoint(s: string, min: bigint, max: bigint, suffixes: string, msg: string, signed = false): { value: bigint } | { error: string } {
  const base = `${msg}: ${gnuQuote(s)}`;
  const neg = /^[ \t\n\v\f\r]*-/.exec(s);
  if (neg && !signed) return { error: base };
  if (neg) {
    // xstrtoimax reads a negative number; below min it is a range error.
    const r = xstrtoumax(s.slice(neg[0].length), suffixes);
    if (r.err === 'ok' && r.value === 0n && min <= 0n) return { value: 0n };
    if (r.err === 'ok') return { error: `${base}: ${r.value >= 1073741824n ? 'Value too large for defined data type' : 'Numerical result out of range'}` };
    if (r.err === 'overflow') return { error: `${base}: Value too large for defined data type` };
    return { error: base };
  }
  const r = xstrtoumax(s, suffixes);
  if (r.err === 'ok') {
    if (r.value >= min && r.value <= max) return { value: r.value };
    return { error: `${base}: ${r.value > 1073741823n ? 'Value too large for defined data type' : 'Numerical result out of range'}` };
  }
  if (r.err === 'overflow') return { error: `${base}: Value too large for defined data type` };
  return { error: base };
}

export const INTMAX_MAX = (1n << 63n) - 1n;
