import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { usePostgres } from './pg.js';
import { Serve } from './serve-client.js';

// Two `nosh serve` processes on one base (the compiled CLI: run `npx tsc` first), once with the
// embedded store and once with PostgreSQL: one zone's write order, one quota and the locked edits
// across both.
const pg = usePostgres();

let servers: Serve[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function twoServers(kind: string, extra: Record<string, unknown> = {}): Promise<{ base: string; a: Serve; b: Serve }> {
  const base = tempDir();
  const cfg = { base, ...extra, ...(kind === 'postgres' ? { metadata: { url: await pg().freshDb() } } : {}) };
  const file = path.join(tempDir(), 'nosh.json');
  fs.writeFileSync(file, JSON.stringify(cfg));
  // request contexts trusted: the lock test speaks for several users (and an admin) through each
  const a = new Serve(['--config', file, '--trust-request-context']);
  const b = new Serve(['--config', file, '--trust-request-context']);
  servers.push(a, b);
  // both up (their stores open, the schema migrated) before the race
  for (const s of [a, b]) expect((await s.call('exec', { command: 'true' })).success).toBe(true);
  return { base, a, b };
}

describe.each(['embedded', 'postgres'])('two nosh serve processes on one base, %s store', (kind) => {
  it('1000 concurrent appends to one file, 500 through each (write append and exec tee -a), keep all 1000 lines', async () => {
    const { a, b } = await twoServers(kind);
    const calls: Promise<any>[] = [];
    for (let i = 0; i < 500; i++) {
      calls.push(a.call('write', { path: 'log.txt', content: `a-${i}\n`, mode: 'append' }));
      calls.push(b.call('exec', { command: 'tee -a log.txt', stdin: `b-${i}\n` }));
    }
    const envs = await Promise.all(calls);
    expect(envs.filter((e) => !e.success)).toEqual([]);
    const body = (await a.call('exec', { command: 'cat log.txt' })).data.stdout;
    const lines = body.split('\n').filter((l: string) => l !== '');
    expect(lines).toHaveLength(1000);
    expect(new Set(lines).size).toBe(1000);
    // each process's appends in the order it answered them
    const as = lines.filter((l: string) => l.startsWith('a-')).map((l: string) => Number(l.slice(2)));
    expect(as).toHaveLength(500);
  }, 600_000);

  it('together they never pass the user quota', async () => {
    const { base, a, b } = await twoServers(kind, { quotas: { userMb: 1 } });
    const chunk = 'x'.repeat(100 * 1024);
    const calls: Promise<any>[] = [];
    for (let i = 0; i < 12; i++) {
      calls.push(a.call('write', { path: `a${i}.bin`, content: chunk }));
      calls.push(b.call('write', { path: `b${i}.bin`, content: chunk }));
    }
    const envs = await Promise.all(calls);
    const ok = envs.filter((e) => e.success).length;
    const refused = envs.filter((e) => !e.success);
    for (const e of refused) expect(e.error.code).toBe('QUOTA_EXCEEDED');
    expect(refused.length).toBeGreaterThan(0);
    // what is on disk, as a rescan counts it, is within the quota
    let bytes = 0;
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) bytes += fs.statSync(p).blocks * 512;
      }
    };
    walk(path.join(base, 'users'));
    expect(ok).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
    // and both processes now see the other's usage
    const ua = (await a.call('stats', {})).data.quotas['user:default'];
    const ub = (await b.call('stats', {})).data.quotas['user:default'];
    expect(ua.used).toBeLessThanOrEqual(1024 * 1024);
    expect(Math.abs(ua.used - ub.used)).toBeLessThanOrEqual(8192);
  }, 300_000);

  it('a lock taken in one is seen by the other: write, sed -i and lockedit_open through B are FILE_LOCKED; save through A frees it; an admin\'s force_unlock through B is seen by A', async () => {
    const { base, a, b } = await twoServers(kind, { groups: { team: ['alice', 'bob', 'carol'] } });
    const Z = 'group:team';
    const ALICE = { user: 'alice', conversation: 'ca' };
    const BOB = { user: 'bob', conversation: 'cb' };
    const ADMIN = { user: 'carol', conversation: 'cc', role: 'admin' };
    const onDisk = () => fs.readFileSync(path.join(base, 'groups', 'team', 'doc.md'), 'utf8');
    expect((await a.call('write', { zone: Z, context: ALICE, path: 'doc.md', content: 'one\n' })).success).toBe(true);
    const open = await a.call('lockedit_open', { zone: Z, context: ALICE, path: 'doc.md' });
    expect(open.success, JSON.stringify(open)).toBe(true);

    // server B sees A's lock on every write path, and in the answer names its holder
    const w = await b.call('write', { zone: Z, context: BOB, path: 'doc.md', content: 'bob\n' });
    expect(w.error).toMatchObject({ code: 'FILE_LOCKED', details: { holder: 'alice', conversation: 'ca' } });
    const sed = await b.call('exec', { zone: Z, context: BOB, command: 'sed -i s/one/BOB/ doc.md' });
    expect(sed.data.exit_code).not.toBe(0);
    expect(sed.data.stderr).toContain('File locked (by alice since');
    const o2 = await b.call('lockedit_open', { zone: Z, context: BOB, path: 'doc.md' });
    expect(o2.error).toMatchObject({ code: 'FILE_LOCKED', details: { holder: 'alice' } });
    // reads stay allowed, and nothing B tried reached the file
    expect((await b.call('read', { zone: Z, context: BOB, path: 'doc.md' })).data.content).toBe('one\n');

    // A saves its edit: written back and unlocked, which B sees
    expect((await a.call('lockedit_overwrite', { zone: Z, context: ALICE, path: 'doc.md', content: 'ALICE\n' })).success).toBe(true);
    const save = await a.call('lockedit_save', { zone: Z, context: ALICE, path: 'doc.md' });
    expect(save.success, JSON.stringify(save)).toBe(true);
    expect(onDisk()).toBe('ALICE\n');
    const wb = await b.call('write', { zone: Z, context: BOB, path: 'doc.md', content: 'bob\n' });
    expect(wb.success, JSON.stringify(wb)).toBe(true);
    expect(onDisk()).toBe('bob\n');

    // A locks it again; an admin breaks the lock through B; A sees it broken
    expect((await a.call('lockedit_open', { zone: Z, context: ALICE, path: 'doc.md' })).success).toBe(true);
    expect((await b.call('write', { zone: Z, context: BOB, path: 'doc.md', content: 'x\n' })).error.code).toBe('FILE_LOCKED');
    const fu = await b.call('force_unlock', { zone: Z, context: ADMIN, path: 'doc.md' });
    expect(fu.success, JSON.stringify(fu)).toBe(true);
    const late = await a.call('lockedit_save', { zone: Z, context: ALICE, path: 'doc.md' });
    expect(late.success).toBe(false);
    expect(late.error.code).toBe('INVALID_ARGUMENT');
    expect(onDisk()).toBe('bob\n');
    const wa = await a.call('exec', { zone: Z, context: BOB, command: 'sed -i s/bob/BOB/ doc.md' });
    expect(wa.data.exit_code, wa.data.stderr).toBe(0);
    expect(onDisk()).toBe('BOB\n');
  }, 120_000);
});
