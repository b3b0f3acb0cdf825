// Archives stream: a 256 MB file goes through gzip/gunzip and zip/unzip (-d and -p) with the
// worker's memory limit at 64 MB (heap plus Buffers, src/runtime/memory.ts): a command that held
// the file, or any large part of it, would end in MEMORY_LIMIT. Every output is compared with the
// original by a sha256 computed by streaming. bench/soak-archives.mjs runs the same at 1 GB.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { sha256File, writeBigText } from '../../bench/big-text.js';

const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
const top = tempDir('nosh-archbig-');
const root = path.join(top, 'zone');
fs.mkdirSync(root);
let nosh: Nosh;
let want = '';

const makeBig = (file: string) => writeBigText(file, SIZE / MiB);
const sha256 = sha256File;

async function sh(command: string, stdout_file?: string): Promise<string> {
  const r = await nosh.call('exec', { command, ...(stdout_file ? { stdout_file } : {}) }) as any;
  expect(r.success, JSON.stringify(r.error ?? r)).toBe(true);
  expect(r.data.exit_code, r.data.stderr).toBe(0);
  return r.data.stdout;
}

beforeAll(async () => {
  want = makeBig(path.join(root, 'big.bin'));
  // its own base: the write-order lock of a root zone is per base (the default base is shared)
  nosh = await createNosh({ root, base: path.join(top, 'base'), threads: 1, limits: { memoryMb: 64, timeoutMs: 300_000, maxFileSize: 2 * 1024 * MiB } });
}, 120_000);
afterAll(async () => {
  await nosh?.close();
  fs.rmSync(top, { recursive: true, force: true });
});

describe(`archives of a ${SIZE / MiB} MB file with a 64 MB worker memory limit`, () => {
  it('gzip -k then gunzip give the same bytes', async () => {
    await sh('gzip -k big.bin');
    const gz = fs.statSync(path.join(root, 'big.bin.gz')).size;
    expect(gz).toBeLessThan(SIZE / 2);
    fs.mkdirSync(path.join(root, 'g'));
    fs.renameSync(path.join(root, 'big.bin.gz'), path.join(root, 'g/big.bin.gz'));
    await sh('gunzip g/big.bin.gz');
    expect(fs.existsSync(path.join(root, 'g/big.bin.gz'))).toBe(false);
    expect(await sha256(path.join(root, 'g/big.bin'))).toBe(want);
    fs.rmSync(path.join(root, 'g'), { recursive: true });
  }, 300_000);

  it('zip then unzip -d and unzip -p give the same bytes', async () => {
    await sh('zip -q z.zip big.bin');
    expect(fs.statSync(path.join(root, 'z.zip')).size).toBeLessThan(SIZE / 2);
    await sh('unzip -q z.zip -d u');
    expect(await sha256(path.join(root, 'u/big.bin'))).toBe(want);
    fs.rmSync(path.join(root, 'u'), { recursive: true });
    await sh('unzip -p z.zip big.bin', 'p.bin');
    expect(await sha256(path.join(root, 'p.bin'))).toBe(want);
  }, 300_000);
});
