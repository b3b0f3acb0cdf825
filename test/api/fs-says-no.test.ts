/**
 * Issue 17 §5: clear errors where the file system says no. Disk full is NO_SPACE with nothing
 * partial left; mv and the move tool across file systems copy then remove; a folder deeper
 * than nosh can follow says "too deep"; a full request queue is BUSY (JSON-RPC -32001).
 * The full disk and the second file system are tmpfs mounts inside the zone (this needs
 * root, as CI has; where mounting is refused these tests fail and say why, never skip).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { serveRpc } from '../../src/rpc/server.js';
import { tempDir } from '../helpers.js';

let nosh: Nosh;
let root: string;
const mounts: string[] = [];

function mountTmpfs(dir: string, size: string): boolean {
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  if (r.status !== 0) return false;
  mounts.push(dir);
  return true;
}

let canMount = false;
beforeAll(async () => {
  root = tempDir('nosh-fsno-');
  canMount = mountTmpfs(path.join(root, 'full'), '64k') && mountTmpfs(path.join(root, 'mnt'), '4m');
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh.close();
  for (const m of mounts.reverse()) spawnSync('umount', [m]);
  fs.rmSync(root, { recursive: true, force: true });
});

const BIG = 'z'.repeat(200_000);
const leftovers = (dir: string) => fs.readdirSync(dir).filter((n) => n.includes('.nosh-tmp-'));

describe('disk full: NO_SPACE, nothing partial left', () => {
  it('write, append, copy tools and stdout_file answer NO_SPACE with a hint', async () => {
    expect(canMount, 'these tests mount tmpfs: run them as root (CI does)').toBe(true);
    const full = path.join(root, 'full');
    fs.writeFileSync(path.join(full, 'small.txt'), 'keep\n');
    fs.writeFileSync(path.join(root, 'big.txt'), BIG);
    const w = await nosh.call('write', { path: 'full/new.txt', content: BIG });
    expect(w.success).toBe(false);
    if (w.success) return;
    expect(w.error.code).toBe('NO_SPACE');
    expect(w.error.message).toBe('full/new.txt: No space left on device');
    expect(w.error.hint).toMatch(/disk .* is full/);
    const a = await nosh.call('write', { path: 'full/small.txt', content: BIG, mode: 'append' });
    expect(!a.success && a.error.code).toBe('NO_SPACE');
    const c = await nosh.call('copy', { from: 'big.txt', to: 'full/copy.txt' });
    expect(!c.success && c.error.code).toBe('NO_SPACE');
    const s = await nosh.exec({ command: 'cat big.txt' }, { stdoutFile: 'full/out.txt' });
    expect(s.success ? `exit ${s.data.exit_code}: ${s.data.stderr}` : s.error.code).toMatch(/NO_SPACE|exit 1: cat: .*No space left on device/);
    expect(fs.readdirSync(full).sort()).toEqual(['small.txt']);
    expect(fs.readFileSync(path.join(full, 'small.txt'), 'utf8')).toBe('keep\n');
    expect(leftovers(full)).toEqual([]);
  });

  it('tee, cp, sed -i and sort -o say No space left on device and leave no file', async () => {
    expect(canMount, 'these tests mount tmpfs: run them as root (CI does)').toBe(true);
    const full = path.join(root, 'full');
    fs.writeFileSync(path.join(root, 'big.txt'), BIG);
    const tee = await nosh.exec({ command: 'tee full/t.txt' }, { stdin: BIG, maxOutputBytes: 100 });
    expect(tee.success && tee.data.exit_code).toBe(1);
    expect(tee.success && tee.data.stderr).toBe('tee: full/t.txt: No space left on device\n');
    const cp = await nosh.exec({ command: 'cp big.txt full/c.txt' });
    expect(cp.success && cp.data.stderr).toMatch(/^cp: .*No space left on device\n$/);
    const sort = await nosh.exec({ command: 'sort -o full/s.txt big.txt' });
    expect(sort.success && sort.data.stderr).toMatch(/^sort: .*No space left on device\n$/);
    fs.writeFileSync(path.join(full, 'e.txt'), 'a\n');
    const sed = await nosh.exec({ command: `sed -i 's/a/${'b'.repeat(100_000)}/' full/e.txt` });
    expect(sed.success && sed.data.stderr).toMatch(/^sed: .*No space left on device\n$/);
    expect(fs.readFileSync(path.join(full, 'e.txt'), 'utf8')).toBe('a\n');
    expect(fs.readdirSync(full).sort()).toEqual(['e.txt', 'small.txt']);
    expect(leftovers(full)).toEqual([]);
  });
});

describe('moves across file systems', () => {
  it('mv copies then removes a file and a folder tree, keeping modes and times', async () => {
    expect(canMount, 'these tests mount tmpfs: run them as root (CI does)').toBe(true);
    fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
    fs.chmodSync(path.join(root, 'a.txt'), 0o640);
    fs.utimesSync(path.join(root, 'a.txt'), 1_000_000, 1_000_000);
    fs.mkdirSync(path.join(root, 'tree', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'tree', 'sub', 'b.txt'), 'beta\n');
    const r = await nosh.exec({ command: 'mv a.txt tree mnt/' });
    expect(r.success && r.data).toMatchObject({ exit_code: 0, stderr: '' });
    expect(fs.existsSync(path.join(root, 'a.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'tree'))).toBe(false);
    const moved = fs.statSync(path.join(root, 'mnt', 'a.txt'));
    expect(fs.readFileSync(path.join(root, 'mnt', 'a.txt'), 'utf8')).toBe('alpha\n');
    expect(moved.mode & 0o777).toBe(0o640);
    expect(moved.mtimeMs).toBe(1_000_000_000);
    expect(fs.readFileSync(path.join(root, 'mnt', 'tree', 'sub', 'b.txt'), 'utf8')).toBe('beta\n');
    // and back, renaming on the way
    const back = await nosh.exec({ command: 'mv mnt/tree tree2' });
    expect(back.success && back.data.exit_code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'tree2', 'sub', 'b.txt'), 'utf8')).toBe('beta\n');
    expect(fs.existsSync(path.join(root, 'mnt', 'tree'))).toBe(false);
    expect(leftovers(path.join(root, 'mnt'))).toEqual([]);
  });

  it('the move tool does the same instead of PERMISSION_DENIED', async () => {
    expect(canMount, 'these tests mount tmpfs: run them as root (CI does)').toBe(true);
    fs.writeFileSync(path.join(root, 'm.txt'), 'moved by the tool\n');
    const r = await nosh.call('move', { from: 'm.txt', to: 'mnt/m.txt' });
    expect(r).toMatchObject({ success: true, data: { from: '/m.txt', to: '/mnt/m.txt', moved: true } });
    expect(fs.readFileSync(path.join(root, 'mnt', 'm.txt'), 'utf8')).toBe('moved by the tool\n');
    expect(fs.existsSync(path.join(root, 'm.txt'))).toBe(false);
    const d = await nosh.call('move', { from: 'tree2', to: 'mnt/t' });
    expect(d.success).toBe(true);
    expect(fs.readFileSync(path.join(root, 'mnt', 't', 'sub', 'b.txt'), 'utf8')).toBe('beta\n');
    expect(fs.existsSync(path.join(root, 'tree2'))).toBe(false);
  });

  it('a move that does not fit removes its partial copy and keeps the source', async () => {
    expect(canMount, 'these tests mount tmpfs: run them as root (CI does)').toBe(true);
    fs.mkdirSync(path.join(root, 'heavy'));
    fs.writeFileSync(path.join(root, 'heavy', 'one.txt'), 'small\n');
    fs.writeFileSync(path.join(root, 'heavy', 'two.txt'), BIG);
    const r = await nosh.call('move', { from: 'heavy', to: 'full/heavy' });
    expect(!r.success && r.error.code).toBe('NO_SPACE');
    expect(fs.existsSync(path.join(root, 'full', 'heavy'))).toBe(false);
    expect(fs.readdirSync(path.join(root, 'heavy')).sort()).toEqual(['one.txt', 'two.txt']);
  });
});

describe('a folder deeper than nosh can follow', () => {
  it('says too deep, not that the path leaves the zone', async () => {
    // A long zone root and 360 levels: the deepest folders' host paths pass PATH_MAX (4096)
    // while their paths in the zone stay under it.
    const long = path.join(tempDir('nosh-deep-'), 'r'.repeat(120), 's'.repeat(120));
    fs.mkdirSync(long, { recursive: true });
    const py = "import os,sys\nos.chdir(sys.argv[1])\nfor i in range(360):\n  os.mkdir('d123456789'); os.chdir('d123456789')\nopen('f.txt','w').write('hi\\n')\n";
    expect(spawnSync('python3', ['-c', py, long]).status).toBe(0);
    const deep = await createNosh({ root: long, threads: 1 });
    try {
      for (const cmd of ['find . -name f.txt', 'grep -r hi .', 'rm -r d123456789']) {
        const r = await deep.exec({ command: cmd });
        expect(r.success).toBe(true);
        if (!r.success) continue;
        expect(r.data.stderr, cmd).toMatch(/too deep/);
        expect(r.data.stderr, cmd).not.toMatch(/leaves the zone/);
      }
      const inner = Array(355).fill('d123456789').join('/');
      const cat = await deep.call('read', { path: `${inner}/d123456789/d123456789/d123456789/d123456789/d123456789/f.txt` });
      expect(!cat.success && cat.error.code).toBe('INVALID_ARGUMENT');
      expect(!cat.success && cat.error.message).toMatch(/too deep/);
      const del = await deep.call('delete', { path: 'd123456789', recursive: true });
      expect(!del.success && del.error.code).toBe('INVALID_ARGUMENT');
      expect(!del.success && del.error.message).toMatch(/too deep/);
    } finally {
      await deep.close();
      spawnSync('rm', ['-rf', path.dirname(path.dirname(long))]); // deeper than fs.rmSync can go
    }
  }, 60_000);
});

describe('a full request queue', () => {
  it('is BUSY for the library and -32001 for JSON-RPC, with a retry hint; the queued calls still run', async () => {
    const busyRoot = tempDir('nosh-busy-');
    const fd = fs.openSync(path.join(busyRoot, 'sparse.bin'), 'w');
    fs.ftruncateSync(fd, 64 * 1024 ** 3);
    fs.closeSync(fd);
    const n = await createNosh({ root: busyRoot, threads: 1, limits: { maxFileSize: 2 ** 40 } }); // the slow read must be allowed to run
    try {
      // Commands not loaded yet in this thread are ordered as possible writers (not queued at
      // once): load them first. Then one long call holds the only worker and 10 000 more
      // fill the queue, all in this tick.
      await n.exec({ command: 'true | cat | wc -c' });
      const ac = new AbortController();
      const slow = n.exec({ command: 'cat sparse.bin | wc -c' }, { signal: ac.signal, timeoutMs: 120_000 });
      const queued = Array.from({ length: 10_000 }, () => n.exec({ command: 'true' }));
      const over = await n.exec({ command: 'true' });
      expect(over.success).toBe(false);
      if (over.success) return;
      expect(over.error.code).toBe('BUSY');
      expect(over.error.hint).toMatch(/retry/i);
      // The same through JSON-RPC while the queue is still full.
      const input = new PassThrough();
      const output = new PassThrough();
      let text = '';
      output.on('data', (d: Buffer) => (text += d.toString()));
      const served = serveRpc(n, input, output, { maxInflight: 10 });
      input.end(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'exec', params: { command: 'true' } }) + '\n');
      await served;
      const answer = JSON.parse(text.trim());
      expect(answer.id).toBe(7);
      expect(answer.error.code).toBe(-32001);
      expect(answer.error.data.code).toBe('BUSY');
      expect(answer.error.data.hint).toMatch(/retry/i);
      ac.abort();
      expect(await slow).toMatchObject({ success: false, error: { code: 'CANCELLED' } });
      const done = await Promise.all(queued);
      expect(done.every((r) => r.success && r.data.exit_code === 0)).toBe(true);
    } finally {
      await n.close();
      fs.rmSync(busyRoot, { recursive: true, force: true });
    }
  }, 120_000);
});
