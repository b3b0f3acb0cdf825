// Defence 7: writes are atomic (temp file in the same folder, fsync, rename), and the
// temp files are invisible and unreachable by name.
import * as fs from 'node:fs';
import { beforeEach, describe, expect, test } from 'vitest';
import { executeTask } from '../../src/exec/index.js';
import { defaultPolicy } from '../../src/vfs/index.js';
import { expectVfsError, guardLeaks, hookOnce, makeZone, record, tempLeftovers, type Zone } from './fixture.js';

guardLeaks();

let z: Zone;
beforeEach(() => {
  z = makeZone();
  fs.mkdirSync(z.at('d'));
  fs.writeFileSync(z.at('d/f.txt'), 'old content\n');
  fs.chmodSync(z.at('d/f.txt'), 0o640);
});

const old = () => fs.readFileSync(z.at('d/f.txt'), 'utf8');

describe('atomic replacement', () => {
  test('before commit the target keeps its old content; the bytes are in a temp file beside it', () => {
    const vfs = z.vfs();
    const w = vfs.createWriter('d/f.txt');
    w.write(Buffer.from('new '));
    w.write(Buffer.from('content\n'));
    expect(old()).toBe('old content\n');
    const temps = tempLeftovers(z.at('d'));
    expect(temps).toHaveLength(1);
    expect(fs.readFileSync(z.at('d/' + temps[0]), 'utf8')).toBe('new content\n');
    w.commit();
    expect(old()).toBe('new content\n');
    expect(tempLeftovers(z.at('d'))).toEqual([]);
    expect(fs.statSync(z.at('d/f.txt')).mode & 0o777).toBe(0o640); // mode kept
    expect(vfs.changes.at(-1)).toMatchObject({ op: 'write', path: '/d/f.txt' });
  });

  test('abort leaves the old content and no temp file; a second abort or commit is harmless', () => {
    const vfs = z.vfs();
    const w = vfs.createWriter('d/f.txt');
    w.write(Buffer.from('half-written'));
    w.abort();
    w.abort();
    w.commit();
    expect(old()).toBe('old content\n');
    expect(tempLeftovers(z.at('d'))).toEqual([]);
    expect(() => w.write(Buffer.from('more'))).toThrow();
    expect(old()).toBe('old content\n');
  });

  test('exceeding maxFileSize fails with EFBIG, keeps the old content, leaves no temp', () => {
    const vfs = z.vfs({ maxFileSize: 16 });
    expectVfsError(() => vfs.writeFile('d/f.txt', 'x'.repeat(17)), 'EFBIG');
    expect(old()).toBe('old content\n');
    const w = vfs.createWriter('d/f.txt');
    w.write(Buffer.from('x'.repeat(10)));
    const e = expectVfsError(() => w.write(Buffer.from('y'.repeat(10))), 'EFBIG');
    expect(e.details).toEqual({ limit: 16 });
    w.commit(); // a caller that commits anyway must not publish the partial file
    expect(old()).toBe('old content\n');
    expectVfsError(() => vfs.writeFile('d/new.txt', 'z'.repeat(100)), 'EFBIG');
    expect(fs.existsSync(z.at('d/new.txt'))).toBe(false);
    expect(tempLeftovers(z.at('d'))).toEqual([]);
  });

  test('append is copy-then-append: over the limit it fails whole, with no temp left', () => {
    const vfs = z.vfs({ maxFileSize: 20 });
    vfs.writeFile('d/f.txt', ' more', '/', { append: true });
    expect(old()).toBe('old content\n more');
    expectVfsError(() => vfs.writeFile('d/f.txt', ' and more', '/', { append: true }), 'EFBIG');
    expect(old()).toBe('old content\n more');
    fs.writeFileSync(z.at('d/big.txt'), 'b'.repeat(100)); // already over the limit on disk
    expectVfsError(() => vfs.createWriter('d/big.txt', '/', { append: true }), 'EFBIG');
    expect(tempLeftovers(z.at('d'))).toEqual([]);
  });

  test('a failure while copying the old content for append leaves no temp file', () => {
    const vfs = z.vfs();
    // The file was replaced by another (same content, another inode) between its check and the
    // copy: the copy reads through the held folder and refuses a file that is not the one checked.
    hookOnce('openSync', () => {
      fs.writeFileSync(z.at('d/f2.txt'), 'old content\n'); // made while the old inode lives: another ino
      fs.renameSync(z.at('d/f2.txt'), z.at('d/f.txt'));
    }, (p) => String(p).endsWith('/f.txt'));
    expectVfsError(() => vfs.createWriter('d/f.txt', '/', { append: true }), 'EESCAPE');
    expect(tempLeftovers(z.at('d'))).toEqual([]);
    expect(old()).toBe('old content\n');
  });

  test('exclusive refuses an existing file and leaves nothing', () => {
    const vfs = z.vfs();
    expectVfsError(() => vfs.createWriter('d/f.txt', '/', { exclusive: true }), 'EEXIST');
    expect(tempLeftovers(z.at('d'))).toEqual([]);
  });

  test('two writers to one file: each has its own temp; the last commit wins whole', () => {
    const vfs = z.vfs();
    const a = vfs.createWriter('d/f.txt');
    const b = vfs.createWriter('d/f.txt');
    a.write(Buffer.from('AAAA'));
    b.write(Buffer.from('BBBBBBBB'));
    expect(tempLeftovers(z.at('d'))).toHaveLength(2);
    a.commit();
    expect(old()).toBe('AAAA');
    b.commit();
    expect(old()).toBe('BBBBBBBB');
    expect(tempLeftovers(z.at('d'))).toEqual([]);
  });
});

