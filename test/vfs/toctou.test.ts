// Defence 9: time-of-check / time-of-use. Resolution lstat()s component by component, then
// the final operation uses a host path. Someone else on the host (not nosh: no command
// creates symlinks) could swap a checked component for a symlink in between. These tests
// make the swap happen at the worst moment, by wrapping Vfs methods on the instance or
// hooking node:fs functions (syncBuiltinESMExports makes the ESM import see the hook).
//
// What is closed: reads. openRead opens with O_NOFOLLOW|O_NONBLOCK, then checks the fd's
// (dev, ino) against the lstat and asks the kernel where the fd really is
// (/proc/self/fd/N) — a swapped final component fails the open (ELOOP), a swapped
// directory fails the identity or location check (EESCAPE). readdir lists through the
// verified fd. A writer's temp file is checked the same way right after it is created.
//
// What remains (documented, not closable from Node without openat/renameat): between the
// writer's check and its rename(2) on commit, and for mkdir / unlink / rmdir / rename /
// chmod / utimes, which act on host paths. A host-side attacker fast enough to swap a
// directory in that window can redirect one such operation. Inside nosh nobody can create
// a symlink, so this needs a hostile process on the host with write access to the zone.
import * as fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SECRET, expectVfsError, guardLeaks, makeZone, tempLeftovers, type Zone } from './fixture.js';

guardLeaks();

const cfs = createRequire(import.meta.url)('node:fs') as Record<string, (...a: unknown[]) => unknown>;
const restores: (() => void)[] = [];

/** Run `before` just before the next call of fs[name] (then unhook). */
function hookOnce(name: string, before: (...args: unknown[]) => void): void {
  const orig = cfs[name]!;
  const restore = () => { cfs[name] = orig; syncBuiltinESMExports(); };
  cfs[name] = function hooked(this: unknown, ...args: unknown[]) {
    restore();
    before(...args);
    return orig.apply(this, args);
  };
  syncBuiltinESMExports();
  restores.push(restore);
}
afterEach(() => { for (const r of restores.splice(0)) r(); });

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
    expectVfsError(() => vfs.readFile('d/f.txt'), ['ELOOP', 'EESCAPE']);
    // the second, fresh resolution sees the symlink and refuses it up front
    expectVfsError(() => vfs.readFile('d/f.txt'), 'ESYMLINK');
  });

  test('a checked directory swapped for a symlink to another outside dir: identity check refuses', () => {
    const vfs = z.vfs();
    swapAfterResolve(vfs, () => swapDir(outside));
    const e = expectVfsError(() => vfs.readFile('d/f.txt'), 'EESCAPE');
    expect(e.message).not.toContain('SECRET');
  });

  test('the real directory moved outside and linked back: same inode, but /proc/self/fd says outside', () => {
    // dev and ino match what was resolved, so only the kernel's view of the fd's location
    // (readlink /proc/self/fd/N) tells that the file now lives outside the root.
    const vfs = z.vfs();
    const aside = path.join(outside, 'moved');
    swapAfterResolve(vfs, () => swapDir(aside, aside));
    expectVfsError(() => vfs.openRead('d/f.txt'), 'EESCAPE');
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

  test('the remaining window (swap between temp check and rename) cannot name an outside file', () => {
    // After the temp file is verified inside, a swap of its folder makes rename(2) look for
    // the random temp name in the new folder, where it does not exist: ENOENT, no write.
    const vfs = z.vfs();
    const w = vfs.createWriter('d/f.txt');
    w.write(Buffer.from('PWNED'));
    hookOnce('renameSync', () => swapDir(outside));
    expectVfsError(() => w.commit(), 'ENOENT');
    expect(fs.readFileSync(path.join(outside, 'f.txt'), 'utf8')).toBe(SECRET);
  });
});
