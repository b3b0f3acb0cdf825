// Params are validated in the main thread, which answers every caller: a big request must be
// refused quickly with a small error, not turned into millions of zod issues.
import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let nosh: Nosh;
let root: string;

beforeAll(async () => {
  root = tempDir();
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('params size', () => {
  // 5 M empty strings (a 15 MB RPC line) made 5 M issues: a 30 s stall and a 440 MB error.
  it('more than 100 000 array items or keys is INVALID_ARGUMENT before validation', async () => {
    for (const params of [
      { pattern: 'x', include: Array.from({ length: 1_000_000 }, () => '') },
      { path: 'a', ...Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, 0])) },
      { pattern: 'x', exclude: [Array.from({ length: 60_000 }, () => 1), Array.from({ length: 60_000 }, () => 1)] },
    ]) {
      const r = await nosh.call('search', params) as any;
      expect(r.success ? r.data : r.error.code).toBe('INVALID_ARGUMENT');
      expect(r.error.message).toMatch(/more than 100000 array items and keys/);
      expect(JSON.stringify(r).length).toBeLessThan(1000);
    }
    const exec = await nosh.exec({ cmd: 'echo', args: Array.from({ length: 100_001 }, () => 'a') });
    expect(exec.success ? exec.data : exec.error.code).toBe('INVALID_ARGUMENT');
  }, 30_000);

  it('an invalid call lists at most 20 issues, each message cut', async () => {
    const r = await nosh.call('search', { pattern: 'x', include: Array.from({ length: 50_000 }, () => '') }) as any;
    expect(r.error.code).toBe('INVALID_ARGUMENT');
    expect(r.error.details.issues).toHaveLength(20);
    expect(r.error.details.issues_total).toBe(50_000);
    const keys = await nosh.call('exists', { path: '/', ...Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`key${i}`, 0])) }) as any;
    expect(keys.error.code).toBe('INVALID_ARGUMENT');
    expect(JSON.stringify(keys).length).toBeLessThan(2000);
    const fine = await nosh.call('exec', { cmd: 'echo', args: Array.from({ length: 1000 }, () => 'a') }) as any;
    expect(fine.data.stdout.length).toBe(2000);
  }, 30_000);
});
