// sqlite3 and its engine under the limits: read-only modes (flag, config, zone, role), the
// database size limit, corrupt files, the write race (refused, never lost), the call timeout
// on a runaway recursive CTE (the pool keeps working), the per-worker cache.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { DbSession } from '../../src/gnulib/sqlite/database.js';
import { Vfs, defaultPolicy } from '../../src/vfs/index.js';
import { tempDir } from '../helpers.js';

const dirs: string[] = [];
const opened: Nosh[] = [];
afterAll(async () => {
  for (const n of opened) await n.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function zone(): string {
  const d = tempDir('nosh-sqlite-lim-');
  dirs.push(d);
  execFileSync('sqlite3', [path.join(d, 'd.db'), "create table t(a); insert into t values(1),(2)"]);
  return d;
}

async function open(config: Parameters<typeof createNosh>[0]): Promise<Nosh> {
  const n = await createNosh({ threads: 1, ...config });
  opened.push(n);
  return n;
}

async function sh(n: Nosh, command: string, opts: { stdin?: string; timeoutMs?: number; context?: unknown } = {}) {
  const r = await n.exec({ command, ...(opts.context ? { context: opts.context as never } : {}) }, { stdin: opts.stdin, timeoutMs: opts.timeoutMs });
  if (!r.success) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.data;
}

const READONLY = 'Error: stepping, attempt to write a readonly database (8)\n';

describe('read-only modes', () => {
  it('-readonly refuses every write statement, PRAGMA query_only=0 included; the file is untouched', async () => {
    const root = zone();
    const before = fs.readFileSync(path.join(root, 'd.db'));
    const n = await open({ root });
    let r = await sh(n, "sqlite3 -readonly d.db 'insert into t values(3)'");
    expect([r.exit_code, r.stderr]).toEqual([8, READONLY]);
    r = await sh(n, 'sqlite3 -readonly d.db', { stdin: 'pragma query_only=0;\ndelete from t;\nselect count(*) from t;\n' });
    expect(r.stdout).toBe('2\n');
    expect(r.stderr).toContain('attempt to write a readonly database');
    r = await sh(n, "sqlite3 -readonly d.db 'pragma query_only=0; drop table t'");
    expect(r.exit_code).toBe(8);
    expect(fs.readFileSync(path.join(root, 'd.db')).equals(before)).toBe(true);
  });

  it('limits.sqliteReadonly opens every database read-only (command and tool)', async () => {
    const root = zone();
    const n = await open({ root, limits: { sqliteReadonly: true } });
    const r = await sh(n, "sqlite3 d.db 'delete from t'");
    expect([r.exit_code, r.stderr]).toEqual([8, READONLY]);
    expect((await sh(n, "sqlite3 d.db 'select count(*) from t'")).stdout).toBe('2\n');
    const t = await n.call('sqlite', { path: 'd.db', sql: 'delete from t' });
    expect(!t.success && t.error.code).toBe('ZONE_READONLY');
    const imp = await n.call('import_csv', { path: 'd.db', table: 'n', csv_path: 'x.csv' });
    expect(imp.success).toBe(false);
  });

  it('a read-only zone and a read-only role query but never write', async () => {
    const root = zone();
    const before = fs.readFileSync(path.join(root, 'd.db'));
    const n = await open({ root, policy: { readonly: true } });
    expect((await sh(n, "sqlite3 d.db 'select sum(a) from t'")).stdout).toBe('3\n');
    const r = await sh(n, "sqlite3 d.db 'update t set a = 9'");
    expect([r.exit_code, r.stderr]).toEqual([8, READONLY]);
    const base = tempDir('nosh-sqlite-role-');
    dirs.push(base);
    const m = await open({ base });
    const ctx = { user: 'u1', role: 'critic' };
    const dev = { user: 'u1', role: 'developer' };
    await m.call('write', { path: 'x.csv', content: 'a\n1\n', context: dev });
    expect((await sh(m, "sqlite3 r.db 'create table t(a)'", { context: ctx })).exit_code).toBe(8);
    expect((await sh(m, "sqlite3 r.db 'create table t(a)'", { context: dev })).exit_code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'd.db')).equals(before)).toBe(true);
  });
});

