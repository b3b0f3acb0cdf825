/**
 * The metadata store: what nosh keeps about files besides their bytes (who owns a file of a
 * group zone and who may write it, who holds a locked edit), shared by every nosh process that
 * serves one base. One interface, two implementations chosen by the config: the embedded one
 * (sql.js, one `access_auth.sqlite` file in the base, for the processes of one machine) and
 * PostgreSQL (`metadata.url`, for processes on several machines over a shared volume).
 *
 * Paths are zone-relative: '/'-separated, no leading or trailing '/', never '.' or '..'
 * ('docs/a.txt'). A zone is named by its key (zoneKey): stable across processes and restarts.
 * Times are milliseconds since the epoch.
 */
import type { LinkStore } from '../links/store.js';

export const WRITE_ACCESS = ['owner', 'group', 'owner_ro'] as const;
/** Fileshed's write_access: `owner` only the owner writes; `group` every member; `owner_ro` nobody until the owner changes it. */
export type WriteAccess = (typeof WRITE_ACCESS)[number];

/** One file of a group zone: Fileshed's file_ownership row. */
export interface Ownership {
  group: string;
  path: string;
  owner: string;
  mode: WriteAccess;
  createdAt: number;
  updatedAt: number;
}

/** A locked edit of one file (lockedit_open .. save / cancel / force_unlock / expiry). */
export interface FileLock {
  /** zoneKey of the zone holding the file. */
  zone: string;
  path: string;
  user: string;
  conversation: string;
  takenAt: number;
  expiresAt: number;
}

/** The shareable links of issue #21 are rows of the store too (table `links`): see LinkStore. */
export interface MetaStore extends LinkStore {
  readonly kind: 'memory' | 'embedded' | 'postgres';
  /**
   * Open (create or migrate the schema). A database that is corrupt or from a newer schema is
   * an error naming the file or server, never a silent reset.
   */
  open(): Promise<void>;
  close(): Promise<void>;

  // ---- ownership (group zones)
  /** The rows of these exact paths (missing ones are simply absent). */
  ownerships(group: string, paths: readonly string[]): Promise<Ownership[]>;
  /** The rows of `dir` and everything under it ('' = the whole group), sorted by path. */
  ownershipsUnder(group: string, dir: string): Promise<Ownership[]>;
  /** Create rows for new files; a path that already has a row keeps its owner and mode unless `replace`. */
  putOwnerships(group: string, rows: readonly { path: string; owner: string; mode: WriteAccess }[], replace?: boolean): Promise<void>;
  /** Change one row's owner or mode; undefined when the path has no row. */
  updateOwnership(group: string, path: string, patch: { owner?: string; mode?: WriteAccess }): Promise<Ownership | undefined>;
  /** A rename: the row of `from` and the rows under it move to `to` (replacing rows already there). */
  moveOwnerships(group: string, from: string, to: string): Promise<void>;
  /** Remove the rows of these paths (and, for each, the rows under it). */
  deleteOwnerships(group: string, paths: readonly string[]): Promise<void>;

  // ---- locked edits (any zone)
  /**
   * Take the lock of (lock.zone, lock.path) unless someone holds it: atomic across processes,
   * so of two racing calls exactly one gets taken=true. A lock past its expiresAt (by `now`)
   * is replaced. When held, returns the holder's lock with taken=false.
   */
  takeLock(lock: FileLock, now: number): Promise<{ taken: boolean; lock: FileLock }>;
  /** The locks of these exact paths of a zone (expired ones included: the caller decides). */
  locks(zone: string, paths: readonly string[]): Promise<FileLock[]>;
  /** The locks of `dir` and everything under it ('' = the whole zone). */
  locksUnder(zone: string, dir: string): Promise<FileLock[]>;
  /** Remove a lock; false when there was none. */
  releaseLock(zone: string, path: string): Promise<boolean>;
  /** Every lock whose expiresAt is before `now` (maintenance). */
  expiredLocks(now: number): Promise<FileLock[]>;

  // ---- order across processes
  /**
   * Hold the write order of one zone across every process serving the base (the embedded
   * store: a lock file; PostgreSQL: an advisory lock on the zone key) while `run` runs. The
   * in-process order is WriteOrder's; this adds the other processes.
   */
  withZone<T>(zone: string, run: () => Promise<T>): Promise<T>;

  // ---- quota usage across processes
  /**
   * The usage of a quota key as the processes serving the base last left it (undefined: none
   * stored yet, or a store of one process). Read and written under the write order (withZone)
   * of the quota's key, so the processes together never pass a quota.
   */
  quotaUsage(key: string): Promise<{ bytes: number; files: number } | undefined>;
  setQuotaUsage(key: string, usage: { bytes: number; files: number }): Promise<void>;
}

/** Under `dir` ('' = everywhere): the path itself or a descendant. */
export function isUnder(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(dir + '/');
}
