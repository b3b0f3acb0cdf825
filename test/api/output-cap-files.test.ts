import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

// issue 17 §3: the output cap (max_output_bytes) bounds what is returned, never what a
// command writes to files.
let nosh: Nosh;
let root: string;
/** 100 000 bytes of numbered lines (sorted as text: "line 00000" ...). */
const BIG = Array.from({ length: 10_000 }, (_, i) => `line ${String(i).padStart(4, '0')}\n`).join('');

beforeAll(async () => {
  root = tempDir();
  fs.writeFileSync(path.join(root, 'big.txt'), BIG);
  fs.writeFileSync(path.join(root, 'keep.txt'), 'old content\n');
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const file = (name: string) => fs.readFileSync(path.join(root, name), 'utf8');

describe('files written past the output cap are written whole', () => {
  it('tee FILE with stdin larger than the cap', async () => {
    const r = await nosh.exec({ command: 'tee keep.txt' }, { stdin: BIG, maxOutputBytes: 1000 });
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.data.exit_code).toBe(0);
    expect(r.data.truncated).toBe(true);
    expect(r.data.stdout.length).toBe(1000);
    expect(file('keep.txt')).toBe(BIG);
  });

  it('cat big | tee FILE', async () => {
    const r = await nosh.exec({ command: 'cat big.txt | tee t2.txt' }, { maxOutputBytes: 1000 });
    expect(r.success && r.data.truncated).toBe(true);
    expect(file('t2.txt')).toBe(BIG);
  });

  it('cat big | tee FILE | cat (the capped stage is after the writer)', async () => {
    // 3 MB: more than a pipe buffers (1 MiB), so tee must still be writing when cat hits the cap.
    const names = Array(30).fill('big.txt').join(' ');
    const r = await nosh.exec({ command: `cat ${names} | tee t3.txt | cat` }, { maxOutputBytes: 1000 });
    expect(r.success && r.data.truncated).toBe(true);
    expect(file('t3.txt')).toBe(BIG.repeat(30));
  });

  it("sed 'w FILE'", async () => {
    const r = await nosh.exec({ cmd: 'sed', args: ['w w.txt', 'big.txt'] }, { maxOutputBytes: 1000 });
    expect(r.success && r.data.truncated).toBe(true);
    expect(file('w.txt')).toBe(BIG);
  });

  it('sort -o FILE, and sort -o with stdout output too (--debug free): the file is whole', async () => {
    const r = await nosh.exec({ command: 'sort -o sorted.txt' }, { stdin: BIG, maxOutputBytes: 1000 });
    expect(r.success && r.data.exit_code).toBe(0);
    expect(file('sorted.txt')).toBe(BIG);
    const r2 = await nosh.exec({ command: 'cat big.txt | sort -r -o rsorted.txt' }, { maxOutputBytes: 10 });
    expect(r2.success && r2.data.exit_code).toBe(0);
    expect(file('rsorted.txt')).toBe(BIG.split('\n').slice(0, -1).reverse().join('\n') + '\n');
  });

  it('uniq INPUT OUTPUT and find -print -delete run to the end', async () => {
    const r = await nosh.exec({ command: 'tee u.txt | uniq - uout.txt' }, { stdin: BIG, maxOutputBytes: 1000 });
    expect(r.success && r.data.exit_code).toBe(0);
    expect(file('uout.txt')).toBe(BIG);
    fs.mkdirSync(path.join(root, 'del'));
    for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(root, 'del', `file-with-a-long-name-${i}.txt`), '');
    const d = await nosh.exec({ command: 'find del -type f -print -delete' }, { maxOutputBytes: 200 });
    expect(d.success && d.data.truncated).toBe(true);
    expect(fs.readdirSync(path.join(root, 'del'))).toEqual([]);
  });

  it('a reading pipeline still stops at the cap (yes-like producers end)', async () => {
    const r = await nosh.exec({ command: 'cat big.txt big.txt big.txt' }, { maxOutputBytes: 1000 });
    expect(r.success && r.data.truncated).toBe(true);
    expect(r.success && r.data.stdout.length).toBe(1000);
  });
});
