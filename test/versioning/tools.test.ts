import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { realGit } from './git-helpers.js';

const base = tempDir('nosh-vertools-');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

type Data = Record<string, any>;

describe('history, diff_versions, restore, undo', () => {
  it('list versions, diff them, restore one as a new commit, undo the conversation\'s last change', async () => {
    const nosh = await createNosh({ base, threads: 1 });
    const ctx = { user: 'ann', conversation: 'c1' };
    const call = async (m: string, p: object) => {
      const r = await nosh.call(m, { zone: 'documents', context: ctx, ...p });
      if (!r.success) throw new Error(`${m}: ${r.error.code} ${r.error.message}`);
      return r.data as Data;
    };
    await call('write', { path: 'a.md', content: 'one\ntwo\n' });
    await call('write', { path: 'b.md', content: 'b\n' });
    await call('edit', { path: 'a.md', edits: [{ old_text: 'two', new_text: 'TWO' }] });
    const h = await call('history', { limit: 2 });
    expect(h.commits.map((c: Data) => [c.message, c.author, c.changes])).toEqual([
      ['edit: a.md (1 file)', 'ann', [{ status: 'M', path: 'a.md' }]],
      ['write: b.md (1 file)', 'ann', [{ status: 'A', path: 'b.md' }]],
    ]);
    const h2 = await call('history', { limit: 2, cursor: h.next_cursor });
    expect(h2.commits.map((c: Data) => c.message)).toEqual(['write: a.md (1 file)']);
    expect(h2.next_cursor).toBeUndefined();
    const onlyA = await call('history', { path: 'a.md' });
    expect(onlyA.commits).toHaveLength(2);
    const first = onlyA.commits[1].id;
    const d = await call('diff_versions', { path: 'a.md', from: first, to: 'HEAD' });
    expect(d.diff).toBe('--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n');
    const r = await call('restore', { path: 'a.md', version: 'HEAD~2' });
    expect(r.diff).toBe('--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n one\n-TWO\n+two\n');
    expect(fs.readFileSync(path.join(base, 'users', 'ann', 'Documents', 'a.md'), 'utf8')).toBe('one\ntwo\n');
    // undo takes back the restore (the last change of c1)
    const u = await call('undo', {});
    expect(u.files).toEqual(['/a.md']);
    expect(fs.readFileSync(path.join(base, 'users', 'ann', 'Documents', 'a.md'), 'utf8')).toBe('one\nTWO\n');
    // someone else changed b.md since c1's last change to it: undo of b.md is refused
    await nosh.call('write', { zone: 'documents', context: { user: 'ann', conversation: 'c2' }, path: 'b.md', content: 'other\n' });
    const refused = await nosh.call('undo', { zone: 'documents', context: ctx, path: 'b.md' });
    expect(!refused.success && refused.error.message).toMatch(/b.md was changed since/);
    const bad = await nosh.call('diff_versions', { zone: 'documents', context: ctx, path: 'a.md', from: 'nope' });
    expect(!bad.success && bad.error.message).toBe("unknown revision 'nope'");
    const dash = await nosh.call('restore', { zone: 'documents', context: ctx, path: 'a.md', version: '--output=x' });
    expect(!dash.success && dash.error.code).toBe('INVALID_ARGUMENT');
    const nv = await nosh.call('history', { zone: 'storage', context: ctx });
    expect(!nv.success && nv.error.message).toBe('storage is not a versioned zone');
    await nosh.close();
    const log = realGit(path.join(base, 'versions', 'users', 'ann', 'Documents.git'), 'log', '--format=%s').split('\n');
    expect(log.slice(0, 4)).toEqual(['write: b.md (1 file)', expect.stringMatching(/^undo: restore: a\.md as of [0-9a-f]{7} \([0-9a-f]{7}\)$/),
      `restore: a.md as of ${first.slice(0, 7)}`, 'edit: a.md (1 file)']);
  });
});
