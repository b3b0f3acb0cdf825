/** Helpers shared by the typed file tools: paths, walking, globs, suggestions. */
import type * as fs from 'node:fs';
import { Minimatch } from 'minimatch';
import { NoshError } from '../errors.js';
import { VfsError, type DirEntry, type DirHandle, type Vfs } from '../vfs/index.js';
import { walk as walkTree } from '../vfs/walk.js';
import { hintFor } from '../runtime/hints.js';
import type { ToolContext } from './types.js';

/** Join a virtual directory and a name. */
export function joinV(dir: string, name: string): string {
  if (dir === '' || dir === '.') return name;
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

/** Parent of a virtual path as the caller spelled it ('.' when none). */
export function parentOf(path: string): { dir: string; base: string } {
  const p = path.replace(/\/+$/, '');
  const i = p.lastIndexOf('/');
  if (i < 0) return { dir: '.', base: p };
  return { dir: i === 0 ? '/' : p.slice(0, i), base: p.slice(i + 1) };
}

/** The last time a Date can hold (ECMAScript's ±8.64e15 ms). */
const MAX_DATE_MS = 8.64e15;
/** The second isoTime formatted last: files of one folder often share it (a checkout, an unpacked archive). */
let lastSecond = NaN;
let lastSecondIso = '';

/**
 * A Stats time in ms (mtimeMs...) as ISO 8601 UTC, as Date#toISOString; null when unknown
 * (0, negative, NaN, beyond a Date). toISOString costs about 0.9 µs here, more than the lstat it
 * formats, so the text of the last second is reused.
 */
export function isoTime(ms: number): string | null {
  if (!(ms > 0 && ms <= MAX_DATE_MS)) return null;
  const t = Math.floor(ms);
  const second = Math.floor(t / 1000);
  if (second !== lastSecond) {
    const iso = new Date(t).toISOString();
    if (iso.length !== 24) return iso; // a year past 9999 ('+010000-...')
    lastSecond = second;
    lastSecondIso = iso.slice(0, 20);
  }
  const milli = t - second * 1000;
  return lastSecondIso + (milli < 10 ? '00' : milli < 100 ? '0' : '') + milli + 'Z';
}

export function typeOf(st: fs.Stats): DirEntry['type'] {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'dir';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

export function checkAborted(ctx: ToolContext, what: string): void {
  if (ctx.signal.aborted) throw new NoshError('CANCELLED', `${what} cancelled`);
}

/** mkdir -p inside the zone; returns the virtual paths created. */
export function mkdirParents(vfs: Vfs, path: string, cwd: string): string[] {
  const created: string[] = [];
  let prefix = path.startsWith('/') ? '/' : '';
  for (const seg of path.split('/').filter((s) => s !== '')) {
    prefix = prefix === '' ? seg : prefix.endsWith('/') ? prefix + seg : `${prefix}/${seg}`;
    if (seg === '.' || seg === '..') continue;
    const r = vfs.resolve(prefix, cwd);
    if (r.stat === null) {
      vfs.mkdir(prefix, cwd);
      created.push(r.vpath);
    } else if (!r.stat.isDirectory()) {
      throw new VfsError('ENOTDIR', path);
    }
  }
  return created;
}

/** A compiled glob: patterns without '/' match the base name, others the relative path. */
export class Glob {
  private readonly mm: Minimatch[];
  /** `param`: the argument the patterns came from, named when one is refused. */
  constructor(patterns: string[], param: string, nocase = false) {
    this.mm = patterns.map((p) => {
      try {
        return new Minimatch(p, { dot: true, nocase, matchBase: !p.includes('/') });
      } catch (e) {
        // minimatch refuses patterns over 64 KB with a TypeError.
        throw new NoshError('INVALID_ARGUMENT', `${param}: bad glob (${(e as Error).message})`,
          "Give a shorter glob, e.g. '*.ts' or 'src/**/*.test.ts'.", { param, length: p.length });
      }
    });
  }
  get empty(): boolean {
    return this.mm.length === 0;
  }
  /** `rel` is relative to the walk's start ('a/b.txt'). */
  matches(rel: string): boolean {
    return this.mm.some((m) => m.match(rel));
  }
}

export interface WalkEntry {
  /** Path relative to the start ('a/b.txt'). */
  rel: string;
  /** Path as usable in a Vfs call (relative to cwd or absolute, as the start was). */
  path: string;
  name: string;
  type: DirEntry['type'];
  depth: number;
  /**
   * The entry's folder, open while visit runs: ctx.fs.lstatAt(e.dir, e.name) and
   * readChunksAt reach the entry in one step instead of resolving its path again.
   */
  dir: DirHandle;
}

export interface WalkOptions {
  /** 1 = only the start's entries; Infinity = everything. */
  maxDepth: number;
  hidden: boolean;
  /** Return false to stop the walk. Directories are given before their content. */
  visit(e: WalkEntry): boolean | void;
  /** Skip descending into this directory (still visited). */
  prune?(e: WalkEntry): boolean;
  /** Sort entries by name in each directory (default true). */
  sorted?: boolean;
  signal?: AbortSignal;
}

/**
 * Depth-first walk below `start` through the Vfs's open folders (the one walk, src/vfs/walk.ts;
 * never follows symlinked directories). A folder that cannot be opened or listed below the
 * start is skipped.
 */
export function walk(vfs: Vfs, start: string, cwd: string, opts: WalkOptions): void {
  const events = walkTree(vfs, start, cwd, {
    order: opts.sorted !== false ? 'name' : 'directory',
    maxDepth: opts.maxDepth,
    includeStart: false,
    filter: opts.hidden ? undefined : (name) => !name.startsWith('.'),
    signal: opts.signal,
    onAbort: () => new NoshError('CANCELLED', 'cancelled'),
  });
  for (const ev of events) {
    if (ev.kind === 'error') {
      if (ev.depth === 0) throw ev.error;
      continue;
    }
    const e: WalkEntry = { rel: ev.rel, path: ev.path, name: ev.name, type: ev.type, depth: ev.depth, dir: ev.dir! };
    if (opts.visit(e) === false) return;
    if (ev.kind === 'pre' && opts.prune?.(e)) ev.skip = true;
  }
}

/** Levenshtein distance, capped work (names are short). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const m = a.length;
  const n = b.length;
  if (m === 0) return n;
  if (n === 0) return m;
  let prev = new Array<number>(n + 1);
  let cur = new Array<number>(n + 1);
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    for (let j = 1; j <= n; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[n]!;
}

/**
 * The closest existing names to the first missing component of `path`, from its
 * parent directory (the deepest folder of the path that exists).
 */
export function closestNames(vfs: Vfs, path: string, cwd: string, max = 3): { dir: string; missing: string; names: string[] } | null {
  const abs = path.startsWith('/');
  const parts = path.split('/').filter((s) => s !== '' && s !== '.');
  let dir = abs ? '/' : '.';
  for (const part of parts) {
    if (part === '..') {
      dir = joinV(dir, '..');
      continue;
    }
    const next = joinV(dir, part);
    let st: fs.Stats | null;
    try {
      st = vfs.resolve(next, cwd).stat;
    } catch {
      return null;
    }
    if (st === null) {
      let entries: DirEntry[];
      try {
        entries = vfs.readdir(dir, cwd);
      } catch {
        return null;
      }
      const lower = part.toLowerCase();
      const limit = Math.max(2, Math.floor(part.length / 2));
      const scored = entries
        .map((e) => ({ name: e.type === 'dir' ? e.name + '/' : e.name, d: editDistance(lower, e.name.toLowerCase()), sub: e.name.toLowerCase().includes(lower) || lower.includes(e.name.toLowerCase()) }))
        .filter((s) => s.d <= limit || s.sub)
        .sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : 1))
        .slice(0, max);
      return { dir, missing: part, names: scored.map((s) => s.name) };
    }
    if (!st.isDirectory()) return null;
    dir = next;
  }
  return null;
}

