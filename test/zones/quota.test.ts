/**
 * Issue 4 quotas: a write over quota is refused whole (no partial file, no temp file);
 * concurrent writers never pass the limit; a rescan agrees with the ledger and with the disk.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createNosh, type Nosh, type NoshConfig } from '../../src/index.js';
import { Engine } from '../../src/api/engine.js';
import { parseConfig } from '../../src/config-schema.js';
import { tempDir } from '../helpers.js';

const MB = 1024 * 1024;
const ALICE = { user: 'alice' };

let open: { nosh: Nosh; base: string }[] = [];
async function setup(config: NoshConfig = {}): Promise<{ nosh: Nosh; base: string }> {
  const base = tempDir('nosh-quota-');
  const nosh = await createNosh({ base, threads: 4, quotas: { userMb: 1, groupMb: 1, sessionMb: 1 }, groups: { team: ['alice'] }, ...config });
  const w = { nosh, base };
  open.push(w);
  return w;
}
afterEach(async () => {
  for (const { nosh, base } of open) {
    await nosh.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
  open = [];
});

/** Bytes of regular files below a host folder (as a quota counts them), and every name in it. */
function walk(dir: string): { bytes: number; names: string[] } {
  let bytes = 0;
  const names: string[] = [];
  const go = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      names.push(path.relative(dir, p));
      if (e.isDirectory()) go(p);
      else if (e.isFile()) {
        // what a quota counts: the allocated or the apparent size, whichever is larger
        const st = fs.statSync(p);
        bytes += Math.max(st.size, st.blocks * 512);
      }
    }
  };
  if (fs.existsSync(dir)) go(dir);
  return { bytes, names };
}

/** What a quota counts for a folder of the base: its files and the git history of its versioned zones (versions/<rel>[.git]). */
function counted(base: string, rel: string): number {
  return walk(path.join(base, rel)).bytes + walk(path.join(base, 'versions', rel)).bytes + walk(path.join(base, 'versions', rel + '.git')).bytes;
}

async function used(nosh: Nosh, key: string, context: Record<string, unknown> = ALICE): Promise<{ used: number; limit: number }> {
  const r = await nosh.call('stats', { context });
  if (!r.success) throw new Error(r.error.message);
  return (r.data as { quotas: Record<string, { used: number; limit: number }> }).quotas[key]!;
}

