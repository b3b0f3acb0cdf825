/**
 * The optional per-worker content cache of small files (limits.contentCacheMb; 0, the
 * default, turns it off): an agent that greps the same tree many times reads each unchanged
 * file once. It is keyed by the file's identity as lstat shows it: dev, ino, size, mtime and
 * ctime in nanoseconds. Any write through a path changes ctime (a rewrite in place, a rename
 * over it, chmod, utimes: ctime cannot be set by a process), and an atomic replace is another
 * inode, so an entry whose identity is seen again is the content read then.
 *
 * The "racy git" rule: timestamps come from the kernel's coarse clock (one tick, up to 10 ms)
 * and some file systems keep whole seconds, so a file changed twice within one timestamp
 * keeps the same identity. Content is therefore stored only when the file's mtime and ctime
 * are older, by RACY_NS, than the moment before it was opened: every later change of it gets
 * a later timestamp than the one stored, so its identity differs and the entry is not used.
 * A file changed within that window is read every time until it has been left alone.
 *
 * What the cache never decides: whether the file may be read. The walk lists the directory
 * (blocked names never appear), Vfs.identityAt applies the name checks and the size limit,
 * and the walker verifies the directory's location before output leaves, as for a file read.
 *
 * Memory: bounded by its byte budget (the least recently used entries go first), and at most
 * a quarter of the worker's budget; one entry is at most MAX_ENTRY bytes.
 */
import type * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { ByteLru, budgeted } from '../runtime/byte-lru.js';

/** How much older than the start of a read a file's timestamps must be for its content to be kept, ns. */
export const RACY_NS = 2_000_000_000n;
/** Largest file kept. */
export const MAX_ENTRY = 64 * 1024;

interface Entry {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtime: bigint;
  ctime: bigint;
  data: Buffer;
}

/** Wall-clock time in ns (the clock file timestamps are taken from). */
export function nowNs(): bigint {
  return BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000)) * 1000n;
}

export class ContentCache {
  /** By inode number (as a Number: cheaper to hash than a string of both); dev and ino are checked in the entry. */
  private readonly lru: ByteLru<number, Entry>;
  hits = 0;
  misses = 0;
  stored = 0;
  racy = 0;

  constructor(budget: number) {
    this.lru = new ByteLru(budget);
  }

  setBudget(budget: number): void {
    this.lru.setBudget(budget);
  }

  get size(): number {
    return this.lru.size;
  }

  /** The content kept for this identity, or null. */
  get(st: fs.BigIntStats): Buffer | null {
    const e = this.lru.get(Number(st.ino));
    if (!e || e.ino !== st.ino || e.dev !== st.dev || e.size !== st.size || e.mtime !== st.mtimeNs || e.ctime !== st.ctimeNs) {
      this.misses++;
      return null;
    }
    this.hits++;
    return e.data;
  }

  /**
   * Keep `data`, the whole content of the file whose fstat after its open was `st`, read
   * after `startNs` (nowNs() before the open). Not kept if racy or too big.
   */
  put(st: fs.BigIntStats, startNs: bigint, data: Buffer): void {
    if (BigInt(data.length) !== st.size || data.length > MAX_ENTRY || data.length > this.lru.limit) return;
    const newest = st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs;
    if (newest >= startNs - RACY_NS) {
      this.racy++;
      return;
    }
    this.lru.set(Number(st.ino), { dev: st.dev, ino: st.ino, size: st.size, mtime: st.mtimeNs, ctime: st.ctimeNs, data: Buffer.from(data) }, data.length);
    this.stored++;
  }

  clear(): void {
    this.lru.clear();
  }
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
