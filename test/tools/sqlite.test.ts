// The sqlite and import_csv typed tools: bound parameters (no SQL built from values),
// max_rows/truncated, blobs, rows_affected, CSV import with quoted fields, refusals.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { listMethods } from '../../src/api/methods.js';
import { tempDir } from '../helpers.js';

const root = tempDir('nosh-sqlite-tool-');
let nosh: Nosh;
beforeAll(async () => {
  execFileSync('sqlite3', [path.join(root, 'd.db'), "create table t(id integer primary key, name text, b blob); insert into t(name, b) values('a', x'00ff'), ('b', null), ('c', null)"]);
  fs.writeFileSync(path.join(root, 'q.csv'), 'name,note\n"Smith, J","said ""hi"""\n"multi\nline",x\n');
  fs.writeFileSync(path.join(root, 'semi.csv'), '1;2\r\n3;4\r\n');
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function data(method: string, params: Record<string, unknown>): Promise<any> {
  const r = await nosh.call(method, params);
  if (!r.success) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.data;
}

describe('sqlite tool', () => {
  it('is in the one registry (model surface) with its schema', () => {
    const names = listMethods().map((m) => m.name);
    expect(names).toContain('sqlite');
    expect(names).toContain('import_csv');
  });

  it('returns columns, rows, rows_affected; blobs as base64; big integers as strings', async () => {
    const d = await data('sqlite', { path: 'd.db', sql: 'select id, name, b, 9007199254740993 as big, 1.5 as r from t order by id' });
    expect(d.columns).toEqual(['id', 'name', 'b', 'big', 'r']);
    expect(d.rows[0]).toEqual([1, 'a', { base64: 'AP8=' }, '9007199254740993', 1.5]);
    expect(d.rows_affected).toBe(0);
    expect(d.truncated).toBe(false);
  });

  it('binds params: a value is data, never SQL', async () => {
    const evil = "x'); drop table t; --";
    const ins = await data('sqlite', { path: 'd.db', sql: 'insert into t(name) values(?)', params: [evil] });
    expect(ins.rows_affected).toBe(1);
    const d = await data('sqlite', { path: 'd.db', sql: 'select name from t where name = ?1 and ?2', params: [evil, true] });
    expect(d.rows).toEqual([[evil]]);
    expect((await data('sqlite', { path: 'd.db', sql: 'select count(*) from t' })).rows).toEqual([[4]]);
    const two = await nosh.call('sqlite', { path: 'd.db', sql: 'select ?; select 2', params: [1] });
    expect(!two.success && two.error.code).toBe('INVALID_ARGUMENT');
  });

  it('max_rows cuts the rows and says truncated', async () => {
    const d = await data('sqlite', { path: 'd.db', sql: 'with recursive c(x) as (select 1 union all select x + 1 from c where x < 50) select x from c', max_rows: 10 });
    expect(d.rows.length).toBe(10);
    expect(d.truncated).toBe(true);
  });

  it('readonly refuses writes; SQL errors are SQLite\'s text with a hint; refusals by name', async () => {
    const ro = await nosh.call('sqlite', { path: 'd.db', sql: 'delete from t', readonly: true });
    expect(!ro.success && ro.error.code).toBe('ZONE_READONLY');
    const bad = await nosh.call('sqlite', { path: 'd.db', sql: 'select * from nosuch' });
    expect(!bad.success && bad.error.message).toBe('sqlite: no such table: nosuch');
    const ext = await nosh.call('sqlite', { path: 'd.db', sql: "select load_extension('x')" });
    expect(!ext.success && ext.error.code).toBe('COMMAND_FORBIDDEN');
    const esc = await nosh.call('sqlite', { path: '../d.db', sql: 'select 1' });
    expect(esc.success ? 'ok' : esc.error.code).not.toBe('INTERNAL_ERROR');
    expect(fs.existsSync(path.join(path.dirname(root), 'd.db'))).toBe(false);
  });
});

describe('import_csv tool', () => {
  it('creates the table from the header; quoted fields keep delimiters, quotes and newlines', async () => {
    const d = await data('import_csv', { path: 'i.db', table: 'people', csv_path: 'q.csv' });
    expect(d).toEqual({ table: 'people', columns: ['name', 'note'], rows_imported: 2, created: true });
    const rows = await data('sqlite', { path: 'i.db', sql: 'select name, note from people order by rowid' });
    expect(rows.rows).toEqual([['Smith, J', 'said "hi"'], ['multi\nline', 'x']]);
    expect(execFileSync('sqlite3', [path.join(root, 'i.db'), 'select count(*) from people']).toString()).toBe('2\n');
  });

  it('header false and another delimiter; appends to an existing table', async () => {
    const d = await data('import_csv', { path: 'i.db', table: 'n', csv_path: 'semi.csv', header: false, delimiter: ';' });
    expect(d).toEqual({ table: 'n', columns: ['c1', 'c2'], rows_imported: 2, created: true });
    const again = await data('import_csv', { path: 'i.db', table: 'n', csv_path: 'semi.csv', header: false, delimiter: ';' });
    expect(again.created).toBe(false);
    expect((await data('sqlite', { path: 'i.db', sql: 'select count(*), sum(c1 + c2) from n' })).rows).toEqual([[4, 20]]);
  });
});
