/**
 * find -printf formats and -ls lines, as GNU findutils 4.9 prints them (C locale, UTC).
 * Everything here works on byte strings (latin1: one char = one byte).
 */
import type { Stats } from 'node:fs';
import { DAYS_ABBR, MONTHS_ABBR, p2, s2, strftimeConv } from '../../src/gnulib/strftime.js';
import { modeString, timeOf, timeOfNs, userName, groupName, type TimeSpec } from '../../src/gnulib/format.js';

/** UTF-8 text (argv, file names from the Vfs) as a byte string. */
export function bytesOf(s: string): string {
  // A plain loop: this runs for every name a walk meets, and beats a regex on short names.
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return Buffer.from(s, 'utf8').toString('latin1');
  return s;
}

/**
 * quotearg's locale_quoting_style in the C locale, as find quotes names in diagnostics:
 * always 'quoted', with C escapes for backslash, quote and non-printable bytes.
 */
export function localeQuote(name: string): string {
  const b = bytesOf(name);
  let out = "'";
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i);
    const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\', 0x27: "\\'" };
    if (named[c] !== undefined) out += named[c];
    else if (c < 0x20 || c >= 0x7f) out += '\\' + c.toString(8).padStart(3, '0');
    else out += b[i];
  }
  return Buffer.from(out + "'", 'latin1').toString('utf8');
}

// ---- format compilation -------------------------------------------------------------

export interface Segment {
  /** Literal bytes, or a directive. */
  text?: string;
  directive?: string;
  /** For %A %C %T: the time field letter. */
  timeKind?: string;
  flags: string;
  width: number | null;
  precision: number | null;
  /** \c: stop printing here. */
  stop?: boolean;
}

export class FormatError extends Error {}

const DIRECTIVES = 'abcdDfFgGhHiklmMnpPsStuUyYZ';

/**
 * Parse a -printf format; `warn` receives GNU's warnings (unrecognized escapes and
 * directives), errors (a '%' at the end) throw FormatError with GNU's text.
 */
export function compileFormat(format: string, warn: (msg: string) => void): Segment[] {
  const f = bytesOf(format);
  const segs: Segment[] = [];
  let lit = '';
  const pushLit = () => {
    if (lit !== '') segs.push({ text: lit, flags: '', width: null, precision: null });
    lit = '';
  };
  for (let i = 0; i < f.length; i++) {
    const c = f[i]!;
    if (c === '\\') {
      const d = f[i + 1];
      if (d === undefined) {
        warn("warning: escape `\\' followed by nothing at all");
        lit += '\\';
        continue;
      }
      if (d >= '0' && d <= '7') {
        let v = 0;
        let j = i + 1;
        for (let k = 0; k < 3 && j < f.length && f[j]! >= '0' && f[j]! <= '7'; k++, j++) v = v * 8 + (f.charCodeAt(j) - 48);
        lit += String.fromCharCode(v & 0xff);
        i = j - 1;
        continue;
      }
      const map: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };
      i++;
      if (d === 'c') {
        pushLit();
        segs.push({ stop: true, flags: '', width: null, precision: null });
        break;
      }
      if (map[d] !== undefined) lit += map[d];
      else {
        warn(`warning: unrecognized escape \`\\${Buffer.from(d, 'latin1').toString('utf8')}'`);
        lit += '\\' + d;
      }
      continue;
    }
    if (c !== '%') {
      lit += c;
      continue;
    }
    if (i + 1 >= f.length) throw new FormatError('error: % at end of format string');
    if (f[i + 1] === '%') {
      lit += '%';
      i++;
      continue;
    }
    let j = i + 1;
    let flags = '';
    while (j < f.length && '-+ #'.includes(f[j]!)) flags += f[j++];
    // '0' is not among GNU's flags: it starts the width ('%0 5d' ends at ' '), as printf reads it.
    if (f[j] === '0') flags += '0';
    let width: number | null = null;
    while (j < f.length && f[j]! >= '0' && f[j]! <= '9') width = (width ?? 0) * 10 + (f.charCodeAt(j++) - 48);
    let precision: number | null = null;
    if (f[j] === '.') {
      j++;
      precision = 0;
      while (j < f.length && f[j]! >= '0' && f[j]! <= '9') precision = precision * 10 + (f.charCodeAt(j++) - 48);
    }
    const d = f[j];
    // GNU reads the terminating NUL as the directive after flags, width or precision.
    if (d === undefined) throw new FormatError("error: the format directive `%\0' is reserved for future use");
    const spec = f.slice(i, j);
    if (d === '%') {
      // '%5%': GNU prints the flags, width and precision as they are, and drops the '%'.
      lit += spec;
      i = j;
      continue;
    }
    if (d === '{' || d === '[' || d === '(') throw new FormatError(`error: the format directive \`%${d}' is reserved for future use`);
    if (d === 'A' || d === 'B' || d === 'C' || d === 'T') {
      const k = f[j + 1];
      if (k === undefined) {
        warn(`warning: format directive \`%${d}' should be followed by another character`);
        lit += spec + d;
        i = j;
        continue;
      }
      pushLit();
      // An unknown conversion is left as strftime leaves it ('%q'), padded all the same.
      segs.push({ directive: d, timeKind: k, flags, width, precision });
      i = j + 1;
      continue;
    }
    if (!DIRECTIVES.includes(d) || d === 'F' || d === 'Z') {
      if (d === 'F' || d === 'Z') throw new FormatError(`%${d} is not supported by nosh (no file system type or SELinux context is exposed)`);
      warn(`warning: unrecognized format directive \`%${Buffer.from(d, 'latin1').toString('utf8')}'`);
      lit += spec + d;
      i = j;
      continue;
    }
    pushLit();
    segs.push({ directive: d, flags, width, precision });
    i = j;
  }
  pushLit();
  return segs;
}