/** Turn a FILE_NOT_FOUND failure into one whose hint names the closest existing entries. */
export function withSuggestions(e: unknown, vfs: Vfs, cwd: string): unknown {
  if (!(e instanceof VfsError) || e.errno !== 'ENOENT') return e;
  let near: ReturnType<typeof closestNames> = null;
  try {
    near = closestNames(vfs, e.path, cwd);
  } catch {
    near = null;
  }
  let hint = hintFor('ENOENT');
  const details: Record<string, unknown> = { path: e.path, ...e.details };
  if (near && near.names.length > 0) {
    const where = near.dir === '.' ? 'the working directory' : near.dir;
    hint = `No '${near.missing}' in ${where}. Did you mean: ${near.names.join(', ')}? ` + hint;
    details.suggestions = near.names;
  } else if (near) {
    hint = `No '${near.missing}' in ${near.dir === '.' ? 'the working directory' : near.dir}. ` + hint;
  }
  return new NoshError('FILE_NOT_FOUND', `${e.path}: ${e.reason}`, hint, details);
}

/** Decode bytes as UTF-8 when they are valid UTF-8, else as latin1 (one char per byte, lossless). */
export function decodeText(buf: Buffer): { text: string; encoding: 'utf-8' | 'latin1' } {
  const text = buf.toString('utf8');
  if (!text.includes('\uFFFD') || Buffer.from(text, 'utf8').equals(buf)) return { text, encoding: 'utf-8' };
  return { text: buf.toString('latin1'), encoding: 'latin1' };
}

export function encodeText(text: string, encoding: 'utf-8' | 'latin1'): Buffer {
  return Buffer.from(text, encoding === 'latin1' ? 'latin1' : 'utf8');
}

/** Read a whole file, refusing files larger than `cap` bytes. */
export function readCapped(vfs: Vfs, path: string, cwd: string, cap: number, what: string): Buffer {
  const st = vfs.stat(path, cwd);
  if (st.isFile() && st.size > cap) {
    throw new NoshError('FILE_TOO_LARGE', `${path}: ${st.size} bytes is more than ${what} handles (${cap})`,
      'Use read with offset/limit, or exec with sed/head for large files.', { path, size: st.size, limit: cap });
  }
  return vfs.readFile(path, cwd);
}

export const PAGE_CURSOR = /^o:(\d+)$/;
