/**
 * Shared formatting for file listings (ls, stat, tree): GNU mode strings, human sizes,
 * ls -l / --full-time dates, owner and group names, device numbers, file type names.
 * Times are always printed in UTC (nosh runs as if TZ=UTC).
 */
import * as fs from 'node:fs';
import type { Stats } from 'node:fs';

const S_IFMT = 0o170000;
export const S_IFREG = 0o100000;
export const S_IFDIR = 0o040000;
export const S_IFLNK = 0o120000;
export const S_IFCHR = 0o020000;
export const S_IFBLK = 0o060000;
export const S_IFIFO = 0o010000;
export const S_IFSOCK = 0o140000;

export function fileTypeBits(mode: number): number {
  return mode & S_IFMT;
}

/** `-rw-r--r--` as GNU filemodestring prints it (10 characters). */
export function modeString(mode: number): string {
  const t = mode & S_IFMT;
  const type =
    t === S_IFREG ? '-' : t === S_IFDIR ? 'd' : t === S_IFLNK ? 'l' : t === S_IFCHR ? 'c' : t === S_IFBLK ? 'b' : t === S_IFIFO ? 'p' : t === S_IFSOCK ? 's' : '?';
  const bit = (m: number, c: string) => (mode & m ? c : '-');
  const special = (x: number, s: number, set: string, unset: string) => {
    const hasX = (mode & x) !== 0;
    if (mode & s) return hasX ? set : unset;
    return hasX ? 'x' : '-';
  };
  return (
    type +
    bit(0o400, 'r') + bit(0o200, 'w') + special(0o100, 0o4000, 's', 'S') +
    bit(0o040, 'r') + bit(0o020, 'w') + special(0o010, 0o2000, 's', 'S') +
    bit(0o004, 'r') + bit(0o002, 'w') + special(0o001, 0o1000, 't', 'T')
  );
}

/** stat %F: the file type in words. */
export function fileTypeName(st: Stats): string {
  if (st.isFile()) return st.size === 0 ? 'regular empty file' : 'regular file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symbolic link';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'character special file';
  if (st.isBlockDevice()) return 'block special file';
  return 'weird file';
}

/**
 * GNU human_readable() with human_autoscale | human_SI | human_base_1024 and ceiling
 * rounding, as `ls -h` uses it: 1023, 1.0K, 1.1K, 9.9K, 10K, 1.0M...
 */
