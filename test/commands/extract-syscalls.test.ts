// Extraction reaches its folders relative to the held destination and staging folders (Vfs
// mkdirAt / createWriterAt / renameAt) instead of resolving every entry's path from the zone
// root again: counted by wrapping node:fs for the in-process runner. Each extracted file costs a
// few lstats (not one per component of its path, several times), one rename (the staged file
// into place; no temp file inside the staging folder), and its mode and times are set on the
// open file (fchmod, futimes) instead of chmod and utimes by path. The result is checked too:
// contents, modes and modification times as the archive says. zip -r reaches the files it walks
// through the walk's open folders too, and does not fsync a new archive (one it replaces, yes).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run, tempDir } from '../helpers.js';

const calls = vi.hoisted(() => ({ counts: new Map<string, number>() }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const counted = <F extends (...a: never[]) => unknown>(name: string, f: F): F => ((...a: never[]) => {
    calls.counts.set(name, (calls.counts.get(name) ?? 0) + 1);
    return f(...a);
  }) as F;
  const wrapped = {
    lstatSync: counted('lstat', real.lstatSync),
    statSync: counted('stat', real.statSync),
    renameSync: counted('rename', real.renameSync),
    chmodSync: counted('chmod', real.chmodSync),
    utimesSync: counted('utimes', real.utimesSync),
    fchmodSync: counted('fchmod', real.fchmodSync),
    futimesSync: counted('futimes', real.futimesSync),
    fsyncSync: counted('fsync', real.fsyncSync),
    readSync: counted('read', real.readSync),
  };
  return { ...real, ...wrapped, default: { ...real, ...wrapped } };
});

const FILES = 24;
const DEEP = 'src/a/b/c/d';
const MTIME = new Date('2021-03-04T05:06:08Z');
const root = tempDir('nosh-xcalls-');
beforeAll(() => {
  fs.mkdirSync(path.join(root, DEEP), { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const f = path.join(root, DEEP, `f${i}.txt`);
    fs.writeFileSync(f, `file ${i}\n`.repeat(i + 1));
    fs.chmodSync(f, i % 2 ? 0o755 : 0o640);
    fs.utimesSync(f, MTIME, MTIME);
  }
  expect(spawnSync('zip', ['-q', '-r', 'a.zip', 'src'], { cwd: root }).status).toBe(0);
  expect(spawnSync('tar', ['czf', 'a.tgz', 'src'], { cwd: root }).status).toBe(0);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function counted(line: string): Promise<Map<string, number>> {
  calls.counts.clear();
  const r = await run(root, line);
  expect(r.error, JSON.stringify(r.error)).toBeUndefined();
  expect(r.exitCode, r.stderr).toBe(0);
  return new Map(calls.counts);
}

function same(dir: string): void {
  for (let i = 0; i < FILES; i++) {
    const f = path.join(root, dir, DEEP, `f${i}.txt`);
    expect(fs.readFileSync(f, 'utf8')).toBe(`file ${i}\n`.repeat(i + 1));
    const st = fs.statSync(f);
    expect(st.mode & 0o777).toBe(i % 2 ? 0o755 : 0o640);
    expect(st.mtime.getTime()).toBe(MTIME.getTime());
  }
  expect(fs.readdirSync(path.join(root, dir))).toEqual(['src']);
}

function perFile(c: Map<string, number>): { lstats: number; renames: number; byPath: number; reads: number } {
  return {
    reads: (c.get('read') ?? 0) / FILES,
    lstats: ((c.get('lstat') ?? 0) + (c.get('stat') ?? 0)) / FILES,
    renames: (c.get('rename') ?? 0) / FILES,
    byPath: (c.get('chmod') ?? 0) + (c.get('utimes') ?? 0),
  };
}

describe('extraction works relative to held folders', () => {
  it('unzip -d: a few lstats and one rename per file, mode and times on the open file', async () => {
    const c = perFile(await counted(`unzip -q a.zip -d u`));
    same('u');
    expect(c.lstats).toBeLessThan(6);
    expect(c.renames).toBeLessThanOrEqual(1.1);
    expect(c.byPath).toBe(0);
  });

  it('unzip into a new folder: the archive read through a window (not reads per entry), no lstat of the destination per file', async () => {
    const c = perFile(await counted(`unzip -q a.zip -d u2`));
    same('u2');
    // before: 3-4 positioned reads per entry (central record twice, local header, data) and
    // 4 lstats per file (one to see whether it exists at the destination)
    expect(c.reads).toBeLessThan(0.5);
    expect(c.lstats).toBeLessThan(3.5);
    // the destination's tree exists now: each file is looked for again, and kept (no -o)
    const again = await run(root, 'unzip -q a.zip -d u2');
    expect(again.exitCode).toBe(1);
    expect(again.stderr.match(/exists: not replaced/g)?.length).toBe(FILES);
  });

  it('tar xzf -C into a new folder: no lstat of the destination per file; -k over it refuses each file', async () => {
    fs.mkdirSync(path.join(root, 't2'));
    const c = perFile(await counted('tar xzf a.tgz -C t2'));
    same('t2');
    expect(c.lstats).toBeLessThan(3.5);
    const again = await run(root, 'tar xzkf a.tgz -C t2');
    expect(again.exitCode).toBe(2);
    expect(again.stderr.match(/Cannot open: File exists/g)?.length).toBe(FILES);
  });

  it('tar xzf -C: a few lstats and one rename per file, mode and times on the open file', async () => {
    fs.mkdirSync(path.join(root, 't'));
    const c = perFile(await counted('tar xzf a.tgz -C t'));
    same('t');
    expect(c.lstats).toBeLessThan(6);
    expect(c.renames).toBeLessThanOrEqual(1.1);
    expect(c.byPath).toBe(0);
  });
});

describe('zip -r reaches the walked files through their folders', () => {
  it('a few lstats per file; a new archive is not fsynced, a replaced one is', async () => {
    const c = await counted('zip -q -r z.zip src');
    expect(spawnSync('unzip', ['-tq', 'z.zip'], { cwd: root }).status).toBe(0);
    expect(((c.get('lstat') ?? 0) + (c.get('stat') ?? 0)) / FILES).toBeLessThan(9);
    expect(c.get('fsync') ?? 0).toBe(0);
    const again = await counted('zip -q -r z2.zip src');
    expect(again.get('fsync') ?? 0).toBe(0);
    const replaced = await counted('zip -q -r z2.zip src');
    expect(replaced.get('fsync') ?? 0).toBe(1);
  });
});

describe('a destination that is a symbolic link (links not followed in this zone)', () => {
  it('unzip -d LINK and tar -C LINK are refused as a link; nothing is written through it', async () => {
    fs.mkdirSync(path.join(root, 'real'));
    fs.symlinkSync('real', path.join(root, 'link'));
    const u = await run(root, 'unzip -q a.zip -d link');
    expect(u.exitCode).not.toBe(0);
    expect(u.stderr + u.stdout).toMatch(/link: .*symbolic link/i);
    const t = await run(root, 'tar xzf a.tgz -C link');
    expect(t.exitCode).toBe(2);
    expect(t.stderr).toMatch(/tar: link: Cannot open: .*symbolic link/i);
    expect(fs.readdirSync(path.join(root, 'real'))).toEqual([]);
  });
});
