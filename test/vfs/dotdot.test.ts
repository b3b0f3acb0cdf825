// Defences 1 and 4: '..', absolute paths, odd segments, NUL bytes, over-long paths and names.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import { run } from '../helpers.js';
import { CANARY, MARK, SECRET, expectVfsError, guardLeaks, makeZone, markerEscaped, record, type Zone } from './fixture.js';

guardLeaks();

let z: Zone;
let before: Record<string, string>;
beforeEach(() => {
  z = makeZone();
  fs.mkdirSync(z.at('a/b/c'), { recursive: true });
  fs.writeFileSync(z.at('inside.txt'), 'inside\n');
  before = z.outsideSnapshot();
});

function assertOutsideUntouched(): void {
  expect(z.outsideSnapshot()).toEqual(before);
  expect(fs.readFileSync(path.join(z.base, 'canary.txt'), 'utf8')).toBe(CANARY);
  expect(markerEscaped(z.base)).toEqual([]);
}

const CLIMBS = [
  '../outside/secret.txt',
  '../../outside/secret.txt',
  '/../outside/secret.txt',
  '/../../../../outside/secret.txt',
  'a/../../outside/secret.txt',
  'a/b/c/../../../../outside/secret.txt',
  './../././../outside/secret.txt',
  '../'.repeat(1000) + 'outside/secret.txt',
  '/..'.repeat(1000) + '/outside/secret.txt',
  '../outside/secret.txt/',
  '..//..//outside//secret.txt',
];

