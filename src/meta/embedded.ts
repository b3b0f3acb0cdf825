import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { NoshError } from '../errors.js';
import { KeyedLocks, alive, lockFile, unlockFile } from './lockfile.js';
import type { LinkRecord } from '../links/store.js';
import { MIGRATIONS, SCHEMA_VERSION, SqlMetaStore, linkOf, type Query, type Row } from './sql.js';

/** The database file of the embedded store, in the base (Fileshed's name). */
export const DB_FILE = 'access_auth.sqlite';
/** The lock files of the embedded store (the database's, each zone's, each quota's), in the base. */
export const LOCK_DIR = 'locks';

let sqlJs: Promise<SqlJsStatic> | undefined;

/** sql.js and its WASM, loaded on first use (never at start: the CLI's start-up time). */
function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasm = require.resolve('sql.js/dist/sql-wasm.wasm');
    const init = (await import('sql.js')).default as unknown as (o: object) => Promise<SqlJsStatic>;
    return init({ wasmBinary: fs.readFileSync(wasm) });
  })();
  return sqlJs;
}

interface Stamp { ino: number; size: number; mtimeMs: number }

const SQLITE_MAGIC = 'SQLite format 3\0';

/**
 * The embedded metadata store: sql.js over one file, access_auth.sqlite in the base, shared by
 * the nosh processes of one machine. A change takes the database's lock file, reloads the
 * file if another process changed it (ino, size, mtime), applies the change, writes the file
 * back atomically (temp, fsync, rename) and releases, before it resolves. A read reloads when
 * the file changed. Quota usage is kept beside it, one small file per quota key.
 */
export class EmbeddedMetaStore extends SqlMetaStore {
  readonly kind = 'embedded' as const;
  readonly file: string;
  private readonly lockDir: string;
  private db: Database | undefined;
  private stamp: Stamp | undefined;
  /** One change at a time in this process (the lock file orders processes). */
  private readonly local = new KeyedLocks(async () => () => {});
  private readonly zones: KeyedLocks;

  constructor(readonly base: string) {
    super();
    this.file = path.join(base, DB_FILE);
    this.lockDir = path.join(base, LOCK_DIR);
    this.zones = new KeyedLocks(async (key) => {
      const f = this.lockPath('zone', key);
      await lockFile(f, `the write order of zone '${key}'`);
      return () => unlockFile(f);
    });
  }

  private lockPath(kind: string, key: string): string {
    return path.join(this.lockDir, `${kind}-${crypto.createHash('sha256').update(key).digest('hex').slice(0, 32)}.lock`);
  }

  /**
   * Cheap: the file's header only (no WASM): a file that is not SQLite, or whose schema is newer
   * than this nosh's, is an error here, at start. sql.js and the rows load on first use.
   */
  async open(): Promise<void> {
    await removeStaleMetaTemps(this.base);
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    try {
      const head = Buffer.alloc(100);
      const n = fs.readSync(fd, head, 0, 100, 0);
      if (n === 0) return; // an empty file: a new database
      if (n < 100 || head.toString('latin1', 0, 16) !== SQLITE_MAGIC) throw this.corrupt('it is not an SQLite database');
      this.checkVersion(head.readUInt32BE(60));
    } finally {
      fs.closeSync(fd);
    }
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
    this.stamp = undefined;
  }

  private corrupt(why: string): NoshError {
    return new NoshError('INTERNAL_ERROR', `the metadata database ${DB_FILE} in the base is unreadable: ${why}`,
      `nosh does not reset it: the operator restores ${DB_FILE} from a backup, or moves it away to start with no ownership rows and no locks.`,
      { file: DB_FILE });
  }

  private checkVersion(v: number): void {
    if (v > SCHEMA_VERSION) {
      throw new NoshError('INTERNAL_ERROR', `the metadata database ${DB_FILE} has schema version ${v}, newer than this nosh's (${SCHEMA_VERSION})`,
        'Run the newer nosh that wrote it, or restore an older copy of the file; nosh does not downgrade it.', { file: DB_FILE, version: v });
    }
  }

