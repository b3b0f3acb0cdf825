// zip -r and tar c/cz of a tree, counted by wrapping node:fs and node:zlib for the in-process
// runner: each walked file is opened through the walk's open folder (no lstat of it, no path
// resolution from the zone root), zip reuses one deflate context for every file (no zlib
// context made per file), the archive's bytes go out in large writes (not three or more per
// entry), and a new archive is not fsynced (a replaced one is). The archives are checked by the
// real unzip and GNU tar: names, modes (a mode of 0 included), times and contents.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run, tempDir } from '../helpers.js';

const calls = vi.hoisted(() => ({ counts: new Map<string, number>() }));
const count = (name: string) => calls.counts.set(name, (calls.counts.get(name) ?? 0) + 1);
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const counted = <F extends (...a: never[]) => unknown>(name: string, f: F): F => ((...a: never[]) => {
    count(name);
    return f(...a);
  }) as F;
  const wrapped = {
    lstatSync: counted('lstat', real.lstatSync),
    statSync: counted('stat', real.statSync),
    writeSync: counted('write', real.writeSync),
    fsyncSync: counted('fsync', real.fsyncSync),
  };
  return { ...real, ...wrapped, default: { ...real, ...wrapped } };
});
vi.mock('node:zlib', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:zlib')>();
  const counted = <F extends (...a: never[]) => unknown>(name: string, f: F): F => ((...a: never[]) => {
    count(name);
    return f(...a);
  }) as F;
  const wrapped = {
    deflateRawSync: counted('zlib context', real.deflateRawSync),
    createDeflateRaw: counted('zlib context', real.createDeflateRaw),
  };
  return { ...real, ...wrapped, default: { ...real, ...wrapped } };
});

const FILES = 40;
const DEEP = 'src/a/b/c/d';
const MTIME = new Date('2021-03-04T05:06:08Z');
const root = tempDir('nosh-ccalls-');
beforeAll(() => {
  fs.mkdirSync(path.join(root, DEEP), { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const f = path.join(root, DEEP, `f${i}.txt`);
    fs.writeFileSync(f, `file ${i} `.repeat(40 * (i + 1)));
    fs.chmodSync(f, i === 0 ? 0 : i % 2 ? 0o755 : 0o640);
    fs.utimesSync(f, MTIME, MTIME);
  }
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function counted(line: string): Promise<Map<string, number>> {
  calls.counts.clear();
  const r = await run(root, line);
  expect(r.error, JSON.stringify(r.error)).toBeUndefined();
  expect(r.exitCode, r.stderr).toBe(0);
  return new Map(calls.counts);
}

const n = (c: Map<string, number>, k: string) => c.get(k) ?? 0;

/** The files as the real tool extracted them into `dir`: same bytes, modes and times. */
function same(dir: string): void {
  for (let i = 0; i < FILES; i++) {
    const f = path.join(dir, DEEP, `f${i}.txt`);
    expect(fs.readFileSync(f, 'utf8')).toBe(`file ${i} `.repeat(40 * (i + 1)));
    expect(fs.statSync(f).mtime.getTime()).toBe(MTIME.getTime());
  }
}

describe('zip -r of a new archive', () => {
  it('opens each file through the walk (under one lstat a file), one deflate context, few writes, no fsync', async () => {
    const c = await counted('zip -q -r z.zip src');
    expect((n(c, 'lstat') + n(c, 'stat')) / FILES).toBeLessThan(1);
    expect(n(c, 'zlib context')).toBeLessThanOrEqual(1);
    expect(n(c, 'write')).toBeLessThanOrEqual(2);
    expect(n(c, 'fsync')).toBe(0);
    expect(spawnSync('unzip', ['-tq', 'z.zip'], { cwd: root }).status).toBe(0);
    const x = path.join(root, 'zx');
    expect(spawnSync('unzip', ['-q', 'z.zip', '-d', x], { cwd: root }).status).toBe(0);
    same(x);
    const v = spawnSync('zipinfo', ['z.zip'], { cwd: root, encoding: 'utf8' }).stdout;
    expect(v).toMatch(/^-rwxr-xr-x .* src\/a\/b\/c\/d\/f1\.txt$/m);
    expect(v).toMatch(/^-rw-r----- .* src\/a\/b\/c\/d\/f2\.txt$/m);
  });
});

describe('tar c and cz', () => {
  it('tar czf: each file through the walk, large writes, no fsync for a new archive, one for a replaced one', async () => {
    const c = await counted('tar czf t.tgz src');
    expect((n(c, 'lstat') + n(c, 'stat')) / FILES).toBeLessThan(1);
    expect(n(c, 'write')).toBeLessThanOrEqual(3); // gzip's header, the deflated block, its trailer
    expect(n(c, 'fsync')).toBe(0);
    expect(spawnSync('gzip', ['-t', 't.tgz'], { cwd: root }).status).toBe(0);
    const x = path.join(root, 'tx');
    fs.mkdirSync(x);
    expect(spawnSync('tar', ['xzf', 't.tgz', '-C', x], { cwd: root }).status).toBe(0);
    same(x);
    const replaced = await counted('tar czf t.tgz src');
    expect(n(replaced, 'fsync')).toBe(1);
  });

  it('tar cf: modes as they are (0 included) and times, as GNU tar lists them', async () => {
    await counted('tar cf t.tar src');
    const v = spawnSync('tar', ['tvf', 't.tar'], { cwd: root, encoding: 'utf8', env: { ...process.env, TZ: 'UTC' } }).stdout;
    expect(v).toMatch(/^---------- \S+\s+\d+ 2021-03-04 05:06 src\/a\/b\/c\/d\/f0\.txt$/m);
    expect(v).toMatch(/^-rwxr-xr-x \S+\s+\d+ 2021-03-04 05:06 src\/a\/b\/c\/d\/f1\.txt$/m);
    expect(v).toMatch(/^-rw-r----- \S+\s+\d+ 2021-03-04 05:06 src\/a\/b\/c\/d\/f2\.txt$/m);
    expect(v).toMatch(/^drwx\S+ \S+\s+0 \S+ \S+ src\/a\/$/m);
    expect(v.trim().split('\n')).toHaveLength(FILES + 5);
  });
});
