/**
 * Date strings for touch -d / -t (and later date -d): a documented subset of GNU
 * parse_datetime, evaluated in UTC (nosh's reference is TZ=UTC).
 *
 * Accepted (case-insensitive, items separated by spaces):
 *   ''                      today at 00:00:00
 *   @SECONDS[.FRACTION]     seconds since the epoch (may be negative)
 *   now, today              the current time
 *   yesterday, tomorrow     the current time -/+ 1 day
 *   YYYY-MM-DD, YY-MM-DD, YYYYMMDD      a calendar date (at 00:00:00)
 *   HH:MM[:SS[.FRACTION]]   a time of day (today when no date is given); after a date
 *                           it may follow a 'T' directly: 2024-01-02T03:04:05
 *   HH                      an hour, right after a date: '2024-01-02 03'
 *   Z, UTC, GMT, UT, +HH, +HHMM, +HH:MM, -...   the time zone of the time just given
 *   [+-]N UNIT [ago], UNIT, last UNIT, next UNIT   relative items; UNIT is year, month,
 *                           fortnight, week, day, hour, minute/min, second/sec (plural ok)
 * Anything else (month names, weekdays, 'noon'...) is refused: the caller reports an
 * invalid date.
 */

export interface Timestamp {
  sec: number;
  nsec: number;
}

const UNIT_SECONDS: Record<string, number> = {
  fortnight: 14 * 86400, week: 7 * 86400, day: 86400, hour: 3600, minute: 60, min: 60, second: 1, sec: 1,
};

function unitOf(word: string): string | null {
  const w = word.endsWith('s') && word.length > 3 ? word.slice(0, -1) : word;
  if (w === 'year' || w === 'month' || w in UNIT_SECONDS) return w;
  return null;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function fullYear(digits: string): number {
  const y = Number(digits);
  if (digits.length === 2) return y >= 69 ? 1900 + y : 2000 + y;
  return y;
}

function fraction(digits: string | undefined): number {
  if (!digits) return 0;
  return Number((digits + '000000000').slice(0, 9));
}

/** Parse a GNU-style date string; `now` in milliseconds since the epoch. Null when refused. */
export function parseDate(text: string, now: number = Date.now()): Timestamp | null {
  const s = text.trim().toLowerCase();
  const at = /^@\s*([-+]?\d+)(?:[.,](\d+))?$/.exec(s);
  if (at) {
    const sec = Number(at[1]);
    let nsec = fraction(at[2]);
    if (at[1]!.startsWith('-') && nsec > 0) return { sec: sec - 1, nsec: 1e9 - nsec };
    return { sec, nsec };
  }
  if (s === '') {
    const d = new Date(now);
    return { sec: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000, nsec: 0 };
  }
  let date: { y: number; m: number; d: number } | null = null;
  let time: { h: number; mi: number; s: number; ns: number } | null = null;
  let zone: number | null = null; // offset east of UTC, in seconds
  const rel = { months: 0, seconds: 0 };
  let lastRel: { months: number; seconds: number } | null = null;
  const addRel = (n: number, unit: string) => {
    const item = unit === 'year' ? { months: 12 * n, seconds: 0 } : unit === 'month' ? { months: n, seconds: 0 } : { months: 0, seconds: n * UNIT_SECONDS[unit]! };
    rel.months += item.months;
    rel.seconds += item.seconds;
    lastRel = item;
  };
  const parseTime = (t: string): boolean => {
    const m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(z|utc|gmt|ut|[+-]\d{1,2}(?::?\d{2})?)?$/.exec(t);
    if (!m || time) return false;
    const h = Number(m[1]), mi = Number(m[2]), sec = m[3] === undefined ? 0 : Number(m[3]);
    if (h > 23 || mi > 59 || sec > 59) return false;
    time = { h, mi, s: sec, ns: fraction(m[4]) };
    if (m[5] !== undefined) {
      const z = zoneOffset(m[5]);
      if (z === null) return false;
      zone = z;
    }
    return true;
  };
  const tokens = s.split(/\s+/);
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    const next = tokens[i + 1];
    let m: RegExpExecArray | null;
    if (tok === 'now' || tok === 'today') continue;
    if (tok === 'yesterday' || tok === 'tomorrow') {
      addRel(tok === 'yesterday' ? -1 : 1, 'day');
      continue;
    }
    if (tok === 'ago') {
      if (!lastRel) return null;
      const l = lastRel as { months: number; seconds: number };
      rel.months -= 2 * l.months;
      rel.seconds -= 2 * l.seconds;
      lastRel = null;
      continue;
    }
    if ((m = /^(\d+)-(\d{1,2})-(\d{1,2})(?:t(.+))?$/.exec(tok)) || (m = /^(\d{4})(\d{2})(\d{2})$/.exec(tok))) {
      if (date || (m[1]!.length !== 2 && m[1]!.length < 4)) return null;
      const y = fullYear(m[1]!), mo = Number(m[2]), d = Number(m[3]);
      if (y < 1000 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo)) return null;
      date = { y, m: mo, d };
      if (m[4] !== undefined && !parseTime(m[4])) return null;
      continue;
    }
    if (tok.includes(':')) {
      if (!parseTime(tok)) return null;
      continue;
    }
    if (time && zone === null && (m = /^(z|utc|gmt|ut|[+-]\d{1,2}(?::?\d{2})?)$/.exec(tok))) {
      zone = zoneOffset(m[1]!);
      if (zone === null) return null;
      continue;
    }
    if (date && !time && /^\d{1,2}$/.test(tok) && (next === undefined || unitOf(next) === null)) {
      const h = Number(tok);
      if (h > 23) return null;
      time = { h, mi: 0, s: 0, ns: 0 };
      continue;
    }
    if ((m = /^([+-]?\d+)$/.exec(tok)) && next !== undefined && unitOf(next)) {
      addRel(Number(m[1]), unitOf(next)!);
      i++;
      continue;
    }
    if ((tok === 'last' || tok === 'next') && next !== undefined && unitOf(next)) {
      addRel(tok === 'last' ? -1 : 1, unitOf(next)!);
      i++;
      continue;
    }
    const unit = unitOf(tok);
    if (unit) {
      addRel(1, unit);
      continue;
    }
    return null;
  }
  // Base: the date and time given (a missing time is midnight, a missing date is today).
  let sec: number;
  let nsec: number;
  if (!date && !time) {
    sec = Math.floor(now / 1000);
    nsec = Math.round((now - sec * 1000) * 1e6);
  } else {
    const today = new Date(now);
    const dd = date ?? { y: today.getUTCFullYear(), m: today.getUTCMonth() + 1, d: today.getUTCDate() };
    const tt = (time as { h: number; mi: number; s: number; ns: number } | null) ?? { h: 0, mi: 0, s: 0, ns: 0 };
    sec = Date.UTC(dd.y, dd.m - 1, dd.d, tt.h, tt.mi, tt.s) / 1000 - (zone ?? 0);
    nsec = tt.ns;
  }
  if (rel.months !== 0) {
    // Calendar months: the day of month overflows into the next month, as mktime does.
    const d = new Date(sec * 1000);
    sec = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + rel.months, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()) / 1000;
  }
  sec += rel.seconds;
  if (!Number.isFinite(sec)) return null;
  return { sec, nsec };
}

