/**
 * A database file of a zone, opened into sql.js: read whole through the Vfs (its size bounded
 * by maxDatabaseBytes: sql.js keeps the database in WebAssembly memory), cached per worker by
 * the file's identity (dev, ino, size, mtime, ctime) so an unchanged file is not reloaded on every call,
 * and written back atomically through the Vfs (temp file, fsync, rename; quota-checked) when
 * a call changed it. Concurrency rule: a database changed by another call since it was read
 * (identity differs) is not overwritten: the write is refused (BUSY) and the caller retries.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NoshError } from '../../errors.js';
import { VfsError, type Vfs } from '../../vfs/index.js';
import { nowNs } from '../../vfs/content-cache.js';
import { currentResultCache, identityKey, settled } from './result-cache.js';
import { memFileName, sqlJs, sqlJsLoaded, type Database } from './sqljs.js';

export const DEFAULT_MAX_DATABASE_BYTES = 256 * 1024 * 1024;

export interface OpenOptions {
  /** Open read-only: every write statement fails ("attempt to write a readonly database"). */
  readonly?: boolean;
  maxDatabaseBytes?: number;
}

interface Identity { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number }

interface Cached extends Identity { db: Database }

/** Opened databases of this worker, by zone root + virtual path (taken out while in use). */
const CACHE = new Map<string, Cached>();
/** Bytes the cache may hold (sum of database sizes); the oldest entries are closed past it. */
const CACHE_BYTES = 512 * 1024 * 1024;

function sameIdentity(a: Identity, b: Identity): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.dev === b.dev;
}

