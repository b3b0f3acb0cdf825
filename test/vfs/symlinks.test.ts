// Defences 2 and 3: symlinks are never followed out of the zone; siblings whose names
// extend the root's name are unreachable.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import { Vfs, defaultPolicy } from '../../src/vfs/index.js';
import { run } from '../helpers.js';
import { MARK, SECRET, expectVfsError, guardLeaks, makeZone, markerEscaped, record, type Zone } from './fixture.js';

guardLeaks();

let z: Zone;
let before: Record<string, string>;
beforeEach(() => {
  z = makeZone();
  fs.mkdirSync(z.at('sub/deep'), { recursive: true });
  fs.writeFileSync(z.at('inside.txt'), 'inside\n');
  fs.writeFileSync(z.at('sub/deep/f.txt'), 'deep\n');
  const out = path.join(z.base, 'outside');
  fs.symlinkSync(path.join(out, 'secret.txt'), z.at('abs-file'));
  fs.symlinkSync('../outside/secret.txt', z.at('rel-file'));
  fs.symlinkSync(out, z.at('abs-dir'));
  fs.symlinkSync('../outside', z.at('rel-dir'));
  fs.symlinkSync(path.join(out, MARK), z.at('dangling-out'));
  fs.symlinkSync('missing-inside.txt', z.at('dangling-in'));
  fs.symlinkSync('inside.txt', z.at('in-file'));
  fs.symlinkSync(z.at('inside.txt'), z.at('in-file-abs'));
  fs.symlinkSync('sub/deep', z.at('in-dir'));
  fs.symlinkSync('in-file', z.at('chain-in')); // inside -> inside -> file
  fs.symlinkSync('hop2', z.at('chain-out')); // inside -> inside -> outside
  fs.symlinkSync('sub/hop3', z.at('hop2'));
  fs.symlinkSync('../abs-file', z.at('sub/hop3'));
  fs.symlinkSync('loop-b', z.at('loop-a'));
  fs.symlinkSync('loop-a', z.at('loop-b'));
  fs.symlinkSync('self', z.at('self'));
  fs.symlinkSync('../../../inside.txt', z.at('sub/deep/climb')); // '..' above the root
  fs.symlinkSync('/dev/zero', z.at('zero'));
  fs.symlinkSync('/etc/passwd', z.at('passwd'));
  before = z.outsideSnapshot();
});

function assertOutsideUntouched(): void {
  expect(z.outsideSnapshot()).toEqual(before);
  expect(fs.readFileSync(path.join(z.base, 'outside/secret.txt'), 'utf8')).toBe(SECRET);
  expect(markerEscaped(z.base)).toEqual([]);
}

const OUT_LINKS = ['abs-file', 'rel-file', 'dangling-out', 'chain-out', 'zero', 'passwd'];

