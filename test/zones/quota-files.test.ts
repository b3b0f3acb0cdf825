/**
 * Issue 17 §7: quotas count files and folders too, and a file counts its allocated size or
 * its apparent size, whichever is larger. Empty files and folders cost no bytes: under a
 * byte quota alone 10 000 of them could be planted in a 1 MB quota.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createNosh, type Nosh, type NoshConfig } from '../../src/index.js';
import { tempDir } from '../helpers.js';

const ALICE = { user: 'alice' };
let open: { nosh: Nosh; base: string }[] = [];
async function setup(config: NoshConfig = {}): Promise<{ nosh: Nosh; base: string; storage: string }> {
  const base = tempDir('nosh-qfiles-');
  const nosh = await createNosh({ base, threads: 2, quotas: { userMb: 1, groupMb: 1, sessionMb: 1 }, ...config });
  open.push({ nosh, base });
  return { nosh, base, storage: path.join(base, 'users', 'alice', 'Storage') };
}
afterEach(async () => {
  for (const { nosh, base } of open) {
    await nosh.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
  open = [];
});

async function quota(nosh: Nosh): Promise<{ used: number; limit: number; files: number; max_files: number }> {
  const r = await nosh.call('stats', { context: ALICE });
  if (!r.success) throw new Error(r.error.message);
  return (r.data as any).quotas['user:alice'];
}

/** Entries below a host folder (files and folders), and what its files cost (max of allocated and apparent). */
function onDisk(dir: string): { entries: number; bytes: number } {
  let entries = 0;
  let bytes = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    entries++;
    if (e.isFile()) {
      const st = fs.lstatSync(path.join(e.parentPath, e.name));
      bytes += Math.max(st.size, st.blocks * 512);
    }
  }
  return { entries, bytes };
}

describe('files and folders count against a quota', () => {
  it('10 000 empty files cannot be planted under a 1 MB quota: touch stops at the file limit, QUOTA_EXCEEDED says files count', async () => {
    const { nosh, base, storage } = await setup();
    const q0 = await quota(nosh);
    expect(q0.max_files).toBe(1000);
    let refused = '';
    for (let batch = 0; batch < 10; batch++) {
      const names = Array.from({ length: 1000 }, (_, i) => `e${batch * 1000 + i}`);
      const r = await nosh.exec({ context: ALICE, cmd: 'touch', args: names });
      if (!r.success) throw new Error(r.error.message);
      if (r.data.exit_code !== 0) refused = r.data.stderr;
    }
    expect(refused).toMatch(/Disk quota exceeded/);
    const planted = fs.readdirSync(storage).filter((n) => n.startsWith('e')).length;
    expect(planted).toBeLessThan(1000);
    expect(onDisk(path.join(base, 'users', 'alice')).entries).toBe(1000);
    const q = await quota(nosh);
    expect(q.files).toBe(1000);
    // the typed tools say so too, with a hint that files count
    const w = await nosh.call('write', { context: ALICE, path: 'one-more.txt', content: '' });
    expect(!w.success && w.error.code).toBe('QUOTA_EXCEEDED');
    expect(!w.success && w.error.hint).toMatch(/[Ff]iles and folders count/);
    expect(!w.success && w.error.details).toMatchObject({ quota: 'user:alice', files: 1000, max_files: 1000 });
    const m = await nosh.call('mkdir', { context: ALICE, path: 'dir' });
    expect(!m.success && m.error.code).toBe('QUOTA_EXCEEDED');
    // removing gives the count back
    const rm = await nosh.exec({ context: ALICE, command: 'rm e0 e1' });
    expect(rm.success && rm.data.exit_code).toBe(0);
    expect((await quota(nosh)).files).toBe(998);
    expect((await nosh.call('mkdir', { context: ALICE, path: 'dir' })).success).toBe(true);
    expect((await nosh.call('write', { context: ALICE, path: 'dir/f.txt', content: 'x' })).success).toBe(true);
    expect((await quota(nosh)).files).toBe(1000);
  }, 120_000);

  it('quotas.maxFiles sets the limit; folders count; overwrite, rename and rmdir keep the count right', async () => {
    const { nosh, base } = await setup({ quotas: { userMb: 10, maxFiles: 20 } });
    const start = (await quota(nosh)).files;
    expect((await quota(nosh)).max_files).toBe(20);
    const mk = await nosh.exec({ context: ALICE, command: 'mkdir -p ' + Array.from({ length: 30 }, (_, i) => `d${i}`).join(' ') });
    expect(mk.success && mk.data.exit_code).toBe(1);
    expect(mk.success && mk.data.stderr).toMatch(/Disk quota exceeded/);
    expect((await quota(nosh)).files).toBe(20);
    expect(onDisk(path.join(base, 'users', 'alice')).entries).toBe(20);
    const free = 20 - start;
    // overwriting and renaming over an existing name creates no entry
    await nosh.exec({ context: ALICE, command: 'rmdir d0 d1 d2' });
    expect((await quota(nosh)).files).toBe(17);
    expect((await nosh.call('write', { context: ALICE, path: 'a.txt', content: 'a' })).success).toBe(true);
    expect((await nosh.call('write', { context: ALICE, path: 'a.txt', content: 'aa' })).success).toBe(true);
    expect((await nosh.call('write', { context: ALICE, path: 'b.txt', content: 'b' })).success).toBe(true);
    expect((await quota(nosh)).files).toBe(19);
    expect((await nosh.exec({ context: ALICE, command: 'mv a.txt b.txt' }))).toMatchObject({ success: true, data: { exit_code: 0 } });
    expect((await quota(nosh)).files).toBe(18);
    expect(free).toBeGreaterThan(0);
    const m = await nosh.call('maintenance', { rescan: true });
    const r = (m.data as any).rescan['user:alice'];
    expect(r.files).toEqual({ ledger: 18, disk: 18 });
    expect(r.ledger).toBe(r.disk);
  }, 60_000);
});

