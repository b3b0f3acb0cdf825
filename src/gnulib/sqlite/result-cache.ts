/**
 * The per-worker cache of read-only query results (limits.sqliteResultCacheMb; 0 turns it off):
 * an agent that runs the same SELECT on an unchanged database file gets the rows kept from the
 * first run, without loading the file into sql.js or running the query again.
 *
 * Key: the zone's host root and the file's virtual path (a cache never crosses zones or users),
 * the file's identity from fstat of the descriptor the call opened (dev, ino, size, mtime and
 * ctime in ns), and the exact text of the statement. Any write changes ctime (ctime cannot be set
 * by a process) and an atomic replace is another inode, so an identity seen again is the file the
 * rows were read from. The "racy git" rule (as src/vfs/content-cache.ts): rows are kept only when
 * the file's mtime and ctime are older by RACY_NS than the moment before it was opened, so a later
 * change within one coarse timestamp cannot repeat the identity. A write through nosh
 * (DbSession's write back) also drops the file's entries in this worker.
 *
 * What is cached: a statement that starts with SELECT, VALUES or WITH (a WITH that names no
 * INSERT/UPDATE/DELETE/REPLACE), run in a call that has run nothing else on the database before
 * (no temp tables, pragmas or writes of this call can shape it), naming no function whose answer
 * changes between calls (random(), the date and time functions, changes(), last_insert_rowid()
 * ...), and whose rows all came out (not stopped by the output cap, no error). sql.js does not
 * export sqlite3_stmt_readonly, hence the conservative whitelist on the statement's code.
 *
 * Memory: bounded by its byte budget (least recently used out first), at most a quarter of the
 * worker's budget; one entry is at most a quarter of the budget.
 */
import type { BigIntStats } from 'node:fs';
import { ByteLru, budgeted } from '../../runtime/byte-lru.js';
import { RACY_NS } from '../../vfs/content-cache.js';
import { codeOnly } from './guard.js';
import type { Value } from './values.js';

export interface CachedResult {
  /** Column names; null when the statement returned no row (nothing is printed). */
  cols: string[] | null;
  rows: Value[][];
}

interface Entry extends CachedResult {
  file: string;
}

/** Functions whose answer can differ between two runs on the same file. */
const VOLATILE = /\b(?:random|randomblob|changes|total_changes|last_insert_rowid|date|time|datetime|julianday|unixepoch|strftime|timediff|current_date|current_time|current_timestamp|sqlite_offset)\b/i;

/** Is this statement's text one the cache may keep rows of (read-only, deterministic)? */
export function cacheableSql(sql: string): boolean {
  const code = codeOnly(sql).trim();
  const head = /^(select|values|with)\b/i.exec(code);
  if (!head) return false;
  if (VOLATILE.test(code)) return false;
  // Bound parameters (the shell leaves them NULL; still, keep nothing that names one).
  if (/[?:@]|(?:^|[^\w$])\$/.test(code)) return false;
  if (head[1]!.toLowerCase() === 'with' && /\b(?:insert|update|delete|replace\s+into)\b/i.test(code)) return false;
  // One statement only (the shell splits them; a second one would be run unseen).
  const semi = code.indexOf(';');
  return semi < 0 || code.slice(semi + 1).trim() === '';
}

/** Approximate bytes a row holds in the V8 heap. */
export function rowBytes(row: Value[]): number {
  let n = 32 + row.length * 8;
  for (const v of row) {
    if (typeof v === 'string') n += 16 + v.length * 2;
    else if (v instanceof Uint8Array) n += 96 + v.byteLength;
    else n += 16;
  }
  return n;
}

/** The identity part of a key: dev, ino, size, mtime, ctime (ns). */
export function identityKey(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** May rows read from a file with this identity, opened after `startNs`, be kept? */
export function settled(st: BigIntStats, startNs: bigint): boolean {
  const newest = st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs;
  return newest < startNs - RACY_NS;
}

export class ResultCache {
  private readonly lru: ByteLru<string, Entry>;
  hits = 0;
  misses = 0;
  stored = 0;
  racy = 0;
  invalidated = 0;

  constructor(budget: number) {
    this.lru = new ByteLru(budget);
  }

  setBudget(budget: number): void {
    this.lru.setBudget(budget);
  }

  /** Largest entry kept. */
  get maxEntry(): number {
    return Math.floor(this.lru.limit / 4);
  }

  get size(): number {
    return this.lru.size;
  }

  get entries(): number {
    return this.lru.entries;
  }

  get(key: string): CachedResult | null {
    const e = this.lru.get(key);
    if (!e) {
      this.misses++;
      return null;
    }
    this.hits++;
    return e;
  }

  /** Keep the rows of `key` (a statement on `file`, zone root + virtual path); `bytes` as rowBytes summed. */
  put(key: string, file: string, result: CachedResult, bytes: number): void {
    const size = bytes + key.length * 2 + 64;
    if (size > this.maxEntry) return;
    this.lru.set(key, { ...result, file }, size);
    this.stored++;
  }

  /** Drop every entry of one file (written through nosh). */
  dropFile(file: string): void {
    this.invalidated += this.lru.deleteWhere((e) => e.file === file);
  }

  clear(): void {
    this.lru.clear();
  }
}

let cache: ResultCache | null = null;

/**
 * This worker's cache for a call whose limits give it `bytes` (0 or absent: none, and a cache
 * kept from an earlier configuration is dropped). Capped at a quarter of the worker's memory.
 */
export function resultCache(bytes: number | undefined): ResultCache | null {
  cache = budgeted(cache, bytes, (b) => new ResultCache(b));
  return cache;
}

/** This worker's cache as it is (tests, stats), without changing its budget. */
export function currentResultCache(): ResultCache | null {
  return cache;
}