describe('symlinks not followed (default policy)', () => {
  test('reading any symlink is refused, whatever it points at', () => {
    const vfs = z.vfs();
    for (const l of [...OUT_LINKS, 'in-file', 'chain-in', 'dangling-in', 'loop-a', 'self']) {
      expectVfsError(() => vfs.readFile(l), 'ESYMLINK');
      expectVfsError(() => [...vfs.readChunks(l)], 'ESYMLINK');
      expectVfsError(() => vfs.openRead(l), 'ESYMLINK');
    }
  });

  test('a symlink as an intermediate component is refused (link/secret)', () => {
    const vfs = z.vfs();
    for (const p of ['abs-dir/secret.txt', 'rel-dir/secret.txt', 'in-dir/f.txt', 'abs-dir/../outside/secret.txt', 'loop-a/x']) {
      expectVfsError(() => vfs.readFile(p), 'ESYMLINK');
      expectVfsError(() => vfs.stat(p), 'ESYMLINK');
      expectVfsError(() => vfs.writeFile(p.replace(/[^/]*$/, MARK), 'x'), 'ESYMLINK');
      expectVfsError(() => vfs.mkdir(p.replace(/[^/]*$/, MARK)), 'ESYMLINK');
    }
    expectVfsError(() => vfs.readdir('abs-dir'), ['ENOTDIR', 'ESYMLINK']);
    expectVfsError(() => vfs.readdir('abs-dir/'), ['ENOTDIR', 'ESYMLINK']);
    assertOutsideUntouched();
  });

  test('writeFile / createWriter / append on a symlink never write its target', () => {
    const vfs = z.vfs();
    for (const l of [...OUT_LINKS.filter((l) => l !== 'zero' && l !== 'passwd'), 'in-file', 'dangling-in']) {
      expectVfsError(() => vfs.writeFile(l, 'pwned'), 'ESYMLINK');
      expectVfsError(() => vfs.writeFile(l, 'pwned', '/', { append: true }), 'ESYMLINK');
      expectVfsError(() => vfs.createWriter(l), 'ESYMLINK');
      expect(fs.lstatSync(z.at(l)).isSymbolicLink()).toBe(true);
    }
    expect(fs.readFileSync(z.at('inside.txt'), 'utf8')).toBe('inside\n');
    expect(fs.existsSync(z.at('missing-inside.txt'))).toBe(false);
    assertOutsideUntouched();
  });

  test('rename onto a symlink replaces the link, not its target; rename of a link moves the link', () => {
    const vfs = z.vfs();
    vfs.writeFile('new.txt', 'replacement');
    vfs.rename('new.txt', 'abs-file');
    expect(fs.lstatSync(z.at('abs-file')).isFile()).toBe(true);
    expect(vfs.readFile('abs-file').toString()).toBe('replacement');
    vfs.rename('rel-file', 'moved-link');
    expectVfsError(() => vfs.readFile('moved-link'), 'ESYMLINK');
    expectVfsError(() => vfs.rename('inside.txt', 'abs-dir/stolen.txt'), 'ESYMLINK');
    expectVfsError(() => vfs.rename('abs-dir/secret.txt', 'stolen.txt'), 'ESYMLINK');
    vfs.rename('abs-dir', 'sub/abs-dir-moved');
    expectVfsError(() => vfs.readFile('sub/abs-dir-moved/secret.txt'), 'ESYMLINK');
    assertOutsideUntouched();
  });

  test('a trailing slash on a symlink means its directory: refused, never acting on the link itself', () => {
    const vfs = z.vfs();
    for (const l of ['abs-dir/', 'rel-dir/', 'in-dir/', 'abs-file/', 'dangling-out/']) {
      expectVfsError(() => vfs.rename('inside.txt', l), 'ESYMLINK');
      expectVfsError(() => vfs.unlink(l), 'ESYMLINK');
      expectVfsError(() => vfs.readdir(l), 'ESYMLINK');
      expectVfsError(() => vfs.writeFile(l, 'x'), 'ESYMLINK');
      expect(fs.lstatSync(z.at(l.slice(0, -1))).isSymbolicLink()).toBe(true);
    }
    const follow = z.vfs({ followSymlinks: true });
    expectVfsError(() => follow.rename('inside.txt', 'abs-dir/'), 'EESCAPE');
    expectVfsError(() => follow.readFile('in-file/'), 'ENOTDIR');
    expect(follow.resolve('in-dir/').vpath).toBe('/sub/deep');
    expect(fs.readFileSync(z.at('inside.txt'), 'utf8')).toBe('inside\n');
    assertOutsideUntouched();
  });

  test('unlink removes the link only; chmod refuses links; utimes does not touch targets', () => {
    const vfs = z.vfs();
    const t0 = fs.statSync(path.join(z.base, 'outside/secret.txt')).mtimeMs;
    vfs.utimes('abs-file', 1, 1);
    expect(fs.statSync(path.join(z.base, 'outside/secret.txt')).mtimeMs).toBe(t0);
    expectVfsError(() => vfs.chmod('abs-file', 0o777), 'ESYMLINK');
    vfs.unlink('abs-file');
    vfs.unlink('abs-dir');
    expectVfsError(() => vfs.rmdir('rel-dir'), 'ENOTDIR');
    expect(fs.existsSync(z.at('abs-file'))).toBe(false);
    expect(fs.statSync(path.join(z.base, 'outside/secret.txt')).mode & 0o777).toBe(0o644);
    assertOutsideUntouched();
  });

  test('lstat / stat describe the link itself and readdir lists it as a symlink', () => {
    const vfs = z.vfs();
    expect(vfs.lstat('abs-file').isSymbolicLink()).toBe(true);
    expect(vfs.stat('abs-file').isSymbolicLink()).toBe(true);
    expect(vfs.stat('abs-file').size).not.toBe(SECRET.length);
    const e = vfs.readdir('/').find((d) => d.name === 'abs-dir');
    expect(e?.type).toBe('symlink');
  });

  test('readlink never shows a host path: outside targets are masked', () => {
    const vfs = z.vfs();
    for (const l of ['abs-file', 'rel-file', 'abs-dir', 'rel-dir', 'dangling-out', 'zero', 'passwd', 'sub/deep/climb']) {
      const t = vfs.readlink(l);
      expect(t).toBe('(outside the zone)');
    }
    expect(vfs.readlink('in-file')).toBe('inside.txt');
    expect(vfs.readlink('in-file-abs')).toBe('/inside.txt');
    expect(vfs.readlink('sub/hop3')).toBe('../abs-file');
    expectVfsError(() => vfs.readlink('inside.txt'), 'EINVAL');
    const all = ['abs-file', 'in-file-abs', 'chain-out', 'loop-a', 'self'].map((l) => vfs.readlink(l));
    for (const t of all) expect(t).not.toContain(z.base);
  });

  test('readlink of an absolute target that re-enters via ".." is masked', () => {
    fs.symlinkSync(`${z.root}/../outside/secret.txt`, z.at('reenter'));
    fs.symlinkSync(`${z.root}/../root-evil`, z.at('reenter-evil'));
    const vfs = z.vfs();
    for (const l of ['reenter', 'reenter-evil']) {
      const t = vfs.readlink(l);
      expect(t).toBe('(outside the zone)');
      expect(t).not.toContain('..');
    }
  });
});

