import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

// Files far larger than the worker's memory budget stream through grep, sed, wc and pipes;
// find walks 100 000 files.
const LINES = 4_000_000; // 68 bytes a line: about 270 MB
const LINE = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu\n';

let root: string;
let nosh: Nosh;

beforeAll(async () => {
  root = tempDir();
  const fd = fs.openSync(path.join(root, 'big.txt'), 'w');
  const block = Buffer.from(LINE.repeat(100_000));
  for (let i = 0; i < LINES / 100_000; i++) fs.writeSync(fd, block);
  fs.closeSync(fd);
  // 100 000 files in 200 folders for find.
  for (let d = 0; d < 200; d++) {
    const dir = path.join(root, 'many', `d${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 500; f++) fs.writeFileSync(path.join(dir, `f${f}.txt`), '');
  }
  nosh = await createNosh({ root, threads: 1, limits: { memoryMb: 128 } });
}, 120_000);
afterAll(async () => {
  await nosh.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe(`a ${Math.round((LINES * LINE.length) / 1e6)} MB file and 100 000 files inside a 128 MB worker`, () => {
  it.each([
    ['grep -c kappa big.txt', `${LINES}\n`],
    ["sed -n '$p' big.txt", LINE],
    ['sed s/a/b/g big.txt | wc -l', `${LINES}\n`],
    ['wc -l big.txt', `${LINES} big.txt\n`],
    ['cat big.txt | grep -c -v zeta', '0\n'],
    ["find many -name '*.txt' | wc -l", '100000\n'],
    ['find many -type f -size -1k -name f499.txt | wc -l', '200\n'],
  ])('%s', async (command, expected) => {
    const res = await nosh.exec({ command }, { timeoutMs: 240_000 });
    expect(res).toMatchObject({ success: true, data: { exit_code: command.includes('-v') ? 1 : 0, stdout: expected } });
  }, 240_000);
});
