import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let root: string;
let nosh: Nosh;

beforeAll(async () => {
  root = tempDir('nosh-progress-');
  for (let d = 0; d < 20; d++) {
    fs.mkdirSync(path.join(root, `d${d}`));
    for (let f = 0; f < 50; f++) fs.writeFileSync(path.join(root, `d${d}`, `f${f}.txt`), 'some text\n'.repeat(10));
  }
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('progress of a long call', () => {
  // Made long on purpose: sleep holds the task past the first report. The last report is the
  // call's final count even when grep is still reading at the last tick (a loaded machine).
  it('reports the files walked and bytes read of a call past a second, and nothing for a short one', async () => {
    const seen: { files: number; bytes: number }[] = [];
    const r = await nosh.exec({ command: 'grep -rc text . | sleep 2' }, { onProgress: (p) => seen.push(p) }) as any;
    expect(r.success).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    const last = seen[seen.length - 1]!;
    expect(last.files).toBeGreaterThanOrEqual(1020); // 1000 files and 20 folders
    expect(last.bytes).toBeGreaterThanOrEqual(1000 * 100);
    const quick: unknown[] = [];
    await nosh.exec({ command: 'ls' }, { onProgress: (p) => quick.push(p) });
    expect(quick).toEqual([]);
  });

  it('call() takes onProgress as exec() does', async () => {
    const seen: { files: number }[] = [];
    const r = await nosh.call('exec', { command: 'find . -type f | sleep 1.5' }, { onProgress: (p) => seen.push(p) }) as any;
    expect(r.success).toBe(true);
    expect(seen.at(-1)!.files).toBeGreaterThanOrEqual(1020);
  });
});
