import type { LinkRecord } from '../links/store.js';
import { isUnder, type FileLock, type MetaStore, type Ownership, type WriteAccess } from './store.js';

/**
 * The metadata store over SQL, shared by the embedded (sql.js) and PostgreSQL stores: one
 * schema, one set of statements ($1.. parameters; the embedded store renames them ?1..).
 */

/** The schema's version (SQLite: PRAGMA user_version; PostgreSQL: the nosh_schema table). */
export const SCHEMA_VERSION = 2;

/** The migrations, by the version they bring the schema to. Times are milliseconds since the epoch. */
export const MIGRATIONS: Record<number, string[]> = {
  1: [
    // Fileshed's file_ownership (access_auth.sqlite)
    `CREATE TABLE IF NOT EXISTS file_ownership (
      group_id TEXT NOT NULL,
      file_path TEXT NOT NULL,
      owner_id TEXT NOT NULL,
      write_access TEXT NOT NULL DEFAULT 'group' CHECK (write_access IN ('owner', 'group', 'owner_ro')),
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      UNIQUE (group_id, file_path))`,
    'CREATE INDEX IF NOT EXISTS idx_ownership_owner ON file_ownership (group_id, owner_id)',
    'CREATE INDEX IF NOT EXISTS idx_ownership_path ON file_ownership (group_id, file_path)',
    `CREATE TABLE IF NOT EXISTS locks (
      zone TEXT NOT NULL,
      file_path TEXT NOT NULL,
      user_id TEXT NOT NULL,
      conversation TEXT NOT NULL,
      taken_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      PRIMARY KEY (zone, file_path))`,
    'CREATE INDEX IF NOT EXISTS idx_locks_expires ON locks (expires_at)',
    // usage per quota key, shared by the processes serving the base (see MetaStore.quotaUsage)
    `CREATE TABLE IF NOT EXISTS quota_usage (
      quota_key TEXT PRIMARY KEY,
      bytes BIGINT NOT NULL,
      files BIGINT NOT NULL,
      updated_at BIGINT NOT NULL)`,
  ],
  // shareable links (issue #21): one row per link; hits are added in batches by the serving process
  2: [
    `CREATE TABLE IF NOT EXISTS links (
      id TEXT PRIMARY KEY,
      owner_id TEXT NOT NULL,
      scope TEXT NOT NULL,
      zone TEXT NOT NULL,
      context TEXT NOT NULL,
      file_path TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('file', 'dir')),
      download INTEGER NOT NULL DEFAULT 0,
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      hits BIGINT NOT NULL DEFAULT 0)`,
    'CREATE INDEX IF NOT EXISTS idx_links_scope ON links (scope, created_at)',
  ],
};

export type Row = Record<string, unknown>;
/** Run one statement, its rows. */
export type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;

/** `path` is `dir` or under it ('' = all), for a text column; $n is dir. */
const under = (col: string, n: number) => `(CAST($${n} AS TEXT) = '' OR ${col} = CAST($${n} AS TEXT) OR substr(${col}, 1, length(CAST($${n} AS TEXT)) + 1) = CAST($${n} AS TEXT) || '/')`;

function ownership(r: Row): Ownership {
  return { group: String(r.group_id), path: String(r.file_path), owner: String(r.owner_id), mode: r.write_access as WriteAccess,
    createdAt: Number(r.created_at), updatedAt: Number(r.updated_at) };
}

function lock(r: Row): FileLock {
  return { zone: String(r.zone), path: String(r.file_path), user: String(r.user_id), conversation: String(r.conversation),
    takenAt: Number(r.taken_at), expiresAt: Number(r.expires_at) };
}