describe('a file counts its allocated size or its apparent size, whichever is larger', () => {
  it('small files count the block they take; the ledger agrees with a rescan', async () => {
    const { nosh, base } = await setup({ quotas: { userMb: 1 } });
    const before = (await quota(nosh)).used;
    for (let i = 0; i < 5; i++) await nosh.call('write', { context: ALICE, path: `s${i}.txt`, content: 'x' });
    const st = fs.statSync(path.join(base, 'users', 'alice', 'Storage', 's0.txt'));
    const each = Math.max(1, st.blocks * 512);
    expect((await quota(nosh)).used).toBe(before + 5 * each);
    expect((await quota(nosh)).used).toBe(onDisk(path.join(base, 'users', 'alice')).bytes);
    const m = await nosh.call('maintenance', { rescan: true });
    const r = (m.data as any).rescan['user:alice'];
    expect(r.ledger).toBe(r.disk);
    await nosh.exec({ context: ALICE, command: 'rm s0.txt s1.txt' });
    expect((await quota(nosh)).used).toBe(before + 3 * each);
  });

  it('files planted outside nosh (tiny ones and a sparse one) count as much after a rescan', async () => {
    const { nosh, base, storage } = await setup({ quotas: { userMb: 100 } });
    await quota(nosh);
    for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(storage, `t${i}`), 'y');
    const fd = fs.openSync(path.join(storage, 'sparse.bin'), 'w');
    fs.ftruncateSync(fd, 10 * 1024 * 1024);
    fs.closeSync(fd);
    await nosh.call('maintenance', { rescan: true });
    const q = await quota(nosh);
    const tiny = fs.statSync(path.join(storage, 't0'));
    expect(q.used).toBeGreaterThanOrEqual(10 * 1024 * 1024 + 100 * Math.max(1, tiny.blocks * 512));
    expect(q.used).toBe(onDisk(path.join(base, 'users', 'alice')).bytes);
    expect(q.files).toBe(onDisk(path.join(base, 'users', 'alice')).entries);
  });
});