  private statFile(): Stamp | undefined {
    try {
      const st = fs.statSync(this.file);
      return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  /** The database as the file holds it now: reloaded when the file changed since it was read. */
  private async current(): Promise<Database> {
    const SQL = await loadSqlJs();
    const st = this.statFile();
    const same = this.db && (st === undefined ? this.stamp === undefined
      : this.stamp !== undefined && st.ino === this.stamp.ino && st.size === this.stamp.size && st.mtimeMs === this.stamp.mtimeMs);
    if (same) return this.db!;
    this.db?.close();
    this.db = undefined;
    const bytes = st && st.size > 0 ? fs.readFileSync(this.file) : undefined;
    if (bytes && bytes.toString('latin1', 0, 16) !== SQLITE_MAGIC) throw this.corrupt('it is not an SQLite database');
    let db: Database;
    let version: number;
    try {
      db = new SQL.Database(bytes);
      version = Number(db.exec('PRAGMA user_version')[0]!.values[0]![0]);
      db.exec('PRAGMA quick_check');
    } catch (e) {
      throw this.corrupt((e as Error).message);
    }
    try {
      this.checkVersion(version);
      if (version < SCHEMA_VERSION) {
        db.exec('BEGIN');
        for (let v = version + 1; v <= SCHEMA_VERSION; v++) for (const s of MIGRATIONS[v]!) db.exec(s);
        db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
        db.exec('COMMIT');
      }
    } catch (e) {
      db.close();
      throw e;
    }
    this.db = db;
    this.stamp = st;
    this.linkRows.clear();
    return db;
  }

  protected async read<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    return this.local.with('\0db', async () => fn(queryOf(await this.current())));
  }

  protected async write<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    return this.local.with('\0db', async () => {
      const lock = path.join(this.lockDir, `${DB_FILE}.lock`);
      await lockFile(lock, `the metadata database ${DB_FILE}`);
      this.linkRows.clear();
      try {
        const db = await this.current();
        db.exec('BEGIN');
        let out: T;
        let changed: boolean;
        try {
          const before = changes(db);
          out = await fn(queryOf(db));
          changed = changes(db) !== before;
          db.exec('COMMIT');
        } catch (e) {
          db.exec('ROLLBACK');
          throw e;
        }
        // nothing changed (a put of rows that exist, a delete of missing ones: every overwrite
        // and most deletes in a group zone): the file stays as it is, no export, no fsync
        if (!changed) return out;
        try {
          this.persist(db.export());
        } catch (e) {
          // the file is as it was: drop what this process applied, reload on next use
          this.db?.close();
          this.db = undefined;
          throw e;
        }
        return out;
      } finally {
        unlockFile(lock);
      }
    });
  }

  /** Write the database file atomically: temp file, fsync, rename (and the folder's fsync). */
  private persist(bytes: Uint8Array): void {
    fs.mkdirSync(this.base, { recursive: true });
    const tmp = `${this.file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    const fd = fs.openSync(tmp, 'w', 0o600);
    try {
      fs.writeSync(fd, bytes);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.renameSync(tmp, this.file);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw e;
    }
    try {
      const dfd = fs.openSync(this.base, 'r');
      try { fs.fsyncSync(dfd); } finally { fs.closeSync(dfd); }
    } catch { /* a folder fsync is best effort */ }
    this.stamp = this.statFile();
  }

  withZone<T>(zone: string, run: () => Promise<T>): Promise<T> {
    return this.zones.with(zone, run);
  }

  /** Quota usage: one small file per key in the lock folder (read and written under the quota's zone lock). */
  override async quotaUsage(key: string): Promise<{ bytes: number; files: number } | undefined> {
    try {
      const [bytes, files] = fs.readFileSync(this.lockPath('quota', key).replace(/\.lock$/, '.usage'), 'utf8').split(' ').map(Number);
      return Number.isFinite(bytes) && Number.isFinite(files) ? { bytes: bytes!, files: files! } : undefined;
    } catch {
      return undefined;
    }
  }

  override async setQuotaUsage(key: string, usage: { bytes: number; files: number }): Promise<void> {
    const file = this.lockPath('quota', key).replace(/\.lock$/, '.usage');
    fs.mkdirSync(this.lockDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${usage.bytes} ${usage.files}`);
    fs.renameSync(tmp, file);
  }

  // ---- links (issue #21): the link server looks a link up on every request; the rows read are
  // kept while the database is the one read (a change by any process reloads it and drops them)
  private readonly linkRows = new Map<string, LinkRecord | undefined>();

  override async link(id: string): Promise<LinkRecord | undefined> {
    // the common case without the read turn: a row already read, the file unchanged since (one stat)
    if (this.db && this.linkRows.has(id)) {
      const st = this.statFile();
      if (st && this.stamp && st.ino === this.stamp.ino && st.size === this.stamp.size && st.mtimeMs === this.stamp.mtimeMs) return this.linkCopy(id);
    }
    return this.read(async (q) => {
      if (!this.linkRows.has(id)) {
        const rows = await q('SELECT * FROM links WHERE id = $1', [id]);
        if (this.linkRows.size >= 10_000) this.linkRows.clear();
        this.linkRows.set(id, rows[0] ? linkOf(rows[0]) : undefined);
      }
      return this.linkCopy(id);
    });
  }

  private linkCopy(id: string): LinkRecord | undefined {
    const r = this.linkRows.get(id);
    return r && { ...r, context: { ...r.context } };
  }
}

