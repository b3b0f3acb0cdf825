/**
 * Issue #20 part 3: locked edits through the library: every lock transition, FILE_LOCKED on
 * every other writer (tools and exec), reads allowed, racing opens, expiry and maintenance;
 * and the group tools (group_list, group_info, group_set_mode, group_chown).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let nosh: Nosh;
let base: string;
const A1 = { user: 'alice', conversation: 'c1' };
const A2 = { user: 'alice', conversation: 'c2' };
const BOB = { user: 'bob', conversation: 'cb' };
const Z = 'group:team';
type Env = { success: boolean; data?: any; error?: { code: string; message: string; hint: string; details: any } };
const call = (m: string, p: Record<string, unknown>) => nosh.call(m, p) as Promise<Env>;
const sh = (ctx: object, command: string, extra: Record<string, unknown> = {}) => nosh.call('exec', { zone: Z, context: ctx, command, ...extra }) as Promise<Env>;
const file = (p: string) => path.join(base, 'groups', 'team', p);
const code = (r: Env) => (r.success ? (r.data?.exit_code ?? 0) === 0 ? 'OK' : `exit ${r.data.exit_code}` : r.error!.code);

beforeAll(async () => {
  base = tempDir('nosh-lock-');
  nosh = await createNosh({ base, threads: 2, groups: { team: ['alice', 'bob'] }, lockMaxAgeHours: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});

async function fresh(name: string, content = 'one\ntwo\n'): Promise<void> {
  const w = await call('write', { zone: Z, context: A1, path: name, content });
  expect(w.success).toBe(true);
}

describe('lock transitions', () => {
  it('open -> exec -> overwrite -> save: written back in one commit, unlocked', async () => {
    await fresh('doc.md');
    const o = await call('lockedit_open', { zone: Z, context: A1, path: 'doc.md' });
    expect(o.success, JSON.stringify(o)).toBe(true);
    expect(o.data).toMatchObject({ path: '/doc.md', user: 'alice', conversation: 'c1', reopened: false });
    expect(Date.parse(o.data.expires_at) - Date.parse(o.data.taken_at)).toBe(3600_000);
    // the working copy is outside the zone's visible tree
    expect((await sh(A1, 'ls -a')).data.stdout).not.toContain('editzone');
    const e = await call('lockedit_exec', { zone: Z, context: A1, path: 'doc.md', command: 'sed -i s/one/ONE/ doc.md' });
    expect(code(e)).toBe('OK');
    const ls = await call('lockedit_exec', { zone: Z, context: A1, path: 'doc.md', command: 'ls -a' });
    expect(ls.data.stdout).toBe('.\n..\ndoc.md\n');
    expect(fs.readFileSync(file('doc.md'), 'utf8')).toBe('one\ntwo\n'); // not yet
    const again = await call('lockedit_open', { zone: Z, context: A1, path: 'doc.md' });
    expect(again.data).toMatchObject({ reopened: true, taken_at: o.data.taken_at });
    expect((await call('lockedit_exec', { zone: Z, context: A1, path: 'doc.md', command: 'cat doc.md' })).data.stdout).toBe('ONE\ntwo\n');
    const ow = await call('lockedit_overwrite', { zone: Z, context: A1, path: 'doc.md', content: 'ONE\nTWO\n' });
    expect(ow.success).toBe(true);
    const commits = ((await sh(A1, 'git log --oneline')).data.stdout.split('\n').filter(Boolean).length);
    const s = await call('lockedit_save', { zone: Z, context: A1, path: 'doc.md', message: 'edited under lock' });
    expect(s.success, JSON.stringify(s)).toBe(true);
    expect(fs.readFileSync(file('doc.md'), 'utf8')).toBe('ONE\nTWO\n');
    expect(((await sh(A1, 'git log --oneline')).data.stdout.split('\n').filter(Boolean).length)).toBe(commits + 1);
    expect((await sh(A1, 'git log -1 --format=%s')).data.stdout).toContain('edited under lock');
    // unlocked: bob writes again
    expect(code(await call('write', { zone: Z, context: BOB, path: 'doc.md', content: 'bob\n' }))).toBe('OK');
    expect(code(await call('lockedit_save', { zone: Z, context: A1, path: 'doc.md' }))).toBe('INVALID_ARGUMENT');
  });

  it('open -> cancel: the file is unchanged, the lock is gone', async () => {
    await fresh('c.md');
    await call('lockedit_open', { zone: Z, context: A1, path: 'c.md' });
    await call('lockedit_overwrite', { zone: Z, context: A1, path: 'c.md', content: 'x' });
    expect(code(await call('lockedit_cancel', { zone: Z, context: A1, path: 'c.md' }))).toBe('OK');
    expect(fs.readFileSync(file('c.md'), 'utf8')).toBe('one\ntwo\n');
    expect(code(await sh(BOB, 'rm c.md'))).toBe('OK');
  });

  it('while locked: every other writer (another user or conversation, tools and exec) gets FILE_LOCKED; reads are allowed', async () => {
    await fresh('l.md');
    await call('lockedit_open', { zone: Z, context: A1, path: 'l.md' });
    for (const who of [BOB, A2]) {
      const w = await call('write', { zone: Z, context: who, path: 'l.md', content: 'z' });
      expect(w.error?.code).toBe('FILE_LOCKED');
      expect(w.error?.details).toMatchObject({ holder: 'alice', conversation: 'c1' });
      expect(w.error?.details.since).toMatch(/^\d{4}-/);
      expect(w.error?.details.expires).toMatch(/^\d{4}-/);
      expect(code(await call('delete', { zone: Z, context: who, path: 'l.md' }))).toBe('FILE_LOCKED');
      expect(code(await call('move', { zone: Z, context: who, from: 'l.md', to: 'm.md' }))).toBe('FILE_LOCKED');
      for (const line of ['rm l.md', 'mv l.md m.md', 'touch l.md', 'sed -i s/one/x/ l.md', 'cp c2 l.md']) {
        if (line.startsWith('cp')) fs.writeFileSync(file('c2'), 'c\n');
        const r = await sh(who, line);
        expect(r.data.exit_code, line).not.toBe(0);
        expect(r.data.stderr, line).toMatch(/File locked/);
      }
      const tee = await sh(who, 'tee l.md', { stdin: 'z' });
      expect(tee.data.stderr).toContain('File locked (by alice since');
      expect(code(await call('lockedit_open', { zone: Z, context: who, path: 'l.md' }))).toBe('FILE_LOCKED');
      expect((await call('read', { zone: Z, context: who, path: 'l.md' })).success).toBe(true);
      expect((await sh(who, 'cat l.md')).data.stdout).toBe('one\ntwo\n');
    }
    expect(fs.readFileSync(file('l.md'), 'utf8')).toBe('one\ntwo\n');
    // the holder's own conversation may still write the file directly
    expect(code(await call('write', { zone: Z, context: A1, path: 'l.md', content: 'mine\n' }))).toBe('OK');
    await call('lockedit_cancel', { zone: Z, context: A1, path: 'l.md' });
  });

  it('force_unlock: refused to another member, allowed to the file owner, the holder and the admin role', async () => {
    await fresh('f.md');
    await call('lockedit_open', { zone: Z, context: BOB, path: 'f.md' });
    expect(code(await call('force_unlock', { zone: Z, context: { user: 'carol' }, path: 'f.md' }))).toBe('GROUP_ACCESS_DENIED');
    expect(code(await call('force_unlock', { zone: Z, context: A1, path: 'f.md' }))).toBe('OK'); // alice owns f.md
    await call('group_chown', { group: 'team', context: A1, path: 'f.md', owner: 'bob' });
    await call('lockedit_open', { zone: Z, context: BOB, path: 'f.md' });
    const r = await call('force_unlock', { zone: Z, context: A1, path: 'f.md' });
    expect(r.error?.code).toBe('PERMISSION_DENIED');
    expect(code(await call('force_unlock', { zone: Z, context: BOB, path: 'f.md' }))).toBe('OK');
    expect(code(await call('force_unlock', { zone: Z, context: BOB, path: 'f.md' }))).toBe('INVALID_ARGUMENT');
    // the admin role (a member who owns nothing here) may break any lock of a zone it may enter
    await call('lockedit_open', { zone: Z, context: BOB, path: 'f.md' });
    expect(code(await call('force_unlock', { zone: Z, context: { ...A1, role: 'developer' }, path: 'f.md' }))).toBe('PERMISSION_DENIED');
    expect(code(await call('force_unlock', { zone: Z, context: { ...A1, role: 'admin' }, path: 'f.md' }))).toBe('OK');
  });

  it('a folder, a missing file or the root cannot be locked', async () => {
    await sh(A1, 'mkdir -p dir');
    expect(code(await call('lockedit_open', { zone: Z, context: A1, path: 'dir' }))).toBe('IS_A_DIRECTORY');
    expect(code(await call('lockedit_open', { zone: Z, context: A1, path: 'nope.md' }))).toBe('FILE_NOT_FOUND');
    expect(code(await call('lockedit_open', { zone: Z, context: A1, path: '/' }))).toBe('IS_A_DIRECTORY');
  });

  it('two opens racing: exactly one wins', async () => {
    await fresh('race.md');
    const rs = await Promise.all([A1, A2, BOB, { user: 'bob', conversation: 'z' }].map((c) => call('lockedit_open', { zone: Z, context: c, path: 'race.md' })));
    expect(rs.filter((r) => r.success)).toHaveLength(1);
    expect(rs.filter((r) => !r.success).map((r) => r.error!.code)).toEqual(['FILE_LOCKED', 'FILE_LOCKED', 'FILE_LOCKED']);
    const winner = rs.find((r) => r.success)!.data;
    await call('force_unlock', { zone: Z, context: { user: winner.user, conversation: winner.conversation }, path: 'race.md' });
  });

  it('expiry: others may write and lock again; save after expiry is LOCK_EXPIRED with the working copy kept until maintenance', async () => {
    const b2 = tempDir('nosh-lock-exp-');
    const n2 = await createNosh({ base: b2, threads: 1, groups: { team: ['alice', 'bob'] }, lockMaxAgeHours: 1 / 3600 });
    try {
      const c2 = (m: string, p: Record<string, unknown>) => n2.call(m, p) as Promise<Env>;
      await c2('write', { zone: Z, context: A1, path: 'e.md', content: 'one\n' });
      expect(code(await c2('lockedit_open', { zone: Z, context: A1, path: 'e.md' }))).toBe('OK');
      await c2('lockedit_overwrite', { zone: Z, context: A1, path: 'e.md', content: 'late\n' });
      expect(code(await c2('write', { zone: Z, context: BOB, path: 'e.md', content: 'bob\n' }))).toBe('FILE_LOCKED');
      await new Promise((r) => setTimeout(r, 1100));
      const s = await c2('lockedit_save', { zone: Z, context: A1, path: 'e.md' });
      expect(s.error?.code).toBe('LOCK_EXPIRED');
      expect(s.error?.hint).toContain('maintenance');
      expect(fs.readFileSync(path.join(b2, 'groups', 'team', 'e.md'), 'utf8')).toBe('one\n');
      expect((await c2('lockedit_exec', { zone: Z, context: A1, path: 'e.md', command: 'cat e.md' })).error?.code).toBe('LOCK_EXPIRED');
      expect(code(await c2('write', { zone: Z, context: BOB, path: 'e.md', content: 'bob\n' }))).toBe('OK');
      const editzone = path.join(b2, 'editzone');
      const [dir] = fs.readdirSync(editzone);
      expect(fs.readFileSync(path.join(editzone, dir!, 'work', 'e.md'), 'utf8')).toBe('late\n'); // kept
      // a temp file of the database that a killed process left (its pid is not running)
      const left = path.join(b2, 'access_auth.sqlite.999999999.0badcafe.tmp');
      fs.writeFileSync(left, 'half a database');
      const m = await c2('maintenance', {});
      expect(m.data.expired_locks).toBe(1);
      expect(m.data.stale_temp_files).toBeGreaterThanOrEqual(1);
      expect(fs.existsSync(left)).toBe(false);
      expect(fs.readdirSync(editzone)).toEqual([]);
      expect(code(await c2('lockedit_save', { zone: Z, context: A1, path: 'e.md' }))).toBe('INVALID_ARGUMENT');
      // an expired lock is taken over by another holder
      expect(code(await c2('lockedit_open', { zone: Z, context: A1, path: 'e.md' }))).toBe('OK');
      await new Promise((r) => setTimeout(r, 1100));
      expect(code(await c2('lockedit_open', { zone: Z, context: BOB, path: 'e.md' }))).toBe('OK');
    } finally {
      await n2.close();
      fs.rmSync(b2, { recursive: true, force: true });
    }
  });

  it('a lock in a personal zone works the same (another conversation of the same user is refused)', async () => {
    await call('write', { context: A1, path: 'p.txt', content: 'p\n' });
    expect(code(await call('lockedit_open', { context: A1, path: 'p.txt' }))).toBe('OK');
    expect(code(await nosh.call('exec', { context: A2, command: 'rm p.txt' }) as Env)).toBe('exit 1');
    expect(code(await call('lockedit_save', { context: A1, path: 'p.txt' }))).toBe('OK');
    expect(code(await nosh.call('exec', { context: A2, command: 'rm p.txt' }) as Env)).toBe('OK');
  });
});

describe('group tools', () => {
  it('group_list, group_info, group_set_mode (owner only), group_chown (to a member only)', async () => {
    expect((await call('group_list', { context: BOB })).data.groups).toEqual([{ id: 'team', zone: 'group:team' }]);
    await call('write', { zone: Z, context: BOB, path: 'g.txt', content: 'g\n', group_mode: 'owner' });
    const info = await call('group_info', { group: 'team', context: A1 });
    expect(info.data.members).toEqual(['alice', 'bob']);
    expect(info.data.files_by_owner.bob).toContain('/g.txt');
    expect(info.data.files_by_mode.owner).toBeGreaterThan(0);
    expect(info.data.usage.files).toBeGreaterThan(0);
    expect(code(await call('group_info', { group: 'team', context: { user: 'carol' } }))).toBe('GROUP_ACCESS_DENIED');
    expect((await call('group_set_mode', { group: 'team', context: A1, path: 'g.txt', mode: 'group' })).error?.code).toBe('PERMISSION_DENIED');
    const s = await call('group_set_mode', { group: 'team', context: BOB, path: 'g.txt', mode: 'owner_ro' });
    expect(s.data).toMatchObject({ path: '/g.txt', owner: 'bob', mode: 'owner_ro' });
    expect(code(await call('write', { zone: Z, context: BOB, path: 'g.txt', content: 'no' }))).toBe('PERMISSION_DENIED');
    await call('group_set_mode', { group: 'team', context: BOB, path: 'g.txt', mode: 'owner' });
    expect(code(await call('group_chown', { group: 'team', context: BOB, path: 'g.txt', owner: 'mallory' }))).toBe('INVALID_ARGUMENT');
    expect(code(await call('group_chown', { group: 'team', context: A1, path: 'g.txt', owner: 'alice' }))).toBe('PERMISSION_DENIED');
    expect(code(await call('group_chown', { group: 'team', context: BOB, path: 'g.txt', owner: 'alice' }))).toBe('OK');
    expect(code(await call('write', { zone: Z, context: BOB, path: 'g.txt', content: 'no' }))).toBe('PERMISSION_DENIED');
    expect(code(await call('write', { zone: Z, context: A1, path: 'g.txt', content: 'yes' }))).toBe('OK');
    expect(code(await call('group_set_mode', { group: 'team', context: A1, path: 'none.txt', mode: 'group' }))).toBe('FILE_NOT_FOUND');
  });
});
