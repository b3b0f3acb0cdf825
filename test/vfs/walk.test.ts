// Defence 10: the walking API (Vfs.openDir / openDirAt / lstatAt / openReadAt / readChunksAt).
// Children are reached relative to an open, verified directory (/proc/self/fd/N/name), so
// only the last component is checked per child. These tests try to break each check the
// walk keeps: a directory handle whose directory is swapped or moved out after opening,
// children of every type (symlinks in all flavours, FIFOs, sockets, devices, hard links),
// blocked names (memoized per name: multi-component patterns must still bite), hidden
// extensions, hostile child names, a child replaced between its lstat and its open, the
// fallback past 128 open directories, and followSymlinks. child_process is set-up only.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { DirHandle, Vfs } from '../../src/vfs/vfs.js';
import { DEFAULT_BLOCKED_PATTERNS } from '../../src/vfs/index.js';
import { setMemoryBudget } from '../../src/runtime/memory.js';
import { NoshError } from '../../src/errors.js';
import { CANARY, SECRET, expectVfsError, guardLeaks, hookOnce, makeZone, record, withinMs, type Zone } from './fixture.js';

guardLeaks();

const handles: DirHandle[] = [];
afterEach(() => {
  for (const h of handles.splice(0)) h.close();
});
/** Remember a handle so it is closed even when the test fails (the open-dir count is per worker). */
function keep(h: DirHandle): DirHandle {
  handles.push(h);
  return h;
}
const fdOf = (h: DirHandle) => (h as unknown as { fd: number }).fd;

let z: Zone;
let outside: string;
let before: Record<string, string>;
beforeEach(() => {
  z = makeZone();
  outside = path.join(z.base, 'outside');
  fs.mkdirSync(z.at('d'));
  fs.writeFileSync(z.at('d/f.txt'), 'inside\n');
  fs.mkdirSync(z.at('d/sub'));
  fs.writeFileSync(z.at('d/sub/g.txt'), 'inside g\n');
  // Same names outside, so a walk that lands outside would find them.
  fs.writeFileSync(path.join(outside, 'f.txt'), SECRET);
  fs.mkdirSync(path.join(outside, 'sub'));
  fs.writeFileSync(path.join(outside, 'sub', 'g.txt'), SECRET);
  fs.writeFileSync(path.join(outside, 'only-outside.txt'), SECRET);
  before = z.outsideSnapshot();
});

/** Remove a tree deeper than PATH_MAX, one level at a time through /proc/self/fd. */
function rmDeep(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    const at = `/proc/self/fd/${fd}`;
    for (const name of fs.readdirSync(at)) {
      if (fs.lstatSync(`${at}/${name}`).isDirectory()) rmDeep(`${at}/${name}`);
      else fs.unlinkSync(`${at}/${name}`);
    }
  } finally {
    fs.closeSync(fd);
  }
  fs.rmdirSync(dir);
}

/**
 * Move zone directory `name` into base/deep/xxx.../xxx... (more than PATH_MAX bytes below
 * the host root, built relative to fds as a host attacker can), with `plant` written into it
 * there. Remove the result with rmDeep(base/deep).
 */
function moveDeeperThanPathMax(name: string, plant?: string): void {
  const seg = 'x'.repeat(200);
  fs.mkdirSync(path.join(z.base, 'deep'));
  let dfd = fs.openSync(path.join(z.base, 'deep'), 'r');
  try {
    for (let i = 0; i < 25; i++) {
      fs.mkdirSync(`/proc/self/fd/${dfd}/${seg}`);
      const next = fs.openSync(`/proc/self/fd/${dfd}/${seg}`, 'r');
      fs.closeSync(dfd);
      dfd = next;
    }
    fs.renameSync(z.at(name), `/proc/self/fd/${dfd}/${name}`);
    if (plant !== undefined) fs.writeFileSync(`/proc/self/fd/${dfd}/${name}/${plant}`, SECRET);
  } finally {
    fs.closeSync(dfd);
  }
}

function readAll(vfs: Vfs, h: DirHandle, name: string): string {
  return Buffer.concat([...vfs.readChunksAt(h, name)]).toString('utf8');
}

function assertOutsideUntouched(): void {
  expect(z.outsideSnapshot()).toEqual(before);
  expect(fs.readFileSync(path.join(z.base, 'canary.txt'), 'utf8')).toBe(CANARY);
}

describe('the directory of an open handle is swapped or moved', () => {
  test('swapped for a symlink to outside after openDir: children are those of the opened directory, never outside ones', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    const insideIno = fs.statSync(z.at('d/f.txt')).ino;
    // The real directory goes elsewhere INSIDE the zone; d becomes a link to outside.
    fs.renameSync(z.at('d'), z.at('kept'));
    fs.symlinkSync(outside, z.at('d'));
    expect(readAll(vfs, h, 'f.txt')).toBe('inside\n');
    expect(vfs.lstatAt(h, 'f.txt')?.ino).toBe(insideIno);
    expect(vfs.lstatAt(h, 'only-outside.txt')).toBeNull();
    expect(h.entries().map((e) => e.name).sort()).toEqual(['f.txt', 'sub']);
    const sub = keep(vfs.openDirAt(h, 'sub'));
    expect(readAll(vfs, sub, 'g.txt')).toBe('inside g\n');
    // A fresh openDir on the path sees the link and refuses it.
    expectVfsError(() => vfs.openDir('d'), ['ESYMLINK', 'ENOTDIR']);
    assertOutsideUntouched();
  });

  test('swapped for a symlink to outside, the real directory moved out of the root: every child access through the old handle refuses', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    fs.renameSync(z.at('d'), path.join(z.base, 'aside'));
    fs.symlinkSync(outside, z.at('d'));
    expectVfsError(() => vfs.openReadAt(h, 'f.txt'), 'EESCAPE');
    expectVfsError(() => [...vfs.readChunksAt(h, 'f.txt')], 'EESCAPE');
    expectVfsError(() => vfs.openDirAt(h, 'sub'), 'EESCAPE');
    expectVfsError(() => h.entries(), 'EESCAPE');
    // and never the outside namesakes
    expectVfsError(() => vfs.openReadAt(h, 'only-outside.txt'), ['ENOENT', 'EESCAPE']);
  });

  test('moved out of the root after openDir: reads, sub-directories and listing refuse (fd location check)', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    const sub = keep(vfs.openDirAt(h, 'sub'));
    fs.renameSync(z.at('d'), path.join(outside, 'moved'));
    expectVfsError(() => vfs.openReadAt(h, 'f.txt'), 'EESCAPE');
    expectVfsError(() => vfs.openReadAt(sub, 'g.txt'), 'EESCAPE');
    expectVfsError(() => vfs.openDirAt(h, 'sub'), 'EESCAPE');
    expectVfsError(() => h.entries(), 'EESCAPE');
    expectVfsError(() => sub.entries(), 'EESCAPE');
    // moved back: works again (the check is where it is now, not a sticky flag)
    fs.renameSync(path.join(outside, 'moved'), z.at('d'));
    expect(readAll(vfs, sub, 'g.txt')).toBe('inside g\n');
  });

  test('moved out to a place deeper than PATH_MAX (readlink of /proc/self/fd fails): still refused', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    moveDeeperThanPathMax('d', 'planted.txt');
    try {
      // Still refused; said as what it is (issue 17 §5): too deep, not a path leaving the zone.
      expectVfsError(() => vfs.openReadAt(h, 'f.txt'), 'ETOODEEP');
      expectVfsError(() => vfs.openReadAt(h, 'planted.txt'), 'ETOODEEP');
      expectVfsError(() => vfs.openDirAt(h, 'sub'), 'ETOODEEP');
      expectVfsError(() => h.entries(), 'ETOODEEP');
    } finally {
      rmDeep(path.join(z.base, 'deep')); // rmSync fails past PATH_MAX
    }
  });

  test('the root itself: openDir("/") then the root is never left through a child name', () => {
    const vfs = z.vfs();
    const root = keep(vfs.openDir('/'));
    for (const name of ['..', '../outside', '../root-evil', 'd/../..']) {
      expectVfsError(() => vfs.openDirAt(root, name), 'EINVAL');
      expectVfsError(() => vfs.openReadAt(root, name), 'EINVAL');
      expectVfsError(() => vfs.lstatAt(root, name), 'EINVAL');
    }
  });
});

