import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, test } from 'vitest';
import { run, runArgv } from '../helpers.js';
import { zone } from './fileops-fixture.js';
import { fnmatchRegExp } from '../../src/gnulib/fnmatch.js';
import { emacsToBasic } from '../../commands/find/regex.js';
import { findMutates } from '../../commands/find/parse.js';

const lines = (b: Buffer) => b.toString('latin1').split('\n').filter((l) => l !== '');

describe('find: refused actions', () => {
  for (const action of ['-exec', '-execdir', '-ok', '-okdir']) {
    test(`${action} is refused with exit 2 and says what to do instead`, async () => {
      const z = zone({ 'a.txt': 'x' });
      const r = await run(z.root, `find . -name a.txt ${action} rm {} ';'`);
      expect(r.error).toBeUndefined();
      expect(r.exitCode).toBe(2);
      expect(r.stdout.length).toBe(0);
      expect(r.stderr).toContain(`find: ${action} is not supported: nosh runs no other program`);
      expect(r.stderr).toContain('second call');
      expect(fs.existsSync(z.at('a.txt'))).toBe(true);
    });
  }

  for (const action of ['-fprint', '-fprint0', '-fprintf', '-fls']) {
    test(`${action} is refused (find writes no files)`, async () => {
      const z = zone({ 'a.txt': 'x' });
      const r = await runArgv(z.root, ['find', '.', action, 'out.txt', '%p']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^find: ${action} is not supported: nosh find writes no files`));
      expect(fs.existsSync(z.at('out.txt'))).toBe(false);
    });
  }
});

describe('find: zone policy', () => {
  test('-delete in a read-only zone is refused up front (ZONE_READONLY), nothing is deleted', async () => {
    const z = zone({ 'a.txt': 'x', 'd/b.txt': 'y' });
    const r = await run(z.root, "find . -name '*.txt' -delete", { policy: { readonly: true } });
    expect(r.error?.code).toBe('ZONE_READONLY');
    expect(fs.existsSync(z.at('a.txt'))).toBe(true);
    expect(fs.existsSync(z.at('d/b.txt'))).toBe(true);
  });

  test('a read-only zone still allows find without -delete', async () => {
    const z = zone({ 'a.txt': 'x' });
    const r = await run(z.root, 'find . -name a.txt', { policy: { readonly: true } });
    expect(r.error).toBeUndefined();
    expect(r.stdout.toString()).toBe('./a.txt\n');
  });

  test('mutates only when -delete is a predicate', () => {
    expect(findMutates(['.', '-delete'])).toBe(true);
    expect(findMutates(['.', '-name', 'x'])).toBe(false);
    expect(findMutates(['.', '-name', '-delete'])).toBe(false);
  });

  test('a symlink out of the zone is listed as a link and never followed', async () => {
    const z = zone({ 'a.txt': 'x' });
    fs.symlinkSync(z.outside, z.at('out'));
    fs.symlinkSync(path.join(z.outside, 'keep.txt'), z.at('outfile'));
    const all = await run(z.root, 'find .');
    expect(lines(all.stdout).sort()).toEqual(['.', './a.txt', './out', './outfile']);
    expect(all.stdout.toString()).not.toContain('keep.txt');
    const links = await run(z.root, 'find . -type l');
    expect(lines(links.stdout).sort()).toEqual(['./out', './outfile']);
    const dirs = await run(z.root, 'find . -type d');
    expect(lines(dirs.stdout)).toEqual(['.']);
    // Nothing of the host path leaks through -ls, %l or %Y.
    const ls = await run(z.root, 'find . -type l -ls -printf "%l %Y\\n"');
    expect(ls.stdout.toString()).not.toContain(z.outside);
    expect(ls.stdout.toString()).toContain('(outside the zone) N');
    // Descending through it as a starting point is refused, not followed.
    const through = await run(z.root, 'find out/');
    expect(through.stdout.toString()).toBe('');
    expect(through.exitCode).toBe(1);
  });

  test('-L is refused where the zone does not follow symlinks', async () => {
    const z = zone({ 'a.txt': 'x' });
    for (const cmd of ['find -L .', 'find -H .', 'find . -follow']) {
      const r = await run(z.root, cmd);
      expect(r.exitCode, cmd).toBe(1);
      expect(r.stderr, cmd).toMatch(/is not allowed here: this zone does not follow symbolic links/);
      expect(r.stdout.length).toBe(0);
    }
  });

  test('-L follows links inside the zone (when allowed), never out of it', async () => {
    const z = zone({ 'd/f.txt': 'x' });
    fs.symlinkSync('d', z.at('dl'));
    fs.symlinkSync(z.outside, z.at('out'));
    const r = await run(z.root, 'find -L . -type d', { policy: { followSymlinks: true } });
    expect(lines(r.stdout).sort()).toEqual(['.', './d', './dl']);
    const f = await run(z.root, 'find -L . -type f', { policy: { followSymlinks: true } });
    expect(lines(f.stdout).sort()).toEqual(['./d/f.txt', './dl/f.txt']);
    const l = await run(z.root, 'find -L . -type l', { policy: { followSymlinks: true } });
    expect(lines(l.stdout)).toEqual(['./out']);
  });

  test('-L stops at a file system loop', async () => {
    const z = zone({ 'd/f': 'x' });
    fs.symlinkSync('..', z.at('d/up'));
    const r = await run(z.root, 'find -L d', { policy: { followSymlinks: true } });
    expect(lines(r.stdout)).toContain('d/f');
    expect(r.stderr).toMatch(/File system loop detected/);
    expect(r.exitCode).toBe(1);
  });

  // Expected outputs recorded from GNU findutils 4.9 (find -L / -H need a zone that follows links).
  test('-L and -H: a loop of links is an error and is not evaluated; a dangling link is the link', async () => {
    const z = zone({ 'lp/f': '', 'ls/f': '' });
    fs.symlinkSync('loop', z.at('lp/loop'));
    fs.symlinkSync('nope', z.at('lp/dang'));
    fs.symlinkSync('.', z.at('ls/self'));
    const policy = { followSymlinks: true };
    const a = await run(z.root, 'find -L lp', { policy });
    expect(lines(a.stdout).sort()).toEqual(['lp', 'lp/dang', 'lp/f']);
    expect(a.stderr).toBe("find: 'lp/loop': Too many levels of symbolic links\n");
    expect(a.exitCode).toBe(1);
    const b = await run(z.root, 'find -L ls/self -maxdepth 1 -name self', { policy });
    expect(b.stdout.toString()).toBe('ls/self\n');
    expect(b.stderr).toBe("find: File system loop detected; 'ls/self/self' is part of the same file system loop as 'ls/self'.\n");
    expect(b.exitCode).toBe(1);
    const c = await run(z.root, "find -H lp/dang lp/loop -printf '%y %Y %p\\n'", { policy });
    expect(c.stdout.toString()).toBe('l N lp/dang\n');
    expect(c.stderr).toBe("find: 'lp/loop': Too many levels of symbolic links\n");
    expect(c.exitCode).toBe(1);
    const d = await run(z.root, 'find -L lp/dang lp/nope', { policy });
    expect(d.stdout.toString()).toBe('lp/dang\n');
    expect(d.stderr).toBe("find: 'lp/nope': No such file or directory\n");
    expect(d.exitCode).toBe(1);
  });

  test('a blocked .env is never listed, matched or counted', async () => {
    const z = zone({ '.env': 'SECRET=1', 'app/.env': 'SECRET=2', 'app/main.js': 'x', 'only/.env': 's' });
    const policy = { blockedPatterns: ['.env'] };
    const all = await run(z.root, 'find .', { policy });
    expect(all.stdout.toString()).not.toContain('.env');
    const named = await run(z.root, "find . -name '.env*'", { policy });
    expect(named.stdout.toString()).toBe('');
    const empty = await run(z.root, 'find only -empty', { policy });
    expect(empty.stdout.toString()).toBe('only\n');
    const direct = await run(z.root, 'find .env', { policy });
    expect(direct.stdout.toString()).toBe('');
    expect(direct.exitCode).toBe(1);
    expect(direct.stderr).toMatch(/^find: '\.env': /);
  });
});

describe('find: output order and depth', () => {
  test('directories are listed in byte order, pre-order; -depth is post-order', async () => {
    const z = zone({ 'b/x': '1', 'a.txt': '1', 'a/y': '1', B: null });
    const r = await run(z.root, 'find .');
    expect(lines(r.stdout)).toEqual(['.', './B', './a', './a/y', './a.txt', './b', './b/x']);
    const d = await run(z.root, 'find . -depth');
    expect(lines(d.stdout)).toEqual(['./B', './a/y', './a', './a.txt', './b/x', './b', '.']);
  });

  test('-delete removes depth first and reports what it cannot delete', async () => {
    const z = zone({ 'd/e/f': '1', 'd/g': '1', keep: '1' });
    const r = await run(z.root, 'find d -delete');
    expect(r.exitCode).toBe(0);
    expect(fs.existsSync(z.at('d'))).toBe(false);
    expect(fs.existsSync(z.at('keep'))).toBe(true);
    const z2 = zone({ 'd/e/f': '1' });
    const r2 = await run(z2.root, 'find d -name d -delete');
    expect(r2.exitCode).toBe(1);
    expect(r2.stderr).toBe("find: cannot delete 'd': Directory not empty\n");
  });
});

describe('find: a big tree', () => {
  test('30 000 files are walked and printed completely', async () => {
    const z = zone();
    for (let d = 0; d < 30; d++) {
      const dir = z.at(`d${d}`);
      fs.mkdirSync(dir);
      for (let f = 0; f < 1000; f++) fs.writeFileSync(path.join(dir, `f${f}.txt`), '');
    }
    const r = await run(z.root, "find . -name '*.txt'", { maxOutputBytes: 10_000_000 });
    expect(r.exitCode).toBe(0);
    const out = lines(r.stdout);
    expect(out.length).toBe(30000);
    expect(out[0]).toBe('./d0/f0.txt');
    const c = await run(z.root, 'find . -type f -size -1 -printf %s', { maxOutputBytes: 10_000_000 });
    expect(c.stdout.length).toBe(30000);
  }, 60_000);
});

describe('find: helpers', () => {
  test('fnmatch without FNM_PATHNAME: * and ? match /', () => {
    expect(fnmatchRegExp('./a*c')!.test('./a/b/c')).toBe(true);
    expect(fnmatchRegExp('a?b')!.test('a/b')).toBe(true);
    expect(fnmatchRegExp('*.txt')!.test('.hidden.txt')).toBe(true);
    expect(fnmatchRegExp('[]a]')!.test(']')).toBe(true);
    expect(fnmatchRegExp('[!a]')!.test('a')).toBe(false);
    expect(fnmatchRegExp('[^a]')!.test('b')).toBe(true);
    expect(fnmatchRegExp('[a-')!.test('[a-')).toBe(true);
    expect(fnmatchRegExp('\\*')!.test('*')).toBe(true);
    expect(fnmatchRegExp('x\\')).toBeNull();
    expect(fnmatchRegExp('[[:upper:]]*')!.test('Abc')).toBe(true);
    expect(fnmatchRegExp('[[:nope:]]')).toBeNull();
    expect(fnmatchRegExp('A*', true)!.test('abc')).toBe(true);
  });

  test('emacs regex syntax maps to GNU BRE', () => {
    expect(emacsToBasic('a+b?')).toBe('a\\+b\\?');
    expect(emacsToBasic('a\\+\\?')).toBe('a+?');
    expect(emacsToBasic('\\(a\\|b\\)')).toBe('\\(a\\|b\\)');
    expect(emacsToBasic('[+?]x{2}')).toBe('[+?]x{2}');
  });
});