describe('.. never rises above the root', () => {
  test('reads that climb land inside the root (ENOENT), never on the sibling secret', () => {
    const vfs = z.vfs();
    for (const p of CLIMBS) {
      expectVfsError(() => vfs.readFile(p), 'ENOENT');
      expectVfsError(() => vfs.readFile(p, '/a/b/c'), 'ENOENT');
      expectVfsError(() => vfs.stat(p), 'ENOENT');
      expect(vfs.exists(p)).toBe(false);
    }
    // with a decoy of the same name inside, every climb reads the decoy
    fs.mkdirSync(z.at('outside'));
    fs.writeFileSync(z.at('outside/secret.txt'), 'decoy inside');
    for (const p of CLIMBS) {
      if (p.endsWith('/')) {
        // 'file/' names a directory: the decoy is a file, so ENOTDIR (as open(2) says).
        expectVfsError(() => vfs.readFile(p), 'ENOTDIR');
        continue;
      }
      expect(vfs.resolve(p).vpath).toBe('/outside/secret.txt');
      expect(vfs.readFile(p).toString()).toBe('decoy inside');
    }
    assertOutsideUntouched();
  });

  test('a climb from a deep cwd clamps at the root', () => {
    const vfs = z.vfs();
    expect(vfs.resolve('../../../../..', '/a/b/c').vpath).toBe('/');
    expect(vfs.resolve('a/../../..').vpath).toBe('/');
    expect(vfs.resolve('x', '/../../..').vpath).toBe('/x');
    expect(vfs.resolve('../inside.txt', '/../../a').vpath).toBe('/inside.txt');
    expect(vfs.readFile('../../../inside.txt', '/a/b').toString()).toBe('inside\n');
  });

  test('"...." and "....//" are ordinary names, not climbs', () => {
    const vfs = z.vfs();
    expect(vfs.resolve('....//').vpath).toBe('/....');
    expectVfsError(() => vfs.readFile('....//outside/secret.txt'), 'ENOENT');
    vfs.mkdir('....');
    expect(vfs.resolve('..../../..../x').vpath).toBe('/..../x');
    vfs.writeFile('....//f', 'dots');
    expect(fs.readFileSync(z.at('..../f'), 'utf8')).toBe('dots');
    assertOutsideUntouched();
  });

  test('"." segments and trailing slashes stay where they are', () => {
    const vfs = z.vfs();
    expect(vfs.resolve('./a/./b/.//c/.').vpath).toBe('/a/b/c');
    expect(vfs.resolve('/./././').vpath).toBe('/');
    expect(vfs.resolve('a/b/c/').vpath).toBe('/a/b/c');
    expect(vfs.readdir('a/b/').map((e) => e.name)).toEqual(['c']);
  });

  test("'file/' names a directory: reads and stats are ENOTDIR, writes EISDIR, the file untouched", () => {
    const vfs = z.vfs();
    fs.writeFileSync(z.at('f.txt'), 'keep\n');
    for (const read of [() => vfs.readFile('f.txt/'), () => vfs.stat('f.txt/'), () => vfs.lstat('f.txt//'), () => vfs.openRandom('f.txt/')]) {
      expectVfsError(read, 'ENOTDIR');
    }
    for (const p of ['f.txt/', 'new/', 'a/new//']) expectVfsError(() => vfs.writeFile(p, 'lost'), 'EISDIR');
    expectVfsError(() => vfs.writeFile('f.txt/x', 'lost'), 'ENOTDIR');
    expect(fs.readFileSync(z.at('f.txt'), 'utf8')).toBe('keep\n');
    expect(fs.existsSync(z.at('new'))).toBe(false);
    // A link whose target is written 'f.txt/' (followed by policy) is not the file either.
    fs.symlinkSync('f.txt/', z.at('lk'));
    const follow = z.vfs({ followSymlinks: true });
    expectVfsError(() => follow.readFile('lk'), 'ENOTDIR');
    expect(follow.readFile('f.txt').toString()).toBe('keep\n');
  });

  test('writeFile that climbs writes inside the root, never beside it', () => {
    const vfs = z.vfs();
    vfs.writeFile(`../../${MARK}`, 'w1');
    vfs.writeFile(`/../../../${MARK}-2`, 'w2', '/a/b');
    vfs.writeFile(`${'../'.repeat(1000)}${MARK}-3`, 'w3', '/a/b/c');
    vfs.writeFile(`a/../../../canary.txt`, 'overwrite?');
    expect(fs.readFileSync(z.at(MARK), 'utf8')).toBe('w1');
    expect(fs.readFileSync(z.at(`${MARK}-2`), 'utf8')).toBe('w2');
    expect(fs.readFileSync(z.at(`${MARK}-3`), 'utf8')).toBe('w3');
    expect(fs.readFileSync(z.at('canary.txt'), 'utf8')).toBe('overwrite?');
    assertOutsideUntouched();
  });

  test('createWriter that climbs commits inside the root', () => {
    const vfs = z.vfs();
    // '../../outside' clamps to /outside, which does not exist inside: refused, nothing created
    expectVfsError(() => vfs.createWriter(`../../outside/${MARK}`, '/a'), 'ENOENT');
    const w = vfs.createWriter(`../../../../${MARK}-w`, '/a/b');
    w.write(Buffer.from('part1 '));
    w.write(Buffer.from('part2'));
    w.commit();
    expect(fs.readFileSync(z.at(`${MARK}-w`), 'utf8')).toBe('part1 part2');
    assertOutsideUntouched();
  });

  test('mkdir, rename and unlink that climb stay inside', () => {
    const vfs = z.vfs();
    vfs.mkdir(`../../${MARK}-d`, '/a/b');
    expect(fs.statSync(z.at(`${MARK}-d`)).isDirectory()).toBe(true);
    expectVfsError(() => vfs.mkdir('a/../../..'), 'EEXIST');
    expectVfsError(() => vfs.mkdir(`../../outside/${MARK}`), 'ENOENT');
    vfs.rename('/inside.txt', `../../../${MARK}-r`, '/a');
    expect(fs.readFileSync(z.at(`${MARK}-r`), 'utf8')).toBe('inside\n');
    expectVfsError(() => vfs.rename(`../canary.txt`, 'stolen'), 'ENOENT');
    expectVfsError(() => vfs.rename(`${MARK}-r`, '../../outside/secret.txt'), 'ENOENT');
    expectVfsError(() => vfs.unlink('../canary.txt'), 'ENOENT');
    expectVfsError(() => vfs.unlink('../../outside/secret.txt', '/a'), 'ENOENT');
    expectVfsError(() => vfs.rmdir('../outside'), 'ENOENT');
    expectVfsError(() => vfs.rmdir('a/../..'), 'EBUSY');
    expectVfsError(() => vfs.rename('/..', 'x'), 'EBUSY');
    assertOutsideUntouched();
    expect(fs.existsSync(z.root)).toBe(true);
  });

  test('through the runner: cat of climbing paths prints no secret', async () => {
    for (const p of ['../outside/secret.txt', '/../../outside/secret.txt', 'a/../../../outside/secret.txt', '../../canary.txt']) {
      const r = await run(z.root, `cat ${p}`, { cwd: '/a' });
      expect(r.exitCode).toBe(1);
      expect(r.stdout.toString()).not.toContain('SECRET');
      expect(r.stdout.toString()).not.toContain('canary');
      expect(r.stderr).toContain('No such file or directory');
      record(new Error(r.stderr));
    }
    const pwd = await run(z.root, 'pwd', { cwd: '/../../..' });
    expect(pwd.stdout.toString()).toBe('/\n');
  });
});