describe('the same fail-closed location check guards the atomic writer', () => {
  test('a folder swapped, just before the temp file is created, for a link to an outside folder deeper than PATH_MAX: nothing lands outside', () => {
    const seg = 'y'.repeat(200);
    fs.mkdirSync(path.join(z.base, 'deep'));
    let dfd = fs.openSync(path.join(z.base, 'deep'), 'r');
    let deepHost = path.join(z.base, 'deep');
    for (let i = 0; i < 25; i++) {
      fs.mkdirSync(`/proc/self/fd/${dfd}/${seg}`);
      const next = fs.openSync(`/proc/self/fd/${dfd}/${seg}`, 'r');
      fs.closeSync(dfd);
      dfd = next;
      deepHost += '/' + seg;
    }
    // A symlink whose target is > PATH_MAX cannot be followed; chain links of short targets instead.
    fs.symlinkSync(`/proc/self/fd/${dfd}`, path.join(z.base, 'hop')); // resolves only while dfd is open, in this process
    const vfs = z.vfs();
    try {
      hookOnce('openSync', () => {
        fs.renameSync(z.at('d'), path.join(z.base, 'aside'));
        fs.symlinkSync(path.join(z.base, 'hop'), z.at('d'));
      }, (p) => typeof p === 'string' && p.includes('.nosh-tmp-'));
      // The writer holds d's folder (moved aside, still inside): it never follows the new link;
      // the folder's location has changed since it was checked, so the write is refused.
      expectVfsError(() => vfs.writeFile('d/new.txt', 'escaped?'), ['ETOODEEP', 'EESCAPE']);
      expect(fs.readdirSync(`/proc/self/fd/${dfd}`)).toEqual([]);
    } finally {
      fs.closeSync(dfd);
      rmDeep(path.join(z.base, 'deep'));
    }
    expect(deepHost.length).toBeGreaterThan(4096);
  });
});

describe('children of every kind', () => {
  beforeEach(() => {
    fs.symlinkSync(path.join(outside, 'f.txt'), z.at('d/abs-file'));
    fs.symlinkSync(outside, z.at('d/abs-dir'));
    fs.symlinkSync('../../outside/f.txt', z.at('d/rel-out'));
    fs.symlinkSync(`${z.root}-evil/secret.txt`, z.at('d/evil'));
    fs.symlinkSync('f.txt', z.at('d/in-file'));
    fs.symlinkSync('sub', z.at('d/in-dir'));
    fs.symlinkSync('nowhere', z.at('d/dangling'));
    fs.symlinkSync('loop', z.at('d/loop'));
    execFileSync('mkfifo', [z.at('d/fifo')]);
    execFileSync('mknod', [z.at('d/null'), 'c', '1', '3']);
    execFileSync('mknod', [z.at('d/zero'), 'c', '1', '5']);
    execFileSync('mknod', [z.at('d/blk'), 'b', '7', '0']);
    before = z.outsideSnapshot();
  });

  const LINKS = ['abs-file', 'abs-dir', 'rel-out', 'evil', 'in-file', 'in-dir', 'dangling', 'loop'];

  test('symlinks (outside, inside, dangling, loop) are never followed by openReadAt / openDirAt; lstatAt sees the link', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    for (const name of LINKS) {
      expect(vfs.lstatAt(h, name)?.isSymbolicLink(), name).toBe(true);
      expectVfsError(() => vfs.openReadAt(h, name), 'ESYMLINK');
      expectVfsError(() => [...vfs.readChunksAt(h, name)], 'ESYMLINK');
      expectVfsError(() => vfs.openDirAt(h, name), 'ESYMLINK');
    }
    const types = Object.fromEntries(h.entries().map((e) => [e.name, e.type]));
    for (const name of LINKS) expect(types[name]).toBe('symlink');
    assertOutsideUntouched();
  });

  test('followSymlinks: inside links are read (full resolution), outside / dangling / loops refused; openDirAt never follows', () => {
    const vfs = z.vfs({ followSymlinks: true });
    const h = keep(vfs.openDir('d'));
    expect(readAll(vfs, h, 'in-file')).toBe('inside\n');
    expectVfsError(() => vfs.openReadAt(h, 'in-dir'), 'EISDIR');
    for (const name of ['abs-file', 'rel-out', 'evil']) expectVfsError(() => vfs.openReadAt(h, name), 'EESCAPE');
    expectVfsError(() => vfs.openReadAt(h, 'abs-dir'), 'EESCAPE');
    expectVfsError(() => vfs.openReadAt(h, 'dangling'), 'ENOENT');
    expectVfsError(() => vfs.openReadAt(h, 'loop'), 'ELOOP');
    for (const name of LINKS) expectVfsError(() => vfs.openDirAt(h, name), 'ESYMLINK');
    // Walkers open a followed link with openDir(path): inside only.
    const inDir = keep(vfs.openDir('d/in-dir'));
    expect(readAll(vfs, inDir, 'g.txt')).toBe('inside g\n');
    expectVfsError(() => vfs.openDir('d/abs-dir'), 'EESCAPE');
    expectVfsError(() => vfs.openDir('d/rel-out'), ['EESCAPE', 'ENOTDIR']);
    expectVfsError(() => vfs.openDir('d/loop'), 'ELOOP');
    assertOutsideUntouched();
  });

  test('followSymlinks: an inside link to a blocked or hidden file is refused through the walk too', () => {
    fs.writeFileSync(z.at('d/.env'), 'API_KEY=1\n');
    fs.writeFileSync(z.at('d/run.sh'), 'echo\n');
    fs.symlinkSync('.env', z.at('d/env-link.txt'));
    fs.symlinkSync('run.sh', z.at('d/sh-link.txt'));
    const vfs = z.vfs({ followSymlinks: true, blockedPatterns: DEFAULT_BLOCKED_PATTERNS, allowedExtensions: ['.txt'] });
    const h = keep(vfs.openDir('d'));
    expectVfsError(() => vfs.openReadAt(h, 'env-link.txt'), 'EBLOCKED');
    expectVfsError(() => vfs.openReadAt(h, 'sh-link.txt'), 'EEXT');
  });

  test('FIFOs, character and block devices are refused without blocking, in fd mode and with followSymlinks', async () => {
    for (const policy of [{}, { followSymlinks: true }]) {
      const vfs = z.vfs(policy);
      const h = keep(vfs.openDir('d'));
      await withinMs(2000, () => {
        for (const name of ['fifo', 'null', 'zero', 'blk']) {
          expect(vfs.lstatAt(h, name)?.isFile(), name).toBe(false);
          expectVfsError(() => vfs.openReadAt(h, name), 'ESPECIAL');
          expectVfsError(() => [...vfs.readChunksAt(h, name)], 'ESPECIAL');
          expectVfsError(() => vfs.openDirAt(h, name), 'ENOTDIR');
        }
      });
      expect(h.entries().filter((e) => ['fifo', 'null', 'zero', 'blk'].includes(e.name)).every((e) => e.type === 'other')).toBe(true);
    }
  });

  test('a socket child is refused', async () => {
    const sock = z.at('d/sock');
    const server = net.createServer(() => {});
    await new Promise<void>((res) => server.listen(sock, res));
    try {
      const vfs = z.vfs();
      const h = keep(vfs.openDir('d'));
      expect(vfs.lstatAt(h, 'sock')?.isSocket()).toBe(true);
      expectVfsError(() => vfs.openReadAt(h, 'sock'), 'ESPECIAL');
      expectVfsError(() => vfs.openDirAt(h, 'sock'), 'ENOTDIR');
    } finally {
      await new Promise<void>((res) => server.close(() => res()));
    }
  });

  test('a child hard-linked to an outside file is read (allowed) and nothing is written through it', () => {
    const out = path.join(outside, 'hard.txt');
    fs.writeFileSync(out, 'shared inode\n');
    fs.chmodSync(out, 0o600);
    fs.linkSync(out, z.at('d/hard.txt'));
    before = z.outsideSnapshot();
    const st0 = fs.statSync(out);
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    expect(vfs.lstatAt(h, 'hard.txt')?.nlink).toBe(2);
    expect(readAll(vfs, h, 'hard.txt')).toBe('shared inode\n');
    const { fd } = vfs.openReadAt(h, 'hard.txt');
    try {
      expect(() => fs.writeSync(fd, 'pwned')).toThrow(); // opened read-only
    } finally {
      fs.closeSync(fd);
    }
    const st1 = fs.statSync(out);
    expect([st1.mtimeMs, st1.ctimeMs, st1.mode, st1.nlink, st1.size]).toEqual([st0.mtimeMs, st0.ctimeMs, st0.mode, st0.nlink, st0.size]);
    expect(vfs.changes).toEqual([]);
    assertOutsideUntouched();
  });
});

