// Extraction into a top folder that does not exist yet (unzip -d NEW, tar -C DIR of a tree new
// there) stages the whole folder and moves it into place with one rename (Vfs.renameDirAt);
// files that join a folder that exists take the per-file path. What must hold: a stop midway
// leaves nothing, an existing folder keeps what it holds (-o / -k / the default of each tool),
// and something planted at the destination after staging (a symbolic link) is never followed:
// the folder rename refuses it and the per-file path says where the link is.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run, tempDir } from '../helpers.js';

const hook = vi.hoisted(() => ({ renames: [] as string[], beforeRename: undefined as ((from: string, to: string) => void) | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const renameSync = (from: fs.PathLike, to: fs.PathLike): void => {
    hook.renames.push(`${String(from)} -> ${String(to)}`);
    hook.beforeRename?.(String(from), String(to));
    real.renameSync(from, to);
  };
  return { ...real, renameSync, default: { ...real, renameSync } };
});

const root = tempDir('nosh-x1r-');
const outside = tempDir('nosh-x1r-out-');
const FILES = ['top/a.txt', 'top/big.bin', 'top/sub/b.txt', 'top/sub/c.txt'];
beforeAll(() => {
  const src = path.join(root, 'src');
  fs.mkdirSync(path.join(src, 'top/sub'), { recursive: true });
  for (const f of FILES) fs.writeFileSync(path.join(src, f), f.endsWith('.bin') ? Buffer.alloc(200_000, 7) : `${f}\n`);
  // archive order: a.txt, big.bin (the stop), then sub/
  const zip = spawnSync('zip', ['-q', '../a.zip', 'top/', ...FILES], { cwd: src });
  expect(zip.status, String(zip.stderr)).toBe(0);
  const tar = spawnSync('tar', ['czf', '../a.tgz', '--no-recursion', 'top', 'top/a.txt', 'top/big.bin', 'top/sub', 'top/sub/b.txt', 'top/sub/c.txt'], { cwd: src });
  expect(tar.status, String(tar.stderr)).toBe(0);
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

const ls = (rel: string) => fs.readdirSync(path.join(root, rel)).sort();
const read = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');

describe('a new top folder is staged whole and moved with one rename', () => {
  it('unzip and tar: one rename for the whole tree', async () => {
    hook.renames = [];
    const u = await run(root, 'unzip -q a.zip -d u');
    expect(u.exitCode, u.stderr).toBe(0);
    expect(hook.renames.length).toBe(1);
    expect(hook.renames[0]).toMatch(/\/top -> .*\/top$/); // (held folders: /proc/PID/fd/N/top)
    expect(read('u/top/sub/c.txt')).toBe('top/sub/c.txt\n');
    expect(ls('u')).toEqual(['top']);
    fs.mkdirSync(path.join(root, 't'));
    hook.renames = [];
    const t = await run(root, 'tar xzf a.tgz -C t');
    expect(t.exitCode, t.stderr).toBe(0);
    expect(hook.renames.length).toBe(1);
    expect(read('t/top/sub/b.txt')).toBe('top/sub/b.txt\n');
    expect(ls('t')).toEqual(['top']);
  });

  it('a stop midway (an entry over maxFileSize) leaves nothing: no folder, no file, no staging folder', async () => {
    const policy = { maxFileSize: 100_000 };
    const u = await run(root, 'unzip -q a.zip -d u-stop', { policy });
    expect(u.exitCode).toBe(3);
    expect(u.stderr).toMatch(/nothing was extracted: top\/big\.bin/);
    expect(ls('u-stop')).toEqual([]);
    fs.mkdirSync(path.join(root, 't-stop'));
    const t = await run(root, 'tar xzf a.tgz -C t-stop', { policy });
    expect(t.exitCode).toBe(2);
    expect(t.stderr).toMatch(/top\/big\.bin: Cannot write: .*nothing was extracted/);
    expect(ls('t-stop')).toEqual([]);
  });

  it('an existing top folder takes the per-file path: what it holds is kept, existing files as -o / -k say', async () => {
    for (const d of ['u-old', 't-old']) {
      fs.mkdirSync(path.join(root, d, 'top'), { recursive: true });
      fs.writeFileSync(path.join(root, d, 'top/keep.txt'), 'mine\n');
      fs.writeFileSync(path.join(root, d, 'top/a.txt'), 'old\n');
    }
    const u = await run(root, 'unzip -q a.zip -d u-old');
    expect(u.exitCode).toBe(1);
    expect(u.stderr).toContain('u-old/top/a.txt exists: not replaced');
    expect(read('u-old/top/a.txt')).toBe('old\n');
    expect(read('u-old/top/keep.txt')).toBe('mine\n');
    expect(read('u-old/top/sub/b.txt')).toBe('top/sub/b.txt\n');
    expect((await run(root, 'unzip -q -o a.zip -d u-old')).exitCode).toBe(0);
    expect(read('u-old/top/a.txt')).toBe('top/a.txt\n');
    expect(read('u-old/top/keep.txt')).toBe('mine\n');
    expect(ls('u-old')).toEqual(['top']);
    const k = await run(root, 'tar xzkf a.tgz -C t-old');
    expect(k.exitCode).toBe(2);
    expect(k.stderr).toContain('top/a.txt: Cannot open: File exists');
    expect(read('t-old/top/a.txt')).toBe('old\n');
    const t = await run(root, 'tar xzf a.tgz -C t-old');
    expect(t.exitCode, t.stderr).toBe(0);
    expect(read('t-old/top/a.txt')).toBe('top/a.txt\n');
    expect(read('t-old/top/keep.txt')).toBe('mine\n');
    expect(ls('t-old')).toEqual(['top']);
  });

  it('a symbolic link planted at the destination after staging is not followed: nothing is written through it', async () => {
    // just before the folder's rename, something makes top a link to a folder outside the zone
    hook.beforeRename = (from, to) => {
      if (from.endsWith('/top') && to.endsWith('/top')) fs.symlinkSync(outside, to); // the folder's rename
    };
    try {
      const u = await run(root, 'unzip -q a.zip -d u-link');
      expect(u.exitCode).toBe(1);
      expect(u.stderr).toMatch(/skipping: top\/a\.txt {2}would be written through the symbolic link u-link\/top/);
      fs.mkdirSync(path.join(root, 't-link'));
      const t = await run(root, 'tar xzf a.tgz -C t-link');
      expect(t.exitCode).toBe(2);
      expect(t.stderr).toMatch(/top\/a\.txt: Cannot open: /);
    } finally {
      hook.beforeRename = undefined;
    }
    expect(fs.readdirSync(outside)).toEqual([]);
    // the link (not ours) is left; the staged tree and its staging folder are gone
    expect(ls('u-link')).toEqual(['top']);
    expect(fs.lstatSync(path.join(root, 'u-link/top')).isSymbolicLink()).toBe(true);
    expect(ls('t-link')).toEqual(['top']);
  });
});