/** ctime too: a rewrite in place that keeps size and mtime (utimes) still changes it. */
function identityOf(st: Identity): Identity {
  return { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
}

function tooLarge(path: string, size: number, limit: number): NoshError {
  const mb = (n: number) => Math.round(n / 1024 / 1024 * 10) / 10;
  return new NoshError('FILE_TOO_LARGE', `${path}: database of ${mb(size)} MB is over the ${mb(limit)} MB limit (maxDatabaseMb)`,
    'sql.js keeps the whole database in memory: query a smaller database, or ask the operator to raise limits.maxDatabaseMb.',
    { path, size, limit });
}

export function readonlyZone(path: string): NoshError {
  return new NoshError('ZONE_READONLY', `${path}: the zone is read-only`, 'Query the database read-only, or copy it to a writable zone first.', { path });
}

/** The fingerprint of what a call changed: rows (total_changes), schema, user_version. */
function changeMark(db: Database): string {
  try {
    const r = db.exec('SELECT total_changes(), (SELECT schema_version FROM pragma_schema_version), (SELECT user_version FROM pragma_user_version)');
    return JSON.stringify(r[0]?.values[0] ?? []);
  } catch {
    return 'unreadable';
  }
}

/**
 * One database opened for one call. An existing file is opened and fstat'ed at open(); its
 * bytes go into sql.js (or the worker's cached copy is taken) only when a statement needs the
 * database: a call answered whole from the result cache never loads it.
 */
export class DbSession {
  private mark = '';
  private closed = false;
  private current: Database | null;
  /** The open file not yet loaded into sql.js. */
  private pending: { fd: number; size: number } | null = null;
  /** Zone root + virtual path of the file (the result cache's file key); null for :memory: and new files. */
  resultFile: string | null = null;
  /** The file's identity as the result cache keys it (dev, ino, size, mtime, ctime in ns). */
  resultIdentity: string | null = null;
  /** Rows read from this file may be kept (its timestamps are older than the racy window). */
  resultSettled = false;
  /** Something other than a cacheable read ran on the database in this call (see result-cache.ts). */
  tainted = false;
  /** Statements are refused from writing when set (PRAGMA query_only is asserted before each). */
  readonly readonly: boolean;

  /** Files attached with ATTACH (read into sql.js under private names). */
  private readonly attached: { schema: string; helper: Database; vpath: string; identity: Identity | null; original: Uint8Array }[] = [];
  /** .restore replaced the database: written back whatever the change mark says. */
  private forced = false;

  private constructor(db: Database | null, readonly fs: Vfs | null, readonly path: string | null, readonly cwd: string,
    private identity: Identity | null, readonly: boolean, private readonly maxBytes: number, private readonly key: string | null) {
    this.readonly = readonly;
    this.current = db;
    if (db) this.mark = changeMark(db);
  }

  /** The database (loaded on first use); using it this way marks the call as not a plain cached read. */
  get db(): Database {
    this.tainted = true;
    return this.readDb();
  }

  set db(db: Database) {
    this.tainted = true;
    this.current = db;
  }

  /** The database for a statement the result cache may keep (the call stays untainted). */
  readDb(): Database {
    if (this.current) return this.current;
    const p = this.pending!;
    this.pending = null;
    try {
      const hit = CACHE.get(this.key!);
      if (hit) {
        CACHE.delete(this.key!);
        if (sameIdentity(hit, this.identity!)) this.current = hit.db;
        else hit.db.close();
      }
      this.current ??= new (sqlJsLoaded()!).Database(readAllFd(p.fd, p.size));
    } finally {
      closeSync(p.fd);
    }
    this.mark = changeMark(this.current);
    return this.current;
  }

  /**
   * Open FILE of the zone (":memory:" or "": a private in-memory database). A missing file is
   * an empty database, created only if a call writes to it (as sqlite3 does).
   */
  static async open(fs: Vfs | null, path: string, cwd: string, opts: OpenOptions = {}): Promise<DbSession> {
    const SQL = await sqlJs();
    const maxBytes = opts.maxDatabaseBytes ?? DEFAULT_MAX_DATABASE_BYTES;
    const ro = !!opts.readonly || !!fs?.policy.readonly;
    if (fs === null || path === ':memory:' || path === '') {
      return new DbSession(new SQL.Database(), fs, null, cwd, null, !!opts.readonly, maxBytes, null);
    }
    let opened: { fd: number; stat: import('node:fs').Stats; vpath: string } | null = null;
    const start = nowNs();
    try {
      opened = fs.openRead(path, cwd);
    } catch (e) {
      if (!(e instanceof VfsError && e.errno === 'ENOENT')) throw e;
    }
    if (opened === null) {
      // A new database: the name must be a place we may create a file in later (checked now).
      const r = fs.resolve(path, cwd);
      return new DbSession(new SQL.Database(), fs, r.vpath, cwd, null, ro, maxBytes, fs.rootHost + '\0' + r.vpath);
    }
    const { fd, stat, vpath } = opened;
    try {
      if (stat.size > maxBytes) throw tooLarge(vpath, stat.size, maxBytes);
      const key = fs.rootHost + '\0' + vpath;
      const s = new DbSession(null, fs, vpath, cwd, identityOf(stat), ro, maxBytes, key);
      const big = fstatSync(fd, { bigint: true });
      s.pending = { fd, size: stat.size };
      s.resultFile = key;
      s.resultIdentity = identityKey(big);
      s.resultSettled = settled(big, start);
      return s;
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  /** Assert read-only mode before a statement runs (a `PRAGMA query_only=0` lasts one statement at most). */
  guard(): void {
    if (this.readonly) this.readDb().run('PRAGMA query_only=1');
  }

  /** Did this call change the database (rows, schema, user_version)? */
  changed(): boolean {
    if (!this.current) return this.forced;
    return this.forced || changeMark(this.current) !== this.mark;
  }

  /** Read a file of the zone whole (bounded by maxDatabaseBytes); null when it does not exist. */
  private readZoneFile(path: string): { bytes: Uint8Array | null; identity: Identity | null; vpath: string } {
    const fs = this.fs;
    if (!fs) throw new NoshError('INVALID_ARGUMENT', 'no zone to read files from');
    let opened: { fd: number; stat: import('node:fs').Stats; vpath: string } | null = null;
    try {
      opened = fs.openRead(path, this.cwd);
    } catch (e) {
      if (!(e instanceof VfsError && e.errno === 'ENOENT')) throw e;
    }
    if (!opened) return { bytes: null, identity: null, vpath: fs.resolve(path, this.cwd).vpath };
    try {
      if (opened.stat.size > this.maxBytes) throw tooLarge(opened.vpath, opened.stat.size, this.maxBytes);
      return { bytes: readAllFd(opened.fd, opened.stat.size), identity: identityOf(opened.stat), vpath: opened.vpath };
    } finally {
      closeSync(opened.fd);
    }
  }

  /**
   * ATTACH 'FILE' AS schema, FILE a file of the zone: its bytes go into sql.js's in-memory file
   * system under a private name, attached there; written back at finish() if it changed.
   */
  async attach(file: string, schema: string): Promise<void> {
    const SQL = await sqlJs();
    let read: ReturnType<DbSession['readZoneFile']>;
    try {
      read = this.readZoneFile(file);
    } catch (e) {
      if (e instanceof VfsError && (e.errno === 'ENOENT' || e.errno === 'ENOTDIR' || e.errno === 'EISDIR')) throw new Error(`unable to open database: ${file}`);
      throw e;
    }
    const helper = new SQL.Database(read.bytes);
    // A new file is written only if this call puts something in it (as SQLite creates it lazily).
    const original = read.bytes ?? helper.export();
    try {
      this.db.run(`ATTACH '${memFileName(helper).replace(/'/g, "''")}' AS "${schema.replace(/"/g, '""')}"`);
    } catch (e) {
      helper.close();
      throw e;
    }
    this.attached.push({ schema, helper, vpath: read.vpath, identity: read.identity, original });
  }

  /** A copy of a schema of the database, vacuumed, as bytes (VACUUM INTO, .backup). */
  async vacuumCopy(schema = 'main'): Promise<Uint8Array> {
    const SQL = await sqlJs();
    const helper = new SQL.Database();
    try {
      this.db.run(`VACUUM "${schema.replace(/"/g, '""')}" INTO '${memFileName(helper).replace(/'/g, "''")}'`);
      return helper.export();
    } finally {
      helper.close();
    }
  }

  /** Write bytes to a file of the zone, atomically (a new file only when `exclusive`). */
  writeZoneFile(path: string, bytes: Uint8Array, exclusive: boolean): void {
    const fs = this.fs;
    if (!fs) throw new NoshError('INVALID_ARGUMENT', 'no zone to write files to');
    if (this.readonly) throw new Error('attempt to write a readonly database');
    if (fs.policy.readonly) throw readonlyZone(path);
    if (bytes.length > this.maxBytes) throw tooLarge(path, bytes.length, this.maxBytes);
    try {
      fs.createWriter(path, this.cwd, { exclusive }).writeAll([bytes]);
    } catch (e) {
      if (e instanceof VfsError && e.errno === 'EEXIST') throw new Error('output file already exists');
      throw e;
    }
  }

  /** .open --new: the database starts empty (written back at finish). */
  async resetEmpty(): Promise<void> {
    const SQL = await sqlJs();
    if (this.readonly) throw new Error('attempt to write a readonly database');
    this.db.close();
    this.db = new SQL.Database();
    this.forced = true;
  }

  /** .restore: the database becomes a copy of FILE of the zone (written back at finish). */
  async restoreFrom(file: string): Promise<void> {
    const SQL = await sqlJs();
    const read = this.readZoneFile(file);
    if (!read.bytes) throw new Error(`cannot open "${file}"`);
    if (this.readonly) throw new Error('attempt to write a readonly database');
    const next = new SQL.Database(read.bytes);
    this.db.close();
    this.db = next;
    this.forced = true;
  }

  /**
   * End the call: roll back a transaction left open (as sqlite3 does at exit), write the
   * database back if it changed, and give it to the cache. Throws when the write is refused.
   */
  finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.current) {
      if (this.pending) closeSync(this.pending.fd);
      this.pending = null;
      return;
    }
    const db = this.current;
    try { db.run('ROLLBACK'); } catch { /* no transaction open */ }
    // Temp tables of this call would be seen by the next call given the cached connection.
    let keep = this.key !== null && !this.forced && !(this.tainted && hasTemp(db));
    try {
      this.finishAttached();
      if (this.fs && this.path && !this.readonly && this.changed()) {
        keep = false;
        this.writeBack();
        keep = true;
      }
    } finally {
      if (keep && this.key && this.identity) this.remember();
      else this.current.close();
    }
  }

  /** Close without writing (a call that failed before its end). */
  discard(): void {
    if (this.closed) return;
    this.closed = true;
    for (const a of this.attached.splice(0)) a.helper.close();
    if (this.pending) closeSync(this.pending.fd);
    this.pending = null;
    this.current?.close();
  }

  /** Detach every attached file; write back the ones this call changed. */
  private finishAttached(): void {
    const list = this.attached.splice(0);
    let failure: unknown;
    for (const a of list) {
      try { this.db.run(`DETACH "${a.schema.replace(/"/g, '""')}"`); } catch { /* detached by the caller */ }
      try {
        if (!this.readonly && !failure) {
          const now = a.helper.export();
          if (!sameBytes(now, a.original)) this.writeChecked(a.vpath, a.identity, now);
        }
      } catch (e) {
        failure = e;
      } finally {
        a.helper.close();
      }
    }
    if (failure) throw failure;
  }

  private writeBack(): void {
    this.identity = this.writeChecked(this.path!, this.identity, this.db.export());
  }

  /**
   * Write a database file back unless it changed since it was read (identity); its new identity.
   * The check and the rename are one section under a lock file (outside the zone, named by a
   * hash), so two writers in any threads or processes cannot both pass the check.
   */
  private writeChecked(path: string, identity: Identity | null, bytes: Uint8Array): Identity {
    const fs = this.fs!;
    if (fs.policy.readonly) throw readonlyZone(path);
    if (bytes.length > this.maxBytes) throw tooLarge(path, bytes.length, this.maxBytes);
    const lock = lockPath(fs.rootHost + '\0' + path);
    let busy: 'lock' | 'changed' | null = null;
    let held = false;
    let after: Identity | null = null;
    const current = (): Identity | null => {
      try { return identityOf(fs.lstat(path)); } catch { return null; }
    };
    currentResultCache()?.dropFile(fs.rootHost + '\0' + path);
    const writer = fs.createWriter(path, '/', {
      exclusive: identity === null,
      beforeRename: () => {
        if (!acquireLock(lock)) { busy = 'lock'; throw new Error('busy'); }
        held = true;
        const now = current();
        if (identity === null ? now !== null : now === null || !sameIdentity(now, identity)) { busy = 'changed'; throw new Error('changed'); }
      },
      afterRename: () => {
        if (!held) return;
        after = current();
        held = false;
        try { unlinkSync(lock); } catch { /* gone */ }
      },
    });
    try {
      writer.writeAll([bytes]);
    } catch (e) {
      writer.abort();
      if (busy !== null || (e instanceof VfsError && e.errno === 'EEXIST')) {
        throw new NoshError('BUSY', `${path}: the database was changed by another call since it was read; this call's changes were not written`,
          'Run the statement again: it will see the other change.', { path, reason: busy === 'lock' ? 'locked' : 'changed_since_read' });
      }
      throw e;
    }
    return after ?? identityOf(fs.lstat(path));
  }

  private remember(): void {
    const key = this.key!;
    const old = CACHE.get(key);
    if (old && old.db !== this.current) old.db.close();
    CACHE.set(key, { ...this.identity!, db: this.current! });
    let total = 0;
    for (const c of CACHE.values()) total += c.size;
    for (const [k, c] of CACHE) {
      if (total <= CACHE_BYTES || k === key) break;
      CACHE.delete(k);
      c.db.close();
      total -= c.size;
    }
  }
}

/** Does the connection hold temp tables, views or triggers? */
function hasTemp(db: Database): boolean {
  try {
    return db.exec('SELECT 1 FROM temp.sqlite_schema LIMIT 1').length > 0;
  } catch {
    return true;
  }
}

/** The lock file of one database file: in the temp folder, named by a hash (no host path shown anywhere). */
function lockPath(key: string): string {
  return join(tmpdir(), `nosh-sqlite-${createHash('sha256').update(key).digest('hex').slice(0, 32)}.lock`);
}

const SLEEP = new Int32Array(new SharedArrayBuffer(4));

/** Take the lock file (O_EXCL), waiting up to 2 s; a lock older than 10 s was left by a stopped worker. */
function acquireLock(file: string): boolean {
  const deadline = Date.now() + 2000;
  for (;;) {
    try {
      closeSync(openSync(file, 'wx', 0o600));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    try {
      if (Date.now() - statSync(file).mtimeMs > 10_000) { unlinkSync(file); continue; }
    } catch { continue; }
    if (Date.now() > deadline) return false;
    Atomics.wait(SLEEP, 0, 0, 2);
  }
}

function readAllFd(fd: number, size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let off = 0;
  while (off < bytes.length) {
    const n = readSync(fd, bytes, off, bytes.length - off, off);
    if (n === 0) break;
    off += n;
  }
  return bytes.subarray(0, off);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** Forget every cached database (tests). */
export function clearDatabaseCache(): void {
  for (const c of CACHE.values()) c.db.close();
  CACHE.clear();
}