describe('blocked names and extensions through the walk', () => {
  beforeEach(() => {
    fs.writeFileSync(z.at('.env'), 'SECRET_ENV=1\n');
    fs.writeFileSync(z.at('d/.ENV'), 'SECRET_ENV=2\n');
    fs.writeFileSync(z.at('d/.Env.local'), 'SECRET_ENV=3\n');
    fs.mkdirSync(z.at('.ssh'));
    fs.writeFileSync(z.at('.ssh/id_rsa'), 'KEY\n');
    fs.writeFileSync(z.at('.ssh/known.txt'), 'KEY\n');
    fs.writeFileSync(z.at('d/.ssh'), 'a file named .ssh is not a .ssh/ directory\n');
    fs.mkdirSync(z.at('.git'));
    fs.writeFileSync(z.at('.git/config'), '[remote] url=https://token@host\n');
    fs.writeFileSync(z.at('.git/HEAD'), 'ref: refs/heads/main\n');
    fs.mkdirSync(z.at('d/.GIT'));
    fs.writeFileSync(z.at('d/.GIT/CONFIG'), 'token\n');
    fs.writeFileSync(z.at('d/config'), 'a plain config file\n');
  });

  const policy = { blockedPatterns: DEFAULT_BLOCKED_PATTERNS };

  test('.env / .ENV / .env.* are refused by lstatAt, openReadAt, openDirAt and hidden from entries', () => {
    const vfs = z.vfs(policy);
    const root = keep(vfs.openDir('/'));
    const d = keep(vfs.openDirAt(root, 'd'));
    for (const [h, name] of [[root, '.env'], [d, '.ENV'], [d, '.Env.local'], [d, '.eNv']] as const) {
      expectVfsError(() => vfs.lstatAt(h, name), 'EBLOCKED');
      expectVfsError(() => vfs.openReadAt(h, name), 'EBLOCKED');
      expectVfsError(() => vfs.openDirAt(h, name), 'EBLOCKED');
    }
    expect(root.entries().map((e) => e.name)).not.toContain('.env');
    expect(d.entries().map((e) => e.name).filter((n) => n.toLowerCase().startsWith('.env'))).toEqual([]);
  });

  test('.ssh/ as a directory is refused (and so everything below); a file named .ssh is not; memo order does not matter', () => {
    const vfs = z.vfs(policy);
    const root = keep(vfs.openDir('/'));
    const d = keep(vfs.openDirAt(root, 'd'));
    // the file first (memo filled with "not blocked as a file"), then the directory
    expect(vfs.lstatAt(d, '.ssh')?.isFile()).toBe(true);
    expectVfsError(() => vfs.lstatAt(root, '.ssh'), 'EBLOCKED');
    expectVfsError(() => vfs.openDirAt(root, '.ssh'), 'EBLOCKED');
    expectVfsError(() => vfs.openDir('.ssh'), 'EBLOCKED');
    expect(root.entries().map((e) => e.name)).not.toContain('.ssh');
    expect(d.entries().map((e) => e.name)).toContain('.ssh');
  });

  test('.git/config is refused when the walk starts above .git, at .git itself, and in any case; .git/HEAD and d/config are not', () => {
    for (const order of ['plain-first', 'blocked-first']) {
      const vfs = z.vfs({ blockedPatterns: [...DEFAULT_BLOCKED_PATTERNS, order] }); // a fresh matcher (and memo) per order
      const root = keep(vfs.openDir('/'));
      const d = keep(vfs.openDirAt(root, 'd'));
      if (order === 'plain-first') expect(readAll(vfs, d, 'config')).toBe('a plain config file\n');
      const git = keep(vfs.openDirAt(root, '.git'));
      const gitDirect = keep(vfs.openDir('.git'));
      const gitUpper = keep(vfs.openDirAt(d, '.GIT'));
      for (const [h, name] of [[git, 'config'], [gitDirect, 'config'], [gitUpper, 'CONFIG'], [git, 'Config']] as const) {
        expectVfsError(() => vfs.lstatAt(h, name), 'EBLOCKED');
        expectVfsError(() => vfs.openReadAt(h, name), 'EBLOCKED');
        expect(h.entries().map((e) => e.name.toLowerCase())).not.toContain('config');
      }
      expect(readAll(vfs, git, 'HEAD')).toBe('ref: refs/heads/main\n');
      expect(readAll(vfs, d, 'config')).toBe('a plain config file\n');
    }
  });

  test('a three-component pattern is matched against the handle parents (fd mode), not just the name', () => {
    fs.mkdirSync(z.at('a/b'), { recursive: true });
    fs.writeFileSync(z.at('a/b/c.txt'), 'blocked\n');
    fs.mkdirSync(z.at('x/b'), { recursive: true });
    fs.writeFileSync(z.at('x/b/c.txt'), 'fine\n');
    const vfs = z.vfs({ blockedPatterns: ['a/b/c.txt'] });
    const x = keep(vfs.openDir('x'));
    const xb = keep(vfs.openDirAt(x, 'b'));
    expect(readAll(vfs, xb, 'c.txt')).toBe('fine\n');
    const a = keep(vfs.openDir('a'));
    const ab = keep(vfs.openDirAt(a, 'b'));
    expectVfsError(() => vfs.openReadAt(ab, 'c.txt'), 'EBLOCKED');
    expectVfsError(() => vfs.openReadAt(keep(vfs.openDir('a/b')), 'c.txt'), 'EBLOCKED');
  });

  test('disallowed extensions: refused by lstatAt / openReadAt, hidden from entries; directories with any name walk', () => {
    fs.writeFileSync(z.at('d/run.sh'), 'echo\n');
    fs.writeFileSync(z.at('d/NOEXT'), 'x\n');
    fs.mkdirSync(z.at('d/dir.sh'));
    fs.writeFileSync(z.at('d/dir.sh/ok.txt'), 'ok\n');
    const vfs = z.vfs({ allowedExtensions: ['.txt'] });
    const d = keep(vfs.openDir('d'));
    for (const name of ['run.sh', 'NOEXT', 'RUN.SH']) {
      expectVfsError(() => vfs.openReadAt(d, name), name === 'RUN.SH' ? ['EEXT', 'ENOENT'] : 'EEXT');
    }
    expectVfsError(() => vfs.lstatAt(d, 'run.sh'), 'EEXT');
    const names = d.entries().map((e) => e.name);
    expect(names).not.toContain('run.sh');
    expect(names).toContain('dir.sh');
    expect(readAll(vfs, keep(vfs.openDirAt(d, 'dir.sh')), 'ok.txt')).toBe('ok\n');
  });

  test('temp-file names of atomic writes are refused as children', () => {
    fs.writeFileSync(z.at('d/.nosh-tmp-abc123'), 'half written\n');
    const vfs = z.vfs();
    const d = keep(vfs.openDir('d'));
    expectVfsError(() => vfs.openReadAt(d, '.nosh-tmp-abc123'), 'EBLOCKED');
    expect(d.entries().map((e) => e.name)).not.toContain('.nosh-tmp-abc123');
  });
});

