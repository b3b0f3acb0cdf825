// Defences 5 and 6: hard-linked files are not written through; FIFOs, sockets and devices
// are never opened (and never block). child_process is used for set-up only (mkfifo, mknod).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { run } from '../helpers.js';
import { SECRET, expectVfsError, guardLeaks, hookOnce, makeZone, record, tempLeftovers, withinMs, type Zone } from './fixture.js';

guardLeaks();

let z: Zone;
let outsideLink: string;
beforeEach(() => {
  z = makeZone();
  fs.writeFileSync(z.at('plain.txt'), 'plain\n');
  outsideLink = path.join(z.base, 'outside', 'hard.txt');
  fs.writeFileSync(outsideLink, SECRET);
  fs.chmodSync(outsideLink, 0o600);
  fs.linkSync(outsideLink, z.at('hard.txt')); // same inode, one name outside the zone
  fs.mkdirSync(z.at('d'));
  fs.writeFileSync(z.at('d/a.txt'), 'pair\n');
  fs.linkSync(z.at('d/a.txt'), z.at('d/b.txt')); // both names inside
});

describe('hard links (nlink > 1) are not written through', () => {
  test('writeFile / createWriter / append refuse; the other link is unchanged', () => {
    const vfs = z.vfs();
    for (const p of ['hard.txt', 'd/a.txt', 'd/b.txt']) {
      expectVfsError(() => vfs.writeFile(p, 'pwned'), 'EHARDLINK');
      expectVfsError(() => vfs.writeFile(p, 'pwned', '/', { append: true }), 'EHARDLINK');
      expectVfsError(() => vfs.createWriter(p), 'EHARDLINK');
    }
    expect(fs.readFileSync(outsideLink, 'utf8')).toBe(SECRET);
    expect(fs.readFileSync(z.at('d/b.txt'), 'utf8')).toBe('pair\n');
    expect(tempLeftovers(z.root)).toEqual([]);
    expect(tempLeftovers(z.at('d'))).toEqual([]);
  });

  test('rename over a hard-linked file is refused', () => {
    const vfs = z.vfs();
    expectVfsError(() => vfs.rename('plain.txt', 'hard.txt'), 'EHARDLINK');
    expectVfsError(() => vfs.rename('plain.txt', 'd/b.txt'), 'EHARDLINK');
    expect(fs.readFileSync(z.at('plain.txt'), 'utf8')).toBe('plain\n');
    expect(fs.statSync(z.at('hard.txt')).nlink).toBe(2);
  });

  test('a followed inside symlink to a hard-linked file does not write through either', () => {
    fs.symlinkSync('hard.txt', z.at('to-hard'));
    const vfs = z.vfs({ followSymlinks: true });
    expectVfsError(() => vfs.writeFile('to-hard', 'pwned'), 'EHARDLINK');
    expect(fs.readFileSync(outsideLink, 'utf8')).toBe(SECRET);
  });

  test('chmod and utimes do not change the shared inode (metadata is written through too)', () => {
    const vfs = z.vfs();
    const t0 = fs.statSync(outsideLink).mtimeMs;
    expectVfsError(() => vfs.chmod('hard.txt', 0o666), 'EHARDLINK');
    expectVfsError(() => vfs.utimes('hard.txt', 1, 1), 'EHARDLINK');
    expect(fs.statSync(outsideLink).mode & 0o777).toBe(0o600);
    expect(fs.statSync(outsideLink).mtimeMs).toBe(t0);
  });

  test('reading and unlinking a hard-linked name are fine; unlink leaves the other name', () => {
    const vfs = z.vfs();
    expect(vfs.readFile('d/a.txt').toString()).toBe('pair\n');
    vfs.unlink('hard.txt');
    expect(fs.readFileSync(outsideLink, 'utf8')).toBe(SECRET);
    vfs.unlink('d/b.txt');
    // once it is the only link, the inside name can be written again
    vfs.writeFile('d/a.txt', 'alone');
    expect(fs.readFileSync(z.at('d/a.txt'), 'utf8')).toBe('alone');
  });
});

describe('set-id bits never reach the host', () => {
  test('chmod and new-file modes drop setuid / setgid', () => {
    const vfs = z.vfs();
    vfs.chmod('plain.txt', 0o6755);
    expect(fs.statSync(z.at('plain.txt')).mode & 0o7777).toBe(0o755);
    vfs.writeFile('new.bin', '\x7fELF', '/', { mode: 0o4777 });
    expect(fs.statSync(z.at('new.bin')).mode & 0o6000).toBe(0);
  });

  test('rewriting a setuid file (set up on the host) does not keep the bit', () => {
    fs.chmodSync(z.at('plain.txt'), 0o4755);
    const vfs = z.vfs();
    vfs.writeFile('plain.txt', 'new content');
    expect(fs.statSync(z.at('plain.txt')).mode & 0o7777).toBe(0o755);
  });
});