/** The rows changed by INSERT, UPDATE and DELETE since the database was opened (SQLite's total_changes()). */
function changes(db: Database): number {
  return Number(db.exec('SELECT total_changes()')[0]!.values[0]![0]);
}

/** How long a temp file of a live process may stay before it counts as left over (its pid reused). */
const STALE_TEMP_MS = 60_000;

/**
 * The temp files of this store that a killed process can leave: the database's
 * (`access_auth.sqlite.<pid>.<hex>.tmp`, in the base) and, in the lock folder, a quota usage
 * file's (`*.usage.<pid>.tmp`) and a lock file's before it is linked (`*.lock.<pid>.<hex>`,
 * `*.lock.break.<pid>.<hex>`). Group 1 is the writer's pid.
 */
const BASE_TEMP = /^access_auth\.sqlite\.(\d+)\.[0-9a-f]+\.tmp$/;
const LOCK_TEMP = /^(?:[a-z]+-[0-9a-f]{32}|access_auth\.sqlite)\.(?:usage\.(\d+)\.tmp|lock(?:\.break)?\.(\d+)\.[0-9a-f]+)$/;

/**
 * Remove the temp files of the embedded store left by killed processes: those whose writer
 * (the pid in the name) is dead, or that are older than a minute (no write takes that long:
 * the pid was reused). Run at open and by maintenance. Returns how many were removed.
 */
export async function removeStaleMetaTemps(base: string, now = Date.now()): Promise<number> {
  let removed = 0;
  for (const [dir, re] of [[base, BASE_TEMP], [path.join(base, LOCK_DIR), LOCK_TEMP]] as const) {
    let names: string[];
    try {
      names = await fs.promises.readdir(dir);
    } catch {
      continue; // no base or no lock folder yet
    }
    for (const name of names) {
      const m = re.exec(name);
      if (!m) continue;
      const pid = Number(m[1] ?? m[2]);
      const file = path.join(dir, name);
      try {
        if (alive(pid) && now - (await fs.promises.lstat(file)).mtimeMs < STALE_TEMP_MS) continue;
        await fs.promises.rm(file, { force: true });
        removed++;
      } catch {
        // gone meanwhile (its writer renamed or removed it)
      }
    }
  }
  return removed;
}

function queryOf(db: Database): Query {
  return async (sql: string, params: readonly unknown[] = []) => {
    const stmt = db.prepare(sql.replace(/\$(\d+)/g, '?$1'));
    try {
      stmt.bind(params.map((p) => (p === undefined ? null : p)) as never);
      const rows: Row[] = [];
      while (stmt.step()) rows.push(stmt.getAsObject() as Row);
      return rows;
    } finally {
      stmt.free();
    }
  };
}