function zoneOffset(z: string): number | null {
  if (z === 'z' || z === 'utc' || z === 'gmt' || z === 'ut') return 0;
  const m = /^([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(z);
  if (!m) return null;
  const h = Number(m[2]), mi = m[3] === undefined ? 0 : Number(m[3]);
  if (h > 24 || mi > 59) return null;
  return (m[1] === '-' ? -1 : 1) * (h * 3600 + mi * 60);
}

/**
 * touch -t STAMP: [[CC]YY]MMDDhhmm[.ss], in UTC. Two-digit years 69-99 are 19YY, 00-68
 * are 20YY; without a year, the current one. Seconds 60 roll into the next minute.
 */
export function parsePosixStamp(text: string, now: number = Date.now()): Timestamp | null {
  const m = /^(\d{8}|\d{10}|\d{12})(?:\.(\d{2}))?$/.exec(text);
  if (!m) return null;
  const digits = m[1]!;
  let year: number;
  let rest: string;
  if (digits.length === 12) {
    year = Number(digits.slice(0, 4));
    rest = digits.slice(4);
  } else if (digits.length === 10) {
    year = fullYear(digits.slice(0, 2));
    rest = digits.slice(2);
  } else {
    year = new Date(now).getUTCFullYear();
    rest = digits;
  }
  const mo = Number(rest.slice(0, 2)), d = Number(rest.slice(2, 4)), h = Number(rest.slice(4, 6)), mi = Number(rest.slice(6, 8));
  const ss = m[2] === undefined ? 0 : Number(m[2]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(year, mo) || h > 23 || mi > 59 || ss > 60) return null;
  return { sec: Date.UTC(year, mo - 1, d, h, mi, 0) / 1000 + ss, nsec: 0 };
}