describe('a write over quota is refused whole', () => {
  it('write tool: QUOTA_EXCEEDED with used/limit, no file, no temp file', async () => {
    const { nosh, base } = await setup();
    const before = await used(nosh, 'user:alice');
    const r = await nosh.call('write', { context: ALICE, path: 'huge.bin', content: 'x'.repeat(MB + 1) });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(r.error.code).toBe('QUOTA_EXCEEDED');
    expect(r.error.details).toMatchObject({ quota: 'user:alice', used: before.used, limit: MB });
    expect(r.error.hint).toMatch(/stats|delete/);
    const disk = walk(path.join(base, 'users', 'alice'));
    expect(disk.names).not.toContain('Storage/huge.bin');
    expect(disk.names.filter((n) => n.includes('.nosh-tmp-'))).toEqual([]);
    expect((await used(nosh, 'user:alice')).used).toBe(before.used);
  });

  it('overwriting a file with a bigger one over quota keeps the old content', async () => {
    const { nosh, base } = await setup();
    await nosh.call('write', { context: ALICE, path: 'f.txt', content: 'old\n' });
    const r = await nosh.call('write', { context: ALICE, path: 'f.txt', content: 'y'.repeat(MB + 10) });
    expect(!r.success && r.error.code).toBe('QUOTA_EXCEEDED');
    expect(fs.readFileSync(path.join(base, 'users', 'alice', 'Storage', 'f.txt'), 'utf8')).toBe('old\n');
  });

  it('exec cp / stdout_file over quota: no partial file, no temp file, exit 1 with the reason', async () => {
    const { nosh, base } = await setup();
    const w = await nosh.call('write', { context: ALICE, path: 'big.bin', content: 'b'.repeat(600 * 1024) });
    expect(w.success).toBe(true);
    const cp = await nosh.exec({ context: ALICE, command: 'cp big.bin copy.bin' });
    expect(cp.success && cp.data.exit_code).toBe(1);
    expect(cp.success && cp.data.stderr).toMatch(/quota/i);
    const so = await nosh.exec({ context: ALICE, command: 'cat big.bin' }, { stdoutFile: 'out.bin' });
    expect(so.success ? so.data.exit_code : so.error.code).not.toBe(0);
    const disk = walk(path.join(base, 'users', 'alice', 'Storage'));
    expect(disk.names.sort()).toEqual(['README.txt', 'big.bin']);
    expect(disk.bytes).toBeLessThanOrEqual(MB);
    expect((await used(nosh, 'user:alice')).used).toBe(counted(base, 'users/alice'));
  });

  it('sed -i growing a file past the quota leaves the file as it was', async () => {
    const { nosh, base } = await setup();
    const text = 'a\n'.repeat(300 * 1024);
    await nosh.call('write', { context: ALICE, path: 'a.txt', content: text });
    const r = await nosh.exec({ context: ALICE, command: 'sed -i s/a/aaaa/ a.txt' });
    expect(r.success ? r.data.exit_code : r.error.code).not.toBe(0);
    expect(fs.readFileSync(path.join(base, 'users', 'alice', 'Storage', 'a.txt'), 'utf8')).toBe(text);
    expect(walk(path.join(base, 'users', 'alice')).names.filter((n) => n.includes('.nosh-tmp-'))).toEqual([]);
  });

  it('import and transfer count against the quota too', async () => {
    const { nosh, base } = await setup();
    const ctx = { user: 'alice', conversation: 'c1' };
    const imp = await nosh.call('import', { context: ctx, name: 'big.bin', content: 'i'.repeat(MB + 1) });
    expect(!imp.success && imp.error.code).toBe('QUOTA_EXCEEDED');
    expect(walk(path.join(base, 'users', 'alice', 'Uploads')).names).toEqual(['c1']);
    // A copy into the group needs the group's quota.
    await nosh.call('write', { context: { ...ctx, groups: ['team'] }, zone: 'group:team', path: 'g.bin', content: 'g'.repeat(700 * 1024) });
    await nosh.call('write', { context: ctx, path: 's.bin', content: 's'.repeat(400 * 1024) });
    const t = await nosh.call('transfer', { context: ctx, from: 'storage', to: 'group:team', path: 's.bin' });
    expect(!t.success && t.error.code).toBe('QUOTA_EXCEEDED');
    expect(!t.success && t.error.details).toMatchObject({ quota: 'group:team', limit: MB });
    expect(walk(path.join(base, 'groups', 'team')).names).toEqual(['g.bin']);
  });

  it('deleting gives the bytes back', async () => {
    const { nosh } = await setup();
    const before = (await used(nosh, 'user:alice')).used;
    await nosh.call('write', { context: ALICE, path: 'a.bin', content: 'a'.repeat(800 * 1024) });
    expect((await used(nosh, 'user:alice')).used).toBe(before + 800 * 1024);
    const again = await nosh.call('write', { context: ALICE, path: 'b.bin', content: 'b'.repeat(800 * 1024) });
    expect(!again.success && again.error.code).toBe('QUOTA_EXCEEDED');
    const rm = await nosh.exec({ context: ALICE, command: 'rm a.bin' });
    expect(rm.success && rm.data.exit_code).toBe(0);
    expect((await used(nosh, 'user:alice')).used).toBe(before);
    const ok = await nosh.call('write', { context: ALICE, path: 'b.bin', content: 'b'.repeat(800 * 1024) });
    expect(ok.success).toBe(true);
  });
});

