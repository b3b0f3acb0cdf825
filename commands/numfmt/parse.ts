// numfmt's option values: --field lists, --from-unit/--to-unit sizes, --format strings (GNU 9.1).
import { OptionError } from '../../src/command/options/errors.js';
import { gnuQuote, xstrtoumax } from '../../src/gnulib/gnu-number.js';
import { setFields, type FieldRange } from '../../src/gnulib/set-fields.js';

/** set_fields(spec, SETFLD_ALLOW_DASH): "N", "N-", "N-M", "-M" by commas or blanks; "-" alone is every field. */
export function parseFieldList(spec: string): FieldRange[] {
  return setFields(spec, { allowDash: true });
}

/** unit_to_umax: N, N with K..Y (1000s), N with Ki..Yi (1024s); KB and the like are refused. */
export function unitToUmax(n: string): bigint {
  let s = n;
  let suffixes = 'KMGTPEZY';
  const last = n[n.length - 1];
  if (last !== undefined && !(last >= '0' && last <= '9')) {
    const prev = n[n.length - 2];
    if (last === 'i' && n.length >= 2 && !(prev! >= '0' && prev! <= '9')) s = n.slice(0, -1);
    else {
      s = n + 'B';
      suffixes = 'KMGTPEZY0';
    }
  }
  const r = xstrtoumax(s, suffixes);
  if (r.err !== 'ok' || r.value === 0n) throw new OptionError(`invalid unit size: ${gnuQuote(n)}`, false);
  return r.value;
}

export interface Format {
  prefix: string;
  suffix: string;
  grouping: boolean;
  zero: boolean;
  /** Width: negative left-aligns, 0 none. */
  pad: number;
  /** -1: none given. */
  precision: number;
}

/** parse_format_string: one %[0]['][-][N][.][N]f directive, with text before and after (latin1). */
export function parseFormat(fmtText: string): Format {
  const fmt = Buffer.from(fmtText, 'utf8').toString('latin1');
  const die = (m: string) => new OptionError(m, false);
  let i = 0;
  let prefixLen = 0;
  for (; !(fmt[i] === '%' && fmt[i + 1] !== '%'); i += fmt[i] === '%' ? 2 : 1) {
    if (i >= fmt.length) throw die(`format ${gnuQuote(fmtText)} has no % directive`);
    prefixLen++;
  }
  i++;
  let grouping = false;
  let zero = false;
  for (;;) {
    let skip = 0;
    while (fmt[i + skip] === ' ') skip++;
    i += skip;
    if (fmt[i] === "'") {
      grouping = true;
      i++;
    } else if (fmt[i] === '0') {
      zero = true;
      i++;
    } else if (!skip) break;
  }
  // strtol(fmt + i): blanks, a sign, digits
  const m = /^[ \t\n\v\f\r]*[+-]?\d+/.exec(fmt.slice(i));
  let pad = 0;
  if (m) {
    const v = BigInt(m[0].trim());
    if (v > (1n << 63n) - 1n || v < -((1n << 63n) - 1n)) throw die(`invalid format ${gnuQuote(fmtText)} (width overflow)`);
    pad = Number(v);
    i += m[0].length;
  }
  if (i >= fmt.length) throw die(`format ${gnuQuote(fmtText)} ends in %`);
  let precision = -1;
  if (fmt[i] === '.') {
    i++;
    const pm = /^[ \t\n\v\f\r]*[+-]?\d+/.exec(fmt.slice(i));
    const c = fmt[i];
    const v = pm ? BigInt(pm[0].trim()) : 0n;
    if (v < 0n || v > (1n << 63n) - 1n || c === ' ' || c === '\t' || c === '+') throw die(`invalid precision in format ${gnuQuote(fmtText)}`);
    precision = Number(v);
    if (pm) i += pm[0].length;
  }
  if (fmt[i] !== 'f') throw die(`invalid format ${gnuQuote(fmtText)}, directive must be %[0]['][-][N][.][N]f`);
  i++;
  const suffixPos = i;
  for (; i < fmt.length; i += fmt[i] === '%' ? 2 : 1) {
    if (fmt[i] === '%' && fmt[i + 1] !== '%') throw die(`format ${gnuQuote(fmtText)} has too many % directives`);
  }
  // GNU copies prefix_len bytes (a %% counted once): the prefix as it prints it
  return { prefix: fmt.slice(0, prefixLen), suffix: fmt.slice(suffixPos), grouping, zero, pad, precision };
}
