// Defence 9: time-of-check / time-of-use. Resolution lstat()s component by component, then
// the final operation uses a host path. Someone else on the host (not nosh: no command
// creates symlinks) could swap a checked component for a symlink in between. These tests
// make the swap happen at the worst moment, by wrapping Vfs methods on the instance or
// hooking node:fs functions (syncBuiltinESMExports makes the ESM import see the hook).
//
// What is closed: reads. openRead opens with O_NOFOLLOW|O_NONBLOCK, then checks the fd's
// (dev, ino) against the lstat and asks the kernel where the fd really is
// (/proc/self/fd/N) — a swapped final component fails the open (ELOOP), a swapped
// directory fails the identity or location check (EESCAPE). A plain path (no '.', '..' or
// symlink) skips the component walk: one lstat of the whole path, and the fd's location
// must then be exactly that path; whatever fails that takes the full resolution. The
// 'reads' tests put a '.' in their paths to reach the full resolution's own checks; the
// 'reads by a plain path' tests swap inside the short way. readdir lists through the
// verified fd. A writer's temp file is checked the same way right after it is created.
//
// Changes (issue 17.1) act relative to a held directory: the folder of the path is opened
// O_DIRECTORY|O_NOFOLLOW and must sit exactly where the resolution checked it, then the change
// names one component inside it through /proc/self/fd/N/NAME (unlink, rmdir, mkdir, rename of
// both ends, the writer's temp file and its rename; times and modes on an O_PATH descriptor of
// the inode). A swap after the checks either makes the hold fail (ESYMLINK, EESCAPE) or lands the
// change in the zone's own folder wherever it was moved, never in the folder swapped in. The
// swap loop against every command and tool is test/vfs/toctou-swap.test.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import { SECRET, countCalls, expectVfsError, guardLeaks, hookOnce, makeZone, record, tempLeftovers, type Zone } from './fixture.js';

guardLeaks();

let z: Zone;
let outside: string;
beforeEach(() => {
  z = makeZone();
  outside = path.join(z.base, 'outside');
  fs.mkdirSync(z.at('d'));
  fs.writeFileSync(z.at('d/f.txt'), 'inside\n');
  fs.writeFileSync(path.join(outside, 'f.txt'), SECRET); // same name, outside
});

/** Make the next resolveExisting on this Vfs return, then let `swap` run. */
function swapAfterResolve(vfs: ReturnType<Zone['vfs']>, swap: () => void): void {
  const orig = vfs.resolveExisting.bind(vfs);
  vfs.resolveExisting = ((p: string, cwd?: string, o?: object) => {
    const r = orig(p, cwd, o);
    vfs.resolveExisting = orig;
    swap();
    return r;
  }) as typeof vfs.resolveExisting;
}

/** Replace zone dir `d` by a symlink to `target`; the real dir goes to `aside` (outside). */
function swapDir(target: string, aside = path.join(z.base, 'aside')): void {
  fs.renameSync(z.at('d'), aside);
  fs.symlinkSync(target, z.at('d'));
}

describe('reads', () => {
  test('a checked file swapped for a symlink to outside: O_NOFOLLOW refuses the open', () => {
    const vfs = z.vfs();
    expect(vfs.resolve('d/f.txt').stat?.isFile()).toBe(true); // first call: a plain file
    swapAfterResolve(vfs, () => {
      fs.unlinkSync(z.at('d/f.txt'));
      fs.symlinkSync(path.join(outside, 'f.txt'), z.at('d/f.txt'));
    });
    expectVfsError(() => vfs.readFile('d/./f.txt'), ['ELOOP', 'EESCAPE']);
    // the second, fresh resolution sees the symlink and refuses it up front
    expectVfsError(() => vfs.readFile('d/f.txt'), 'ESYMLINK');
  });

  test('a checked directory swapped for a symlink to another outside dir: identity check refuses', () => {
    const vfs = z.vfs();
    swapAfterResolve(vfs, () => swapDir(outside));
    const e = expectVfsError(() => vfs.readFile('d/./f.txt'), 'EESCAPE');
    expect(e.message).not.toContain('SECRET');
  });

  test('the real directory moved outside and linked back: same inode, but /proc/self/fd says outside', () => {
    // dev and ino match what was resolved, so only the kernel's view of the fd's location
    // (readlink /proc/self/fd/N) tells that the file now lives outside the root.
    const vfs = z.vfs();
    const aside = path.join(outside, 'moved');
    swapAfterResolve(vfs, () => swapDir(aside, aside));
    expectVfsError(() => vfs.openRead('d/./f.txt'), 'EESCAPE');
  });

  test('readdir: the final directory swapped for a symlink after resolution is not listed', () => {
    const vfs = z.vfs();
    swapAfterResolve(vfs, () => swapDir(outside));
    expectVfsError(() => vfs.readdir('d'), ['ELOOP', 'ENOTDIR', 'EESCAPE']);
  });

  test('readdir: a swap after the fd check does not list the outside directory', () => {
    const vfs = z.vfs();
    fs.writeFileSync(path.join(outside, 'outside-only-name'), 'x');
    hookOnce('readdirSync', () => swapDir(outside));
    let names: string[] = [];
    try {
      names = vfs.readdir('d').map((e) => e.name);
    } catch { /* refusing is fine too */ }
    expect(names).not.toContain('outside-only-name');
    expect(names).not.toContain('secret.txt');
  });

  test('readlink: the link removed between resolve and readlink gives a clean error', () => {
    fs.symlinkSync('f.txt', z.at('d/l'));
    const vfs = z.vfs();
    swapAfterResolve(vfs, () => fs.unlinkSync(z.at('d/l')));
    const e = expectVfsError(() => vfs.readlink('d/l'), ['ENOENT', 'EINVAL']);
    expect(e.message).toBe('d/l: No such file or directory');
  });
});

