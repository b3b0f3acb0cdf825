/**
 * Pathname expansion as bash does it with its default options (no globstar, dotglob,
 * nullglob, extglob; globskipdots on) under LC_ALL=C. Each path component is matched
 * with minimatch; walking directories, hidden names and sorting are done here.
 */
import { posix } from 'node:path';
import { Minimatch, type MinimatchOptions } from 'minimatch';
import { NoshError } from '../errors.js';
import type { Word } from './word.js';

export interface DirEntryLite { name: string; isDirectory: boolean }
export type ListDir = (virtualDir: string) => DirEntryLite[] | null;

const MAX_RESULTS = 10_000;
const MAX_DIRS = 10_000;

const MM_OPTS: MinimatchOptions = {
  dot: true, // hidden names are filtered here, by bash's rule
  nocomment: true,
  nonegate: true,
  noext: true,
  nobrace: true,
  noglobstar: true,
  platform: 'linux',
};

/**
 * Whether a glob pattern (escapes as backslashes) has an unescaped `*`, `?` or a `[`
 * followed later in the same path component by `]` — bash's unquoted_glob_pattern_p.
 */
export function hasGlobMagic(p: string): boolean {
  if (!/[*?[]/.test(p)) return false;
  let open = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') i++;
    else if (c === '*' || c === '?') return true;
    else if (c === '[') open = true;
    else if (c === ']' && open) return true;
    else if (c === '/') open = false;
  }
  return false;
}

function unescapeGlob(p: string): string {
  return p.replace(/\\(.)/gs, '$1');
}

/**
 * minimatch turns a bracket whose first member is an escaped `^` (`[\^a]`, from `["^"a]`)
 * into a negated class; a leading NUL member (never in a file name) avoids that.
 */
function fixLeadingCaret(p: string): string {
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') { out += c + (p[i + 1] ?? ''); i++; continue; }
    out += c;
    if (c === '[' && p[i + 1] === '\\' && p[i + 2] === '^' && /(^|[^\\])\]/.test(p.slice(i + 2))) out += '\0';
  }
  return out;
}

/** C-locale (byte, i.e. code point) order of two strings. */
export function compareC(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 code unit order differs from code point order only above U+D7FF
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

function tooMany(what: string): never {
  throw new NoshError('INVALID_ARGUMENT', `glob pattern ${what}`,
    'use a narrower pattern (e.g. a more specific directory or name), or use find', {});
}

class Walker {
  private readonly cache = new Map<string, DirEntryLite[] | null>();
  constructor(private readonly cwd: string, private readonly listDir: ListDir) {}

  list(prefix: string): DirEntryLite[] | null {
    const dir = posix.resolve('/', this.cwd, prefix === '' ? '.' : prefix);
    let entries = this.cache.get(dir);
    if (entries === undefined) {
      if (this.cache.size >= MAX_DIRS) tooMany(`would read more than ${MAX_DIRS} directories`);
      entries = this.listDir(dir);
      this.cache.set(dir, entries);
    }
    return entries;
  }

  exists(prefix: string, name: string): boolean {
    const entries = this.list(prefix);
    if (!entries) return false;
    return name === '.' || name === '..' || entries.some((e) => e.name === name);
  }
}

/** All paths matching a glob pattern, unsorted; [] when nothing matches. */
function match(pattern: string, walker: Walker): string[] {
  const parts = pattern.split('/');
  let k = 0;
  let lead = '';
  while (k < parts.length - 1 && parts[k] === '') { lead += '/'; k++; }
  let prefixes = [lead];
  let prevMagic = false;
  for (; k < parts.length; k++) {
    const comp = parts[k];
    const last = k === parts.length - 1;
    if (comp === '') {
      if (last) break; // trailing slash: the prefixes are directories ending in '/'
      if (!prevMagic) prefixes = prefixes.map((p) => p + '/'); // bash keeps `a//` but not `*//`
      continue;
    }
    const next: string[] = [];
    if (!hasGlobMagic(comp)) {
      const name = unescapeGlob(comp);
      for (const p of prefixes) {
        if (!last) next.push(p + name + '/');
        else if (walker.exists(p, name)) next.push(p + name);
      }
      prevMagic = false;
    } else {
      const mm = new Minimatch(fixLeadingCaret(comp), MM_OPTS);
      const hidden = comp.startsWith('.') || comp.startsWith('\\.');
      for (const p of prefixes) {
        for (const e of walker.list(p) ?? []) {
          if (e.name === '.' || e.name === '..' || (e.name.startsWith('.') && !hidden)) continue;
          if ((!last && !e.isDirectory) || !mm.match(e.name)) continue;
          next.push(last ? p + e.name : p + e.name + '/');
          if (next.length > MAX_RESULTS) tooMany(`matches more than ${MAX_RESULTS} paths`);
        }
      }
      prevMagic = true;
    }
    prefixes = next;
    if (prefixes.length === 0) return [];
  }
  // `dir/` after a literal component: it must be an existing directory
  if (pattern.endsWith('/') && !prevMagic) return prefixes.filter((p) => walker.list(p) !== null);
  return prefixes;
}

/**
 * Expands one glob word as bash does: sorted matches, or [word.value] when nothing
 * matches. Relative patterns are resolved against cwd and results stay relative.
 */
export function expandGlob(word: Word, cwd: string, listDir: ListDir): string[] {
  if (word.glob === undefined) return [word.value];
  const found = match(word.glob, new Walker(cwd, listDir));
  return found.length === 0 ? [word.value] : found.sort(compareC);
}

/** Expands each word; words without `glob` pass through unchanged. */
export function expandWords(words: Word[], cwd: string, listDir: ListDir): string[] {
  const out: string[] = [];
  let globbed = 0;
  for (const w of words) {
    if (w.glob === undefined) { out.push(w.value); continue; }
    const r = expandGlob(w, cwd, listDir);
    globbed += r.length;
    if (globbed > MAX_RESULTS) tooMany(`patterns match more than ${MAX_RESULTS} paths in total`);
    for (const s of r) out.push(s);
  }
  return out;
}