describe('hostile child names', () => {
  const BAD: [string, string][] = [
    ['', 'EINVAL'], ['.', 'EINVAL'], ['..', 'EINVAL'], ['sub/../..', 'EINVAL'], ['../outside/f.txt', 'EINVAL'],
    ['/etc/passwd', 'EINVAL'], ['sub/g.txt', 'EINVAL'], ['f.txt\0', 'EINVAL'], ['\0', 'EINVAL'], ['x'.repeat(256), 'ENAMETOOLONG'],
    ['é'.repeat(128), 'ENAMETOOLONG'],
  ];

  test('every *At method refuses them (fd mode and path fallback), before any host access', () => {
    for (const policy of [{}, { followSymlinks: true }]) {
      const vfs = z.vfs(policy);
      const h = keep(vfs.openDir('d'));
      for (const [name, errno] of BAD) {
        expectVfsError(() => vfs.lstatAt(h, name), errno);
        expectVfsError(() => vfs.openReadAt(h, name), errno);
        expectVfsError(() => [...vfs.readChunksAt(h, name)], errno);
        expectVfsError(() => vfs.openDirAt(h, name), errno);
      }
      h.close(); // a closed handle works by path: same refusals
      for (const [name, errno] of BAD) {
        expectVfsError(() => vfs.lstatAt(h, name), errno);
        expectVfsError(() => vfs.openReadAt(h, name), errno);
        expectVfsError(() => vfs.openDirAt(h, name), errno);
      }
    }
  });

  test('a name of 255 bytes is fine; a virtual path past 4096 bytes is refused', () => {
    const long = 'n'.repeat(255);
    fs.writeFileSync(z.at(`d/${long}`), 'long\n');
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    expect(readAll(vfs, h, long)).toBe('long\n');
    // 17 nested 250-byte directories: the 17th child's virtual path passes 4096 bytes.
    let cur = keep(vfs.openDir('/'));
    let host = z.root;
    for (let i = 0; i < 17; i++) {
      const name = String(i).padStart(250, 'd');
      host = path.join(host, name);
      try { fs.mkdirSync(host); } catch { break; }
      try {
        cur = keep(vfs.openDirAt(cur, name));
      } catch (e) {
        record(e);
        expect(Buffer.byteLength(cur.vpath) + 251).toBeGreaterThan(4096);
        return;
      }
    }
    // mkdir of the host path itself failed first (host PATH_MAX): fine too, nothing to walk
  });
});

