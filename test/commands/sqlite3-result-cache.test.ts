// The result cache of read-only sqlite3 queries (limits.sqliteResultCacheMb,
// src/gnulib/sqlite/result-cache.ts): a repeated query on an unchanged file is answered from
// the cache (seen by its counters, not by timing); a write through nosh or by the host (in
// place, mtime kept by utimes) gives the new answer; volatile statements are never kept; the
// cache never crosses zones; temp tables of one call never reach the next.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeTask } from '../../src/exec/index.js';
import { defaultPolicy } from '../../src/vfs/index.js';
import { setMemoryBudget } from '../../src/runtime/memory.js';
import { cacheableSql, currentResultCache, resultCache } from '../../src/gnulib/sqlite/result-cache.js';
import { createNosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

setMemoryBudget(512);
const scratch = tempDir('nosh-sqlite-rcache-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A zone holding d.db (t: the cities), and a same-size other.db with other rows. */
function zone(name: string, rows = "('riga'),('oslo'),('riga')"): string {
  const root = path.join(scratch, name);
  fs.mkdirSync(root, { recursive: true });
  execFileSync('sqlite3', [path.join(root, 'd.db'), `create table t(city); insert into t values${rows}`]);
  execFileSync('sqlite3', [path.join(root, 'other.db'), "create table t(city); insert into t values('bern'),('bern'),('kyiv')"]);
  // Whole seconds, so utimes can set the same mtime again exactly.
  const t = Math.floor(Date.now() / 1000) - 60;
  fs.utimesSync(path.join(root, 'd.db'), t, t);
  return root;
}

async function sq(root: string, args: string[], opts: { stdin?: string; cacheBytes?: number; maxOutputBytes?: number } = {}): Promise<{ out: string; err: string; code: number }> {
  const res = await executeTask({
    root, policy: defaultPolicy(), cwd: '/', stages: [{ argv: ['sqlite3', ...args] }],
    ...(opts.stdin !== undefined ? { stdin: Buffer.from(opts.stdin) } : {}),
    limits: { maxOutputBytes: opts.maxOutputBytes ?? 1 << 20, maxResults: 1000, maxBufferBytes: 1 << 26, sqliteResultCacheBytes: opts.cacheBytes ?? 1 << 22 },
  });
  if (!res.ok) throw new Error(JSON.stringify(res.error));
  const r = res.result!;
  return { out: Buffer.from(r.stdout).toString(), err: Buffer.from(r.stderr).toString(), code: r.exitCode };
}

function real(root: string, args: string[]): string {
  return execFileSync('sqlite3', args.map((a, i) => (i === args.indexOf('d.db') ? path.join(root, a) : a))).toString();
}

const Q = 'select city, count(*) from t group by city order by city';
let A: string;
let B: string;
let C: string;
let D: string;

beforeAll(async () => {
  A = zone('a');
  B = zone('b');
  C = zone('c');
  D = zone('d', "('lima')");
  // Rows are kept only from files older than the racy window (2 s).
  await sleep(2200);
});

describe('sqlite3 result cache', () => {
  it('a second identical query is answered from the cache; other output modes render the kept rows as sqlite3 does', async () => {
    const c = resultCache(1 << 22)!;
    c.clear();
    const before = { hits: c.hits, stored: c.stored };
    expect((await sq(A, ['d.db', Q])).out).toBe('oslo|1\nriga|2\n');
    expect(c.stored).toBe(before.stored + 1);
    expect((await sq(A, ['d.db', Q])).out).toBe('oslo|1\nriga|2\n');
    expect(c.hits).toBe(before.hits + 1);
    for (const mode of ['-json', '-box', '-csv', '-line', '-html']) {
      expect((await sq(A, [mode, '-header', 'd.db', Q])).out).toBe(real(A, [mode, '-header', 'd.db', Q]));
    }
    expect(c.hits).toBe(before.hits + 6);
    // A statement returning no row prints nothing, from the cache too.
    const none = "select * from t where city = 'x'";
    expect((await sq(A, ['-header', 'd.db', none])).out).toBe('');
    expect((await sq(A, ['-header', 'd.db', none])).out).toBe('');
    expect(c.hits).toBe(before.hits + 7);
  });

  it('a write through nosh between two queries gives the new answer and drops the kept rows', async () => {
    const c = currentResultCache() ?? resultCache(1 << 22)!;
    expect((await sq(B, ['d.db', Q])).out).toBe('oslo|1\nriga|2\n');
    expect((await sq(B, ['d.db', Q])).out).toBe('oslo|1\nriga|2\n');
    const dropped = c.invalidated;
    expect((await sq(B, ['d.db', "insert into t values('oslo')"])).code).toBe(0);
    expect(c.invalidated).toBeGreaterThan(dropped);
    const racy = c.racy;
    expect((await sq(B, ['d.db', Q])).out).toBe('oslo|2\nriga|2\n');
    // The file was just written: its rows are not kept yet (racy timestamps).
    expect((await sq(B, ['d.db', Q])).out).toBe('oslo|2\nriga|2\n');
    expect(c.racy).toBe(racy);
  });

  it('a host rewrite in place with the same size and mtime (utimes) gives the new answer', async () => {
    const file = path.join(C, 'd.db');
    const other = fs.readFileSync(path.join(C, 'other.db'));
    expect(other.length).toBe(fs.statSync(file).size);
    expect((await sq(C, ['d.db', Q])).out).toBe('oslo|1\nriga|2\n');
    expect((await sq(C, ['d.db', Q])).out).toBe('oslo|1\nriga|2\n');
    const st = fs.statSync(file);
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, other, 0, other.length, 0);
    fs.closeSync(fd);
    fs.utimesSync(file, st.atime, st.mtime);
    const now = fs.statSync(file);
    expect([now.ino, now.size, now.mtimeMs]).toEqual([st.ino, st.size, st.mtimeMs]);
    expect((await sq(C, ['d.db', Q])).out).toBe('bern|2\nkyiv|1\n');
  });

  it('random(), the time functions and changes() are never kept', async () => {
    const c = currentResultCache() ?? resultCache(1 << 22)!;
    const stored = c.stored;
    const a = await sq(A, ['d.db', 'select random()']);
    const b = await sq(A, ['d.db', 'select random()']);
    expect(a.out).not.toBe(b.out);
    await sq(A, ['d.db', "select datetime('now'), count(*) from t"]);
    await sq(A, ['d.db', 'select changes(), last_insert_rowid(), current_timestamp']);
    await sq(A, ['d.db', 'select hex(randomblob(4)) from t']);
    expect(c.stored).toBe(stored);
    for (const sql of ["select date('now')", 'select julianday()', 'select unixepoch()', "select strftime('%s')", 'select total_changes()',
      'insert into t values(1)', "with x as (select 1) delete from t", 'pragma user_version', 'select ?1', 'select :a', 'select $v',
      'create temp table y(a)', 'select 1; select 2']) {
      expect(cacheableSql(sql)).toBe(false);
    }
    for (const sql of [Q, "select 'random()', count(*) from t", 'with x(a) as (select 1) select a from x', 'values (1),(2)', 'select "date" from t']) {
      expect(cacheableSql(sql)).toBe(true);
    }
  });

  it('the cache never crosses zones: the same path and query in two users\' roots', async () => {
    expect((await sq(A, ['d.db', 'select group_concat(city) from t'])).out).toBe('riga,oslo,riga\n');
    expect((await sq(D, ['d.db', 'select group_concat(city) from t'])).out).toBe('lima\n');
    expect((await sq(A, ['d.db', 'select group_concat(city) from t'])).out).toBe('riga,oslo,riga\n');
    expect((await sq(D, ['d.db', 'select group_concat(city) from t'])).out).toBe('lima\n');
  });

  it('temp tables of one call are not seen by the next (the cached connection is not kept)', async () => {
    expect((await sq(A, ['d.db', 'create temp table t(x)', 'select count(*) from t'])).out).toBe('0\n');
    expect((await sq(A, ['d.db', 'select count(*) from t'])).out).toBe('3\n');
    // A read after something else in the same call is run, not answered from the cache.
    expect((await sq(A, ['d.db', 'create temp table t(x)', 'select count(*) from t'])).out).toBe('0\n');
  });

  it('output stopped by the output cap is not kept; a cache of 0 is off', async () => {
    const c = currentResultCache() ?? resultCache(1 << 22)!;
    const big = 'with recursive n(i) as (select 1 union all select i + 1 from n where i < 50000) select i, city from n, t';
    const stored = c.stored;
    const first = await sq(A, ['d.db', big], { maxOutputBytes: 1000 });
    expect(c.stored).toBe(stored);
    expect((await sq(A, ['d.db', big], { maxOutputBytes: 1000 })).out).toBe(first.out);
    await sq(A, ['d.db', 'select count(*) + 1 from t'], { cacheBytes: 0 });
    expect(currentResultCache()).toBeNull();
  });

  it('through the library: host and nosh writes are seen', async () => {
    const root = zone('lib');
    await sleep(2200);
    const n = await createNosh({ root, threads: 1 });
    try {
      const run = async (sql: string) => {
        const r = await n.exec({ cmd: 'sqlite3', args: ['d.db', sql] });
        if (!r.success) throw new Error(r.error.message);
        return r.data.stdout;
      };
      expect(await run(Q)).toBe('oslo|1\nriga|2\n');
      expect(await run(Q)).toBe('oslo|1\nriga|2\n');
      await run("delete from t where city = 'oslo'");
      expect(await run(Q)).toBe('riga|2\n');
      const file = path.join(root, 'd.db');
      const st = fs.statSync(file);
      execFileSync('sqlite3', [file, "update t set city = 'rome'"]);
      fs.utimesSync(file, st.atime, st.mtime);
      expect(await run(Q)).toBe('rome|2\n');
    } finally {
      await n.close();
    }
  });
});
