import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import type { Progress } from '../../src/runtime/progress.js';
import { tempDir } from '../helpers.js';

// Totals of long calls (issue #28). Each call is made long on purpose by a trailing `| sleep`
// stage (the first report comes after a second); the pool reports the final counts as the job
// ends, so the last report is the call's end state once one was made.
let root: string;
let base: string;
let nosh: Nosh;
const FILES = 3000;

/** `files` files in 30 folders. */
function tree(dir: string, files = FILES): void {
  for (let d = 0; d < 30; d++) {
    fs.mkdirSync(path.join(dir, `d${d}`), { recursive: true });
    for (let f = 0; f < files / 30; f++) fs.writeFileSync(path.join(dir, `d${d}`, `f${f}.txt`), `file ${d}/${f}\n`);
  }
}

async function run(n: Nosh, command: string, extra: Record<string, unknown> = {}): Promise<Progress[]> {
  const seen: Progress[] = [];
  // a loaded machine writes 3000 files slowly (each is fsynced): the default 30 s is not enough
  const r = await n.exec({ command, ...extra }, { onProgress: (p) => seen.push(p), timeoutMs: 240_000 });
  expect(r.success && r.data.exit_code, JSON.stringify(r)).toBe(0);
  expect(seen.length).toBeGreaterThan(0);
  return seen;
}

beforeAll(async () => {
  root = tempDir('nosh-progress-totals-');
  base = tempDir('nosh-progress-commit-');
  tree(path.join(root, 'z'));
  tree(path.join(root, 'y'), 300); // zip and tar need no more to show their totals
  fs.writeFileSync(path.join(root, 'big.gz'), gzipSync(randomBytes(6 << 20)));
  fs.writeFileSync(path.join(root, 'data.csv'), 'a,b\n' + Array.from({ length: 20000 }, (_, i) => `${i},row ${i}\n`).join(''));
  nosh = await createNosh({ root, threads: 1 });
  for (const c of ['zip -qr a.zip z', 'tar cf a.tar y', 'mkdir out2']) expect((await nosh.exec({ command: c }, { timeoutMs: 240_000 })).success).toBe(true);
}, 300_000);
afterAll(async () => {
  await nosh.close();
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(base, { recursive: true, force: true });
}, 60_000);

describe('progress totals', () => {
  it('unzip reports the archive\'s entries as the total, and ends with all of them done', async () => {
    const seen = await run(nosh, 'unzip -qo a.zip -d out1 | sleep 1.5');
    const last = seen.at(-1)!;
    expect(last.total).toBe(FILES + 31); // the files and their 31 folders (z/ and z/d0/ ...)
    expect(last.files).toBe(last.total);
    expect(fs.readdirSync(path.join(root, 'out1', 'z', 'd7')).length).toBe(FILES / 30);
  }, 300_000);

  it('zip -r walks, then counts the entries it writes against the total', async () => {
    const last = (await run(nosh, 'zip -qr b.zip y | sleep 1.5')).at(-1)!;
    expect(last.total).toBe(2 * (300 + 30) + 1); // the walk's entries, then the entries written (y/ too)
    expect(last.files).toBe(last.total);
  }, 300_000);

  it('gunzip reports the bytes read against the input\'s size', async () => {
    const size = fs.statSync(path.join(root, 'big.gz')).size;
    const last = (await run(nosh, 'gunzip -kf big.gz | sleep 1.5')).at(-1)!;
    expect(last.total_bytes).toBeGreaterThanOrEqual(size);
    expect(last.bytes).toBe(last.total_bytes);
    expect(last.total).toBeUndefined();
    expect(fs.statSync(path.join(root, 'big')).size).toBe(6 << 20);
  }, 60_000);

  it('tar x reports the archive\'s bytes read against its size', async () => {
    const size = fs.statSync(path.join(root, 'a.tar')).size;
    const last = (await run(nosh, 'tar xf a.tar -C out2 | sleep 1.5')).at(-1)!;
    expect(last.total_bytes).toBe(size);
    expect(last.bytes).toBe(size);
    expect(last.files).toBe(300 + 31); // the entries read
    expect(fs.readdirSync(path.join(root, 'out2', 'y', 'd7')).length).toBe(10);
  }, 300_000);

  it('sqlite3 .import reports the CSV\'s bytes against its size', async () => {
    const size = fs.statSync(path.join(root, 'data.csv')).size;
    const last = (await run(nosh, 'sqlite3 t.db ".import --csv data.csv t" | sleep 1.5')).at(-1)!;
    expect(last.total_bytes).toBe(size);
    expect(last.bytes).toBe(size);
  }, 60_000);

  it('the commit of 3000 files into a versioned zone reports its progress with its total before the answer', async () => {
    tree(path.join(base, 'users', 'alice', 'Documents', 'z'));
    const n = await createNosh({ base, threads: 1 });
    try {
      const events: string[] = [];
      const seen: Progress[] = [];
      const done = n.exec({ zone: 'documents', context: { user: 'alice' }, command: 'cp -r z z2 | sleep 1.5' },
        { timeoutMs: 240_000, onProgress: (p) => { seen.push(p); events.push('progress'); } }).then((r) => { events.push('answer'); return r; });
      const r = await done;
      expect(r.success && r.data.exit_code).toBe(0);
      const commit = seen.filter((p) => p.phase === 'commit');
      expect(commit.length).toBeGreaterThan(0);
      expect(commit[0]!.total).toBe(FILES);
      expect(commit.at(-1)).toMatchObject({ files: FILES, total: FILES, phase: 'commit' });
      expect(commit.at(-1)!.bytes).toBeGreaterThan(0);
      // the worker's reports come first, then the commit's, all before the answer
      expect(seen.findIndex((p) => p.phase === 'commit')).toBeGreaterThan(seen.findLastIndex((p) => p.phase === undefined));
      expect(events.at(-1)).toBe('answer');
      const log = await n.exec({ zone: 'documents', context: { user: 'alice' }, command: 'git log --oneline -1' });
      expect(log.success && log.data.stdout).toMatch(/cp -r z z2/);
    } finally {
      await n.close();
    }
  }, 300_000);
});
