import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { gitdirsUnder, packLoose } from '../../src/versioning/pack.js';
import { tempDir } from '../helpers.js';
import { realGit } from './git-helpers.js';

const base = tempDir('nosh-pack-');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const loose = (gitdir: string) => fs.readdirSync(path.join(gitdir, 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d))
  .reduce((n, d) => n + fs.readdirSync(path.join(gitdir, 'objects', d)).length, 0);

describe('maintenance packs the loose objects of versioned zones', () => {
  it('packs once there are enough, keeps every version readable by nosh and by the real git, and leaves fewer alone', async () => {
    const nosh = await createNosh({ base, threads: 1 });
    const ctx = { user: 'alice' };
    for (let i = 0; i < 6; i++) {
      const w = await nosh.call('write', { zone: 'documents', context: ctx, path: `f${i % 3}.txt`, content: `version ${i}\n` });
      expect(w.success).toBe(true);
    }
    const [gitdir] = await gitdirsUnder(path.join(base, 'versions'));
    expect(gitdir).toBe(path.join(base, 'versions', 'users', 'alice', 'Documents.git'));
    const before = loose(gitdir!);
    expect(before).toBeGreaterThanOrEqual(18); // 6 commits, 6 trees, 6 blobs
    expect(await packLoose(gitdir!, before + 1)).toBe(0); // under the threshold: nothing done
    expect(loose(gitdir!)).toBe(before);
    expect(await packLoose(gitdir!, 10)).toBe(before);
    expect(loose(gitdir!)).toBe(0);
    expect(fs.readdirSync(path.join(gitdir!, 'objects', 'pack')).sort().map((f) => path.extname(f))).toEqual(['.idx', '.pack']);
    expect(realGit(gitdir!, 'fsck', '--strict', '--no-dangling')).toBe('');
    expect(realGit(gitdir!, 'show', 'HEAD~5:f0.txt')).toBe('version 0\n');
    // nosh reads the packed history and keeps committing beside the pack
    const log = await nosh.exec({ zone: 'documents', context: ctx, command: 'git log --oneline' });
    expect(log.success && log.data.stdout.trim().split('\n')).toHaveLength(6);
    expect((await nosh.call('write', { zone: 'documents', context: ctx, path: 'f0.txt', content: 'version 6\n' })).success).toBe(true);
    const show = await nosh.exec({ zone: 'documents', context: ctx, command: 'git show HEAD~6:f0.txt' });
    expect(show.success && show.data.stdout).toBe('version 0\n');
    // the maintenance method reports what it packed (the default threshold is not reached here)
    const m = await nosh.call('maintenance', {});
    expect(m.success && (m.data as { packed_objects: number }).packed_objects).toBe(0);
    await nosh.close();
    expect(realGit(gitdir!, 'fsck', '--strict', '--no-dangling')).toBe('');
  });
});
