import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

/**
 * Git objects of a versioned zone count against its quota (issue #19 item 5): a write whose
 * commit would pass the quota is refused whole, stats shows the history's bytes apart, the
 * running count matches the disk, and packing the history lowers it.
 */
const ALICE = { user: 'alice' };
let open: { nosh: Nosh; base: string }[] = [];
async function setup(userMb = 1): Promise<{ nosh: Nosh; base: string }> {
  const base = tempDir('nosh-vquota-');
  const nosh = await createNosh({ base, threads: 2, quotas: { userMb, groupMb: 1, sessionMb: 1, maxFiles: 5000 } });
  open.push({ nosh, base });
  return { nosh, base };
}
afterEach(async () => {
  for (const { nosh, base } of open) {
    await nosh.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
  open = [];
});

type Quota = { used: number; limit: number; versions_bytes: number };
async function quota(nosh: Nosh): Promise<Quota> {
  const r = await nosh.call('stats', { context: ALICE });
  if (!r.success) throw new Error(r.error.message);
  return (r.data as { quotas: Record<string, Quota> }).quotas['user:alice']!;
}

/** What maintenance's rescan found: the running count (ledger) and the disk, for alice's quota. */
async function rescan(nosh: Nosh): Promise<{ ledger: number; disk: number }> {
  const r = await nosh.call('maintenance', { rescan: true });
  if (!r.success) throw new Error(r.error.message);
  return (r.data as { rescan: Record<string, { ledger: number; disk: number }> }).rescan['user:alice']!;
}

async function history(nosh: Nosh): Promise<string[]> {
  const r = await nosh.exec({ zone: 'documents', context: ALICE, command: 'git log --format=%H' });
  if (!r.success) throw new Error(r.error.message);
  return r.data.stdout.trim().split('\n').filter((l) => l !== '');
}

describe('git objects count in the quota of a versioned zone', () => {
  it('counts each commit\'s objects as the disk holds them, and shows them in stats', async () => {
    const { nosh, base } = await setup();
    const before = await quota(nosh);
    expect(before.versions_bytes).toBe(0);
    for (let i = 0; i < 3; i++) {
      const w = await nosh.call('write', { zone: 'documents', context: ALICE, path: `n${i}.md`, content: `note ${i}\n`.repeat(100) });
      expect(w.success).toBe(true);
    }
    const after = await quota(nosh);
    // three blobs, three trees, three commits, the repository's own files: every one at least a block
    expect(after.versions_bytes).toBeGreaterThan(12 * 512);
    const gitdir = path.join(base, 'versions', 'users', 'alice', 'Documents.git');
    expect(fs.existsSync(gitdir)).toBe(true);
    const zones = ((await nosh.call('stats', { context: ALICE })) as { data: { zones: Record<string, { versions_bytes?: number }> } }).data.zones;
    expect(zones.documents!.versions_bytes).toBe(after.versions_bytes);
    expect(zones.storage!.versions_bytes).toBeUndefined();
    // the running count is what a walk of the disk finds (zone files and git directory)
    const r = await rescan(nosh);
    expect(r.ledger).toBe(r.disk);
    expect(after.used).toBe(r.disk);
  });

  it('refuses whole a write whose commit would pass the quota: file and history unchanged', async () => {
    const { nosh } = await setup();
    expect((await nosh.call('write', { zone: 'documents', context: ALICE, path: 'keep.md', content: 'old\n' })).success).toBe(true);
    const commits = await history(nosh);
    // fill storage (same quota) until 24 KiB are left
    const q = await quota(nosh);
    const fill = q.limit - q.used - 24 * 1024;
    const f = await nosh.call('write', { zone: 'storage', context: ALICE, path: 'fill.bin', content: 'f'.repeat(fill) });
    expect(f.success).toBe(true);
    expect((await quota(nosh)).used).toBe(q.limit - 24 * 1024);
    // 20 000 bytes fit as a file (20 KiB), not with a blob, a tree and a commit beside it
    const big = await nosh.call('write', { zone: 'documents', context: ALICE, path: 'keep.md', content: 'n'.repeat(20000) });
    expect(big.success).toBe(false);
    if (big.success) return;
    expect(big.error.code).toBe('QUOTA_EXCEEDED');
    expect(big.error.hint).toMatch(/version/);
    expect(big.error.hint).toMatch(/maintenance/);
    const read = await nosh.call('read', { zone: 'documents', context: ALICE, path: 'keep.md' });
    expect(read.success && (read.data as { content: string }).content).toBe('old\n');
    expect(await history(nosh)).toEqual(commits);
    // the same refusal through exec (tee writes through the same writer)
    const tee = await nosh.exec({ zone: 'documents', context: ALICE, command: 'tee new.md', stdin: 'n'.repeat(20000) });
    expect(tee.success && tee.data.exit_code).not.toBe(0);
    expect(fs.existsSync(path.join(open[0]!.base, 'users', 'alice', 'Documents', 'new.md'))).toBe(false);
    expect(await history(nosh)).toEqual(commits);
    // the same bytes in storage (not versioned) fit
    expect((await nosh.call('write', { zone: 'storage', context: ALICE, path: 'plain.txt', content: 'n'.repeat(20000) })).success).toBe(true);
    expect((await nosh.call('delete', { zone: 'storage', context: ALICE, path: 'plain.txt' })).success).toBe(true);
    // a small change with its version fits, and is committed
    expect((await nosh.call('write', { zone: 'documents', context: ALICE, path: 'keep.md', content: 'new\n' })).success).toBe(true);
    expect(await history(nosh)).toHaveLength(commits.length + 1);
    const r = await rescan(nosh);
    expect(r.ledger).toBe(r.disk);
  });

  it('packing the history (maintenance) lowers the usage', async () => {
    const { nosh } = await setup(20);
    // one commit of 1100 new files: 1100 blobs, as many loose objects, each a block or more
    expect((await nosh.call('write', { zone: 'documents', context: ALICE, path: 'lines.txt', content: Array.from({ length: 1100 }, (_, i) => `line ${i}`).join('\n') + '\n' })).success).toBe(true);
    const s = await nosh.exec({ zone: 'documents', context: ALICE, command: 'split -l 1 -a 4 lines.txt part-' });
    expect(s.success ? s.data.exit_code : s.error).toBe(0);
    expect(await history(nosh)).toHaveLength(2);
    const before = await quota(nosh);
    expect(before.versions_bytes).toBeGreaterThan(1100 * 512);
    const m = await nosh.call('maintenance', {});
    expect(m.success && (m.data as { packed_objects: number }).packed_objects).toBeGreaterThanOrEqual(1100);
    const after = await quota(nosh);
    expect(after.versions_bytes).toBeLessThan(before.versions_bytes / 4);
    expect(before.used - after.used).toBe(before.versions_bytes - after.versions_bytes);
    const r = await rescan(nosh);
    expect(r.ledger).toBe(r.disk);
  }, 180_000);
});