// ---- printf-style padding -----------------------------------------------------------

function padStr(s: string, seg: Segment): string {
  if (seg.precision !== null && s.length > seg.precision) s = s.slice(0, seg.precision);
  if (seg.width !== null && s.length < seg.width) {
    s = seg.flags.includes('-') ? s.padEnd(seg.width) : s.padStart(seg.width);
  }
  return s;
}

function padInt(v: number, seg: Segment, base: 8 | 10): string {
  const neg = v < 0;
  let digits = Math.abs(v).toString(base);
  if (seg.precision !== null) {
    if (seg.precision === 0 && v === 0) digits = '';
    digits = digits.padStart(seg.precision, '0');
  }
  if (base === 8 && seg.flags.includes('#') && !digits.startsWith('0')) digits = '0' + digits;
  const sign = neg ? '-' : base === 10 && seg.flags.includes('+') ? '+' : base === 10 && seg.flags.includes(' ') ? ' ' : '';
  let s = sign + digits;
  if (seg.width !== null && s.length < seg.width) {
    if (seg.flags.includes('-')) s = s.padEnd(seg.width);
    else if (seg.flags.includes('0') && seg.precision === null) s = sign + digits.padStart(seg.width - sign.length, '0');
    else s = s.padStart(seg.width);
  }
  return s;
}