describe('a child replaced between its lstat and its open', () => {
  test('lstatAt, then the file replaced: openReadAt checks the file it opens, not the earlier lstat', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    const st = vfs.lstatAt(h, 'f.txt')!;
    fs.unlinkSync(z.at('d/f.txt'));
    fs.symlinkSync(path.join(outside, 'f.txt'), z.at('d/f.txt'));
    expectVfsError(() => vfs.openReadAt(h, 'f.txt'), 'ESYMLINK');
    expect(st.isFile()).toBe(true);
  });

  const swaps: [string, (p: string) => void, string[]][] = [
    ['a symlink to outside', (p) => { fs.unlinkSync(p); fs.symlinkSync(path.join(outside, 'f.txt'), p); }, ['ELOOP', 'EESCAPE']],
    ['another regular file', (p) => { fs.writeFileSync(p + '.new', 'other\n'); fs.renameSync(p + '.new', p); }, ['EESCAPE']],
    ['a hard link to an outside file', (p) => { fs.unlinkSync(p); fs.linkSync(path.join(outside, 'only-outside.txt'), p); }, ['EESCAPE']],
    ['a FIFO', (p) => { fs.unlinkSync(p); execFileSync('mkfifo', [p]); }, ['EESCAPE']],
    ['a directory', (p) => { fs.unlinkSync(p); fs.mkdirSync(p); }, ['EESCAPE', 'EISDIR']],
  ];

  for (const [what, swap, errnos] of swaps) {
    test(`openReadAt: file swapped for ${what} between the child lstat and the open: identity check refuses`, async () => {
      const vfs = z.vfs();
      const h = keep(vfs.openDir('d'));
      const target = z.at('d/f.txt');
      hookOnce('openSync', () => swap(target), (p) => typeof p === 'string' && p.endsWith('/f.txt'));
      await withinMs(2000, () => expectVfsError(() => vfs.openReadAt(h, 'f.txt'), errnos));
      expect(z.outsideSnapshot()).toEqual(before);
    });
  }

  test('openDirAt: child directory swapped for a symlink to outside between lstat and open: O_NOFOLLOW refuses', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    hookOnce('openSync', () => {
      fs.renameSync(z.at('d/sub'), path.join(z.base, 'aside'));
      fs.symlinkSync(path.join(outside, 'sub'), z.at('d/sub'));
    }, (p) => typeof p === 'string' && p.endsWith('/sub'));
    expectVfsError(() => vfs.openDirAt(h, 'sub'), ['ELOOP', 'ENOTDIR', 'EESCAPE']);
  });

  test('openDirAt: child directory swapped for another inside directory between lstat and open: identity check refuses', () => {
    fs.mkdirSync(z.at('d/other'));
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    hookOnce('openSync', () => {
      fs.renameSync(z.at('d/sub'), z.at('sub-was'));
      fs.renameSync(z.at('d/other'), z.at('d/sub'));
    }, (p) => typeof p === 'string' && p.endsWith('/sub'));
    expectVfsError(() => vfs.openDirAt(h, 'sub'), 'EESCAPE');
  });

  test('openDir: the resolved directory swapped for a symlink to outside before its open', () => {
    const vfs = z.vfs();
    hookOnce('openSync', () => {
      fs.renameSync(z.at('d'), path.join(z.base, 'aside'));
      fs.symlinkSync(outside, z.at('d'));
    }, (p) => typeof p === 'string' && p.endsWith('/d'));
    expectVfsError(() => vfs.openDir('d'), ['ELOOP', 'ENOTDIR', 'EESCAPE']);
  });
});

