// tac holds only what it must: a file is read backwards in windows (any size, whatever the
// buffer limit), standard input is held whole up to limits.maxBufferBytes and refused past it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeTask } from '../../src/exec/index.js';
import { defaultPolicy } from '../../src/vfs/index.js';
import { tempDir } from '../helpers.js';

const root = tempDir('nosh-text-tools-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function exec(argv: string[], stdin?: Buffer, maxBufferBytes = 100_000) {
  return executeTask({
    root, policy: defaultPolicy({}), cwd: '/', stages: [{ argv }], stdin,
    limits: { maxOutputBytes: 10_000_000, maxResults: 1000, maxBufferBytes },
  });
}

// Lines of varied length, some longer than tac's 256 KiB window, and no final newline.
const lines = Array.from({ length: 3000 }, (_, i) => (i % 997 === 5 ? 'L'.repeat(300_000) : `line ${i} ${'x'.repeat(i % 50)}`));
const text = lines.join('\n');
fs.writeFileSync(path.join(root, 'big.txt'), text);
const want = lines[lines.length - 1]! + lines.slice(0, -1).reverse().map((l) => l + '\n').join('');

describe('tac', () => {
  it('reverses a file far larger than the buffer limit, records across its read windows', async () => {
    const res = await exec(['tac', 'big.txt']);
    expect(res.ok).toBe(true);
    expect(Buffer.from(res.result!.stdout).toString()).toBe(want);
  });

  it('with -b and a multi-byte separator on the same file', async () => {
    const res = await exec(['tac', '-b', '-s', 'ne', 'big.txt']);
    const parts = text.split('ne');
    const expected = [...parts.slice(1).map((p) => 'ne' + p).reverse(), parts[0]].join('');
    expect(Buffer.from(res.result!.stdout).toString()).toBe(expected);
  });

  it('refuses standard input past limits.maxBufferBytes with MEMORY_LIMIT and a hint', async () => {
    const res = await exec(['tac'], Buffer.from(text));
    expect(res.ok).toBe(false);
    expect(res.error!.code).toBe('MEMORY_LIMIT');
    expect(res.error!.hint).toMatch(/file/);
  });

  it('reverses standard input under the limit', async () => {
    const res = await exec(['tac'], Buffer.from('a\nb\nc\n'));
    expect(Buffer.from(res.result!.stdout).toString()).toBe('c\nb\na\n');
  });
});