/** C's %g with the default precision 6. */
export function formatG(v: number): string {
  if (v === 0) return '0';
  const exp = Math.floor(Math.log10(Math.abs(v)));
  if (exp < -4 || exp >= 6) {
    let [m, e] = v.toExponential(5).split('e') as [string, string];
    if (m.includes('.')) m = m.replace(/0+$/, '').replace(/\.$/, '');
    const en = Number(e);
    return `${m}e${en < 0 ? '-' : '+'}${String(Math.abs(en)).padStart(2, '0')}`;
  }
  let s = v.toFixed(Math.max(0, 5 - exp));
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

// ---- times --------------------------------------------------------------------------

const DAYS = DAYS_ABBR;
const MONTHS = MONTHS_ABBR;

/** find's format_date: %S %T %X %+ and %@ carry the nanoseconds as ".NNNNNNNNN0". */
export function formatTime(t: TimeSpec, kind: string): string {
  const ns = `.${String(t.nsec).padStart(9, '0')}0`;
  if (kind === '@') return `${t.sec}${ns}`;
  const d = new Date(t.sec * 1000);
  if (kind === '+') return `${strftimeConv('F', t.sec, d)}+${strftimeConv('T', t.sec, d)}${ns}`;
  const s = strftimeConv(kind, t.sec, d);
  return kind === 'S' || kind === 'T' || kind === 'X' ? s + ns : s;
}

/** %t %a %c: ctime-like with nanoseconds, "Tue Jan  2 03:04:05.0000000000 2024". */
export function ctimeFormat(t: TimeSpec): string {
  const d = new Date(t.sec * 1000);
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${s2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(t.nsec).padStart(9, '0')}0 ${d.getUTCFullYear()}`;
}

// ---- rendering ----------------------------------------------------------------------

/** What a directive may need about the file being printed. */
export interface PrintSubject {
  /** Path as printed (byte string). */
  path: string;
  /** Starting point it was found under (byte string). */
  root: string;
  depth: number;
  stat(): Stats | null;
  /** Symlink target text (byte string), '' for other files. */
  linkTarget(): string;
  /** Type letter following a symlink (%Y). */
  followedType(): string;
  /** Exact nanosecond times (the Stats' float milliseconds lose the last digits). */
  times?(): { atime: bigint; mtime: bigint; ctime: bigint } | null;
}

export function typeLetter(st: Stats): string {
  if (st.isFile()) return 'f';
  if (st.isDirectory()) return 'd';
  if (st.isSymbolicLink()) return 'l';
  if (st.isFIFO()) return 'p';
  if (st.isSocket()) return 's';
  if (st.isCharacterDevice()) return 'c';
  if (st.isBlockDevice()) return 'b';
  return 'U';
}

/** base_name() as find uses it for %f: the last component, '/' for a root of slashes. */
export function baseNameOf(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === '/') end--;
  const i = path.lastIndexOf('/', end - 1);
  if (end === 1 && path[0] === '/') return '/';
  // base_name keeps one trailing slash of the last component ('d//' -> 'd/').
  return path.slice(i + 1, end) + (end < path.length ? '/' : '');
}

/**
 * %h: leading directories, '.' when there are none. As GNU prints it for a start point with
 * trailing slashes: 'd/e//' -> 'd', 'd//e/' -> 'd/', 'dir/' -> '.', but a one-byte name
 * keeps all but its last slash: 'd/' -> 'd', 'd///' -> 'd//', './/' -> './' (GNU 4.9 quirk).
 */
export function dirPart(path: string): string {
  let p = path;
  while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  if (p.length === 1 && p !== '/' && path.length > 1) return path.slice(0, path.lastIndexOf('/'));
  const i = p.lastIndexOf('/');
  if (i < 0) return '.';
  if (i === 0) return p === '/' ? '' : '/';
  return p.slice(0, i);
}

const STAT_DIRECTIVES = 'aAbcCDgGiklmMnsStTuUY';

/** Does the format need the file's stat? */
export function formatNeedsStat(segs: Segment[]): boolean {
  return segs.some((s) => s.directive !== undefined && STAT_DIRECTIVES.includes(s.directive));
}

/** Render a compiled format; returns the bytes and whether \c stopped it. */
export function renderFormat(segs: Segment[], f: PrintSubject): string {
  let out = '';
  for (const seg of segs) {
    if (seg.stop) break;
    if (seg.directive === undefined) {
      out += seg.text!;
      continue;
    }
    const need = () => {
      const st = f.stat();
      if (st === null) throw new MissingStat();
      return st;
    };
    const time = (k: 'atime' | 'mtime' | 'ctime'): TimeSpec => {
      const st = need();
      const ns = f.times?.();
      return ns ? timeOfNs(ns[k]) : timeOf(st[`${k}Ms`]);
    };
    switch (seg.directive) {
      case 'p': out += padStr(f.path, seg); break;
      case 'f': out += padStr(baseNameOf(f.path), seg); break;
      case 'h': out += padStr(dirPart(f.path), seg); break;
      case 'H': out += padStr(f.root, seg); break;
      case 'P': {
        let rest = f.path.slice(f.root.length);
        if (rest.startsWith('/')) rest = rest.slice(1);
        out += padStr(rest, seg);
        break;
      }
      case 'd': out += padInt(f.depth, seg, 10); break;
      case 's': out += padStr(String(need().size), seg); break;
      case 'k': out += padStr(String(Math.ceil((need().blocks * 512) / 1024)), seg); break;
      case 'b': out += padStr(String(need().blocks), seg); break;
      case 'n': out += padStr(String(need().nlink), seg); break;
      case 'i': out += padStr(String(need().ino), seg); break;
      case 'D': out += padStr(String(need().dev), seg); break;
      case 'm': out += padInt(need().mode & 0o7777, seg, 8); break;
      case 'M': out += padStr(modeString(need().mode), seg); break;
      case 'u': out += padStr(bytesOf(userName(need().uid)), seg); break;
      case 'g': out += padStr(bytesOf(groupName(need().gid)), seg); break;
      case 'U': out += padStr(String(need().uid), seg); break;
      case 'G': out += padStr(String(need().gid), seg); break;
      case 'y': out += padStr(typeLetter(need()), seg); break;
      case 'Y': out += padStr(f.followedType(), seg); break;
      case 'l': out += padStr(f.linkTarget(), seg); break;
      case 'S': {
        const st = need();
        out += padStr(formatG(st.size === 0 ? 1 : (st.blocks * 512) / st.size), seg);
        break;
      }
      case 'a': out += padStr(ctimeFormat(time('atime')), seg); break;
      case 'c': out += padStr(ctimeFormat(time('ctime')), seg); break;
      case 't': out += padStr(ctimeFormat(time('mtime')), seg); break;
      case 'A': out += padStr(formatTime(time('atime'), seg.timeKind!), seg); break;
      case 'C': out += padStr(formatTime(time('ctime'), seg.timeKind!), seg); break;
      case 'T': out += padStr(formatTime(time('mtime'), seg.timeKind!), seg); break;
      // GNU 4.9 here has no birth time: the time is {-1, -1}, which strftime cannot print.
      case 'B': out += seg.timeKind === '@' ? '-1.-000000010' : ''; break;
      default: break;
    }
  }
  return out;
}

export class MissingStat extends Error {}

// ---- -ls ----------------------------------------------------------------------------

/** Column widths of -ls grow as wider values are met, as in findutils' listfile.c. */
export class LsWidths {
  inode = 9;
  blocks = 6;
  owner = 8;
  group = 8;
  size = 8;
  major = 3;
  minor = 3;
}

/** print_name_with_quoting: backslash escapes for specials, \ooo for the rest. */
function lsQuote(name: string): string {
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    switch (c) {
      case 0x5c: out += '\\\\'; break;
      case 0x0a: out += '\\n'; break;
      case 0x08: out += '\\b'; break;
      case 0x0d: out += '\\r'; break;
      case 0x09: out += '\\t'; break;
      case 0x0c: out += '\\f'; break;
      case 0x20: out += '\\ '; break;
      case 0x22: out += '\\"'; break;
      default:
        out += c > 0x20 && c < 0x7f ? name[i] : '\\' + c.toString(8).padStart(3, '0');
    }
  }
  return out;
}

function grow(s: string, w: number, left = false): [string, number] {
  return [left ? s.padEnd(w) : s.padStart(w), Math.max(w, s.length)];
}

/** One -ls line (byte string, with its newline). `link` is the target text for symlinks. */
export function lsLine(path: string, st: Stats, link: string | null, w: LsWidths, nowSec: number): string {
  let s: string;
  let out = '';
  [s, w.inode] = grow(String(st.ino), w.inode);
  out += s + ' ';
  [s, w.blocks] = grow(String(Math.ceil((st.blocks * 512) / 1024)), w.blocks);
  out += s + ' ';
  out += modeString(st.mode) + ' ' + String(st.nlink).padStart(3) + ' ';
  const owner = bytesOf(userName(st.uid));
  w.owner = Math.max(w.owner, owner.length);
  out += owner.padEnd(w.owner) + ' ';
  const group = bytesOf(groupName(st.gid));
  w.group = Math.max(w.group, group.length);
  out += group.padEnd(w.group) + ' ';
  if (st.isCharacterDevice() || st.isBlockDevice()) {
    const major = Number((BigInt(st.rdev) >> 8n) & 0xfffn);
    const minor = Number((BigInt(st.rdev) & 0xffn) | ((BigInt(st.rdev) >> 12n) & ~0xffn));
    [s, w.major] = grow(String(major), w.major);
    out += s + ', ';
    [s, w.minor] = grow(String(minor), w.minor);
    out += s;
  } else {
    [s, w.size] = grow(String(st.size), w.size);
    out += s;
  }
  out += ' ';
  const mt = Math.floor(st.mtimeMs / 1000);
  const d = new Date(mt * 1000);
  const recent = nowSec - 6 * 30 * 24 * 60 * 60 <= mt && mt <= nowSec + 60 * 60;
  const date = recent
    ? `${MONTHS[d.getUTCMonth()]} ${s2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}`
    : `${MONTHS[d.getUTCMonth()]} ${s2(d.getUTCDate())}  ${d.getUTCFullYear()}`;
  out += date + ' ' + lsQuote(path);
  if (link !== null) out += ' -> ' + lsQuote(link);
  return out + '\n';
}