describe('more than 128 open directories: the oldest handles give their descriptors up', () => {
  function nest(depth: number): string[] {
    const names: string[] = [];
    let host = z.root;
    for (let i = 0; i < depth; i++) {
      const n = `n${i}`;
      names.push(n);
      host = path.join(host, n);
      fs.mkdirSync(host);
    }
    return names;
  }

  /** Open '/' and each directory of `names` below it, each from the one before. */
  function chain(vfs: Vfs, names: string[]): DirHandle[] {
    const hs = [keep(vfs.openDir('/'))];
    for (const n of names) hs.push(keep(vfs.openDirAt(hs[hs.length - 1]!, n)));
    return hs;
  }

  test('an evicted handle works by path: symlinks, specials, blocked names, extensions, bad names and swaps are still refused', () => {
    const names = nest(140);
    const deep = z.at(names.join('/'));
    fs.writeFileSync(path.join(deep, 'ok.txt'), 'deep ok\n');
    fs.writeFileSync(path.join(deep, '.env'), 'SECRET_ENV=1\n');
    fs.writeFileSync(path.join(deep, 'run.sh'), 'echo\n');
    fs.mkdirSync(path.join(deep, '.ssh'));
    fs.mkdirSync(path.join(deep, '.git'));
    fs.writeFileSync(path.join(deep, '.git', 'config'), 'token\n');
    fs.symlinkSync(path.join(outside, 'f.txt'), path.join(deep, 'abs-file.txt'));
    fs.symlinkSync(outside, path.join(deep, 'abs-dir'));
    fs.symlinkSync('ok.txt', path.join(deep, 'in-file.txt'));
    execFileSync('mkfifo', [path.join(deep, 'fifo.txt')]);
    fs.mkdirSync(path.join(deep, 'sub'));
    fs.writeFileSync(path.join(deep, 'sub', 'g.txt'), 'deep g\n');
    fs.mkdirSync(path.join(outside, 'sub2'));

    const vfs = z.vfs({ blockedPatterns: DEFAULT_BLOCKED_PATTERNS, allowedExtensions: ['.txt'] });
    const hs = chain(vfs, names);
    const h = hs[hs.length - 1]!;
    expect(fdOf(h)).toBeGreaterThanOrEqual(0); // the deepest has one
    expect(fdOf(hs[0]!)).toBe(-1); // the oldest gave theirs up
    expect(hs.filter((x) => fdOf(x) >= 0).length).toBeLessThanOrEqual(128);
    // 128 more handles elsewhere: the deep one gives its descriptor up too.
    for (let i = 0; i < 128; i++) keep(vfs.openDir('/'));
    expect(fdOf(h)).toBe(-1);
    expect(h.vpath).toBe('/' + names.join('/'));
    expect(h.entries().map((e) => e.name).sort()).toEqual(['abs-file.txt', 'fifo.txt', 'in-file.txt', 'ok.txt', 'sub', '.git'].sort()); // abs-dir: a link, hidden by the extension rule
    expect(readAll(vfs, h, 'ok.txt')).toBe('deep ok\n');
    expect(readAll(vfs, keep(vfs.openDirAt(h, 'sub')), 'g.txt')).toBe('deep g\n');
    const f = vfs.openListedFileAt(h, 'ok.txt');
    f.close();
    expectVfsError(() => vfs.openReadAt(h, '.env'), 'EBLOCKED');
    expectVfsError(() => vfs.openListedFileAt(h, '.env'), 'EBLOCKED');
    expectVfsError(() => vfs.lstatAt(h, '.env'), 'EBLOCKED');
    expectVfsError(() => vfs.openReadAt(h, 'run.sh'), 'EEXT');
    expectVfsError(() => vfs.openDirAt(h, '.ssh'), 'EBLOCKED');
    expectVfsError(() => vfs.openListedDirAt(h, '.ssh'), 'EBLOCKED');
    const git = keep(vfs.openDirAt(h, '.git'));
    expectVfsError(() => vfs.openReadAt(git, 'config'), 'EBLOCKED');
    expectVfsError(() => vfs.openReadAt(h, 'abs-file.txt'), 'ESYMLINK');
    expectVfsError(() => vfs.openListedFileAt(h, 'abs-file.txt'), 'ESYMLINK');
    expectVfsError(() => vfs.openReadAt(h, 'in-file.txt'), 'ESYMLINK');
    expectVfsError(() => vfs.openDirAt(h, 'abs-dir'), ['ESYMLINK', 'EEXT']);
    expectVfsError(() => vfs.openListedDirAt(h, 'abs-dir'), ['ESYMLINK', 'EEXT']);
    expectVfsError(() => vfs.openReadAt(h, 'fifo.txt'), 'ESPECIAL');
    expectVfsError(() => vfs.openListedFileAt(h, 'fifo.txt'), 'ESPECIAL');
    for (const bad of ['..', '.', 'a/b', 'a\0', 'x'.repeat(256)]) {
      expectVfsError(() => vfs.openReadAt(h, bad), ['EINVAL', 'ENAMETOOLONG']);
      expectVfsError(() => vfs.openDirAt(h, bad), ['EINVAL', 'ENAMETOOLONG']);
      expectVfsError(() => vfs.lstatAt(h, bad), ['EINVAL', 'ENAMETOOLONG']);
    }
    // An ancestor swapped for a link to outside: the path resolution meets the link.
    fs.renameSync(z.at('n0'), path.join(z.base, 'aside-n0'));
    fs.symlinkSync(path.join(z.base, 'aside-n0'), z.at('n0'));
    expectVfsError(() => vfs.openReadAt(h, 'ok.txt'), ['ESYMLINK', 'EEXT']);
    expectVfsError(() => vfs.openListedFileAt(h, 'ok.txt'), ['ESYMLINK', 'EEXT']);
    expectVfsError(() => h.entries(), ['ESYMLINK', 'EEXT']);
    assertOutsideUntouched2();
  });

  function assertOutsideUntouched2(): void {
    expect(fs.readFileSync(path.join(outside, 'f.txt'), 'utf8')).toBe(SECRET);
    expect(fs.readFileSync(path.join(z.base, 'canary.txt'), 'utf8')).toBe(CANARY);
  }

  test('walking back up, each evicted parent gets a descriptor again from its child (.. of the same directory)', () => {
    const names = nest(300);
    fs.writeFileSync(z.at('n0/mark.txt'), 'n0 mark\n');
    const vfs = z.vfs();
    const hs = chain(vfs, names);
    expect(hs.filter((x) => fdOf(x) >= 0)).toHaveLength(128);
    for (let i = hs.length - 1; i > 0; i--) {
      hs[i]!.close();
      expect(fdOf(hs[i - 1]!)).toBeGreaterThanOrEqual(0);
      expect(hs.filter((x) => fdOf(x) >= 0).length).toBeLessThanOrEqual(128);
    }
    expect(hs[1]!.vpath).toBe('/n0');
    // The reclaimed handle reads by descriptor again, with its name checks.
    const f = vfs.openListedFileAt(hs[1]!, 'mark.txt');
    f.close();
    expectVfsError(() => vfs.openListedFileAt(hs[1]!, '..'), 'EINVAL');
  });

  test('a parent moved out while evicted is not taken back: it goes on by path and meets the move', () => {
    const names = nest(140);
    const vfs = z.vfs();
    const hs = chain(vfs, names);
    expect(fdOf(hs[5]!)).toBe(-1);
    // n0 (with n1..n5 under it) moved outside and linked back: same inodes all the way down.
    fs.renameSync(z.at('n0'), path.join(outside, 'moved-n0'));
    fs.symlinkSync(path.join(outside, 'moved-n0'), z.at('n0'));
    for (let i = hs.length - 1; i > 5; i--) hs[i]!.close();
    expect(fdOf(hs[5]!)).toBe(-1); // same (dev, ino), but /proc says outside: refused
    expectVfsError(() => hs[5]!.entries(), ['ESYMLINK', 'EESCAPE']);
    expectVfsError(() => vfs.openListedDirAt(hs[5]!, 'n5'), ['ESYMLINK', 'EESCAPE']);
  });

  test('a child moved to another parent: .. is another directory, so the evicted parent goes on by path', () => {
    const names = nest(140);
    fs.writeFileSync(z.at('n0/n1/n2/here.txt'), 'here\n');
    fs.mkdirSync(z.at('other'));
    const vfs = z.vfs();
    const hs = chain(vfs, names);
    expect(fdOf(hs[3]!)).toBe(-1);
    fs.renameSync(z.at('n0/n1/n2/n3'), z.at('other/n3')); // hs[4]'s directory
    for (let i = hs.length - 1; i > 3; i--) hs[i]!.close();
    expect(fdOf(hs[3]!)).toBe(-1);
    expect(hs[3]!.entries().map((e) => e.name)).toEqual(['here.txt']); // /n0/n1/n2 by path
  });

  test('a parent moved inside the zone while evicted is taken back, as a handle that kept its descriptor would follow it', () => {
    const names = nest(140);
    const vfs = z.vfs();
    const hs = chain(vfs, names);
    expect(fdOf(hs[3]!)).toBe(-1);
    fs.renameSync(z.at('n0/n1/n2'), z.at('moved-n2'));
    for (let i = hs.length - 1; i > 3; i--) hs[i]!.close();
    expect(fdOf(hs[3]!)).toBeGreaterThanOrEqual(0);
    expect(hs[3]!.entries().map((e) => e.name)).toEqual(['n3']); // the directory itself, now at /moved-n2
  });

  test('closing a handle whose parent was closed first gives no descriptor back to the closed parent', () => {
    const names = nest(135);
    const vfs = z.vfs();
    const hs = chain(vfs, names);
    expect(fdOf(hs[2]!)).toBe(-1);
    hs[2]!.close();
    for (let i = hs.length - 1; i > 2; i--) hs[i]!.close();
    expect(fdOf(hs[2]!)).toBe(-1);
    expect(fdOf(hs[1]!)).toBe(-1);
  });
});

describe('handles are bound to their zone', () => {
  test('a handle of one zone given to another zone\'s Vfs reads nothing of the other zone', () => {
    const other = makeZone();
    fs.writeFileSync(path.join(other.root, 'theirs.txt'), SECRET);
    const vfsOther = other.vfs();
    const foreign = keep(vfsOther.openDir('/'));
    const vfs = z.vfs();
    expectVfsError(() => vfs.openReadAt(foreign, 'theirs.txt'), ['EESCAPE', 'EINVAL']);
    expectVfsError(() => vfs.lstatAt(foreign, 'theirs.txt'), ['EESCAPE', 'EINVAL']);
    expectVfsError(() => vfs.openDirAt(foreign, 'x'), ['EESCAPE', 'EINVAL', 'ENOENT']);
    // A forged handle (any object with an fd) is not a handle.
    const forged = { fd: fdOf(foreign), vpath: '/', parts: [], stat: foreign.stat, entries: () => [], close: () => {} } as unknown as DirHandle;
    expectVfsError(() => vfs.lstatAt(forged, 'theirs.txt'), ['EESCAPE', 'EINVAL']);
  });
});