describe('moves inside one quota', () => {
  it('uploads -> storage moves a file bigger than the free space (the bytes do not count twice)', async () => {
    const { nosh, base } = await setup();
    const ctx = { user: 'alice', conversation: 'c1' };
    const imp = await nosh.call('import', { context: ctx, name: 'big.bin', content: 'x'.repeat(600 * 1024) });
    expect(imp.success).toBe(true);
    const before = (await used(nosh, 'user:alice', ctx)).used;
    const t = await nosh.call('transfer', { context: ctx, from: 'uploads', to: 'storage', path: 'big.bin' });
    expect(t).toMatchObject({ success: true, data: { files: 1, bytes: 600 * 1024, moved: true } });
    expect(fs.readdirSync(path.join(base, 'users', 'alice', 'Uploads', 'c1'))).toEqual([]);
    expect(fs.statSync(path.join(base, 'users', 'alice', 'Storage', 'big.bin')).size).toBe(600 * 1024);
    expect((await used(nosh, 'user:alice', ctx)).used).toBe(before);
    expect(before).toBe(walk(path.join(base, 'users', 'alice')).bytes);
  });

  it('documents -> storage moves a folder; replacing a file gives its bytes back', async () => {
    const { nosh, base } = await setup();
    await nosh.exec({ context: ALICE, zone: 'documents', command: 'mkdir -p d/e' });
    await nosh.call('write', { context: ALICE, zone: 'documents', path: 'd/a.bin', content: 'a'.repeat(300 * 1024) });
    await nosh.call('write', { context: ALICE, zone: 'documents', path: 'd/e/b.bin', content: 'b'.repeat(300 * 1024) });
    const t = await nosh.call('transfer', { context: ALICE, from: 'documents', to: 'storage', path: 'd' });
    expect(t).toMatchObject({ success: true, data: { files: 2, moved: true } });
    expect(walk(path.join(base, 'users', 'alice', 'Documents')).names).toEqual([]);
    expect(walk(path.join(base, 'users', 'alice', 'Storage')).names.sort()).toEqual(['README.txt', 'd', 'd/a.bin', 'd/e', 'd/e/b.bin']);
    expect((await used(nosh, 'user:alice')).used).toBe(counted(base, 'users/alice'));
    // Move a smaller file over an existing one: the old bytes are released.
    await nosh.call('write', { context: ALICE, zone: 'documents', path: 'a.bin', content: 'small' });
    const r = await nosh.call('transfer', { context: ALICE, from: 'documents', to: 'storage', path: 'a.bin', dest: '/d/a.bin', overwrite: true });
    expect(r.success).toBe(true);
    expect(fs.readFileSync(path.join(base, 'users', 'alice', 'Storage', 'd', 'a.bin'), 'utf8')).toBe('small');
    expect((await used(nosh, 'user:alice')).used).toBe(counted(base, 'users/alice'));
  });

  it('a move into a zone whose policy refuses the name leaves the source in place', async () => {
    const { nosh, base } = await setup({ zones: { storage: { allowedExtensions: ['.txt'] } } });
    const ctx = { user: 'alice', conversation: 'c1' };
    await nosh.call('import', { context: ctx, name: 'x.bin', content: 'x' });
    const t = await nosh.call('transfer', { context: ctx, from: 'uploads', to: 'storage', path: 'x.bin' });
    expect(t.success).toBe(false);
    expect(fs.readdirSync(path.join(base, 'users', 'alice', 'Uploads', 'c1'))).toEqual(['x.bin']);
    expect(fs.existsSync(path.join(base, 'users', 'alice', 'Storage', 'x.bin'))).toBe(false);
  });
});