describe('special files are never opened', () => {
  let server: net.Server | undefined;
  afterEach(async () => {
    if (server) await new Promise<void>((res) => server!.close(() => res()));
    server = undefined;
  });

  const readers = (vfs: ReturnType<Zone['vfs']>, p: string) => [
    () => vfs.openRead(p),
    () => vfs.readFile(p),
    () => [...vfs.readChunks(p)],
  ];

  test('a FIFO is refused at once by openRead / readFile / readChunks, and never written', async () => {
    execFileSync('mkfifo', [z.at('fifo')]);
    for (const policy of [{}, { followSymlinks: true }]) {
      const vfs = z.vfs(policy);
      await withinMs(2000, () => {
        for (const f of readers(vfs, 'fifo')) expectVfsError(f, 'ESPECIAL');
        expectVfsError(() => vfs.writeFile('fifo', 'x'), 'ESPECIAL');
        expectVfsError(() => vfs.writeFile('fifo', 'x', '/', { append: true }), 'ESPECIAL');
        expectVfsError(() => vfs.createWriter('fifo'), 'ESPECIAL');
      });
      expect(vfs.lstat('fifo').isFIFO()).toBe(true);
      expect(vfs.readdir('/').find((e) => e.name === 'fifo')?.type).toBe('other');
    }
    expect(fs.lstatSync(z.at('fifo')).isFIFO()).toBe(true);
  });

  test('a followed symlink to a FIFO is refused too', async () => {
    execFileSync('mkfifo', [z.at('fifo')]);
    fs.symlinkSync('fifo', z.at('to-fifo'));
    const vfs = z.vfs({ followSymlinks: true });
    await withinMs(2000, () => {
      for (const f of readers(vfs, 'to-fifo')) expectVfsError(f, 'ESPECIAL');
    });
  });

  test('a unix socket is refused at once', async () => {
    const sock = z.at('sock');
    server = net.createServer(() => {});
    await new Promise<void>((res) => server!.listen(sock, () => res()));
    const vfs = z.vfs();
    await withinMs(2000, () => {
      for (const f of readers(vfs, 'sock')) expectVfsError(f, 'ESPECIAL');
      expectVfsError(() => vfs.writeFile('sock', 'x'), 'ESPECIAL');
    });
    expect(vfs.lstat('sock').isSocket()).toBe(true);
  });

  test('device nodes: a symlink to /dev/zero or /dev/tty is refused in both policies', async () => {
    fs.symlinkSync('/dev/zero', z.at('zero'));
    fs.symlinkSync('/dev/tty', z.at('tty'));
    await withinMs(2000, () => {
      for (const p of ['zero', 'tty']) {
        for (const f of readers(z.vfs(), p)) expectVfsError(f, 'ESYMLINK');
        for (const f of readers(z.vfs({ followSymlinks: true }), p)) expectVfsError(f, 'EESCAPE');
      }
    });
  });

  test('a real character device inside the zone (if mknod is permitted here) is refused', async () => {
    try {
      execFileSync('mknod', [z.at('null'), 'c', '1', '3'], { stdio: 'ignore' });
    } catch {
      return; // no CAP_MKNOD in this sandbox: covered by the FIFO/socket cases (same code path)
    }
    const vfs = z.vfs();
    await withinMs(2000, () => {
      for (const f of readers(vfs, 'null')) expectVfsError(f, 'ESPECIAL');
      expectVfsError(() => vfs.writeFile('null', 'x'), 'ESPECIAL');
    });
    expect(fs.lstatSync(z.at('null')).isCharacterDevice()).toBe(true);
  });

  test('a file swapped for a FIFO after resolution is not read and does not block', async () => {
    // The lstat said "regular file"; by open time it is a FIFO with no writer. O_NONBLOCK
    // makes the open return at once; the identity check (dev, ino, isFile) then refuses it.
    // The '.' takes the full resolution (a plain path has its own test below).
    fs.writeFileSync(z.at('swap'), 'regular');
    const vfs = z.vfs();
    const orig = vfs.resolveExisting.bind(vfs);
    vfs.resolveExisting = ((p: string, cwd?: string, o?: object) => {
      const r = orig(p, cwd, o);
      fs.unlinkSync(z.at('swap'));
      execFileSync('mkfifo', [z.at('swap')]);
      return r;
    }) as typeof vfs.resolveExisting;
    await withinMs(2000, () => expectVfsError(() => vfs.readFile('./swap'), ['EESCAPE', 'ESPECIAL']));
  });

  test('a plain path swapped for a FIFO between its lstat and its open is not read and does not block', async () => {
    fs.writeFileSync(z.at('swap'), 'regular');
    hookOnce('openSync', () => {
      fs.unlinkSync(z.at('swap'));
      execFileSync('mkfifo', [z.at('swap')]);
    });
    await withinMs(2000, () => expectVfsError(() => z.vfs().readFile('swap'), ['EESCAPE', 'ESPECIAL']));
    expect(fs.lstatSync(z.at('swap')).isFIFO()).toBe(true);
  });

  test('through the runner: cat of a FIFO returns an error promptly', async () => {
    execFileSync('mkfifo', [z.at('fifo')]);
    const r = await withinMs(5000, () => run(z.root, 'cat fifo plain.txt'));
    expect(r.exitCode).toBe(1);
    expect(r.stdout.toString()).toBe('plain\n');
    expect(r.stderr).toContain('special file not opened');
    record(new Error(r.stderr));
  });
});
