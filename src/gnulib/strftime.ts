/**
 * strftime(3) in the C locale, UTC (nosh runs as TZ=UTC): the one implementation, for find
 * -printf's %A/%B/%C/%T conversions and tree --timefmt / its default dates.
 */

export const DAYS_ABBR = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
export const MONTHS_ABBR = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS_LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS_LONG = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const p2 = (n: number) => String(n).padStart(2, '0');
export const s2 = (n: number) => String(n).padStart(2, ' ');

/** ISO 8601 week-based year and week number (%G, %V). */
function isoWeek(d: Date): { year: number; week: number } {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const day = (t.getUTCDay() + 6) % 7;
  t.setUTCDate(t.getUTCDate() - day + 3);
  const year = t.getUTCFullYear();
  const jan4 = new Date(Date.UTC(year, 0, 4));
  const week = 1 + Math.round(((t.getTime() - jan4.getTime()) / 86400000 - 3 + ((jan4.getUTCDay() + 6) % 7)) / 7);
  return { year, week };
}

/** One strftime conversion `%k` of the time `sec` (seconds since the epoch); an unknown one is left as '%k'. */
export function strftimeConv(k: string, sec: number, d: Date = new Date(sec * 1000)): string {
  const Y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const day = d.getUTCDate();
  const H = d.getUTCHours();
  const M = d.getUTCMinutes();
  const S = d.getUTCSeconds();
  const wd = d.getUTCDay();
  const yday = Math.floor((Date.UTC(Y, m, day) - Date.UTC(Y, 0, 1)) / 86400000);
  const h12 = H % 12 === 0 ? 12 : H % 12;
  // glibc: (tm_year % 100 + 100) % 100, never negative.
  const y2 = p2(((Y % 100) + 100) % 100);
  switch (k) {
    case 'a': return DAYS_ABBR[wd]!;
    case 'A': return DAYS_LONG[wd]!;
    case 'b': case 'h': return MONTHS_ABBR[m]!;
    case 'B': return MONTHS_LONG[m]!;
    case 'c': return `${DAYS_ABBR[wd]} ${MONTHS_ABBR[m]} ${s2(day)} ${p2(H)}:${p2(M)}:${p2(S)} ${Y}`;
    case 'C': return p2(Math.floor(Y / 100));
    case 'd': return p2(day);
    case 'D': case 'x': return `${p2(m + 1)}/${p2(day)}/${y2}`;
    case 'e': return s2(day);
    case 'F': return `${Y}-${p2(m + 1)}-${p2(day)}`;
    case 'g': return p2(((isoWeek(d).year % 100) + 100) % 100);
    case 'G': return String(isoWeek(d).year);
    case 'H': return p2(H);
    case 'I': return p2(h12);
    case 'j': return String(yday + 1).padStart(3, '0');
    case 'k': return s2(H);
    case 'l': return s2(h12);
    case 'm': return p2(m + 1);
    case 'M': return p2(M);
    case 'n': return '\n';
    case 'p': return H < 12 ? 'AM' : 'PM';
    case 'r': return `${p2(h12)}:${p2(M)}:${p2(S)} ${H < 12 ? 'AM' : 'PM'}`;
    case 'R': return `${p2(H)}:${p2(M)}`;
    case 's': return String(sec);
    case 'S': return p2(S);
    case 't': return '\t';
    case 'T': case 'X': return `${p2(H)}:${p2(M)}:${p2(S)}`;
    case 'u': return String(wd === 0 ? 7 : wd);
    case 'U': return p2(Math.floor((yday + 7 - wd) / 7));
    case 'V': return p2(isoWeek(d).week);
    case 'w': return String(wd);
    case 'W': return p2(Math.floor((yday + 7 - ((wd + 6) % 7)) / 7));
    case 'y': return y2;
    case 'Y': return String(Y);
    case 'z': return '+0000';
    case 'Z': return 'UTC';
    case '%': return '%';
    default: return '%' + k;
  }
}

/** strftime(FMT) of the time `sec`; a lone '%' at the end stays. */
export function strftime(fmt: string, sec: number): string {
  const d = new Date(sec * 1000);
  return fmt.replace(/%(.)/gs, (_, c: string) => strftimeConv(c, sec, d));
}
