import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindIdentity, createNosh, startSessionSweep, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let base: string;
let nosh: Nosh;
const as = (user: string, session?: string, role?: string) => ({ user, ...(session ? { session } : {}), ...(role ? { role } : {}) });
const call = (m: string, p: Record<string, unknown>) => nosh.call(m, p) as Promise<any>;

beforeAll(async () => {
  base = tempDir('nosh-sessions-');
  nosh = await createNosh({ base, threads: 1, sessionTtlSeconds: 3600, sessionSweepSeconds: 0 });
  await call('write', { zone: 'session:a1', path: 'x.txt', content: 'hello', context: as('alice') });
  await call('write', { zone: 'session:a2', path: 'y.txt', content: 'hi', context: as('alice') });
  await call('write', { zone: 'session:b1', path: 'z.txt', content: 'bob', context: as('bob') });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});

describe('list_workspaces / delete_workspace', () => {
  it('lists only the caller\'s own sessions, with size and expiry', async () => {
    const r = await call('list_workspaces', { context: as('alice', 'a2') });
    expect(r.success).toBe(true);
    expect(r.data.workspaces.map((w: any) => w.id)).toEqual(['a1', 'a2']);
    const a1 = r.data.workspaces[0];
    expect(a1).toMatchObject({ zone: 'session:a1', files: 1 });
    expect(a1.bytes).toBeGreaterThan(0);
    expect(a1.owner).toBeUndefined();
    expect(Date.parse(a1.expires_at) - Date.parse(a1.last_used)).toBe(3600 * 1000);
    expect(r.data.workspaces[1].current).toBe(true);
    const b = await call('list_workspaces', { context: as('bob') });
    expect(b.data.workspaces.map((w: any) => w.id)).toEqual(['b1']);
  });

  it('the admin role sees every session with its owner', async () => {
    const r = await call('list_workspaces', { context: as('root', undefined, 'admin') });
    expect(r.data.workspaces.map((w: any) => [w.id, w.owner])).toEqual([['a1', 'alice'], ['a2', 'alice'], ['b1', 'bob']]);
  });

  it('deletes one\'s own session; another user\'s is not found; a read-only role may not', async () => {
    const other = await call('delete_workspace', { session: 'b1', context: as('alice') });
    expect(other.error.code).toBe('FILE_NOT_FOUND');
    expect(fs.existsSync(path.join(base, 'sessions', 'b1', 'z.txt'))).toBe(true);
    const ro = await call('delete_workspace', { session: 'a1', context: as('alice', undefined, 'critic') });
    expect(ro.error.code).toBe('ZONE_READONLY');
    const bad = await call('delete_workspace', { session: '../users', context: as('alice') });
    expect(bad.error.code).toBe('INVALID_ID');
    const ok = await call('delete_workspace', { session: 'a1', context: as('alice') });
    expect(ok.data).toMatchObject({ deleted: 'session:a1', files: 1 });
    expect(fs.existsSync(path.join(base, 'sessions', 'a1'))).toBe(false);
    expect((await call('list_workspaces', { context: as('alice') })).data.workspaces.map((w: any) => w.id)).toEqual(['a2']);
    // the id is free again: a new user may claim it
    expect((await call('write', { zone: 'session:a1', path: 'n.txt', content: 'n', context: as('bob') })).success).toBe(true);
    const admin = await call('delete_workspace', { session: 'a1', context: as('root', undefined, 'admin') });
    expect(admin.success).toBe(true);
  });

  it('a bound identity cannot ask for the admin role', async () => {
    const bound = bindIdentity(nosh, { context: { user: 'alice' }, surface: 'model' });
    const r = await bound.call('list_workspaces', { context: { role: 'admin' } }) as any;
    expect(r.error.code).toBe('PERMISSION_DENIED');
    const own = await bound.call('list_workspaces', {}) as any;
    expect(own.data.workspaces.map((w: any) => w.id)).toEqual(['a2']);
  });
});

describe('the TTL sweep on a timer', () => {
  it('removes expired sessions every interval, without a maintenance call', async () => {
    const b2 = tempDir('nosh-sweep-');
    const n = await createNosh({ base: b2, threads: 1, sessionTtlSeconds: 1 });
    try {
      await n.call('write', { zone: 'session:old', path: 'f', content: 'x', context: { user: 'u' } });
      const dir = path.join(b2, 'sessions', 'old');
      const past = Date.now() / 1000 - 10;
      fs.utimesSync(dir, past, past);
      const sweep = startSessionSweep(n, 0.2);
      const deadline = Date.now() + 20_000;
      while (fs.existsSync(dir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      await sweep.stop();
      expect(fs.existsSync(dir)).toBe(false);
      expect(fs.existsSync(path.join(b2, 'session-owners', 'old'))).toBe(false);
      const none = startSessionSweep(n, 0);
      const once = await none.sweepNow() as any;
      expect(once.data.expired_sessions).toEqual([]);
      await none.stop();
    } finally {
      await n.close();
      fs.rmSync(b2, { recursive: true, force: true });
    }
  });
});