/** A link row (times stored in ms like every other table; a LinkRecord counts in seconds). */
export function linkOf(r: Row): LinkRecord {
  return { id: String(r.id), scope: String(r.scope), zone: String(r.zone), context: JSON.parse(String(r.context)) as LinkRecord['context'],
    path: String(r.file_path), kind: r.kind === 'dir' ? 'dir' : 'file', download: Number(r.download) === 1,
    created_at: Math.floor(Number(r.created_at) / 1000), expires_at: Math.floor(Number(r.expires_at) / 1000), hits: Number(r.hits) };
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

export abstract class SqlMetaStore implements MetaStore {
  abstract readonly kind: 'embedded' | 'postgres';
  abstract open(): Promise<void>;
  abstract close(): Promise<void>;
  abstract withZone<T>(zone: string, run: () => Promise<T>): Promise<T>;
  /** Run reading statements against the current state. */
  protected abstract read<T>(fn: (q: Query) => Promise<T>): Promise<T>;
  /** Run statements as one transaction: all applied and durable before it resolves, or none. */
  protected abstract write<T>(fn: (q: Query) => Promise<T>): Promise<T>;

  async ownerships(group: string, paths: readonly string[]): Promise<Ownership[]> {
    if (paths.length === 0) return [];
    const want = new Set(paths);
    // one statement for a few paths, the group's rows filtered here for many
    const rows = await this.read((q) => paths.length <= 50
      ? q(`SELECT * FROM file_ownership WHERE group_id = $1 AND file_path IN (${paths.map((_, i) => `$${i + 2}`).join(', ')})`, [group, ...paths])
      : q('SELECT * FROM file_ownership WHERE group_id = $1', [group]));
    return rows.map(ownership).filter((r) => want.has(r.path));
  }

  async ownershipsUnder(group: string, dir: string): Promise<Ownership[]> {
    const rows = await this.read((q) => q(`SELECT * FROM file_ownership WHERE group_id = $1 AND ${under('file_path', 2)}`, [group, dir]));
    return rows.map(ownership).sort(byPath);
  }

  async putOwnerships(group: string, rows: readonly { path: string; owner: string; mode: WriteAccess }[], replace = false): Promise<void> {
    if (rows.length === 0) return;
    const now = Date.now();
    await this.write(async (q) => {
      for (const r of rows) {
        await q(`INSERT INTO file_ownership (group_id, file_path, owner_id, write_access, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
          ON CONFLICT (group_id, file_path) DO ${replace ? 'UPDATE SET owner_id = excluded.owner_id, write_access = excluded.write_access, updated_at = excluded.updated_at' : 'NOTHING'}`,
        [group, r.path, r.owner, r.mode, now]);
      }
    });
  }

  async updateOwnership(group: string, path: string, patch: { owner?: string; mode?: WriteAccess }): Promise<Ownership | undefined> {
    const rows = await this.write((q) => q(`UPDATE file_ownership SET owner_id = COALESCE($3, owner_id), write_access = COALESCE($4, write_access), updated_at = $5
      WHERE group_id = $1 AND file_path = $2 RETURNING *`, [group, path, patch.owner ?? null, patch.mode ?? null, Date.now()]));
    return rows[0] ? ownership(rows[0]) : undefined;
  }

  async moveOwnerships(group: string, from: string, to: string): Promise<void> {
    if (from === to) return;
    const now = Date.now();
    await this.write(async (q) => {
      const moving = (await q(`SELECT * FROM file_ownership WHERE group_id = $1 AND ${under('file_path', 2)}`, [group, from])).map(ownership);
      if (moving.length === 0) return;
      await q(`DELETE FROM file_ownership WHERE group_id = $1 AND ${under('file_path', 2)}`, [group, from]);
      for (const r of moving) {
        await q(`INSERT INTO file_ownership (group_id, file_path, owner_id, write_access, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
          ON CONFLICT (group_id, file_path) DO UPDATE SET owner_id = excluded.owner_id, write_access = excluded.write_access,
          created_at = excluded.created_at, updated_at = excluded.updated_at`,
        [group, to + r.path.slice(from.length), r.owner, r.mode, r.createdAt, now]);
      }
    });
  }

  async deleteOwnerships(group: string, paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    await this.write(async (q) => {
      for (const p of paths) await q(`DELETE FROM file_ownership WHERE group_id = $1 AND ${under('file_path', 2)}`, [group, p]);
    });
  }

  async takeLock(l: FileLock, now: number): Promise<{ taken: boolean; lock: FileLock }> {
    return this.write(async (q) => {
      // one statement: inserted, or replacing an expired lock, or nothing (held)
      const got = await q(`INSERT INTO locks (zone, file_path, user_id, conversation, taken_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (zone, file_path) DO UPDATE SET user_id = excluded.user_id, conversation = excluded.conversation,
        taken_at = excluded.taken_at, expires_at = excluded.expires_at WHERE locks.expires_at <= $7 RETURNING *`,
      [l.zone, l.path, l.user, l.conversation, l.takenAt, l.expiresAt, now]);
      if (got[0]) return { taken: true, lock: lock(got[0]) };
      const holder = await q('SELECT * FROM locks WHERE zone = $1 AND file_path = $2', [l.zone, l.path]);
      return { taken: false, lock: lock(holder[0]!) };
    });
  }

  async locks(zone: string, paths: readonly string[]): Promise<FileLock[]> {
    if (paths.length === 0) return [];
    const want = new Set(paths);
    const rows = await this.read((q) => paths.length <= 50
      ? q(`SELECT * FROM locks WHERE zone = $1 AND file_path IN (${paths.map((_, i) => `$${i + 2}`).join(', ')})`, [zone, ...paths])
      : q('SELECT * FROM locks WHERE zone = $1', [zone]));
    return rows.map(lock).filter((l) => want.has(l.path));
  }

  async locksUnder(zone: string, dir: string): Promise<FileLock[]> {
    const rows = await this.read((q) => q(`SELECT * FROM locks WHERE zone = $1 AND ${under('file_path', 2)}`, [zone, dir]));
    return rows.map(lock).filter((l) => isUnder(l.path, dir)).sort(byPath);
  }

  async releaseLock(zone: string, path: string): Promise<boolean> {
    const rows = await this.write((q) => q('DELETE FROM locks WHERE zone = $1 AND file_path = $2 RETURNING zone', [zone, path]));
    return rows.length > 0;
  }

  async expiredLocks(now: number): Promise<FileLock[]> {
    const rows = await this.read((q) => q('SELECT * FROM locks WHERE expires_at < $1', [now]));
    return rows.map(lock).sort(byPath);
  }

  async quotaUsage(key: string): Promise<{ bytes: number; files: number } | undefined> {
    const rows = await this.read((q) => q('SELECT bytes, files FROM quota_usage WHERE quota_key = $1', [key]));
    return rows[0] ? { bytes: Number(rows[0].bytes), files: Number(rows[0].files) } : undefined;
  }

  async setQuotaUsage(key: string, usage: { bytes: number; files: number }): Promise<void> {
    await this.write((q) => q(`INSERT INTO quota_usage (quota_key, bytes, files, updated_at) VALUES ($1, $2, $3, $4)
      ON CONFLICT (quota_key) DO UPDATE SET bytes = excluded.bytes, files = excluded.files, updated_at = excluded.updated_at`,
    [key, usage.bytes, usage.files, Date.now()]));
  }

  // ---- links (issue #21)
  async putLinks(rows: readonly LinkRecord[]): Promise<void> {
    if (rows.length === 0) return;
    await this.write(async (q) => {
      for (const r of rows) {
        await q(`INSERT INTO links (id, owner_id, scope, zone, context, file_path, kind, download, created_at, expires_at, hits)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
        [r.id, r.context.user ?? r.scope.replace(/^user:/, ''), r.scope, r.zone, JSON.stringify(r.context), r.path, r.kind, r.download ? 1 : 0,
          r.created_at * 1000, r.expires_at * 1000, r.hits]);
      }
    });
  }

  async link(id: string): Promise<LinkRecord | undefined> {
    const rows = await this.read((q) => q('SELECT * FROM links WHERE id = $1', [id]));
    return rows[0] ? linkOf(rows[0]) : undefined;
  }

  async linksOf(scope: string): Promise<LinkRecord[]> {
    const rows = await this.read((q) => q('SELECT * FROM links WHERE scope = $1 ORDER BY created_at, id', [scope]));
    return rows.map(linkOf);
  }

  async deleteLink(id: string): Promise<boolean> {
    const rows = await this.write((q) => q('DELETE FROM links WHERE id = $1 RETURNING id', [id]));
    return rows.length > 0;
  }

  async addLinkHits(hits: ReadonlyMap<string, number>): Promise<void> {
    if (hits.size === 0) return;
    await this.write(async (q) => {
      for (const [id, n] of hits) await q('UPDATE links SET hits = hits + $2 WHERE id = $1', [id, n]);
    });
  }
}