// The fast walk (grep -r, find): a child's type comes from the listing, not from an lstat;
// the open (O_NOFOLLOW, O_DIRECTORY) and the fstat of the opened file refuse anything else;
// the directory's location is checked at its listing and again by verifyDir after reads.
describe('the fast walk: openListedDirAt / openListedFileAt / verifyDir', () => {
  function readListed(vfs: Vfs, h: DirHandle, name: string): string {
    const f = vfs.openListedFileAt(h, name);
    try {
      const buf = Buffer.alloc(f.size + 1);
      return buf.subarray(0, f.read(buf, 0, buf.length)).toString('utf8');
    } finally {
      f.close();
    }
  }

  test('listed children are read and entered; the directory handle is located once listed', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    expect(h.entries().map((e) => `${e.name}:${e.type}`).sort()).toEqual(['f.txt:file', 'sub:dir']);
    expect(readListed(vfs, h, 'f.txt')).toBe('inside\n');
    const sub = keep(vfs.openListedDirAt(h, 'sub'));
    expect(sub.vpath).toBe('/d/sub');
    expect(sub.entries().map((e) => e.name)).toEqual(['g.txt']);
    expect(readListed(vfs, sub, 'g.txt')).toBe('inside g\n');
    vfs.verifyDir(sub);
  });

  const fileSwaps: [string, (p: string) => void, string[]][] = [
    ['a symlink to outside', (p) => { fs.unlinkSync(p); fs.symlinkSync(path.join(outside, 'f.txt'), p); }, ['ESYMLINK']],
    ['a relative symlink to outside', (p) => { fs.unlinkSync(p); fs.symlinkSync('../../outside/f.txt', p); }, ['ESYMLINK']],
    ['a FIFO', (p) => { fs.unlinkSync(p); execFileSync('mkfifo', [p]); }, ['ESPECIAL']],
    ['a character device', (p) => { fs.unlinkSync(p); execFileSync('mknod', [p, 'c', '1', '5']); }, ['ESPECIAL']],
    ['a directory', (p) => { fs.unlinkSync(p); fs.mkdirSync(p); }, ['EISDIR']],
  ];
  for (const [what, swap, errnos] of fileSwaps) {
    test(`a listed file swapped for ${what} between the listing and the open: refused, without blocking`, async () => {
      const vfs = z.vfs();
      const h = keep(vfs.openDir('d'));
      expect(h.entries().find((e) => e.name === 'f.txt')?.type).toBe('file');
      swap(z.at('d/f.txt'));
      await withinMs(2000, () => expectVfsError(() => vfs.openListedFileAt(h, 'f.txt'), errnos));
      assertOutsideUntouched();
    });
  }

  test("the memory budget's MEMORY_LIMIT met while reading a listed file ends the task, not passes for its I/O error", () => {
    fs.writeFileSync(z.at('d/big.bin'), Buffer.alloc(3 << 20, 7));
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    h.entries();
    const f = vfs.openListedFileAt(h, 'big.bin');
    const held: Buffer[] = [];
    setMemoryBudget(1);
    try {
      const buf = Buffer.alloc(1 << 20);
      expect(f.read(buf, 0, buf.length)).toBe(1 << 20); // the budget's baseline is taken here
      held.push(Buffer.alloc(8 << 20, 1));
      let thrown: unknown;
      try {
        f.read(buf, 0, buf.length);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(NoshError);
      expect((thrown as NoshError).code).toBe('MEMORY_LIMIT');
    } finally {
      setMemoryBudget(Infinity);
      f.close();
      held.length = 0;
    }
  });

  test('a socket swapped in for a listed file is refused', async () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    h.entries();
    fs.unlinkSync(z.at('d/f.txt'));
    const server = net.createServer(() => {});
    await new Promise<void>((res) => server.listen(z.at('d/f.txt'), res));
    try {
      expectVfsError(() => vfs.openListedFileAt(h, 'f.txt'), ['ESPECIAL', 'ENXIO', 'EIO']);
    } finally {
      await new Promise<void>((res) => server.close(() => res()));
    }
  });

  test('a listed directory swapped for a link to outside, or for a file, before its open: refused', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    h.entries();
    fs.renameSync(z.at('d/sub'), z.at('aside'));
    fs.symlinkSync(path.join(outside, 'sub'), z.at('d/sub'));
    expectVfsError(() => vfs.openListedDirAt(h, 'sub'), ['ESYMLINK', 'ENOTDIR']);
    fs.unlinkSync(z.at('d/sub'));
    fs.symlinkSync('../../outside/sub', z.at('d/sub'));
    expectVfsError(() => vfs.openListedDirAt(h, 'sub'), ['ESYMLINK', 'ENOTDIR']);
    fs.unlinkSync(z.at('d/sub'));
    fs.writeFileSync(z.at('d/sub'), 'now a file\n');
    expectVfsError(() => vfs.openListedDirAt(h, 'sub'), 'ENOTDIR');
    assertOutsideUntouched();
  });

  test('moved out of the zone after its listing: verifyDir refuses (back inside: accepted again)', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    h.entries();
    const sub = keep(vfs.openListedDirAt(h, 'sub'));
    sub.entries();
    fs.renameSync(z.at('d'), path.join(outside, 'moved'));
    expectVfsError(() => vfs.verifyDir(h), 'EESCAPE');
    expectVfsError(() => vfs.verifyDir(sub), 'EESCAPE');
    expectVfsError(() => h.entries(), 'EESCAPE');
    fs.renameSync(path.join(outside, 'moved'), z.at('d'));
    vfs.verifyDir(h);
    vfs.verifyDir(sub);
  });

  test('moved out to a place deeper than PATH_MAX after its listing: verifyDir still refuses', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    h.entries();
    moveDeeperThanPathMax('d');
    try {
      expectVfsError(() => vfs.verifyDir(h), 'ETOODEEP');
    } finally {
      rmDeep(path.join(z.base, 'deep'));
    }
  });

  test('a directory opened by openListedDirAt is not located until listed: moved out before its listing, no file is opened through it', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    h.entries();
    const sub = keep(vfs.openListedDirAt(h, 'sub'));
    fs.renameSync(z.at('d/sub'), path.join(outside, 'moved-sub'));
    fs.writeFileSync(path.join(outside, 'moved-sub', 'planted.txt'), SECRET);
    // Not listed yet: the full checks apply, and they see where it is.
    expectVfsError(() => vfs.openListedFileAt(sub, 'g.txt'), 'EESCAPE');
    expectVfsError(() => vfs.openListedFileAt(sub, 'planted.txt'), 'EESCAPE');
    expectVfsError(() => sub.entries(), 'EESCAPE');
    expectVfsError(() => vfs.openListedFileAt(sub, 'g.txt'), 'EESCAPE');
  });

  test('blocked names, hidden extensions, temp names and hostile names are refused even when asked for directly', () => {
    fs.writeFileSync(z.at('d/.env'), 'SECRET_ENV=1\n');
    fs.writeFileSync(z.at('d/run.sh'), 'echo\n');
    fs.writeFileSync(z.at('d/.nosh-tmp-abc123'), 'partial\n');
    fs.mkdirSync(z.at('d/.ssh'));
    fs.mkdirSync(z.at('d/.git'));
    fs.writeFileSync(z.at('d/.git/config'), 'token\n');
    const vfs = z.vfs({ blockedPatterns: DEFAULT_BLOCKED_PATTERNS, allowedExtensions: ['.txt'] });
    const h = keep(vfs.openDir('d'));
    expect(h.entries().map((e) => e.name).sort()).toEqual(['.git', 'f.txt', 'sub']);
    expectVfsError(() => vfs.openListedFileAt(h, '.env'), 'EBLOCKED');
    expectVfsError(() => vfs.openListedFileAt(h, 'run.sh'), 'EEXT');
    expectVfsError(() => vfs.openListedFileAt(h, '.nosh-tmp-abc123'), 'EBLOCKED');
    expectVfsError(() => vfs.openListedDirAt(h, '.ssh'), 'EBLOCKED');
    const git = keep(vfs.openListedDirAt(h, '.git'));
    expect(git.entries()).toEqual([]);
    expectVfsError(() => vfs.openListedFileAt(git, 'config'), 'EBLOCKED');
    for (const bad of ['', '.', '..', '../outside/f.txt', 'sub/g.txt', '/etc/passwd', 'f.txt\0', 'x'.repeat(256)]) {
      expectVfsError(() => vfs.openListedFileAt(h, bad), ['EINVAL', 'ENAMETOOLONG']);
      expectVfsError(() => vfs.openListedDirAt(h, bad), ['EINVAL', 'ENAMETOOLONG']);
    }
  });

  test('closed handles (the path fallback) keep every check', () => {
    const vfs = z.vfs();
    const h = vfs.openDir('d');
    h.entries();
    h.close();
    expect(readListed(vfs, h, 'f.txt')).toBe('inside\n');
    fs.unlinkSync(z.at('d/f.txt'));
    fs.symlinkSync(path.join(outside, 'f.txt'), z.at('d/f.txt'));
    expectVfsError(() => vfs.openListedFileAt(h, 'f.txt'), 'ESYMLINK');
    const sub = keep(vfs.openListedDirAt(h, 'sub'));
    expect(readListed(vfs, sub, 'g.txt')).toBe('inside g\n');
  });

  test('a handle of another zone is refused', () => {
    const other = makeZone();
    fs.writeFileSync(other.at('theirs.txt'), SECRET);
    const h = keep(other.vfs().openDir('/'));
    h.entries();
    const vfs = z.vfs();
    expectVfsError(() => vfs.openListedFileAt(h, 'theirs.txt'), 'EINVAL');
    expectVfsError(() => vfs.openListedDirAt(h, 'x'), 'EINVAL');
    expectVfsError(() => vfs.verifyDir(h), 'EINVAL');
  });
});

