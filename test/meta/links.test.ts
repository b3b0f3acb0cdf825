import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedMetaStore, MemoryMetaStore, PostgresMetaStore, type MetaStore } from '../../src/meta/index.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/meta/sql.js';
import { Links, linksFor, type LinkRecord } from '../../src/links/index.js';
import { tempDir } from '../helpers.js';
import { usePostgres } from './pg.js';

// The links table (issue #21) in the three stores: the memory store is the reference.
const pg = usePostgres();

const STORES: [string, () => Promise<{ store: MetaStore; again: () => MetaStore }>][] = [
  ['memory', async () => { const s = new MemoryMetaStore(); return { store: s, again: () => s }; }],
  ['embedded', async () => { const base = tempDir(); return { store: new EmbeddedMetaStore(base), again: () => new EmbeddedMetaStore(base) }; }],
  ['postgres', async () => { const url = await pg().freshDb(); return { store: new PostgresMetaStore(url), again: () => new PostgresMetaStore(url) }; }],
];

const rec = (id: string, scope = 'user:alice', extra: Partial<LinkRecord> = {}): LinkRecord => ({
  id, scope, zone: 'storage', context: { user: scope.slice(5), conversation: 'c1', groups: ['eng'] }, path: `/pub/${id}.txt`,
  kind: 'file', download: false, created_at: 1_700_000_000, expires_at: 1_700_086_400, hits: 0, ...extra,
});

describe.each(STORES)('the %s store keeps links', (kind, make) => {
  it('put (an id already there is kept), get, list by scope, delete, hits added in one change', async () => {
    const { store, again } = await make();
    await store.open();
    try {
      await store.putLinks([rec('aaaaaa'), rec('bbbbbb', 'user:alice', { kind: 'dir', path: '/', download: true, created_at: 1_700_000_001 }), rec('cccccc', 'user:bob')]);
      await store.putLinks([rec('aaaaaa', 'user:mallory', { path: '/other' })]);
      expect(await store.link('aaaaaa')).toEqual(rec('aaaaaa'));
      expect(await store.link('bbbbbb')).toMatchObject({ kind: 'dir', path: '/', download: true });
      expect(await store.link('nope00')).toBeUndefined();
      expect((await store.linksOf('user:alice')).map((r) => r.id)).toEqual(['aaaaaa', 'bbbbbb']);
      expect((await store.linksOf('user:bob')).map((r) => r.id)).toEqual(['cccccc']);

      await store.addLinkHits(new Map([['aaaaaa', 3], ['cccccc', 1], ['gone00', 5]]));
      await store.addLinkHits(new Map([['aaaaaa', 2]]));
      expect((await store.link('aaaaaa'))!.hits).toBe(5);
      expect((await store.link('cccccc'))!.hits).toBe(1);
      expect(await store.link('gone00')).toBeUndefined();

      expect(await store.deleteLink('aaaaaa')).toBe(true);
      expect(await store.deleteLink('aaaaaa')).toBe(false);
      expect(await store.link('aaaaaa')).toBeUndefined();

      // another process sees the rows and the revocation
      if (kind !== 'memory') {
        const other = again();
        await other.open();
        try {
          expect(await other.link('aaaaaa')).toBeUndefined();
          expect((await other.linksOf('user:alice')).map((r) => r.id)).toEqual(['bbbbbb']);
          expect(await other.deleteLink('bbbbbb')).toBe(true);
          expect(await store.link('bbbbbb')).toBeUndefined();
        } finally {
          await other.close();
        }
      }
    } finally {
      await store.close();
    }
  });

  it('Links over the store: hits are counted in memory (no change per request) and added at flush', async () => {
    const { store, again } = await make();
    await store.open();
    const base = tempDir();
    try {
      const links = new Links(store, () => Buffer.alloc(32, 1), { defaultExpiresSeconds: 60, maxExpiresSeconds: 600 });
      await links.create(rec('hhhhhh'));
      const file = path.join((store as EmbeddedMetaStore).base ?? base, 'access_auth.sqlite');
      const before = kind === 'embedded' ? fs.statSync(file) : undefined;
      for (let i = 0; i < 50; i++) links.countHit('hhhhhh');
      if (before) {
        const now = fs.statSync(file);
        expect([now.ino, now.mtimeMs]).toEqual([before.ino, before.mtimeMs]); // no write for a hit
      }
      expect((await store.link('hhhhhh'))!.hits).toBe(0);
      expect((await links.list('user:alice'))[0]!.hits).toBe(50); // the counted ones shown
      await links.flush();
      const other = again();
      await other.open();
      expect((await other.link('hhhhhh'))!.hits).toBe(50);
      if (other !== store) await other.close();
    } finally {
      await store.close();
    }
  });
});

