// Extraction does not fsync each new file (GNU unzip and tar do not either; the staged files are
// moved into place at the end, so nothing partial is left): a file that replaces one already there
// is still fsynced before its rename, so a crash leaves its old or its new content. Counted by
// wrapping node:fs's fsyncSync for the in-process runner.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run, tempDir } from '../helpers.js';

const syncs = vi.hoisted(() => ({ n: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const fsyncSync = (fd: number): void => {
    syncs.n++;
    real.fsyncSync(fd);
  };
  return { ...real, fsyncSync, default: { ...real, fsyncSync } };
});

const root = tempDir('nosh-xsync-');
beforeAll(() => {
  fs.mkdirSync(path.join(root, 'src/sub'), { recursive: true });
  for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(root, `src/sub/f${i}.txt`), `file ${i}\n`.repeat(i + 1));
  expect(spawnSync('zip', ['-q', '-r', 'a.zip', 'src'], { cwd: root }).status).toBe(0);
  expect(spawnSync('tar', ['czf', 'a.tgz', 'src'], { cwd: root }).status).toBe(0);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function counted(line: string): Promise<number> {
  syncs.n = 0;
  const r = await run(root, line);
  expect(r.error, JSON.stringify(r.error)).toBeUndefined();
  expect(r.exitCode, r.stderr).toBe(0);
  return syncs.n;
}

function same(dir: string): void {
  for (let i = 0; i < 20; i++) {
    expect(fs.readFileSync(path.join(root, dir, `src/sub/f${i}.txt`), 'utf8')).toBe(`file ${i}\n`.repeat(i + 1));
  }
}

describe('extraction of new files is not fsynced per file', () => {
  it('unzip -d of 20 new files: no fsync; unzip -o over them: each replaced file fsynced', async () => {
    expect(await counted('unzip -q a.zip -d u')).toBe(0);
    same('u');
    expect(fs.readdirSync(path.join(root, 'u'))).toEqual(['src']);
    fs.writeFileSync(path.join(root, 'u/src/sub/f3.txt'), 'changed\n');
    expect(await counted('unzip -q -o a.zip -d u')).toBe(20);
    same('u');
  });

  it('tar xzf of 20 new files: no fsync; again over them: each replaced file fsynced', async () => {
    fs.mkdirSync(path.join(root, 't'));
    expect(await counted('tar xzf a.tgz -C t')).toBe(0);
    same('t');
    expect(fs.readdirSync(path.join(root, 't'))).toEqual(['src']);
    expect(await counted('tar xzf a.tgz -C t')).toBe(20);
    same('t');
  });

  it('other writes still fsync (cp)', async () => {
    expect(await counted('cp a.zip b.zip')).toBe(1);
  });
});