describe('limits', () => {
  it('a database over maxDatabaseMb is FILE_TOO_LARGE with a hint naming the setting', async () => {
    const root = zone();
    execFileSync('sqlite3', [path.join(root, 'big.db'), "create table b(x); insert into b select randomblob(1000) from (with recursive c(i) as (select 1 union all select i + 1 from c where i < 1500) select i from c)"]);
    const n = await open({ root, limits: { maxDatabaseMb: 1 } });
    const r = await n.exec({ command: "sqlite3 big.db 'select count(*) from b'" });
    expect(!r.success && r.error.code).toBe('FILE_TOO_LARGE');
    expect(!r.success && r.error.hint).toContain('maxDatabaseMb');
    expect((await sh(n, "sqlite3 d.db 'select count(*) from t'")).stdout).toBe('2\n');
    // a database that grows past the limit is not written
    const g = await n.exec({ command: "sqlite3 d.db 'insert into t select randomblob(1000) from (with recursive c(i) as (select 1 union all select i + 1 from c where i < 1500) select i from c)'" });
    expect(!g.success && g.error.code).toBe('FILE_TOO_LARGE');
    expect((await sh(n, "sqlite3 d.db 'select count(*) from t'")).stdout).toBe('2\n');
  });

  it('a corrupt database and a file that is not one give SQLite\'s errors, and are not rewritten', async () => {
    const root = zone();
    const db = path.join(root, 'd.db');
    const bytes = fs.readFileSync(db);
    bytes.fill(0x41, 4096, 8192);
    fs.writeFileSync(path.join(root, 'bad.db'), bytes);
    fs.writeFileSync(path.join(root, 'text.db'), 'just some text, long enough to be more than a header........................................................\n');
    const n = await open({ root });
    let r = await sh(n, "sqlite3 bad.db 'select * from t'");
    expect(r.exit_code).toBe(11);
    expect(r.stderr).toContain('database disk image is malformed');
    r = await sh(n, "sqlite3 text.db 'select * from t'");
    expect([r.exit_code, r.stderr]).toEqual([26, 'Error: in prepare, file is not a database (26)\n']);
    r = await sh(n, "sqlite3 text.db 'create table x(a)'");
    expect(r.exit_code).toBe(26);
    expect(fs.readFileSync(path.join(root, 'text.db'), 'utf8')).toMatch(/^just some text/);
    expect(fs.readFileSync(path.join(root, 'bad.db')).equals(bytes)).toBe(true);
  });

  it('a runaway recursive CTE ends with TIMEOUT and the pool keeps working', async () => {
    const root = zone();
    const n = await open({ root });
    const r = await n.exec({ command: "sqlite3 d.db 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c'" }, { timeoutMs: 1500 });
    expect(!r.success && r.error.code).toBe('TIMEOUT');
    const t = await n.call('sqlite', { path: 'd.db', sql: 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c', timeout_ms: 1500 });
    expect(!t.success && t.error.code).toBe('TIMEOUT');
    expect((await sh(n, "sqlite3 d.db 'select count(*) from t'")).stdout).toBe('2\n');
  });
});

describe('writes and the cache', () => {
  it('a database changed since it was read is not overwritten (BUSY); the call can be repeated', async () => {
    const root = zone();
    const vfs = new Vfs(root, defaultPolicy());
    const s = await DbSession.open(vfs, 'd.db', '/');
    s.db.run('insert into t values(100)');
    // another writer replaces the file meanwhile
    execFileSync('sqlite3', [path.join(root, 'd.db'), 'insert into t values(200)']);
    expect(() => s.finish()).toThrow(/changed by another call/);
    expect(execFileSync('sqlite3', [path.join(root, 'd.db'), 'select group_concat(a) from t']).toString()).toBe('1,2,200\n');
    const again = await DbSession.open(vfs, 'd.db', '/');
    again.db.run('insert into t values(100)');
    again.finish();
    expect(execFileSync('sqlite3', [path.join(root, 'd.db'), 'select group_concat(a) from t']).toString()).toBe('1,2,200,100\n');
  });

  it('concurrent inserts through the pool: each one is written or refused, none is lost', async () => {
    const root = zone();
    const n = await open({ root, threads: 2 });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => n.exec({ command: `sqlite3 d.db 'insert into t values(${10 + i})'` })));
    const written = results.filter((r) => r.success && r.data.exit_code === 0).length;
    for (const r of results) if (!r.success) expect(r.error.code).toBe('BUSY');
    expect(written).toBeGreaterThan(0);
    const count = execFileSync('sqlite3', [path.join(root, 'd.db'), 'select count(*) from t']).toString();
    expect(Number(count)).toBe(2 + written);
  });

  it('the cache never serves a stale database: a file changed on disk is read again', async () => {
    const root = zone();
    const n = await open({ root });
    expect((await sh(n, "sqlite3 d.db 'select count(*) from t'")).stdout).toBe('2\n');
    execFileSync('sqlite3', [path.join(root, 'd.db'), 'insert into t values(3)']);
    expect((await sh(n, "sqlite3 d.db 'select count(*) from t'")).stdout).toBe('3\n');
    expect((await sh(n, "sqlite3 d.db 'insert into t values(4)' 'select count(*) from t'")).stdout).toBe('4\n');
    expect((await sh(n, "sqlite3 d.db 'select count(*) from t'")).stdout).toBe('4\n');
    // a failed call leaves nothing behind in the cached connection
    await sh(n, 'sqlite3 d.db', { stdin: 'begin;\ndelete from t;\n' });
    expect((await sh(n, "sqlite3 d.db 'select count(*) from t'")).stdout).toBe('4\n');
  });

  it('a new database file is created only when something is written, quota-checked', async () => {
    const root = zone();
    const n = await open({ root });
    await sh(n, "sqlite3 new.db 'select 1'");
    expect(fs.existsSync(path.join(root, 'new.db'))).toBe(false);
    await sh(n, "sqlite3 new.db 'create table x(a)'");
    expect(execFileSync('sqlite3', [path.join(root, 'new.db'), '.tables']).toString().trim()).toBe('x');
    const base = tempDir('nosh-sqlite-quota-');
    dirs.push(base);
    const q = await open({ base, quotas: { userMb: 0.01 } });
    const r = await sh(q, "sqlite3 q.db 'create table b(x)' 'insert into b select randomblob(1000) from (with recursive c(i) as (select 1 union all select i + 1 from c where i < 100) select i from c)'");
    expect([r.exit_code, r.stderr]).toEqual([1, 'sqlite3: /q.db: Disk quota exceeded\n']);
    expect(fs.existsSync(path.join(base, 'users', 'default', 'Storage', 'q.db'))).toBe(false);
  });
});