describe('NUL bytes, over-long paths and names', () => {
  test('a NUL byte anywhere is EINVAL for every operation, shown escaped', () => {
    const vfs = z.vfs();
    for (const p of ['a\0b', 'inside.txt\0', '\0', 'a/\0/../inside.txt', '../../outside/secret.txt\0.txt']) {
      const e = expectVfsError(() => vfs.readFile(p), 'EINVAL');
      expect(e.message).not.toContain('\0');
      expectVfsError(() => vfs.writeFile(p, 'x'), 'EINVAL');
      expectVfsError(() => vfs.createWriter(p), 'EINVAL');
      expectVfsError(() => vfs.mkdir(p), 'EINVAL');
      expectVfsError(() => vfs.stat(p), 'EINVAL');
      expectVfsError(() => vfs.lstat(p), 'EINVAL');
      expectVfsError(() => vfs.readdir(p), 'EINVAL');
      expectVfsError(() => vfs.unlink(p), 'EINVAL');
      expectVfsError(() => vfs.rmdir(p), 'EINVAL');
      expectVfsError(() => vfs.rename(p, 'x'), 'EINVAL');
      expectVfsError(() => vfs.rename('inside.txt', p), 'EINVAL');
      expect(vfs.exists(p)).toBe(false);
    }
    expect(fs.readFileSync(z.at('inside.txt'), 'utf8')).toBe('inside\n');
  });

  test('a NUL byte in the cwd is EINVAL too, not an I/O error', () => {
    const vfs = z.vfs();
    expectVfsError(() => vfs.readFile('inside.txt', '/a\0'), 'EINVAL');
    expectVfsError(() => vfs.writeFile('x', 'y', '/a\0b'), 'EINVAL');
  });

  test('a lone UTF-16 surrogate is EINVAL: it is not text, and every one would become the same U+FFFD name on disk', () => {
    const vfs = z.vfs();
    for (const p of ['\ud800', 'a/\udfffb', '\udc00\ud800', 'x\ud83d']) {
      const e = expectVfsError(() => vfs.writeFile(p, 'x'), 'EINVAL');
      expect(e.message).not.toMatch(/[\ud800-\udfff]/u);
      expectVfsError(() => vfs.readFile(p), 'EINVAL');
      expectVfsError(() => vfs.mkdir(p), 'EINVAL');
      expectVfsError(() => vfs.rename('inside.txt', p), 'EINVAL');
    }
    expectVfsError(() => vfs.readFile('inside.txt', '/a\ud800'), 'EINVAL');
    expect(fs.readdirSync(z.root).filter((n) => n.includes('\uFFFD'))).toEqual([]);
    vfs.writeFile('\ud83d\ude00.txt', 'pair');
    expect(vfs.readFile('😀.txt').toString()).toBe('pair');
  });

  test('a path over 4096 bytes is ENAMETOOLONG with a short message', () => {
    const vfs = z.vfs();
    const long = 'a/'.repeat(2049);
    for (const p of [long, '/' + 'x'.repeat(5000), '../'.repeat(2000) + 'x']) {
      const e = expectVfsError(() => vfs.readFile(p), 'ENAMETOOLONG');
      expect(e.message.length).toBeLessThan(200);
      expectVfsError(() => vfs.writeFile(p, 'x'), 'ENAMETOOLONG');
      expectVfsError(() => vfs.mkdir(p), 'ENAMETOOLONG');
    }
    // cwd + path may be long together: the resolved path is checked too
    const deep = '/' + 'd'.repeat(200) + '/';
    expectVfsError(() => vfs.resolve('x'.repeat(200), deep.repeat(21)), ['ENAMETOOLONG', 'ENOENT']);
  });

  test('a name over 255 bytes is ENAMETOOLONG (bytes, not characters)', () => {
    const vfs = z.vfs();
    for (const name of ['n'.repeat(256), 'é'.repeat(128), '😀'.repeat(64)]) {
      expectVfsError(() => vfs.writeFile(name, 'x'), 'ENAMETOOLONG');
      expectVfsError(() => vfs.readFile(`a/${name}`), 'ENAMETOOLONG');
      expectVfsError(() => vfs.mkdir(`a/b/${name}`), 'ENAMETOOLONG');
      expectVfsError(() => vfs.rename('inside.txt', name), 'ENAMETOOLONG');
    }
    vfs.writeFile('n'.repeat(255), 'max');
    expect(vfs.readFile('n'.repeat(255)).toString()).toBe('max');
  });

  test('through the runner: NUL and over-long paths become clean errors', async () => {
    const r1 = await run(z.root, `cat ${'n'.repeat(300)}`);
    expect(r1.exitCode).toBe(1);
    expect(r1.stderr).toContain('File name too long');
    const r2 = await run(z.root, `cat ${'a/'.repeat(2100)}`);
    expect(r2.exitCode).toBe(1);
    expect(r2.stderr).toContain('File name too long');
    record(new Error(r1.stderr + r2.stderr));
    expect(SECRET).toBeTruthy();
  });
});
