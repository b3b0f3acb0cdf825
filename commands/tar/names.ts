// Member names as GNU tar 1.34 treats them: leading `/` and `../` prefixes, '..' refusal,
// --strip-components, --exclude, and its `tar tv` line.
import { fnmatch, FNM_LEADING_DIR, type GlobMatcher } from '../../src/gnulib/fnmatch.js';

/** Longest name nosh extracts (bytes), as PATH_MAX. */
export const MAX_NAME_BYTES = 4096;

/** GNU's safer_name_suffix: the prefix it removes ('/', 'a/../../'), '' if none. */
export function leadingPrefix(name: string): string {
  let p = 0;
  if (hasDotDot(name)) {
    let i = 0;
    while (i < name.length) {
      if (name.startsWith('..', i) && (name[i + 2] === '/' || i + 2 === name.length)) p = i + 2;
      while (i < name.length && name[i++] !== '/');
    }
  }
  while (name[p] === '/') p++;
  return name.slice(0, p);
}

export function hasDotDot(name: string): boolean {
  return name.split('/').includes('..');
}

/** --strip-components=N: null when nothing is left. */
export function stripComponents(name: string, n: number): string | null {
  if (n <= 0) return name;
  const parts = name.split('/');
  let i = 0;
  let seen = 0;
  while (i < parts.length && seen < n) {
    if (parts[i] !== '') seen++;
    i++;
  }
  const rest = parts.slice(i).join('/');
  return rest.replace(/^\/+/, '') === '' ? null : rest;
}

/** --exclude PATTERN: unanchored, as GNU's default (any trailing part of the name, its leading folders too). */
export function excluder(patterns: string[]): (name: string) => boolean {
  const ms: GlobMatcher[] = patterns.map((p) => fnmatch(p, FNM_LEADING_DIR));
  return (name) => {
    const n = name.replace(/\/+$/, '');
    if (!ms.length) return false;
    for (let i = -1; i < n.length; i = n.indexOf('/', i + 1)) {
      const s = n.slice(i + 1);
      if (ms.some((m) => m.test(s))) return true;
      if (n.indexOf('/', i + 1) < 0) break;
    }
    return false;
  };
}

export interface ListHeader {
  name: string;
  type: string;
  mode: number;
  uid: number;
  gid: number;
  uname?: string;
  gname?: string;
  size: number;
  mtime: Date;
  linkname?: string | null;
  devmajor?: number;
  devminor?: number;
}

const TYPE_CHAR: Record<string, string> = {
  file: '-', 'contiguous-file': '-', directory: 'd', symlink: 'l', link: 'h', 'character-device': 'c', 'block-device': 'b', fifo: 'p',
};

function modeString(h: ListHeader): string {
  const m = h.mode;
  const rwx = (r: number, w: number, x: number, special: number, s: string) =>
    (m & r ? 'r' : '-') + (m & w ? 'w' : '-') + (m & special ? (m & x ? s : s.toUpperCase()) : m & x ? 'x' : '-');
  return (TYPE_CHAR[h.type] ?? '-') + rwx(0o400, 0o200, 0o100, 0o4000, 's') + rwx(0o40, 0o20, 0o10, 0o2000, 's') + rwx(0o4, 0o2, 0o1, 0o1000, 't');
}

/** `tar tv` lines: ugswidth grows as GNU's does, once per run. */
export class Lister {
  private ugswidth = 19;

  line(h: ListHeader): string {
    const ug = `${h.uname || h.uid}/${h.gname || h.gid}`;
    const dev = h.type === 'character-device' || h.type === 'block-device';
    const size = dev ? `${h.devmajor ?? 0},${h.devminor ?? 0}` : String(h.size);
    const pad = ug.length + 1 + size.length;
    if (pad > this.ugswidth) this.ugswidth = pad;
    const d = h.mtime;
    const two = (n: number) => String(n).padStart(2, '0');
    const when = `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
    let tail = '';
    if (h.type === 'symlink') tail = ` -> ${h.linkname ?? ''}`;
    else if (h.type === 'link') tail = ` link to ${h.linkname ?? ''}`;
    return `${modeString(h)} ${ug}${' '.repeat(this.ugswidth - ug.length - size.length)}${size} ${when} ${h.name}${tail}\n`;
  }
}