describe('schema upgrades to the links table', () => {
  it('embedded: a version-1 access_auth.sqlite is migrated in place, its rows kept', async () => {
    expect(SCHEMA_VERSION).toBe(2);
    const base = tempDir();
    const require = createRequire(import.meta.url);
    const init = (await import('sql.js')).default as unknown as (o: object) => Promise<any>;
    const SQL = await init({ wasmBinary: fs.readFileSync(require.resolve('sql.js/dist/sql-wasm.wasm')) });
    const db = new SQL.Database();
    for (const s of MIGRATIONS[1]!) db.exec(s);
    db.exec("INSERT INTO file_ownership VALUES ('eng', 'a.txt', 'alice', 'owner', 1, 1)");
    db.exec('PRAGMA user_version = 1');
    fs.writeFileSync(path.join(base, 'access_auth.sqlite'), db.export());
    db.close();

    const s = new EmbeddedMetaStore(base);
    await s.open();
    expect(await s.ownerships('eng', ['a.txt'])).toMatchObject([{ owner: 'alice' }]);
    await s.putLinks([rec('uuuuuu')]);
    expect(await s.link('uuuuuu')).toEqual(rec('uuuuuu'));
    await s.close();
    const head = fs.readFileSync(path.join(base, 'access_auth.sqlite')).readUInt32BE(60);
    expect(head).toBe(2);
  });

  it('PostgreSQL: a version-1 schema gets the links table by the next migration', async () => {
    const url = await pg().freshDb();
    const { default: pgm } = await import('pg');
    const c = new pgm.Client({ connectionString: url });
    await c.connect();
    await c.query('CREATE TABLE nosh_schema (version INTEGER NOT NULL)');
    for (const s of MIGRATIONS[1]!) await c.query(s);
    await c.query("INSERT INTO file_ownership VALUES ('eng', 'a.txt', 'alice', 'owner', 1, 1)");
    await c.query('INSERT INTO nosh_schema (version) VALUES (1)');
    const s = new PostgresMetaStore(url);
    await s.open();
    await s.putLinks([rec('pppppp')]);
    expect(await s.link('pppppp')).toEqual(rec('pppppp'));
    expect(await s.ownerships('eng', ['a.txt'])).toMatchObject([{ owner: 'alice' }]);
    expect((await c.query('SELECT version FROM nosh_schema')).rows).toEqual([{ version: 2 }]);
    await c.end();
    await s.close();
  });
});

describe('links.json of an older nosh', () => {
  it('is imported once on first use (hits included), then renamed', async () => {
    const base = tempDir();
    fs.writeFileSync(path.join(base, 'links.json'), JSON.stringify({ links: [rec('llllll', 'user:alice', { hits: 2 }), rec('mmmmmm', 'user:bob')] }));
    fs.writeFileSync(path.join(base, 'links.hits.json'), JSON.stringify({ llllll: 3 }));
    const store = new EmbeddedMetaStore(base);
    const links = linksFor(store, base, { secret: 'x'.repeat(32), defaultExpiresSeconds: 60, maxExpiresSeconds: 600 });
    expect(await links.get('llllll')).toEqual(rec('llllll', 'user:alice', { hits: 5 }));
    expect((await links.list('user:bob')).map((r) => r.id)).toEqual(['mmmmmm']);
    expect(fs.existsSync(path.join(base, 'links.json'))).toBe(false);
    expect(fs.existsSync(path.join(base, 'links.json.imported'))).toBe(true);
    expect(fs.existsSync(path.join(base, 'links.hits.json.imported'))).toBe(true);
    // a revocation is not undone by a second process importing again
    await links.delete('llllll');
    const again = linksFor(new EmbeddedMetaStore(base), base, { secret: 'x'.repeat(32), defaultExpiresSeconds: 60, maxExpiresSeconds: 600 });
    expect(await again.get('llllll')).toBeUndefined();
    await store.close();
  });
});

describe('the link server and the store', () => {
  it('a GET writes nothing to access_auth.sqlite; the counted hits are in the row after close', async () => {
    const { createNosh } = await import('../../src/index.js');
    const { createLinkHandler } = await import('../../src/http/server.js');
    const { get, listen, pathOf } = await import('../http/helpers.js');
    const http = await import('node:http');
    const base = path.join(tempDir(), 'base');
    const nosh = await createNosh({ base, threads: 1 });
    const server = http.createServer(createLinkHandler(nosh));
    const url = await listen(server);
    try {
      await nosh.call('write', { path: 'a.txt', content: 'hello' });
      const l = (await nosh.call('link_create', { path: 'a.txt' })).data as { id: string; url: string };
      const file = path.join(base, 'access_auth.sqlite');
      const before = fs.statSync(file);
      for (let i = 0; i < 5; i++) expect((await get(url, pathOf(l.url))).text).toBe('hello');
      const after = fs.statSync(file);
      expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
      expect(((await nosh.call('link_list', {})).data as { links: { hits: number }[] }).links[0]!.hits).toBe(5);
    } finally {
      await new Promise((r) => server.close(r));
      await nosh.close();
    }
    const store = new EmbeddedMetaStore(base);
    expect((await store.linksOf('user:default'))[0]!.hits).toBe(5);
    await store.close();
  });
});