describe('per-group and per-session quotas', () => {
  it('a group has its own quota, separate from the user\'s', async () => {
    const { nosh, base } = await setup({ quotas: { userMb: 10, groupMb: 1 } });
    const ctx = { user: 'alice', groups: ['team'] };
    const r = await nosh.call('write', { context: ctx, zone: 'group:team', path: 'big.bin', content: 'x'.repeat(MB + 1) });
    expect(!r.success && r.error.code).toBe('QUOTA_EXCEEDED');
    expect(!r.success && r.error.details).toMatchObject({ quota: 'group:team', limit: MB });
    expect(walk(path.join(base, 'groups', 'team')).names).toEqual([]);
    // The same bytes fit in her storage (10 MB).
    const s = await nosh.call('write', { context: ctx, path: 'big.bin', content: 'x'.repeat(MB + 1) });
    expect(s.success).toBe(true);
    // nothing of the group's files: only its (new, empty) repository's own files
    expect((await used(nosh, 'group:team', ctx)).used).toBe(counted(base, 'groups/team'));
    expect(walk(path.join(base, 'groups', 'team')).bytes).toBe(0);
  });

  it('a session has its own quota', async () => {
    const { nosh, base } = await setup({ quotas: { userMb: 10, sessionMb: 1 } });
    const ctx = { user: 'alice', session: 's1' };
    const a = await nosh.call('write', { context: ctx, zone: 'session:s1', path: 'a.bin', content: 'a'.repeat(700 * 1024) });
    expect(a.success).toBe(true);
    const b = await nosh.exec({ context: ctx, zone: 'session:s1', command: 'cp a.bin b.bin' });
    expect(b.success && b.data.exit_code).toBe(1);
    expect(walk(path.join(base, 'sessions', 's1')).names).toEqual(['a.bin']);
    expect(await used(nosh, 'session:s1', ctx)).toMatchObject({ used: 700 * 1024, limit: MB });
  });

  it('an expired session gives its quota back', async () => {
    const { nosh, base } = await setup({ quotas: { sessionMb: 1 }, sessionTtlSeconds: 1 });
    const ctx = { user: 'alice', session: 's1' };
    expect((await nosh.call('write', { context: ctx, zone: 'session', path: 'a.bin', content: 'a'.repeat(700 * 1024) })).success).toBe(true);
    const past = Date.now() / 1000 - 60;
    fs.utimesSync(path.join(base, 'sessions', 's1'), past, past);
    await nosh.call('maintenance', {});
    const again = await nosh.call('write', { context: ctx, zone: 'session', path: 'a.bin', content: 'a'.repeat(700 * 1024) });
    expect(again.success).toBe(true);
    expect((await used(nosh, 'session:s1', ctx)).used).toBe(700 * 1024);
  });
});

describe('concurrent writers', () => {
  // a whole number of 4 KB blocks: a copy's charge is its size (see quota-files.test.ts)
  const SIZE = 32 * 1024;

  async function race(kind: 'cp' | 'write') {
    const { nosh, base } = await setup();
    const w = await nosh.call('write', { context: ALICE, path: 'big.bin', content: 'z'.repeat(SIZE) });
    expect(w.success).toBe(true);
    const start = await used(nosh, 'user:alice');
    const fit = Math.floor((start.limit - start.used) / SIZE);
    expect(fit).toBeGreaterThan(20);
    expect(fit).toBeLessThan(50);
    const body = 'z'.repeat(SIZE);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => kind === 'cp'
      ? nosh.exec({ context: ALICE, command: `cp big.bin copy${i}.bin` })
      : nosh.call('write', { context: ALICE, path: `copy${i}.bin`, content: body })));
    let ok = 0;
    let refused = 0;
    for (const r of results) {
      if (kind === 'cp') {
        expect(r.success).toBe(true);
        const d = r.data as { exit_code: number; stderr: string };
        if (d.exit_code === 0) ok++;
        else {
          expect(d.stderr).toMatch(/quota/i);
          refused++;
        }
      } else if (r.success) ok++;
      else {
        expect(r.error.code).toBe('QUOTA_EXCEEDED');
        refused++;
      }
    }
    // Each copy reserves its bytes at once: exactly those that fit succeed.
    expect(ok).toBe(fit);
    expect(refused).toBe(50 - fit);
    const disk = walk(path.join(base, 'users', 'alice'));
    expect(disk.bytes).toBeLessThanOrEqual(MB);
    expect(disk.names.filter((n) => n.includes('.nosh-tmp-'))).toEqual([]);
    const copies = disk.names.filter((n) => /copy\d+\.bin$/.test(n));
    expect(copies).toHaveLength(ok);
    for (const c of copies) expect(fs.statSync(path.join(base, 'users', 'alice', c)).size).toBe(SIZE);
    const ledger = await used(nosh, 'user:alice');
    expect(ledger.used).toBe(disk.bytes);
    expect(ledger.used).toBeLessThanOrEqual(ledger.limit);
  }

  it('50 parallel exec cp near the limit never pass it', () => race('cp'));
  it('50 parallel write calls near the limit never pass it', () => race('write'));
});