describe('temp files are invisible and unreachable', () => {
  test('readdir hides an in-progress temp file; no operation reaches it by name', () => {
    const vfs = z.vfs();
    const w = vfs.createWriter('d/f.txt'); // never committed: like a crash mid-write
    w.write(Buffer.from('in progress'));
    const [tmp] = tempLeftovers(z.at('d'));
    expect(tmp).toBeDefined();
    expect(vfs.readdir('d').map((e) => e.name)).toEqual(['f.txt']);
    const p = `d/${tmp}`;
    expectVfsError(() => vfs.readFile(p), 'EBLOCKED');
    expectVfsError(() => vfs.stat(p), 'EBLOCKED');
    expectVfsError(() => vfs.writeFile(p, 'x'), 'EBLOCKED');
    expectVfsError(() => vfs.unlink(p), 'EBLOCKED');
    expectVfsError(() => vfs.rename(p, 'd/stolen'), 'EBLOCKED');
    expectVfsError(() => vfs.rename('d/f.txt', p), 'EBLOCKED');
    expectVfsError(() => vfs.mkdir('d/.nosh-tmp-abc'), 'EBLOCKED');
    expectVfsError(() => vfs.readFile('d/x.nosh-tmp-123'), 'EBLOCKED');
    expect(vfs.exists(p)).toBe(false);
    w.abort();
  });

  test('through a task with stdout_file: a failing write leaves the old file and no temp', async () => {
    // The output comes from an argument: since issue 16, reading a file over maxFileSize is refused too.
    const res = await executeTask({
      root: z.root, policy: defaultPolicy({ maxFileSize: 100 }), cwd: '/', stdoutFile: '/d/f.txt',
      stages: [{ argv: ['echo', 'x'.repeat(1000)] }],
      limits: { maxOutputBytes: 1_000_000, maxResults: 1000, maxBufferBytes: 1 << 20 },
    });
    record(new Error(JSON.stringify(res)));
    expect(old()).toBe('old content\n');
    expect(tempLeftovers(z.at('d'))).toEqual([]);
  });
});