describe('symlinks with followSymlinks: true', () => {
  const follow = () => z.vfs({ followSymlinks: true });

  test('inside targets work: file, absolute, directory, chain', () => {
    const vfs = follow();
    expect(vfs.readFile('in-file').toString()).toBe('inside\n');
    expect(vfs.readFile('in-file-abs').toString()).toBe('inside\n');
    expect(vfs.readFile('chain-in').toString()).toBe('inside\n');
    expect(vfs.readFile('in-dir/f.txt').toString()).toBe('deep\n');
    expect(vfs.readdir('in-dir').map((d) => d.name).sort()).toEqual(['climb', 'f.txt']);
    expect(vfs.resolve('in-dir/..').vpath).toBe('/sub'); // physical '..', like the kernel
    expect(vfs.stat('in-file').isFile()).toBe(true);
  });

  test('outside targets are refused: absolute, relative, dangling, chained, devices', () => {
    const vfs = follow();
    for (const l of OUT_LINKS) {
      expectVfsError(() => vfs.readFile(l), 'EESCAPE');
      expectVfsError(() => vfs.stat(l), 'EESCAPE');
      expectVfsError(() => vfs.writeFile(l, 'pwned'), 'EESCAPE');
    }
    for (const p of ['abs-dir/secret.txt', 'rel-dir/secret.txt', `abs-dir/${MARK}`, 'sub/hop3']) {
      expectVfsError(() => vfs.readFile(p), 'EESCAPE');
      expectVfsError(() => vfs.writeFile(p, 'pwned'), 'EESCAPE');
    }
    expectVfsError(() => vfs.readdir('abs-dir'), 'EESCAPE');
    expectVfsError(() => vfs.mkdir(`rel-dir/${MARK}`), 'EESCAPE');
    expectVfsError(() => vfs.rename('inside.txt', `abs-dir/${MARK}`), 'EESCAPE');
    assertOutsideUntouched();
  });

  test('symlink loops end with ELOOP, not a hang', () => {
    const vfs = follow();
    for (const l of ['loop-a', 'loop-b', 'self', 'self/x', 'loop-a/../inside.txt']) {
      expectVfsError(() => vfs.readFile(l), 'ELOOP');
    }
    expectVfsError(() => vfs.writeFile('self', 'x'), 'ELOOP');
    // a long chain of 50 inside links is over the 40-hop limit
    for (let i = 0; i < 50; i++) fs.symlinkSync(i === 49 ? 'inside.txt' : `c${i + 1}`, z.at(`c${i}`));
    expectVfsError(() => vfs.readFile('c0'), 'ELOOP');
    expect(vfs.readFile('c20').toString()).toBe('inside\n');
  });

  test('relative targets whose ".." climbs above the root are refused, even if they land back inside', () => {
    const vfs = follow();
    expectVfsError(() => vfs.readFile('sub/deep/climb'), 'EESCAPE');
    fs.symlinkSync('../root/inside.txt', z.at('back-in'));
    expectVfsError(() => vfs.readFile('back-in'), 'EESCAPE');
    fs.symlinkSync('sub/../../outside', z.at('sneaky'));
    expectVfsError(() => vfs.readFile('sneaky/secret.txt'), 'EESCAPE');
  });

  test('absolute targets that leave through ".." after the root prefix are refused, not clamped', () => {
    // The host kernel would follow `${root}/../outside/secret.txt` to the real secret;
    // clamping it to a decoy inside would make the Vfs disagree with every other reader.
    fs.mkdirSync(z.at('outside'));
    fs.writeFileSync(z.at('outside/secret.txt'), 'decoy inside');
    fs.symlinkSync(`${z.root}/../outside/secret.txt`, z.at('reenter'));
    fs.symlinkSync(`${z.root}/sub/../../root-evil/secret.txt`, z.at('reenter-evil'));
    const vfs = follow();
    expectVfsError(() => vfs.readFile('reenter'), 'EESCAPE');
    expectVfsError(() => vfs.readFile('reenter-evil'), 'EESCAPE');
    expectVfsError(() => vfs.writeFile('reenter', 'pwned'), 'EESCAPE');
    expect(fs.readFileSync(z.at('outside/secret.txt'), 'utf8')).toBe('decoy inside');
    assertOutsideUntouched();
  });

  test('writing through an inside link writes the target and keeps the link', () => {
    const vfs = follow();
    vfs.writeFile('in-file', 'changed\n');
    expect(fs.lstatSync(z.at('in-file')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(z.at('inside.txt'), 'utf8')).toBe('changed\n');
    vfs.writeFile('dangling-in', 'created');
    expect(fs.readFileSync(z.at('missing-inside.txt'), 'utf8')).toBe('created');
  });
});

describe('siblings whose names extend the root name', () => {
  test('absolute symlinks into root-evil / rootX are refused', () => {
    for (const sib of ['root-evil', 'rootX']) {
      fs.symlinkSync(path.join(z.base, sib, 'secret.txt'), z.at(`to-${sib}`));
      fs.symlinkSync(path.join(z.base, sib), z.at(`dir-${sib}`));
    }
    const vfs = z.vfs({ followSymlinks: true });
    for (const sib of ['root-evil', 'rootX']) {
      expectVfsError(() => vfs.readFile(`to-${sib}`), 'EESCAPE');
      expectVfsError(() => vfs.readFile(`dir-${sib}/secret.txt`), 'EESCAPE');
      expectVfsError(() => vfs.writeFile(`dir-${sib}/${MARK}`, 'x'), 'EESCAPE');
      expect(vfs.readlink(`to-${sib}`)).toBe('(outside the zone)');
    }
    assertOutsideUntouched();
  });

  test('lexical paths cannot name a sibling, even with a root given with a trailing slash', () => {
    const vfs = new Vfs(z.root + '/', defaultPolicy());
    for (const p of ['../root-evil/secret.txt', '/../rootX/secret.txt', '-evil/secret.txt', 'X/secret.txt']) {
      expectVfsError(() => vfs.readFile(p), 'ENOENT');
    }
    vfs.writeFile(`/../../${MARK}`, 'in');
    expect(fs.existsSync(z.at(MARK))).toBe(true);
    assertOutsideUntouched();
  });

  test('a zone opened through a symlinked root still refuses links written with the other spelling', () => {
    const alias = path.join(z.base, 'alias');
    fs.symlinkSync(z.root, alias);
    fs.symlinkSync(path.join(alias, 'inside.txt'), z.at('via-alias'));
    const vfs = new Vfs(alias, defaultPolicy({ followSymlinks: true }));
    expect(vfs.readFile('inside.txt').toString()).toBe('inside\n');
    expectVfsError(() => vfs.readFile('via-alias'), 'EESCAPE'); // safe side: not recognised as inside
    fs.unlinkSync(alias);
  });
});

describe('through the runner', () => {
  test('cat of links out of the zone prints no secret, in either policy', async () => {
    for (const policy of [{}, { followSymlinks: true }]) {
      for (const p of ['abs-file', 'rel-file', 'abs-dir/secret.txt', 'chain-out', 'passwd', 'zero']) {
        const r = await run(z.root, `cat ${p}`, { policy });
        expect(r.exitCode).toBe(1);
        expect(r.stdout.length).toBe(0);
        expect(r.stderr).toMatch(/Symbolic link not followed|path leaves the zone/);
        record(new Error(r.stderr));
      }
    }
    const ok = await run(z.root, 'cat chain-in in-dir/f.txt', { policy: { followSymlinks: true } });
    expect(ok.stdout.toString()).toBe('inside\ndeep\n');
    const loop = await run(z.root, 'cat loop-a', { policy: { followSymlinks: true } });
    expect(loop.stderr).toContain('Too many levels of symbolic links');
    record(new Error(loop.stderr));
  });

  test('a cwd that is a symlink out of the zone is refused as a whole', async () => {
    for (const policy of [{}, { followSymlinks: true }]) {
      const r = await run(z.root, 'cat secret.txt', { cwd: '/abs-dir', policy });
      expect(r.error?.code).toMatch(/PATH_ESCAPE|NOT_A_DIRECTORY/);
      expect(r.stdout.length).toBe(0);
      record(new Error(JSON.stringify(r.error)));
    }
  });
});
