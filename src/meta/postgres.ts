import { AsyncLocalStorage } from 'node:async_hooks';
import * as crypto from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { NoshError } from '../errors.js';
import { KeyedLocks } from './lockfile.js';
import { MIGRATIONS, SCHEMA_VERSION, SqlMetaStore, type Query, type Row } from './sql.js';

/** The advisory lock that orders the migrations of processes starting together. */
const MIGRATION_LOCK = '7233011920200001';

/** A zone key as the bigint of pg_advisory_lock (the first 8 bytes of its SHA-256, signed). */
export function advisoryKey(key: string): string {
  return crypto.createHash('sha256').update(key).digest().readBigInt64BE(0).toString();
}

/** The server named in errors: its host, port and database, never the user or password. */
function serverOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}${u.port ? ':' + u.port : ''}${u.pathname}`;
  } catch {
    return 'the configured server';
  }
}

/**
 * The metadata store in PostgreSQL (`metadata.url`): for nosh processes on several machines
 * serving one base over a shared volume. The schema comes from the migrations, run at open().
 * A change is one transaction; the server going away mid-call fails the call (the transaction
 * is rolled back with the connection) and the pool connects afresh on the next call. A zone's
 * write order is a session advisory lock on the zone key, held on one connection for the call.
 */
export class PostgresMetaStore extends SqlMetaStore {
  readonly kind = 'postgres' as const;
  private pool: Pool | undefined;
  private readonly server: string;
  private readonly zones: KeyedLocks;
  /** The connection holding the current call's zone locks. */
  private readonly holding = new AsyncLocalStorage<PoolClient>();
  private readonly turns = new WeakMap<PoolClient, Promise<void>>();
  /** The migrations, once: every call waits for them (`nosh serve` answers its first call before ready()); a failure is retried by the next call. */
  private opening: Promise<void> | undefined;

  constructor(private readonly url: string, private readonly poolSize = 20) {
    super();
    this.server = serverOf(url);
    this.zones = new KeyedLocks(async (key) => {
      // the keys one call takes (its zones, its quota) are held on one connection: a call never
      // waits for a second connection while holding one, so a busy pool cannot deadlock
      const outer = this.holding.getStore();
      if (!outer) await this.open();
      const client = outer ?? await this.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1::bigint)', [advisoryKey(key)]);
      } catch (e) {
        if (!outer) client.release(true);
        throw this.unreachable(e);
      }
      const release = async () => {
        try {
          await client.query('SELECT pg_advisory_unlock($1::bigint)', [advisoryKey(key)]);
          if (!outer) client.release();
        } catch {
          if (!outer) client.release(true); // a lost connection: the server released its locks with it
        }
      };
      return { release, enter: <T>(run: () => Promise<T>) => this.holding.run(client, run) };
    });
  }

  private unreachable(e: unknown): NoshError {
    if (e instanceof NoshError) return e;
    return new NoshError('INTERNAL_ERROR', `the metadata database (PostgreSQL at ${this.server}) failed: ${(e as Error).message}`,
      'Nothing of this call was applied to the metadata. Retry; if it repeats, the operator checks that PostgreSQL is running.',
      { server: this.server });
  }

  private async connect(): Promise<PoolClient> {
    if (!this.pool) {
      const { default: pg } = await import('pg');
      // BIGINT columns as numbers (ms timestamps and byte counts fit in 2^53)
      pg.types.setTypeParser(20, (v: string) => Number(v));
      this.pool = new pg.Pool({ connectionString: this.url, max: this.poolSize, connectionTimeoutMillis: 10_000 });
      this.pool.on('error', () => { /* an idle connection lost: the pool makes a new one */ });
    }
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw this.unreachable(e);
    }
    // a connection lost while checked out fails its query; this keeps the event from crashing the process
    if (client.listenerCount('error') === 0) client.on('error', () => {});
    return client;
  }

  /** Create or migrate the schema; a schema newer than this nosh's is an error. */
  open(): Promise<void> {
    return this.opening ??= this.migrate().catch((e) => {
      this.opening = undefined;
      throw e;
    });
  }

  private async migrate(): Promise<void> {
    const client = await this.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK]);
      try {
        await client.query('CREATE TABLE IF NOT EXISTS nosh_schema (version INTEGER NOT NULL)');
        const rows = (await client.query('SELECT version FROM nosh_schema')).rows as { version: number }[];
        const version = rows[0]?.version ?? 0;
        if (version > SCHEMA_VERSION) {
          throw new NoshError('INTERNAL_ERROR', `the metadata database (PostgreSQL at ${this.server}) has schema version ${version}, newer than this nosh's (${SCHEMA_VERSION})`,
            'Run the newer nosh that migrated it; nosh does not downgrade a schema.', { server: this.server, version });
        }
        if (version < SCHEMA_VERSION) {
          await client.query('BEGIN');
          try {
            for (let v = version + 1; v <= SCHEMA_VERSION; v++) for (const s of MIGRATIONS[v]!) await client.query(s);
            await client.query('DELETE FROM nosh_schema');
            await client.query('INSERT INTO nosh_schema (version) VALUES ($1)', [SCHEMA_VERSION]);
            await client.query('COMMIT');
          } catch (e) {
            await client.query('ROLLBACK').catch(() => {});
            throw e;
          }
        }
      } finally {
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK]).catch(() => {});
      }
      client.release();
    } catch (e) {
      client.release(true);
      throw this.unreachable(e);
    }
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    this.opening = undefined;
    await pool?.end();
  }

  /** A connection for one statement or transaction: the call's own when it holds a zone (released with the zone). */
  private async session(): Promise<{ client: PoolClient; done: (failed: boolean) => void }> {
    const held = this.holding.getStore();
    if (held) {
      // one statement or transaction at a time on it (a call may ask the store for two things at once)
      const before = this.turns.get(held);
      let next!: () => void;
      const turn = new Promise<void>((r) => (next = r));
      const mine = (before ?? Promise.resolve()).then(() => turn);
      this.turns.set(held, mine);
      if (before) await before;
      return { client: held, done: () => { if (this.turns.get(held) === mine) this.turns.delete(held); next(); } };
    }
    await this.open();
    const client = await this.connect();
    return { client, done: (failed) => client.release(failed) };
  }

  protected async read<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    const { client, done } = await this.session();
    try {
      const out = await fn(queryOf(client));
      done(false);
      return out;
    } catch (e) {
      done(true);
      throw this.unreachable(e);
    }
  }

  protected async write<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    const { client, done } = await this.session();
    try {
      await client.query('BEGIN');
      const out = await fn(queryOf(client));
      await client.query('COMMIT');
      done(false);
      return out;
    } catch (e) {
      // the transaction dies with the connection: nothing of it was applied
      await client.query('ROLLBACK').catch(() => {});
      done(true);
      throw this.unreachable(e);
    }
  }

  withZone<T>(zone: string, run: () => Promise<T>): Promise<T> {
    return this.zones.with(zone, run);
  }
}

function queryOf(client: PoolClient): Query {
  return async (sql: string, params: readonly unknown[] = []) => (await client.query(sql, params as unknown[])).rows as Row[];
}
