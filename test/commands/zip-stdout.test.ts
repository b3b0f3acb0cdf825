// zip - (the archive on standard output) and zip -T through the library: the bytes written are an
// archive the real unzip tests OK and extracts to the same files, a big entry streams through.
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let nosh: Nosh;
let root: string;
beforeAll(async () => {
  root = tempDir('nosh-zipout-');
  fs.mkdirSync(path.join(root, 'd/sub'), { recursive: true });
  fs.writeFileSync(path.join(root, 'a.txt'), 'hello world\n');
  fs.writeFileSync(path.join(root, 'd/b.txt'), 'hello\n'.repeat(1000));
  fs.writeFileSync(path.join(root, 'd/sub/rand.bin'), crypto.randomBytes(12 * 1024 * 1024)); // past the 8 MB read-whole size: streamed
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('zip -', () => {
  it('writes an archive to standard output that unzip -t passes and that extracts to the same bytes', async () => {
    const r = await nosh.call('exec', { command: 'zip -r - a.txt d', stdout_file: 'out.zip' }) as any;
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(r.data.exit_code).toBe(0);
    expect(r.data.stderr).toContain('  adding: d/sub/rand.bin');
    const t = spawnSync('unzip', ['-t', 'out.zip'], { cwd: root });
    expect(t.stdout.toString()).toContain('No errors detected in compressed data of out.zip.');
    const x = spawnSync('unzip', ['-q', '-d', 'x', 'out.zip'], { cwd: root });
    expect(x.status).toBe(0);
    for (const f of ['a.txt', 'd/b.txt', 'd/sub/rand.bin']) {
      expect(fs.readFileSync(path.join(root, 'x', f)).equals(fs.readFileSync(path.join(root, f))), f).toBe(true);
    }
  }, 60_000);

  it('-T tests the archive it wrote; -d on standard output is refused', async () => {
    const r = await nosh.call('exec', { command: 'zip -T t.zip a.txt' }) as any;
    expect(r.data.stdout).toBe('  adding: a.txt (stored 0%)\ntest of t.zip OK\n');
    const d = await nosh.call('exec', { command: 'zip -d - a.txt' }) as any;
    expect(d.data.exit_code).toBe(16);
  });

  it('-@ takes the names from standard input', async () => {
    const r = await nosh.call('exec', { command: 'zip -q -@ n.zip', stdin: 'a.txt\nd/b.txt\n' }) as any;
    expect(r.data.exit_code).toBe(0);
    expect(spawnSync('unzip', ['-Z1', 'n.zip'], { cwd: root }).stdout.toString()).toBe('a.txt\nd/b.txt\n');
  });
});