describe('reads by a plain path (one lstat, open, then the fd must sit at exactly that path)', () => {
  test('the short way is taken: one lstat instead of one per component', () => {
    fs.mkdirSync(z.at('d/e/f'), { recursive: true });
    fs.writeFileSync(z.at('d/e/f/g.txt'), 'deep\n');
    const vfs = z.vfs();
    const plain = countCalls('lstatSync', () => vfs.readFile('d/e/f/g.txt').toString());
    expect(plain).toEqual({ result: 'deep\n', calls: 1 });
    const full = countCalls('lstatSync', () => vfs.readFile('d/e/./f/g.txt').toString());
    expect(full).toEqual({ result: 'deep\n', calls: 4 });
  });

  test('a directory on the way that is a symlink takes the full resolution (refused, or followed inside)', () => {
    fs.symlinkSync('d', z.at('l'));
    fs.symlinkSync(outside, z.at('out'));
    expectVfsError(() => z.vfs().readFile('l/f.txt'), 'ESYMLINK');
    expect(z.vfs({ followSymlinks: true }).readFile('l/f.txt').toString()).toBe('inside\n');
    for (const policy of [{}, { followSymlinks: true }]) expectVfsError(() => z.vfs(policy).readFile('out/f.txt'), ['ESYMLINK', 'EESCAPE']);
  });

  test('the file swapped for a symlink to outside between the lstat and the open', () => {
    for (const policy of [{}, { followSymlinks: true }]) {
      fs.rmSync(z.at('d/f.txt'), { force: true });
      fs.writeFileSync(z.at('d/f.txt'), 'inside\n');
      hookOnce('openSync', () => {
        fs.unlinkSync(z.at('d/f.txt'));
        fs.symlinkSync(path.join(outside, 'f.txt'), z.at('d/f.txt'));
      });
      const e = expectVfsError(() => z.vfs(policy).readFile('d/f.txt'), ['ESYMLINK', 'ELOOP', 'EESCAPE']);
      expect(e.message).not.toContain('SECRET');
    }
  });

  test('the directory swapped for a symlink to an outside dir between the lstat and the open', () => {
    for (const policy of [{}, { followSymlinks: true }]) {
      hookOnce('openSync', () => swapDir(outside));
      expectVfsError(() => z.vfs(policy).readFile('d/f.txt'), ['ESYMLINK', 'EESCAPE']);
      fs.unlinkSync(z.at('d'));
      fs.renameSync(path.join(z.base, 'aside'), z.at('d'));
    }
  });

  test('the real directory moved outside and linked back (same inode) between the lstat and the open', () => {
    const aside = path.join(outside, 'moved');
    hookOnce('openSync', () => swapDir(aside, aside));
    expectVfsError(() => z.vfs().openRead('d/f.txt'), ['ESYMLINK', 'EESCAPE']);
    fs.unlinkSync(z.at('d'));
    fs.renameSync(aside, z.at('d'));
    hookOnce('openSync', () => swapDir(aside, aside));
    expectVfsError(() => z.vfs({ followSymlinks: true }).openRead('d/f.txt'), 'EESCAPE');
  });

  test('the directory moved outside after the open, before the location check', () => {
    const aside = path.join(outside, 'moved');
    hookOnce('readlinkSync', () => swapDir(aside, aside));
    expectVfsError(() => z.vfs().openRead('d/f.txt'), ['ESYMLINK', 'EESCAPE']);
  });
});

