import { strftimeConv } from '../../src/gnulib/strftime.js';

/**
 * GNU date's format (gnulib nstrftime, C locale, UTC): strftime conversions with the flags
 * `_ - 0 ^ # +`, a field width, `E`/`O` modifiers (ignored in the C locale), and GNU's own
 * %N (nanoseconds), %:z %::z %:::z, %q (quarter), %P (am/pm).
 */
const NUMERIC: Record<string, { width: number; pad: string }> = {
  C: { width: 2, pad: '0' }, d: { width: 2, pad: '0' }, e: { width: 2, pad: ' ' }, g: { width: 2, pad: '0' }, G: { width: 4, pad: '0' },
  H: { width: 2, pad: '0' }, I: { width: 2, pad: '0' }, j: { width: 3, pad: '0' }, k: { width: 2, pad: ' ' }, l: { width: 2, pad: ' ' },
  m: { width: 2, pad: '0' }, M: { width: 2, pad: '0' }, q: { width: 1, pad: '0' }, s: { width: 1, pad: '0' }, S: { width: 2, pad: '0' },
  u: { width: 1, pad: '0' }, U: { width: 2, pad: '0' }, V: { width: 2, pad: '0' }, w: { width: 1, pad: '0' }, W: { width: 2, pad: '0' },
  y: { width: 2, pad: '0' }, Y: { width: 4, pad: '0' },
};

export function formatDate(fmt: string, sec: number, nsec: number): string {
  const d = new Date(sec * 1000);
  let out = '';
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    const start = i;
    let j = i + 1;
    let flags = '';
    while (j < fmt.length && '_-0^#+'.includes(fmt[j]!)) flags += fmt[j++];
    let w = '';
    while (j < fmt.length && /[0-9]/.test(fmt[j]!)) w += fmt[j++];
    let colons = 0;
    while (fmt[j] === ':') {
      colons++;
      j++;
    }
    if (fmt[j] === 'E' || fmt[j] === 'O') j++;
    const conv = fmt[j];
    if (conv === undefined) {
      out += fmt.slice(start);
      break;
    }
    i = j;
    if (colons && conv !== 'z') {
      out += fmt.slice(start, j + 1);
      continue;
    }
    const width = w === '' ? undefined : Number(w);
    out += one(conv, flags, width, colons, sec, nsec, d, fmt.slice(start, j + 1));
  }
  return out;
}

function one(conv: string, flags: string, width: number | undefined, colons: number, sec: number, nsec: number, d: Date, raw: string): string {
  const last = (s: string) => (flags.length ? flags[flags.length - 1] : s);
  const padFlag = [...flags].reverse().find((f) => f === '_' || f === '-' || f === '0' || f === '+');
  void last;
  if (conv === 'N') {
    let s = String(nsec).padStart(9, '0');
    const wd = width ?? 9;
    if (wd < 9) s = s.slice(0, wd);
    else if (wd > 9) s = s.padEnd(wd, '0');
    return s;
  }
  if (conv in NUMERIC) {
    const spec = NUMERIC[conv]!;
    let v: string;
    if (conv === 'q') v = String(Math.floor(d.getUTCMonth() / 3) + 1);
    else if (conv === 'Y') v = String(d.getUTCFullYear());
    else v = strftimeConv(conv, sec, d).trim().replace(/^(-?)0+(?=\d)/, '$1');
    const neg = v.startsWith('-');
    if (neg) v = v.slice(1);
    const wd = width ?? spec.width;
    let pad = spec.pad;
    if (padFlag === '_') pad = ' ';
    else if (padFlag === '0' || padFlag === '+') pad = '0';
    if (padFlag === '-') return (neg ? '-' : '') + v;
    const sign = neg ? '-' : padFlag === '+' && ((conv === 'Y' && v.length > 4) || (width !== undefined && width > spec.width && conv === 'Y' && false)) ? '+' : '';
    const body = sign + v;
    if (body.length >= wd) return body;
    return pad === '0' ? sign + '0'.repeat(wd - body.length) + v : ' '.repeat(wd - body.length) + body;
  }
  let s: string;
  switch (conv) {
    case 'z': {
      if (colons > 3) return raw;
      s = colons === 0 ? '+0000' : colons === 1 ? '+00:00' : colons === 2 ? '+00:00:00' : '+00';
      break;
    }
    case 'P': s = d.getUTCHours() < 12 ? 'am' : 'pm'; break;
    case 'a': case 'A': case 'b': case 'B': case 'h': case 'c': case 'D': case 'F': case 'p': case 'r': case 'R':
    case 'T': case 'x': case 'X': case 'Z': case 'n': case 't': case '%':
      s = strftimeConv(conv, sec, d);
      break;
    default:
      return raw;
  }
  if (flags.includes('^')) s = s.toUpperCase();
  else if (flags.includes('#')) {
    if ('aAbBh'.includes(conv)) s = s.toUpperCase();
    else if (conv === 'p' || conv === 'Z') s = s.toLowerCase();
  }
  if (width !== undefined && s.length < width && padFlag !== '-') s = (padFlag === '0' || padFlag === '+' ? '0' : ' ').repeat(width - s.length) + s;
  return s;
}
