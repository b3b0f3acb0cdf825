/**
 * The optional per-worker content cache of small files (limits.contentCacheMb; 0, the
 * default, turns it off): an agent that greps the same tree many times reads each unchanged
 * file once. It is keyed by the file's identity as lstat shows it: dev, ino, size, mtime and
 * ctime. Any write through a path changes ctime (a rewrite in place, a rename over it, chmod,
 * utimes: ctime cannot be set by a process), and an atomic replace is another inode, so an
 * entry whose identity is seen again is the content read then.
 *
 * The "racy git" rule: timestamps come from the kernel's coarse clock (one tick, up to 10 ms)
 * and some file systems keep whole seconds, so a file changed twice within one timestamp
 * keeps the same identity. Content is therefore stored only when the file's mtime and ctime
 * are older, by RACY_MS, than the moment before it was opened: every later change of it gets
 * a later timestamp than the one stored, so its identity differs and the entry is not used.
 * A file changed within that window is read every time until it has been left alone.
 *
 * Times are compared as lstat's doubles (mtimeMs, ctimeMs: ms with the ns as a fraction,
 * precise to about 0.25 us at today's dates) rather than BigInt ns: a later change is at
 * least RACY_MS newer than what was stored, far beyond that precision, and the plain
 * lstat costs less (no BigIntStats; it was a fifth of a repeated search's profile).
 *
 * Directory listings (names and types as readdir gave them, before the policy's name checks)
 * are kept the same way, keyed by the directory's dev, ino, mtime and ctime (any entry
 * added, removed or renamed in it changes both), under the same racy rule, and used by
 * Vfs.listDir while a search sets Vfs.listingCache: an unchanged folder is not read again.
 * Its location is still checked at each listing, and each name still goes through the
 * policy's checks.
 *
 * What the cache never decides: whether the file may be read. The walk lists the directory
 * (blocked names never appear), Vfs.identityAt applies the name checks and the size limit,
 * and the walker verifies the directory's location before output leaves, as for a file read.
 *
 * Memory: bounded by its byte budget (the least recently used entries go first; listings
 * get an eighth of it), and at most a quarter of the worker's budget; one entry is at most
 * MAX_ENTRY bytes.
 */
import { performance } from 'node:perf_hooks';
import { ByteLru, budgeted } from '../runtime/byte-lru.js';

/** How much older than the start of a read a file's timestamps must be for its content to be kept, ms (the content and listing caches). */
export const RACY_MS = 2000;
/** The same, ns (sqlite's result cache). */
export const RACY_NS = BigInt(RACY_MS) * 1_000_000n;
/** Largest file kept. */
export const MAX_ENTRY = 64 * 1024;

/** What identifies a file's or directory's content: fs.Stats (plain, not bigint) has it. */
export interface Identity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

interface Entry {
  dev: number;
  ino: number;
  size: number;
  mtime: number;
  ctime: number;
  data: Buffer;
}

/** A directory's entry as readdir listed it. */
export interface ListedName {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
}

interface Listing {
  dev: number;
  ino: number;
  mtime: number;
  ctime: number;
  names: readonly ListedName[];
}

/** What Vfs.listDir asks of a listing cache. */
export interface ListingCache {
  listing(st: Identity): readonly ListedName[] | null;
  putListing(st: Identity, startMs: number, names: readonly ListedName[]): void;
}

/** Wall-clock time in ms (the clock file timestamps are taken from). */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Wall-clock time in ns (the clock file timestamps are taken from). */
export function nowNs(): bigint {
  return BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000)) * 1000n;
}

export class ContentCache implements ListingCache {
  /** By inode number (cheaper to hash than a string of both); dev and ino are checked in the entry. */
  private readonly lru: ByteLru<number, Entry>;
  /** Directory listings, by inode number likewise. */
  private readonly dirs: ByteLru<number, Listing>;
  hits = 0;
  misses = 0;
  stored = 0;
  racy = 0;
  listHits = 0;
  listStored = 0;

  constructor(budget: number) {
    this.lru = new ByteLru(budget);
    this.dirs = new ByteLru(budget >> 3);
  }

  setBudget(budget: number): void {
    this.lru.setBudget(budget);
    this.dirs.setBudget(budget >> 3);
  }

  get size(): number {
    return this.lru.size + this.dirs.size;
  }

  /** The content kept for this identity, or null. */
  get(st: Identity): Buffer | null {
    const e = this.lru.get(st.ino);
    if (!e || e.ino !== st.ino || e.dev !== st.dev || e.size !== st.size || e.mtime !== st.mtimeMs || e.ctime !== st.ctimeMs) {
      this.misses++;
      return null;
    }
    this.hits++;
    return e.data;
  }

  /**
   * Keep `data`, the whole content of the file whose fstat after its open was `st`, read
   * after `startMs` (nowMs() before the open). Not kept if racy or too big.
   */
  put(st: Identity, startMs: number, data: Buffer): void {
    if (data.length !== st.size || data.length > MAX_ENTRY || data.length > this.lru.limit) return;
    if (racy(st, startMs)) {
      this.racy++;
      return;
    }
    this.lru.set(st.ino, { dev: st.dev, ino: st.ino, size: st.size, mtime: st.mtimeMs, ctime: st.ctimeMs, data: Buffer.from(data) }, data.length);
    this.stored++;
  }

  /** The names kept for a directory of this identity (fstat of its open descriptor), or null. */
  listing(st: Identity): readonly ListedName[] | null {
    const e = this.dirs.get(st.ino);
    if (!e || e.ino !== st.ino || e.dev !== st.dev || e.mtime !== st.mtimeMs || e.ctime !== st.ctimeMs) return null;
    this.listHits++;
    return e.names;
  }

  /** Keep the names read from a directory whose fstat before the listing, taken after `startMs`, was `st` (not if racy). */
  putListing(st: Identity, startMs: number, names: readonly ListedName[]): void {
    if (racy(st, startMs)) return;
    let bytes = 64;
    for (const n of names) bytes += 40 + 2 * n.name.length;
    if (bytes > this.dirs.limit) return;
    this.dirs.set(st.ino, { dev: st.dev, ino: st.ino, mtime: st.mtimeMs, ctime: st.ctimeMs, names }, bytes);
    this.listStored++;
  }

  clear(): void {
    this.lru.clear();
    this.dirs.clear();
  }
}

/** Changed within RACY_MS of `startMs` (or after it): a later change could repeat its timestamps. */
function racy(st: Identity, startMs: number): boolean {
  return Math.max(st.mtimeMs, st.ctimeMs) >= startMs - RACY_MS;
}

let cache: ContentCache | null = null;

/**
 * This worker's cache for a task whose limits give it `bytes` (0 or absent: none, and a cache
 * kept from an earlier configuration is dropped). Capped at a quarter of the worker's memory.
 */
export function contentCache(bytes: number | undefined): ContentCache | null {
  cache = budgeted(cache, bytes, (b) => new ContentCache(b));
  return cache;
}