describe('writes', () => {
  test('createWriter: the folder swapped before the temp file is made does not write outside', () => {
    const vfs = z.vfs();
    const orig = vfs.tempHostFor.bind(vfs);
    vfs.tempHostFor = (host: string) => {
      swapDir(outside);
      return orig(host);
    };
    let w: ReturnType<typeof vfs.createWriter> | undefined;
    try {
      w = vfs.createWriter('d/f.txt');
      w.write(Buffer.from('PWNED'));
      w.commit();
    } catch { /* refused: what we want */ }
    expect(fs.readFileSync(path.join(outside, 'f.txt'), 'utf8')).toBe(SECRET);
    expect(tempLeftovers(outside)).toEqual([]);
    expect(w).toBeUndefined();
  });

  test('a swap between the last check and the rename: the rename happens in the held folder, not the outside one', () => {
    const vfs = z.vfs();
    const w = vfs.createWriter('d/f.txt');
    w.write(Buffer.from('PWNED'));
    const aside = path.join(z.base, 'aside');
    hookOnce('renameSync', () => swapDir(outside, aside));
    try {
      w.commit();
    } catch (e) {
      record(e);
    }
    expect(fs.readFileSync(path.join(outside, 'f.txt'), 'utf8')).toBe(SECRET);
    expect(tempLeftovers(outside)).toEqual([]);
    // the zone's own folder (moved aside by the attacker) got the write
    expect(fs.readFileSync(path.join(aside, 'f.txt'), 'utf8')).toBe('PWNED');
  });

  test('the held folder moved out of the root before the commit: nothing is published, the temp is removed', () => {
    const vfs = z.vfs();
    const w = vfs.createWriter('d/f.txt');
    w.write(Buffer.from('PWNED'));
    const aside = path.join(outside, 'moved');
    hookOnce('readlinkSync', () => swapDir(aside, aside));
    expectVfsError(() => w.commit(), 'EESCAPE');
    expect(fs.readFileSync(path.join(aside, 'f.txt'), 'utf8')).toBe('inside\n');
    expect(tempLeftovers(aside)).toEqual([]);
  });
});

describe('changes act in the held folder', () => {
  // everything outside the root but the zone's own folder the attacker moved aside
  const before = () => ({
    snap: Object.entries(z.outsideSnapshot()).filter(([k]) => !k.startsWith('aside')),
    mtime: fs.lstatSync(path.join(outside, 'f.txt')).mtimeMs,
  });
  type V = ReturnType<Zone['vfs']>;
  const ops: [string, (v: V) => void][] = [
    ['unlink', (v) => v.unlink('d/f.txt')],
    ['rmdir', (v) => v.rmdir('d/e')],
    ['mkdir', (v) => v.mkdir('d/new')],
    ['rename within', (v) => v.rename('d/f.txt', 'd/g.txt')],
    ['rename into', (v) => v.rename('top.txt', 'd/f.txt')],
    ['rename out of', (v) => v.rename('d/f.txt', 'top2.txt')],
    ['utimes', (v) => v.utimes('d/f.txt', 1, 1)],
    ['chmod', (v) => v.chmod('d/f.txt', 0o600)],
    ['writeFile', (v) => v.writeFile('d/f.txt', 'PWNED')],
    ['writeFile new', (v) => v.writeFile('d/n.txt', 'PWNED')],
    ['append', (v) => v.writeFile('d/f.txt', 'PWNED', '/', { append: true })],
  ];
  beforeEach(() => {
    fs.mkdirSync(z.at('d/e'));
    fs.mkdirSync(path.join(outside, 'e'));
    fs.writeFileSync(z.at('top.txt'), 'top\n');
    fs.utimesSync(path.join(outside, 'f.txt'), 1000, 1000);
  });

  for (const [name, op] of ops) {
    test(`${name}: d swapped for a symlink to outside after the path was resolved`, () => {
      const vfs = z.vfs();
      const orig = vfs.resolve.bind(vfs);
      let calls = 0;
      // swap once the path naming d was resolved (the last resolution of the op)
      vfs.resolve = ((p: string, cwd?: string, o?: object) => {
        const r = orig(p, cwd, o);
        if (p.startsWith('d/') && calls++ === 0) swapDir(outside);
        return r;
      }) as typeof vfs.resolve;
      const b = before();
      expectVfsError(() => op(vfs), ['ESYMLINK', 'EESCAPE']);
      expect(before()).toEqual(b);
    });

    test(`${name}: d swapped for a symlink to outside after it was held`, () => {
      const vfs = z.vfs();
      const aside = path.join(z.base, 'aside');
      // the first lstat through a held folder is right after it was opened and verified
      hookOnce('lstatSync', () => swapDir(outside, aside), (p) => String(p).startsWith('/proc/') && !String(p).endsWith('/top.txt') && !String(p).endsWith('/top2.txt'));
      const b = before();
      try {
        op(vfs);
      } catch (e) {
        record(e);
      }
      expect(before()).toEqual(b);
      expect(tempLeftovers(outside)).toEqual([]);
    });
  }
});