export function humanSize(n: number): string {
  const base = 1024;
  const letters = ['', 'K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
  let amt = Math.floor(n);
  let tenths = 0;
  let rounding = 0;
  let exponent = 0;
  let frac = '';
  if (amt >= base) {
    do {
      const r10 = (amt % base) * 10 + tenths;
      const r2 = (r10 % base) * 2 + (rounding >> 1);
      amt = Math.floor(amt / base);
      tenths = Math.floor(r10 / base);
      rounding = r2 < base ? (r2 + rounding !== 0 ? 1 : 0) : 2 + (base < r2 + rounding ? 1 : 0);
      exponent++;
    } while (amt >= base && exponent < letters.length - 1);
    if (amt < 10) {
      if (rounding > 0) {
        tenths++;
        rounding = 0;
        if (tenths === 10) {
          amt++;
          tenths = 0;
        }
      }
      if (amt < 10) {
        frac = '.' + tenths;
        tenths = 0;
        rounding = 0;
      }
    }
  }
  if (tenths + rounding > 0) {
    amt++;
    if (amt === base && exponent < letters.length - 1) {
      exponent++;
      frac = '.0';
      amt = 1;
    }
  }
  return `${amt}${frac}${letters[exponent]}`;
}

/** Seconds and nanoseconds of a time field (from the *Ms double; exact for whole microseconds). */
export interface TimeSpec {
  sec: number;
  nsec: number;
}

export function timeOf(ms: number): TimeSpec {
  const sec = Math.floor(ms / 1000);
  let nsec = Math.round((ms - sec * 1000) * 1e6);
  // A double holds about 0.24 µs of resolution at today's epoch; keep whole microseconds honest.
  nsec = Math.min(999_999_999, Math.max(0, nsec));
  return { sec, nsec };
}

/** Exact seconds and nanoseconds from a bigint nanosecond time. */
export function timeOfNs(ns: bigint): TimeSpec {
  const sec = ns / 1_000_000_000n;
  const rem = ns - sec * 1_000_000_000n;
  return rem < 0n ? { sec: Number(sec) - 1, nsec: Number(rem + 1_000_000_000n) } : { sec: Number(sec), nsec: Number(rem) };
}

export function mtimeOf(st: Stats): TimeSpec {
  return timeOf(st.mtimeMs);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => String(n).padStart(2, '0');

function utcDate(sec: number): Date {
  return new Date(sec * 1000);
}

/** GNU ls -l date in the C locale: "Jan  2 03:04" within the last six months, else "Jan  2  2024". */
export function lsTime(t: TimeSpec, now: TimeSpec = nowSpec()): string {
  const d = utcDate(t.sec);
  const mon = MONTHS[d.getUTCMonth()]!;
  const day = String(d.getUTCDate()).padStart(2, ' ');
  const sixMonthsAgo = { sec: now.sec - 31556952 / 2, nsec: now.nsec };
  const recent = cmpTime(sixMonthsAgo, t) < 0 && cmpTime(t, now) < 0;
  if (recent) return `${mon} ${day} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
  return `${mon} ${day}  ${yearText(d.getUTCFullYear())}`;
}

function yearText(y: number): string {
  return y < 0 ? String(y) : String(y).padStart(4, ' ');
}

export function cmpTime(a: TimeSpec, b: TimeSpec): number {
  return a.sec !== b.sec ? a.sec - b.sec : a.nsec - b.nsec;
}

export function nowSpec(): TimeSpec {
  return timeOf(Date.now());
}

/** "2024-01-02 03:04:05.000000000 +0000" (ls --full-time, stat %y). */
export function fullTime(t: TimeSpec): string {
  const d = utcDate(t.sec);
  const y = d.getUTCFullYear();
  return `${y}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${String(t.nsec).padStart(9, '0')} +0000`;
}

// ---- owners ------------------------------------------------------------------------

let users: Map<number, string> | null = null;
let groups: Map<number, string> | null = null;

function readIdFile(path: string): Map<number, string> {
  const map = new Map<number, string>();
  let text = '';
  try {
    text = fs.readFileSync(path, 'latin1');
  } catch {
    return map;
  }
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f.length < 3 || f[0] === '' || line.startsWith('#')) continue;
    const id = Number(f[2]);
    if (Number.isInteger(id) && !map.has(id)) map.set(id, f[0]!);
  }
  return map;
}

/** User name for a uid (host /etc/passwd, read once), or the number itself. */
export function userName(uid: number): string {
  users ??= readIdFile('/etc/passwd');
  return users.get(uid) ?? String(uid);
}

export function groupName(gid: number): string {
  groups ??= readIdFile('/etc/group');
  return groups.get(gid) ?? String(gid);
}

// ---- devices -----------------------------------------------------------------------

/** glibc gnu_dev_major / gnu_dev_minor. */
export function devMajor(dev: number): number {
  const d = BigInt(dev);
  return Number(((d >> 8n) & 0xfffn) | ((d >> 32n) & ~0xfffn));
}

export function devMinor(dev: number): number {
  const d = BigInt(dev);
  return Number((d & 0xffn) | ((d >> 12n) & ~0xffn));
}

// ---- names -------------------------------------------------------------------------

/** Byte-wise comparison of names (strcmp / strcoll in the C locale). */
export function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Join a directory operand and an entry name as GNU file_name_concat does ("." stays). */
export function joinPath(dir: string, name: string): string {
  if (dir === '') return name;
  const stripped = dir.replace(/\/+$/, '');
  return stripped === '' ? dir + name : `${stripped}/${name}`;
}

/** User name for a uid, or undefined when the host does not know it (stat prints UNKNOWN). */
export function lookupUser(uid: number): string | undefined {
  users ??= readIdFile('/etc/passwd');
  return users.get(uid);
}

export function lookupGroup(gid: number): string | undefined {
  groups ??= readIdFile('/etc/group');
  return groups.get(gid);
}

/** GNU print_type_indicator: '/' for directories; with -F also * @ | =. */
export function typeIndicator(mode: number, style: 'none' | 'slash' | 'classify'): string {
  if (style === 'none') return '';
  const t = mode & S_IFMT;
  if (t === S_IFDIR) return '/';
  if (style === 'slash') return '';
  if (t === S_IFLNK) return '@';
  if (t === S_IFIFO) return '|';
  if (t === S_IFSOCK) return '=';
  if (t === S_IFREG && mode & 0o111) return '*';
  return '';
}