describe('removing through a walk: unlinkAt / rmdirAt / timesNsAt', () => {
  test('a listed file and an emptied directory are removed, with their changes recorded', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    const sub = keep(vfs.openListedDirAt(h, 'sub'));
    sub.entries();
    const times = vfs.timesNsAt(sub, 'g.txt');
    expect(times).toEqual(vfs.timesNs('d/sub/g.txt'));
    vfs.unlinkAt(sub, 'g.txt');
    sub.close();
    vfs.rmdirAt(h, 'sub');
    expect(fs.existsSync(z.at('d/sub'))).toBe(false);
    expect(vfs.changes).toEqual([{ op: 'delete', path: '/d/sub/g.txt', delta: -9 }, { op: 'delete', path: '/d/sub', delta: 0 }]);
  });

  test('the checks of unlink and rmdir hold: names, kinds, read-only zones', () => {
    fs.writeFileSync(z.at('d/.env'), 'SECRET=1\n');
    fs.writeFileSync(z.at('d/run.sh'), 'echo\n');
    fs.symlinkSync(path.join(outside, 'f.txt'), z.at('d/link.txt'));
    const vfs = z.vfs({ blockedPatterns: DEFAULT_BLOCKED_PATTERNS, allowedExtensions: ['.txt'] });
    const h = keep(vfs.openDir('d'));
    h.entries();
    expectVfsError(() => vfs.unlinkAt(h, '.env'), 'EBLOCKED');
    expectVfsError(() => vfs.timesNsAt(h, '.env'), 'EBLOCKED');
    expectVfsError(() => vfs.unlinkAt(h, 'run.sh'), 'EEXT');
    expectVfsError(() => vfs.unlinkAt(h, 'sub'), 'EISDIR');
    expectVfsError(() => vfs.rmdirAt(h, 'f.txt'), 'ENOTDIR');
    expectVfsError(() => vfs.rmdirAt(h, 'sub'), 'ENOTEMPTY');
    expectVfsError(() => vfs.unlinkAt(h, 'missing.txt'), 'ENOENT');
    for (const bad of ['..', '.', 'a/b', 'a\0', '']) {
      expectVfsError(() => vfs.unlinkAt(h, bad), ['EINVAL', 'ENOENT']);
      expectVfsError(() => vfs.rmdirAt(h, bad), ['EINVAL', 'ENOENT']);
    }
    vfs.unlinkAt(h, 'link.txt'); // the link itself, never its target
    expect(fs.readFileSync(path.join(outside, 'f.txt'), 'utf8')).toBe(SECRET);
    expect(fs.existsSync(z.at('d/.env')) && fs.existsSync(z.at('d/run.sh')) && fs.existsSync(z.at('d/f.txt'))).toBe(true);

    const ro = z.vfs({ readonly: true });
    const hr = keep(ro.openDir('d'));
    hr.entries();
    expectVfsError(() => ro.unlinkAt(hr, 'f.txt'), 'EROFS');
    expectVfsError(() => ro.unlinkAt(hr, 'missing.txt'), 'EROFS'); // as unlink: the zone first
    const del = z.vfs({ readonly: true, allowDelete: true });
    const hd = keep(del.openDir('d'));
    hd.entries();
    del.unlinkAt(hd, 'f.txt');
    expect(fs.existsSync(z.at('d/f.txt'))).toBe(false);
    assertOutsideUntouched();
  });

  test('a directory moved out of the zone after its listing: nothing is removed there', () => {
    const vfs = z.vfs();
    const h = keep(vfs.openDir('d'));
    h.entries();
    fs.renameSync(z.at('d'), path.join(outside, 'moved'));
    expectVfsError(() => vfs.unlinkAt(h, 'f.txt'), 'EESCAPE');
    fs.unlinkSync(path.join(outside, 'moved', 'sub', 'g.txt'));
    expectVfsError(() => vfs.rmdirAt(h, 'sub'), 'EESCAPE');
    expect(fs.existsSync(path.join(outside, 'moved', 'f.txt'))).toBe(true);
    expect(fs.existsSync(path.join(outside, 'moved', 'sub'))).toBe(true);
  });

  test('an evicted handle removes by path, with the same checks', () => {
    const vfs = z.vfs({ blockedPatterns: DEFAULT_BLOCKED_PATTERNS });
    fs.writeFileSync(z.at('d/.env'), 'SECRET=1\n');
    const h = keep(vfs.openDir('d'));
    h.entries();
    for (let i = 0; i < 128; i++) keep(vfs.openDir('/'));
    expect(fdOf(h)).toBe(-1);
    expectVfsError(() => vfs.unlinkAt(h, '.env'), 'EBLOCKED');
    expect(vfs.timesNsAt(h, 'f.txt')).toEqual(vfs.timesNs('d/f.txt'));
    vfs.unlinkAt(h, 'f.txt');
    expect(fs.existsSync(z.at('d/f.txt'))).toBe(false);
    expectVfsError(() => vfs.unlinkAt(h, 'f.txt'), 'ENOENT');
  });
});
