/**
 * sqlite3 and the sqlite tool are writers like any other: they ran outside the zone's write
 * order (the SQL decides whether they write), so their changes were neither checked against a
 * group's ownership rows (another member could change an owner-mode database) nor committed in
 * a versioned zone (the second change of a database was left uncommitted).
 */
import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let nosh: Nosh;
let base: string;
const ALICE = { user: 'alice', conversation: 'ca' };
const BOB = { user: 'bob', conversation: 'cb' };
type Env = { success: boolean; data?: any; error?: { code: string; details: any } };
const call = (m: string, p: Record<string, unknown>) => nosh.call(m, p) as Promise<Env>;

beforeAll(async () => {
  base = tempDir('nosh-sqlw-');
  nosh = await createNosh({ base, threads: 2, groups: { team: ['alice', 'bob'] } });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});

describe('sqlite writers', () => {
  it('cannot change another member\'s owner database, through exec or the tool, the first time or later', async () => {
    const Z = 'group:team';
    expect((await call('exec', { zone: Z, context: ALICE, command: 'sqlite3 a.db "create table t(a); insert into t values(1)"', group_mode: 'owner' })).data.exit_code).toBe(0);
    for (let i = 0; i < 2; i++) {
      const ex = await call('exec', { zone: Z, context: BOB, command: 'sqlite3 a.db "insert into t values(666)"' });
      expect(ex.data).toMatchObject({ exit_code: 1, stderr: 'sqlite3: /a.db: Permission denied (owned by alice, mode owner)\n' });
      const tool = await call('sqlite', { zone: Z, context: BOB, path: 'a.db', sql: 'insert into t values(777)' });
      expect(tool.error).toMatchObject({ code: 'PERMISSION_DENIED', details: { owner: 'alice', mode: 'owner' } });
    }
    expect((await call('sqlite', { zone: Z, context: ALICE, path: 'a.db', sql: 'select a from t' })).data.rows).toEqual([[1]]);
    // its owner still writes it
    expect((await call('sqlite', { zone: Z, context: ALICE, path: 'a.db', sql: 'insert into t values(2)' })).success).toBe(true);
  });

  it('each change of a database in a versioned zone is a commit', async () => {
    for (const v of [1, 2]) expect((await call('exec', { zone: 'documents', command: `sqlite3 d.db "create table if not exists t(a); insert into t values(${v})"` })).data.exit_code).toBe(0);
    expect((await call('sqlite', { zone: 'documents', path: 'd.db', sql: 'insert into t values(3)' })).success).toBe(true);
    const log = await call('exec', { zone: 'documents', command: 'git log --format=%s' });
    expect(log.data.stdout.split('\n').filter(Boolean)).toHaveLength(3);
    expect((await call('exec', { zone: 'documents', command: 'git status --short' })).data.stdout).toBe('');
  });
});
