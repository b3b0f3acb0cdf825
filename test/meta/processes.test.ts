import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EmbeddedMetaStore, PostgresMetaStore, type MetaStore } from '../../src/meta/index.js';
import { tempDir } from '../helpers.js';
import { usePostgres } from './pg.js';

// Stores in other processes (the compiled store: run `npx tsc` first), and PostgreSQL going away.
const pg = usePostgres();
const meta = fileURLToPath(new URL('../../dist/src/meta/index.js', import.meta.url));

/** A child process that opens the store and races takeLock on paths p0..p(n-1); its results as JSON. */
function racer(kind: string, where: string, user: string, n: number): Promise<{ path: string; taken: boolean; holder: string }[]> {
  const script = `
    const m = await import(${JSON.stringify(meta)});
    const s = ${kind === 'postgres' ? `new m.PostgresMetaStore(${JSON.stringify(where)})` : `new m.EmbeddedMetaStore(${JSON.stringify(where)})`};
    await s.open();
    const now = Date.now();
    const out = await Promise.all(Array.from({ length: ${n} }, (_, i) => s.takeLock({ zone: 'groups/eng', path: 'p' + i, user: ${JSON.stringify(user)},
      conversation: 'c', takenAt: now, expiresAt: now + 3600e3 }, now).then((r) => ({ path: 'p' + i, taken: r.taken, holder: r.lock.user }))));
    await s.close();
    process.stdout.write(JSON.stringify(out));`;
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`racer ${user} exited ${code}: ${err}`))));
  });
}

describe.each(['embedded', 'postgres'])('the %s store shared by processes', (kind) => {
  it('takeLock raced by three processes: exactly one wins each path, and every process sees the winner', async () => {
    const where = kind === 'postgres' ? await pg().freshDb() : tempDir();
    const n = 30;
    const results = await Promise.all(['u1', 'u2', 'u3'].map((u) => racer(kind, where, u, n)));
    const mine: MetaStore = kind === 'postgres' ? new PostgresMetaStore(where) : new EmbeddedMetaStore(where);
    await mine.open();
    try {
      for (let i = 0; i < n; i++) {
        const tries = results.map((r) => r[i]!);
        const won = tries.filter((t) => t.taken);
        expect(won).toHaveLength(1);
        for (const t of tries) expect(t.holder).toBe(won[0]!.holder);
        // a lock taken in one process is seen by another
        expect((await mine.locks('groups/eng', [`p${i}`]))[0]?.user).toBe(won[0]!.holder);
      }
    } finally {
      await mine.close();
    }
  }, 180_000);
});

describe('PostgreSQL going away mid-call', () => {
  const rows = Array.from({ length: 20_000 }, (_, i) => ({ path: `f${i}`, owner: 'alice', mode: 'group' as const }));

  async function whenBusy(url: string): Promise<void> {
    const db = new URL(url).pathname.slice(1);
    for (let i = 0; i < 600; i++) {
      const busy = await pg().sql(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND state IN ('active', 'idle in transaction')`, [db]);
      if (busy.length > 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the call never reached the server');
  }

  it('a backend terminated mid-transaction fails the call cleanly; nothing is applied; the next call reconnects', async () => {
    const url = await pg().freshDb();
    const s = new PostgresMetaStore(url);
    await s.open();
    try {
      const call = s.putOwnerships('eng', rows);
      call.catch(() => {});
      await whenBusy(url);
      await pg().sql('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [new URL(url).pathname.slice(1)]);
      const err = await call.then(() => undefined, (e) => e);
      expect(err).toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringContaining('PostgreSQL') });
      expect(JSON.stringify(err)).not.toContain('nosh@');
      expect(await s.ownershipsUnder('eng', '')).toEqual([]);
      await s.putOwnerships('eng', [{ path: 'after.txt', owner: 'bob', mode: 'owner' }]);
      expect((await s.ownershipsUnder('eng', '')).map((r) => r.path)).toEqual(['after.txt']);
    } finally {
      await s.close();
    }
  }, 180_000);

  it('the server stopped mid-call fails it; once the server is back, the store works again', async () => {
    const url = await pg().freshDb();
    const s = new PostgresMetaStore(url);
    await s.open();
    try {
      await s.takeLock({ zone: 'z', path: 'kept', user: 'u', conversation: 'c', takenAt: 1, expiresAt: Date.now() + 1e9 }, Date.now());
      const call = s.putOwnerships('eng', rows);
      call.catch(() => {});
      // a zone held across the stop: its run ends normally, its lost connection is let go
      const held = s.withZone('groups/eng', async () => { await new Promise((r) => setTimeout(r, 300)); return 'ran'; });
      await whenBusy(url);
      await pg().stop();
      await expect(call).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
      expect(await held).toBe('ran');
      await expect(s.ownerships('eng', ['f0'])).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
      await pg().start();
      expect(await s.ownershipsUnder('eng', '')).toEqual([]);
      expect((await s.locks('z', ['kept']))[0]?.user).toBe('u');
      expect(await s.withZone('groups/eng', async () => 'again')).toBe('again');
    } finally {
      await s.close();
    }
  }, 180_000);
});

describe('the PostgreSQL store under load', () => {
  it('more zones written at once than the pool has connections: each call holds its zone and quota keys on one connection, none deadlocks', async () => {
    const s = new PostgresMetaStore(await pg().freshDb(), 3);
    await s.open();
    try {
      const out = await Promise.all(Array.from({ length: 12 }, (_, i) => s.withZone(`zone-${i}`, () => s.withZone('quota:user:a', async () => {
        const u = (await s.quotaUsage('user:a')) ?? { bytes: 0, files: 0 };
        await Promise.all([s.setQuotaUsage('user:a', { bytes: u.bytes + 1, files: u.files + 1 }), s.locks(`zone-${i}`, ['x'])]);
        return i;
      }))));
      expect(out).toHaveLength(12);
      expect(await s.quotaUsage('user:a')).toEqual({ bytes: 12, files: 12 });
    } finally {
      await s.close();
    }
  }, 120_000);
});
