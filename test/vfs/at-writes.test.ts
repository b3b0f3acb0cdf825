// Changes relative to an open directory (Vfs.mkdirAt / createWriterAt / renameAt, used by unzip
// and tar -x): each keeps the checks of its path form. A symlink planted where a staged file is
// created, a destination that is a folder or a hard link, a blocked or hidden name, a folder
// moved out of the root: refused, nothing written outside. And a writer refused by the quota's
// file count before it opens anything gives its held folder back (it leaked a descriptor).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { Vfs, defaultPolicy, type DirHandle } from '../../src/vfs/index.js';
import { expectVfsError, makeZone, type Zone } from './fixture.js';

let z: Zone;
let v: Vfs;
let dir: DirHandle;
beforeEach(() => {
  z = makeZone();
  fs.mkdirSync(z.at('dest/sub'), { recursive: true });
  v = z.vfs({ blockedPatterns: ['.env'], allowedExtensions: ['.txt', ''] });
  dir = v.openDir('dest');
});
afterEach(() => dir.close());

describe('Vfs *At changes keep their checks', () => {
  test('a direct writer never writes through a symlink planted under its name', () => {
    fs.symlinkSync(path.join(z.base, 'outside', 'secret.txt'), z.at('dest/a.txt'));
    const before = z.outsideSnapshot();
    expectVfsError(() => v.createWriterAt(dir, 'a.txt', { direct: true }).writeAll([Buffer.from('x')]), 'EEXIST');
    expect(z.outsideSnapshot()).toEqual(before);
    expect(fs.lstatSync(z.at('dest/a.txt')).isSymbolicLink()).toBe(true);
  });

  test('a direct writer sets mode and times on the open file; abort removes it', () => {
    const w = v.createWriterAt(dir, 'm.txt', { direct: true, finalMode: 0o751, finalTime: 1_000_000_000 });
    w.write(Buffer.from('hello'));
    w.commit();
    const st = fs.statSync(z.at('dest/m.txt'));
    expect(st.mode & 0o777).toBe(0o751);
    expect(st.mtimeMs).toBe(1_000_000_000_000);
    const w2 = v.createWriterAt(dir, 'gone.txt', { direct: true });
    w2.write(Buffer.from('x'));
    w2.abort();
    expect(fs.existsSync(z.at('dest/gone.txt'))).toBe(false);
  });

  test('blocked and hidden names are refused by mkdirAt, createWriterAt and renameAt', () => {
    expectVfsError(() => v.mkdirAt(dir, '.env'), 'EBLOCKED');
    expectVfsError(() => v.createWriterAt(dir, '.env', { direct: true }), 'EBLOCKED');
    expectVfsError(() => v.createWriterAt(dir, 'x.sh', { direct: true }), 'EEXT');
    v.createWriterAt(dir, 'ok.txt', { direct: true }).writeAll([Buffer.from('ok')]);
    expectVfsError(() => v.renameAt(dir, 'ok.txt', dir, '.env'), 'EBLOCKED');
    expectVfsError(() => v.renameAt(dir, 'ok.txt', dir, 'ok.sh'), 'EEXT');
    expect(fs.readFileSync(z.at('dest/ok.txt'), 'utf8')).toBe('ok');
  });

  test('renameAt never replaces a folder or a hard-linked file, and moves only regular files', () => {
    fs.writeFileSync(z.at('dest/f.txt'), 'f');
    expectVfsError(() => v.renameAt(dir, 'f.txt', dir, 'sub'), 'EISDIR');
    fs.linkSync(path.join(z.base, 'outside', 'secret.txt'), z.at('dest/h.txt'));
    expectVfsError(() => v.renameAt(dir, 'f.txt', dir, 'h.txt'), 'EHARDLINK');
    expectVfsError(() => v.renameAt(dir, 'sub', dir, 'moved'), 'EISDIR');
    expect(fs.readFileSync(path.join(z.base, 'outside', 'secret.txt'), 'utf8')).toContain('TOP SECRET');
  });

  test('a held folder moved out of the root: nothing is made or moved there', () => {
    const sub = v.openDirAt(dir, 'sub');
    try {
      v.createWriterAt(dir, 's.txt', { direct: true }).writeAll([Buffer.from('s')]);
      fs.renameSync(z.at('dest/sub'), path.join(z.base, 'outside', 'sub'));
      const before = z.outsideSnapshot();
      expectVfsError(() => v.mkdirAt(sub, 'd'), 'EESCAPE');
      expectVfsError(() => v.renameAt(dir, 's.txt', sub, 's.txt'), 'EESCAPE');
      expectVfsError(() => v.createWriterAt(sub, 'w.txt', { direct: true }).writeAll([Buffer.from('w')]), 'EESCAPE');
      expect(z.outsideSnapshot()).toEqual(before);
    } finally {
      sub.close();
    }
  });

  test('a writer refused by the quota file count closes its held folder (no descriptor leaks)', () => {
    const counters = new BigInt64Array(new SharedArrayBuffer(16));
    const q = new Vfs(z.root, defaultPolicy({}), { counters, index: 0, limit: 1 << 30, maxFiles: 0, name: 'test' });
    const open = () => fs.readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 30; i++) expectVfsError(() => q.createWriter(`n${i}.txt`), 'EDQUOT');
    const held = q.openDir('dest');
    try {
      for (let i = 0; i < 30; i++) expectVfsError(() => q.createWriterAt(held, `n${i}.txt`, { direct: true }), 'EDQUOT');
    } finally {
      held.close();
    }
    expect(open() - before).toBeLessThan(5);
  });

  test('renameDirAt moves a folder only to a name that is free: never over a link, a file or a folder', () => {
    fs.mkdirSync(z.at('dest/sub/top/in'), { recursive: true });
    fs.writeFileSync(z.at('dest/sub/top/in/f.txt'), 'f');
    const sub = v.openDirAt(dir, 'sub');
    try {
      const before = z.outsideSnapshot();
      fs.symlinkSync(path.join(z.base, 'outside'), z.at('dest/top'));
      expectVfsError(() => v.renameDirAt(sub, 'top', dir, 'top'), 'EEXIST');
      expect(z.outsideSnapshot()).toEqual(before);
      fs.unlinkSync(z.at('dest/top'));
      fs.mkdirSync(z.at('dest/top'));
      expectVfsError(() => v.renameDirAt(sub, 'top', dir, 'top'), 'EEXIST'); // not even an empty folder
      fs.rmdirSync(z.at('dest/top'));
      fs.writeFileSync(z.at('dest/top'), 'x');
      expectVfsError(() => v.renameDirAt(sub, 'top', dir, 'top'), 'EEXIST');
      fs.unlinkSync(z.at('dest/top'));
      expectVfsError(() => v.renameDirAt(sub, 'top', dir, '.env'), 'EBLOCKED');
      fs.writeFileSync(z.at('dest/sub/file.txt'), 'x');
      expectVfsError(() => v.renameDirAt(sub, 'file.txt', dir, 'moved'), 'ENOTDIR');
      v.renameDirAt(sub, 'top', dir, 'top');
      expect(fs.readFileSync(z.at('dest/top/in/f.txt'), 'utf8')).toBe('f');
      expect(v.changes.at(-1)).toEqual({ op: 'rename', path: '/dest/sub/top', to: '/dest/top', delta: 0 });
    } finally {
      sub.close();
    }
  });

  test('renameDirAt refuses a folder name that anchors a multi-component blocked pattern', () => {
    const w = z.vfs({ blockedPatterns: ['.git/config'] });
    const d = w.openDir('dest');
    try {
      fs.mkdirSync(z.at('dest/sub/.git'), { recursive: true });
      const sub = w.openDirAt(d, 'sub');
      expectVfsError(() => w.renameDirAt(sub, '.git', d, '.git'), 'EBLOCKED');
      sub.close();
    } finally {
      d.close();
    }
  });
});
