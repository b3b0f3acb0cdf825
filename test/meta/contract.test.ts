import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedMetaStore, MemoryMetaStore, PostgresMetaStore, removeStaleMetaTemps, type MetaStore } from '../../src/meta/index.js';
import { tempDir } from '../helpers.js';
import { usePostgres } from './pg.js';

// One body, three stores: the memory store is the reference the others must match.
const pg = usePostgres();

const STORES: [string, () => Promise<{ store: MetaStore; again: () => MetaStore }>][] = [
  ['memory', async () => { const s = new MemoryMetaStore(); return { store: s, again: () => s }; }],
  ['embedded', async () => { const base = tempDir(); return { store: new EmbeddedMetaStore(base), again: () => new EmbeddedMetaStore(base) }; }],
  ['postgres', async () => { const url = await pg().freshDb(); return { store: new PostgresMetaStore(url), again: () => new PostgresMetaStore(url) }; }],
];

const lock = (path: string, user: string, expiresAt = 2000) => ({ zone: 'groups/eng', path, user, conversation: 'c1', takenAt: 1000, expiresAt });

describe.each(STORES)('the %s store keeps the MetaStore contract', (kind, make) => {
  it('ownership rows: put (keep unless replace), read, update, move, delete', async () => {
    const { store, again } = await make();
    await store.open();
    try {
      await store.putOwnerships('eng', [
        { path: 'a.txt', owner: 'alice', mode: 'owner' },
        { path: 'docs/b.txt', owner: 'bob', mode: 'group' },
        { path: 'docs/sub/c.txt', owner: 'bob', mode: 'owner_ro' },
        { path: 'docsx/d.txt', owner: 'carol', mode: 'group' },
      ]);
      await store.putOwnerships('ops', [{ path: 'a.txt', owner: 'dave', mode: 'group' }]);
      await store.putOwnerships('eng', [{ path: 'a.txt', owner: 'mallory', mode: 'group' }]);
      expect((await store.ownerships('eng', ['a.txt', 'missing']))).toMatchObject([{ group: 'eng', path: 'a.txt', owner: 'alice', mode: 'owner' }]);
      expect((await store.ownershipsUnder('eng', 'docs')).map((r) => r.path)).toEqual(['docs/b.txt', 'docs/sub/c.txt']);
      expect((await store.ownershipsUnder('eng', '')).map((r) => r.path)).toEqual(['a.txt', 'docs/b.txt', 'docs/sub/c.txt', 'docsx/d.txt']);
      await store.putOwnerships('eng', [{ path: 'a.txt', owner: 'bob', mode: 'group' }], true);
      expect((await store.ownerships('eng', ['a.txt']))[0]).toMatchObject({ owner: 'bob', mode: 'group' });

      const up = await store.updateOwnership('eng', 'docs/b.txt', { mode: 'owner' });
      expect(up).toMatchObject({ owner: 'bob', mode: 'owner' });
      expect(await store.updateOwnership('eng', 'nope', { owner: 'x' })).toBeUndefined();

      await store.moveOwnerships('eng', 'docs', 'archive/docs');
      expect((await store.ownershipsUnder('eng', '')).map((r) => `${r.path}:${r.owner}:${r.mode}`)).toEqual([
        'a.txt:bob:group', 'archive/docs/b.txt:bob:owner', 'archive/docs/sub/c.txt:bob:owner_ro', 'docsx/d.txt:carol:group']);
      await store.moveOwnerships('eng', 'a.txt', 'docsx/d.txt'); // replaces the row there
      expect((await store.ownerships('eng', ['docsx/d.txt']))[0]).toMatchObject({ owner: 'bob' });
      await store.deleteOwnerships('eng', ['archive']);
      expect((await store.ownershipsUnder('eng', '')).map((r) => r.path)).toEqual(['docsx/d.txt']);
      expect((await store.ownerships('ops', ['a.txt']))[0]).toMatchObject({ owner: 'dave' });

      // what one instance wrote, another (another process's) reads
      if (kind !== 'memory') {
        const other = again();
        await other.open();
        try {
          expect((await other.ownershipsUnder('eng', '')).map((r) => r.path)).toEqual(['docsx/d.txt']);
        } finally {
          await other.close();
        }
      }
    } finally {
      await store.close();
    }
  });

  it('a mode outside owner/group/owner_ro is refused by the store', async () => {
    const { store } = await make();
    await store.open();
    try {
      if (kind === 'memory') return; // the memory store trusts its typed callers
      await expect(store.putOwnerships('eng', [{ path: 'x', owner: 'a', mode: 'everyone' as never }])).rejects.toThrow();
      expect(await store.ownershipsUnder('eng', '')).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('locks: take, held, expired replaced, release, under, expired list', async () => {
    const { store } = await make();
    await store.open();
    try {
      expect(await store.takeLock(lock('f.txt', 'alice'), 1500)).toEqual({ taken: true, lock: lock('f.txt', 'alice') });
      expect(await store.takeLock(lock('f.txt', 'bob'), 1500)).toEqual({ taken: false, lock: lock('f.txt', 'alice') });
      expect(await store.takeLock(lock('f.txt', 'bob', 9000), 2500)).toEqual({ taken: true, lock: lock('f.txt', 'bob', 9000) });
      await store.takeLock(lock('d/g.txt', 'carol', 1200), 1000);
      expect((await store.locks('groups/eng', ['f.txt', 'x'])).map((l) => l.user)).toEqual(['bob']);
      expect((await store.locksUnder('groups/eng', 'd')).map((l) => l.path)).toEqual(['d/g.txt']);
      expect((await store.expiredLocks(5000)).map((l) => l.path)).toEqual(['d/g.txt']);
      expect(await store.releaseLock('groups/eng', 'd/g.txt')).toBe(true);
      expect(await store.releaseLock('groups/eng', 'd/g.txt')).toBe(false);
      expect(await store.locksUnder('groups/eng', '')).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('racing takeLock: exactly one of twenty wins', async () => {
    const { store, again } = await make();
    await store.open();
    const others = kind === 'memory' ? [] : [again(), again()];
    for (const o of others) await o.open();
    try {
      const all = [store, ...others];
      const res = await Promise.all(Array.from({ length: 20 }, (_, i) => all[i % all.length]!.takeLock(lock('race.txt', `u${i}`), 1500)));
      const won = res.filter((r) => r.taken);
      expect(won).toHaveLength(1);
      for (const r of res) expect(r.lock.user).toBe(won[0]!.lock.user);
    } finally {
      for (const o of others) await o.close();
      await store.close();
    }
  });

  it('withZone orders the runs of one zone and lets other zones run; it is re-entrant', async () => {
    const { store } = await make();
    await store.open();
    try {
      const events: string[] = [];
      const slow = (name: string) => async () => { events.push(`${name}+`); await new Promise((r) => setTimeout(r, 30)); events.push(`${name}-`); };
      await Promise.all([store.withZone('z1', slow('a')), store.withZone('z1', slow('b'))]);
      if (kind !== 'memory') expect(events).toEqual(['a+', 'a-', 'b+', 'b-']);
      expect(await store.withZone('z1', () => store.withZone('z1', async () => 42))).toBe(42);
    } finally {
      await store.close();
    }
  });

  it('quota usage: stored and read back', async () => {
    const { store } = await make();
    await store.open();
    try {
      if (kind === 'memory') { expect(await store.quotaUsage('user:a')).toBeUndefined(); return; }
      expect(await store.quotaUsage('user:a')).toBeUndefined();
      await store.setQuotaUsage('user:a', { bytes: 4096, files: 3 });
      expect(await store.quotaUsage('user:a')).toEqual({ bytes: 4096, files: 3 });
    } finally {
      await store.close();
    }
  });
});

describe('the embedded store', () => {
  it('open() loads nothing: no sql.js, no file made', async () => {
    const base = tempDir();
    const s = new EmbeddedMetaStore(base);
    await s.open();
    expect(fs.existsSync(path.join(base, 'access_auth.sqlite'))).toBe(false);
    await s.close();
  });

  it('a corrupt database file is a clear error at open and on use, never a reset', async () => {
    const base = tempDir();
    const file = path.join(base, 'access_auth.sqlite');
    fs.writeFileSync(file, 'this is not a database, just text that is long enough to fill a header of one hundred bytes.....');
    const s = new EmbeddedMetaStore(base);
    await expect(s.open()).rejects.toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringContaining('access_auth.sqlite') });
    await expect(s.ownerships('g', ['a'])).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    await expect(s.putOwnerships('g', [{ path: 'a', owner: 'u', mode: 'group' }])).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^this is not a database/);
    expect(JSON.stringify(await s.ownerships('g', ['a']).catch((e) => e))).not.toContain(base);
  });

  it('a database damaged past its header is an error on use, the file kept', async () => {
    const base = tempDir();
    const s = new EmbeddedMetaStore(base);
    await s.putOwnerships('g', [{ path: 'a', owner: 'u', mode: 'group' }]);
    const file = path.join(base, 'access_auth.sqlite');
    const bytes = fs.readFileSync(file);
    bytes.fill(0xee, 100, bytes.length);
    fs.writeFileSync(file, bytes);
    const t = new EmbeddedMetaStore(base);
    await expect(t.ownerships('g', ['a'])).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('a database from a newer schema is refused at open (user_version in the header)', async () => {
    const base = tempDir();
    const s = new EmbeddedMetaStore(base);
    await s.putOwnerships('g', [{ path: 'a', owner: 'u', mode: 'group' }]);
    await s.close();
    const file = path.join(base, 'access_auth.sqlite');
    const bytes = fs.readFileSync(file);
    bytes.writeUInt32BE(99, 60);
    fs.writeFileSync(file, bytes);
    const t = new EmbeddedMetaStore(base);
    await expect(t.open()).rejects.toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringContaining('schema version 99') });
    await expect(t.ownerships('g', ['a'])).rejects.toMatchObject({ message: expect.stringContaining('newer') });
  });

  it('a stale lock file of a dead process is broken', async () => {
    const base = tempDir();
    fs.mkdirSync(path.join(base, 'locks'));
    // a pid that is not running
    fs.writeFileSync(path.join(base, 'locks', 'access_auth.sqlite.lock'), '999999999');
    const s = new EmbeddedMetaStore(base);
    await s.putOwnerships('g', [{ path: 'a', owner: 'u', mode: 'group' }]);
    expect(await s.ownerships('g', ['a'])).toHaveLength(1);
    expect(fs.existsSync(path.join(base, 'locks', 'access_auth.sqlite.lock'))).toBe(false);
  });
  it('a change that changes no row (a put of rows that exist, a delete of missing ones) leaves the file unwritten', async () => {
    const base = tempDir();
    const s = new EmbeddedMetaStore(base);
    await s.putOwnerships('g', [{ path: 'a', owner: 'u', mode: 'owner' }]);
    const before = fs.statSync(path.join(base, 'access_auth.sqlite'));
    await s.putOwnerships('g', [{ path: 'a', owner: 'v', mode: 'group' }]);
    await s.deleteOwnerships('g', ['missing']);
    expect(await s.releaseLock('z', 'missing')).toBe(false);
    const after = fs.statSync(path.join(base, 'access_auth.sqlite'));
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    // a real change is still written (and read back by another instance)
    await s.putOwnerships('g', [{ path: 'b', owner: 'v', mode: 'group' }]);
    expect(fs.statSync(path.join(base, 'access_auth.sqlite')).ino).not.toBe(before.ino);
    expect((await new EmbeddedMetaStore(base).ownershipsUnder('g', '')).map((r) => `${r.path}:${r.owner}`)).toEqual(['a:u', 'b:v']);
  });

  it('temp files a killed process left (dead pid, or older than a minute) are removed at open and by removeStaleMetaTemps; a live one is kept', async () => {
    const base = tempDir();
    fs.mkdirSync(path.join(base, 'locks'));
    const dead = 999999999;
    const old = new Date(Date.now() - 120_000);
    const stale = [
      `access_auth.sqlite.${dead}.0a1b2c3d.tmp`,
      path.join('locks', `quota-${'0'.repeat(32)}.usage.${dead}.tmp`),
      path.join('locks', `zone-${'1'.repeat(32)}.lock.${dead}.deadbeef`),
    ];
    const oldLive = `access_auth.sqlite.${process.pid}.11111111.tmp`;
    const live = [`access_auth.sqlite.${process.pid}.22222222.tmp`, path.join('locks', `zone-${'2'.repeat(32)}.lock.${process.pid}.cafebabe`)];
    const other = ['notes.sqlite.1.tmp', 'access_auth.sqlite.bak'];
    for (const f of [...stale, oldLive, ...live, ...other]) fs.writeFileSync(path.join(base, f), 'x');
    fs.utimesSync(path.join(base, oldLive), old, old);
    for (const f of other) fs.utimesSync(path.join(base, f), old, old);
    await new EmbeddedMetaStore(base).open();
    const left = (f: string) => fs.existsSync(path.join(base, f));
    expect([...stale, oldLive].filter(left)).toEqual([]);
    expect([...live, ...other].filter(left)).toEqual([...live, ...other]);
    fs.writeFileSync(path.join(base, stale[0]!), 'x');
    expect(await removeStaleMetaTemps(base)).toBe(1);
    expect(left(stale[0]!)).toBe(false);
  });
});

describe('the PostgreSQL store', () => {
  it('a schema newer than this nosh is refused at open', async () => {
    const url = await pg().freshDb();
    const s = new PostgresMetaStore(url);
    await s.open();
    await s.close();
    const { default: pgm } = await import('pg');
    const c = new pgm.Client({ connectionString: url });
    await c.connect();
    await c.query('UPDATE nosh_schema SET version = 99');
    await c.end();
    const t = new PostgresMetaStore(url);
    await expect(t.open()).rejects.toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringContaining('schema version 99') });
    await t.close();
  });

  it('a call that comes before open() waits for the migrations (nosh serve answers its first call before ready())', async () => {
    const url = await pg().freshDb();
    const s = new PostgresMetaStore(url);
    const opening = s.open();
    expect(await s.quotaUsage('user:x')).toBeUndefined();
    await s.setQuotaUsage('user:x', { bytes: 10, files: 1 });
    expect(await s.withZone('users/x/Storage', () => s.quotaUsage('user:x'))).toEqual({ bytes: 10, files: 1 });
    await opening;
    await s.close();
    const t = new PostgresMetaStore(url); // never opened: its first call migrates (nothing to do) and answers
    expect((await t.takeLock({ zone: 'z', path: 'p', user: 'u', conversation: 'c', takenAt: 1, expiresAt: 2 }, 0)).taken).toBe(true);
    await t.close();
  });

  it('two processes opening together migrate once', async () => {
    const url = await pg().freshDb();
    const a = new PostgresMetaStore(url);
    const b = new PostgresMetaStore(url);
    await Promise.all([a.open(), b.open()]);
    await a.putOwnerships('g', [{ path: 'x', owner: 'u', mode: 'owner' }]);
    expect(await b.ownerships('g', ['x'])).toHaveLength(1);
    await a.close();
    await b.close();
  });
});