describe('rescan', () => {
  it('usage after maintenance {rescan: true} equals the ledger and the disk', async () => {
    const { nosh, base } = await setup({ quotas: { userMb: 5, groupMb: 5, sessionMb: 5 } });
    const ctx = { user: 'alice', conversation: 'c1', session: 's1', groups: ['team'] };
    await nosh.call('import', { context: ctx, name: 'up.txt', content: 'u'.repeat(1234) });
    await nosh.exec({ context: ctx, command: 'mkdir -p a/b' });
    await nosh.call('write', { context: ctx, path: 'a/b/one.txt', content: 'one\n'.repeat(1000) });
    await nosh.exec({ context: ctx, command: 'cp a/b/one.txt a/two.txt' });
    await nosh.exec({ context: ctx, command: 'sed -i s/one/three/ a/two.txt' });
    await nosh.exec({ context: ctx, command: 'rm a/b/one.txt' });
    await nosh.call('write', { context: ctx, zone: 'documents', path: 'd.md', content: '# doc\n' });
    await nosh.call('transfer', { context: ctx, from: 'uploads', to: 'storage', path: 'up.txt' });
    await nosh.call('write', { context: ctx, zone: 'group:team', path: 'g.txt', content: 'group\n' });
    await nosh.call('write', { context: ctx, zone: 'session', path: 's.txt', content: 'session\n' });

    const stats = async () => {
      const r = await nosh.call('stats', { context: ctx });
      return (r.success ? r.data : {}) as { quotas: Record<string, { used: number }> };
    };
    const before = await stats();
    const m = await nosh.call('maintenance', { rescan: true });
    expect(m.success).toBe(true);
    const rescan = (m.data as { rescan: Record<string, { ledger: number; disk: number }> }).rescan;
    for (const [key, v] of Object.entries(rescan)) expect(v.ledger, key).toBe(v.disk);
    const after = await stats();
    expect(after.quotas).toEqual(before.quotas);
    expect(after.quotas['user:alice']!.used).toBe(counted(base, 'users/alice'));
    expect(after.quotas['group:team']!.used).toBe(counted(base, 'groups/team'));
    expect(after.quotas['session:s1']!.used).toBe(walk(path.join(base, 'sessions', 's1')).bytes);
    expect(after.quotas['user:alice']!.used).toBeGreaterThan(4000);
  });

  it('a rescan repairs drift from changes made outside nosh', async () => {
    const { nosh, base } = await setup();
    await nosh.call('write', { context: ALICE, path: 'a.txt', content: 'a' });
    fs.writeFileSync(path.join(base, 'users', 'alice', 'Storage', 'outside.bin'), Buffer.alloc(5000));
    const drift = (await used(nosh, 'user:alice')).used;
    const m = await nosh.call('maintenance', { rescan: true });
    const r = (m.data as { rescan: Record<string, { ledger: number; disk: number }> }).rescan['user:alice']!;
    const st = fs.statSync(path.join(base, 'users', 'alice', 'Storage', 'outside.bin'));
    expect(r).toMatchObject({ ledger: drift, disk: drift + Math.max(5000, st.blocks * 512) });
    expect((await used(nosh, 'user:alice')).used).toBe(counted(base, 'users/alice'));
  });
});

describe('the ledger forgets expired sessions', () => {
  it('maintenance drops the counter of a session it removed; a later use of the id counts afresh', async () => {
    const base = tempDir('nosh-quota-');
    const engine = new Engine(parseConfig({ base, threads: 1, quotas: { sessionMb: 1 }, sessionTtlSeconds: 1 }));
    try {
      const ctx = { user: 'alice', session: 's1' };
      const w = await engine.call('write', { zone: 'session', context: ctx, path: 'big.bin', content: 'x'.repeat(921_600) });
      expect(w.success).toBe(true);
      expect(engine.workspace.quotas.keys()).toContain('session:s1');
      expect(engine.workspace.quotas.used('session:s1')).toBe(921_600);

      const dir = path.join(base, 'sessions', 's1');
      const past = Date.now() / 1000 - 120;
      fs.utimesSync(dir, past, past);
      const m = await engine.call('maintenance', {});
      expect(m.success && (m.data as { expired_sessions: string[] }).expired_sessions).toEqual(['s1']);
      expect(engine.workspace.quotas.keys()).not.toContain('session:s1');

      const again = await engine.call('write', { zone: 'session', context: ctx, path: 'big.bin', content: 'y'.repeat(921_600) });
      expect(again.success).toBe(true);
      expect(engine.workspace.quotas.used('session:s1')).toBe(921_600);
    } finally {
      await engine.close();
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});
