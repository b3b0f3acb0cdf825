/**
 * Issue 4: uploads (read-only, delete allowed, filled by import), bridges, groups, share,
 * session TTL, read-only roles; group membership from the config and from a provider.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let nosh: Nosh;
let base: string;
const ALICE = { user: 'alice', conversation: 'c1' };
const BOB = { user: 'bob', conversation: 'c1' };

function code(r: { success: boolean; error?: { code: string } }): string {
  return r.success ? 'OK' : r.error!.code;
}

beforeAll(async () => {
  base = tempDir('nosh-zones-');
  nosh = await createNosh({ base, threads: 2, groups: { team: ['alice'] }, sessionTtlSeconds: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});

describe('uploads', () => {
  it('import puts a file into uploads of the conversation (text or base64)', async () => {
    const r = await nosh.call('import', { context: ALICE, name: 'report.txt', content: 'line one\n' });
    expect(r).toMatchObject({ success: true, data: { name: 'report.txt', bytes: 9 } });
    const b = await nosh.call('import', { context: ALICE, name: 'bytes.bin', content_base64: Buffer.from([0, 1, 2, 255]).toString('base64') });
    expect(b.success).toBe(true);
    expect(fs.readFileSync(path.join(base, 'users', 'alice', 'Uploads', 'c1', 'report.txt'), 'utf8')).toBe('line one\n');
    expect([...fs.readFileSync(path.join(base, 'users', 'alice', 'Uploads', 'c1', 'bytes.bin'))]).toEqual([0, 1, 2, 255]);
    const ls = await nosh.exec({ zone: 'uploads', context: ALICE, command: 'ls' });
    expect(ls.success && ls.data.stdout).toBe('bytes.bin\nreport.txt\n');
  });

  it('uploads are per conversation and per user', async () => {
    const other = await nosh.exec({ zone: 'uploads', context: { user: 'alice', conversation: 'c2' }, command: 'ls -A' });
    expect(other.success && other.data.stdout).toBe('');
    const bob = await nosh.exec({ zone: 'uploads', context: BOB, command: 'cat report.txt' });
    expect(bob.success && bob.data.exit_code).toBe(1);
    const none = await nosh.exec({ zone: 'uploads', context: { user: 'alice' }, command: 'ls' });
    expect(code(none)).toBe('MISSING_PARAMETER');
  });

  it('import validates names: one component, no NUL, not . or ..', async () => {
    for (const name of ['a/b', '..', '.', '', 'a\0b', '../x', '/etc/passwd', 'x'.repeat(256)]) {
      const r = await nosh.call('import', { context: ALICE, name, content: 'x' });
      expect(code(r), JSON.stringify(name)).toBe('INVALID_ARGUMENT');
    }
    const both = await nosh.call('import', { context: ALICE, name: 'x', content: 'x', content_base64: 'eA==' });
    expect(code(both)).toBe('MISSING_PARAMETER');
    expect(fs.readdirSync(path.join(base, 'users', 'alice', 'Uploads', 'c1')).sort()).toEqual(['bytes.bin', 'report.txt']);
    expect(fs.existsSync(path.join(base, 'users', 'alice', 'Uploads', 'a'))).toBe(false);
  });

  for (const cmd of ['touch new.txt', 'cp report.txt copy.txt', 'mkdir d', 'sed -i s/one/two/ report.txt', 'mv report.txt r.txt', 'touch report.txt']) {
    it(`uploads refuse writes: ${cmd}`, async () => {
      const r = await nosh.exec({ zone: 'uploads', context: ALICE, command: cmd });
      expect(r.success).toBe(false);
      if (!r.success) {
        expect(r.error.code).toBe('ZONE_READONLY');
        expect(r.error.hint).not.toBe('');
      }
      expect(fs.readdirSync(path.join(base, 'users', 'alice', 'Uploads', 'c1')).sort()).toEqual(['bytes.bin', 'report.txt']);
      expect(fs.readFileSync(path.join(base, 'users', 'alice', 'Uploads', 'c1', 'report.txt'), 'utf8')).toBe('line one\n');
    });
  }

  it('uploads refuse the write tools', async () => {
    for (const [m, p] of [['write', { path: 'w.txt', content: 'x' }], ['mkdir', { path: 'd' }], ['edit', { path: 'report.txt', edits: [{ old_text: 'one', new_text: 'two' }] }]] as const) {
      const r = await nosh.call(m, { zone: 'uploads', context: ALICE, ...p });
      expect(code(r), m).toBe('ZONE_READONLY');
    }
  });

  it('uploads allow rm', async () => {
    await nosh.call('import', { context: ALICE, name: 'junk.txt', content: 'junk' });
    const r = await nosh.exec({ zone: 'uploads', context: ALICE, command: 'rm junk.txt' });
    expect(r.success && r.data.exit_code).toBe(0);
    expect(fs.existsSync(path.join(base, 'users', 'alice', 'Uploads', 'c1', 'junk.txt'))).toBe(false);
    await nosh.call('import', { context: ALICE, name: 'junk2.txt', content: 'junk' });
    const d = await nosh.call('delete', { zone: 'uploads', context: ALICE, path: 'junk2.txt' });
    expect(code(d)).toBe('OK');
    expect(fs.existsSync(path.join(base, 'users', 'alice', 'Uploads', 'c1', 'junk2.txt'))).toBe(false);
  });

  it('transfer uploads -> storage moves the file', async () => {
    const r = await nosh.call('transfer', { context: ALICE, from: 'uploads', to: 'storage', path: 'report.txt' });
    expect(r).toMatchObject({ success: true, data: { to: '/report.txt', files: 1, bytes: 9, moved: true } });
    expect(fs.existsSync(path.join(base, 'users', 'alice', 'Uploads', 'c1', 'report.txt'))).toBe(false);
    const cat = await nosh.exec({ context: ALICE, command: 'cat report.txt' });
    expect(cat.success && cat.data.stdout).toBe('line one\n');
  });

  it('transfer refuses pairs that are not bridges', async () => {
    for (const [from, to] of [['storage', 'uploads'], ['share', 'storage'], ['storage', 'storage'], ['group:team', 'storage'], ['storage', 'session:s9']]) {
      const r = await nosh.call('transfer', { context: ALICE, from, to, path: 'report.txt' });
      expect(code(r), `${from}->${to}`).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('groups', () => {
  it('a member works in group:team', async () => {
    const r = await nosh.exec({ zone: 'group:team', context: ALICE, command: 'touch plan.md' });
    expect(r.success && r.data.exit_code).toBe(0);
    expect(fs.existsSync(path.join(base, 'groups', 'team', 'plan.md'))).toBe(true);
  });

  it('a group named like an Object member is a group like any other', async () => {
    for (const g of ['__proto__', 'constructor', 'toString']) {
      expect(code(await nosh.call('exists', { zone: `group:${g}`, context: ALICE, path: 'x' }))).toBe('GROUP_ACCESS_DENIED');
    }
  });

  it('an unknown zone name is echoed cut', async () => {
    const r = await nosh.call('exists', { zone: 'x'.repeat(1_000_000), path: 'x' });
    expect(code(r)).toBe('INVALID_ZONE');
    expect(JSON.stringify(r).length).toBeLessThan(2000);
  });

  it('a non-member gets GROUP_ACCESS_DENIED on every door', async () => {
    const ls = await nosh.exec({ zone: 'group:team', context: BOB, command: 'ls' });
    expect(code(ls)).toBe('GROUP_ACCESS_DENIED');
    const read = await nosh.call('read', { zone: 'group:team', context: BOB, path: 'plan.md' });
    expect(code(read)).toBe('GROUP_ACCESS_DENIED');
    const t = await nosh.call('transfer', { context: BOB, from: 'storage', to: 'group:team', path: 'README.txt' });
    expect(code(t)).toBe('GROUP_ACCESS_DENIED');
    const unknown = await nosh.exec({ zone: 'group:nobody', context: ALICE, command: 'ls' });
    expect(code(unknown)).toBe('GROUP_ACCESS_DENIED');
    expect(fs.existsSync(path.join(base, 'groups', 'nobody'))).toBe(false);
  });

  it('transfer storage -> group copies for a member', async () => {
    const r = await nosh.call('transfer', { context: ALICE, from: 'storage', to: 'group:team', path: 'report.txt', mode: 'owner_ro' });
    expect(r).toMatchObject({ success: true, data: { moved: false, files: 1 } });
    expect(fs.readFileSync(path.join(base, 'groups', 'team', 'report.txt'), 'utf8')).toBe('line one\n');
    expect(fs.existsSync(path.join(base, 'users', 'alice', 'Storage', 'report.txt'))).toBe(true);
  });

  it('membership can come from a provider function instead of the config', async () => {
    const b2 = tempDir('nosh-zones-');
    const asked: string[] = [];
    const n2 = await createNosh({ base: b2, threads: 1 }, {
      groupProvider: async (user) => {
        asked.push(user);
        return user === 'alice' ? ['team'] : [];
      },
    });
    try {
      const a = await n2.exec({ zone: 'group:team', context: { user: 'alice' }, command: 'touch x' });
      expect(a.success && a.data.exit_code).toBe(0);
      const b = await n2.exec({ zone: 'group:team', context: { user: 'bob' }, command: 'ls' });
      expect(code(b)).toBe('GROUP_ACCESS_DENIED');
      expect(asked).toEqual(['alice', 'bob']);
    } finally {
      await n2.close();
      fs.rmSync(b2, { recursive: true, force: true });
    }
  });
});

describe('share', () => {
  it('alice copies to share, bob reads it; bob writes there, alice reads it', async () => {
    const t = await nosh.call('transfer', { context: ALICE, from: 'storage', to: 'share', path: 'report.txt' });
    expect(t.success).toBe(true);
    const bobRead = await nosh.exec({ zone: 'share', context: BOB, command: 'cat report.txt' });
    expect(bobRead.success && bobRead.data.stdout).toBe('line one\n');
    const w = await nosh.call('write', { zone: 'share', context: BOB, path: 'from-bob.txt', content: 'hi alice\n' });
    expect(w.success).toBe(true);
    const aliceRead = await nosh.exec({ zone: 'share', context: ALICE, command: 'grep -r alice .' });
    expect(aliceRead.success && aliceRead.data.stdout).toBe('./from-bob.txt:hi alice\n');
  });
});

describe('session zones', () => {
  it('a session zone is created on first use and removed by maintenance after its TTL', async () => {
    const ctx = { user: 'alice', session: 's1' };
    const w = await nosh.exec({ zone: 'session:s1', context: ctx, command: 'touch scratch.txt' });
    expect(w.success && w.data.exit_code).toBe(0);
    const viaContext = await nosh.exec({ zone: 'session', context: ctx, command: 'ls' });
    expect(viaContext.success && viaContext.data.stdout).toBe('scratch.txt\n');
    const dir = path.join(base, 'sessions', 's1');
    expect(fs.existsSync(path.join(dir, 'scratch.txt'))).toBe(true);

    // Fresh: maintenance keeps it.
    const m1 = await nosh.call('maintenance', {});
    expect(m1.success && (m1.data as { expired_sessions: string[] }).expired_sessions).toEqual([]);
    expect(fs.existsSync(dir)).toBe(true);

    const past = Date.now() / 1000 - 120;
    fs.utimesSync(dir, past, past);
    const m2 = await nosh.call('maintenance', {});
    expect(m2.success && (m2.data as { expired_sessions: string[] }).expired_sessions).toEqual(['s1']);
    expect(fs.existsSync(dir)).toBe(false);

    // A later use starts an empty session.
    const again = await nosh.exec({ zone: 'session:s1', context: ctx, command: 'ls -A' });
    expect(again.success && again.data.stdout).toBe('');
  });

  it('another user naming the session id is refused', async () => {
    const r = await nosh.exec({ zone: 'session:s1', context: { user: 'bob' }, command: 'ls' });
    expect(code(r)).toBe('PERMISSION_DENIED');
    const r2 = await nosh.exec({ zone: 'session', context: { user: 'bob', session: 's1' }, command: 'ls' });
    expect(code(r2)).toBe('PERMISSION_DENIED');
  });

  it('maintenance removes stale temporary files, not fresh ones', async () => {
    const dir = path.join(base, 'users', 'alice', 'Storage');
    const stale = path.join(dir, '.nosh-tmp-deadbeef0001');
    const fresh = path.join(dir, '.nosh-tmp-deadbeef0002');
    fs.writeFileSync(stale, 'x');
    fs.writeFileSync(fresh, 'x');
    const past = Date.now() / 1000 - 7200;
    fs.utimesSync(stale, past, past);
    const m = await nosh.call('maintenance', {});
    expect(m.success && (m.data as { stale_temp_files: number }).stale_temp_files).toBe(1);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
    fs.unlinkSync(fresh);
  });
});

describe('read-only roles', () => {
  const zones = ['storage', 'documents', 'output', 'share', 'group:team', 'session:s7'];
  for (const role of ['critic', 'generalist'] as const) {
    it(`${role}: exec writes are ZONE_READONLY in every zone`, async () => {
      const ctx = { user: 'alice', conversation: 'c1', session: 's7', role };
      for (const zone of zones) {
        for (const cmd of ['touch x.txt', 'mkdir d', 'cp README.txt y.txt', 'rm README.txt', 'sed -i s/a/b/ README.txt', 'mv README.txt z']) {
          const r = await nosh.exec({ zone, context: ctx, command: cmd });
          expect(code(r), `${zone}: ${cmd}`).toBe('ZONE_READONLY');
        }
      }
      const up = await nosh.exec({ zone: 'uploads', context: ctx, command: 'rm bytes.bin' });
      expect(code(up)).toBe('ZONE_READONLY');
      expect(fs.existsSync(path.join(base, 'users', 'alice', 'Uploads', 'c1', 'bytes.bin'))).toBe(true);
      expect(fs.existsSync(path.join(base, 'users', 'alice', 'Storage', 'x.txt'))).toBe(false);
    });

    it(`${role}: write tools, transfer and import are refused; reading works`, async () => {
      const ctx = { user: 'alice', conversation: 'c1', role };
      for (const zone of ['storage', 'share', 'group:team']) {
        for (const [m, p] of [
          ['write', { path: 'w.txt', content: 'x' }], ['mkdir', { path: 'd' }], ['delete', { path: 'README.txt' }],
          ['edit', { path: 'README.txt', edits: [{ old_text: 'nosh', new_text: 'x' }] }], ['copy', { from: 'README.txt', to: 'c.txt' }],
          ['move', { from: 'README.txt', to: 'm.txt' }],
        ] as const) {
          const r = await nosh.call(m, { zone, context: ctx, ...p });
          expect(code(r), `${zone} ${m}`).toBe('ZONE_READONLY');
        }
      }
      const t = await nosh.call('transfer', { context: ctx, from: 'storage', to: 'share', path: 'README.txt' });
      expect(code(t)).toBe('ZONE_READONLY');
      const mv = await nosh.call('transfer', { context: ctx, from: 'uploads', to: 'storage', path: 'bytes.bin' });
      expect(code(mv)).toBe('ZONE_READONLY');
      const imp = await nosh.call('import', { context: ctx, name: 'q.txt', content: 'x' });
      expect(code(imp)).toBe('ZONE_READONLY');
      expect(fs.existsSync(path.join(base, 'users', 'alice', 'Uploads', 'c1', 'q.txt'))).toBe(false);
      const cat = await nosh.exec({ context: ctx, command: 'cat README.txt' });
      expect(cat.success && cat.data.exit_code).toBe(0);
    });

    it(`${role}: methods() lists no mutating tool`, () => {
      const ms = nosh.methods(role);
      const names = ms.map((m) => m.name);
      for (const m of ms) if (m.name !== 'exec') expect(m.annotations.readOnlyHint, m.name).toBe(true);
      for (const w of ['write', 'edit', 'delete', 'move', 'rename', 'copy', 'mkdir', 'import', 'transfer', 'maintenance']) expect(names).not.toContain(w);
      expect(names).toContain('read');
      expect(nosh.methods('developer').map((m) => m.name)).toContain('write');
    });
  }

  it('allowed_commands for a critic lists no mutating command', async () => {
    const r = await nosh.call('allowed_commands', { context: { user: 'alice', role: 'critic' } });
    const names = r.success ? (r.data as { commands: { name: string }[] }).commands.map((c) => c.name) : [];
    expect(names).toContain('cat');
    for (const w of ['touch', 'cp', 'mv', 'rm', 'mkdir']) expect(names).not.toContain(w);
  });

  it('an unknown role is refused', async () => {
    const r = await nosh.exec({ context: { user: 'alice', role: 'root' as never }, command: 'ls' });
    expect(code(r)).toBe('INVALID_ARGUMENT');
  });
});

describe('introspection', () => {
  it('parameters and help name no host path', async () => {
    for (const m of ['parameters', 'help']) {
      const r = await nosh.call(m, {});
      expect(r.success).toBe(true);
      expect(JSON.stringify(r)).not.toContain(base);
    }
  });

  it('stats reports usage per zone and quota', async () => {
    const r = await nosh.call('stats', { context: { user: 'alice', conversation: 'c1', groups: ['team'] } });
    expect(r.success).toBe(true);
    const d = r.data as { zones: Record<string, { files: number; bytes: number; versions_bytes?: number }>; quotas: Record<string, { used: number; limit: number; versions_bytes: number }> };
    expect(Object.keys(d.zones).sort()).toEqual(['documents', 'group:team', 'share', 'storage', 'uploads']);
    expect(d.quotas['user:alice']!.limit).toBe(1000 * 1024 * 1024);
    // the group's files and its git history (a versioned zone)
    expect(d.quotas['group:team']!.used).toBe(d.zones['group:team']!.bytes + d.zones['group:team']!.versions_bytes!);
    expect(d.quotas['group:team']!.versions_bytes).toBe(d.zones['group:team']!.versions_bytes);
    expect(JSON.stringify(r)).not.toContain(base);
  });
});
