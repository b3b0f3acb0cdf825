// Large inputs are streamed: wc -l counts newlines chunk by chunk, tail reads a file from
// its end, and tail over a pipe keeps only the last lines, through the in-process runner.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vfs } from '../../src/vfs/index.js';
import { run, tempDir } from '../helpers.js';

const root = tempDir('nosh-stream-');
const TARGET = 50 * 1024 * 1024;
let expectedLines = 0;
let lastLines: string[] = [];

beforeAll(() => {
  // Lines of varying length (0..199 bytes) so that chunk boundaries fall everywhere.
  const fd = fs.openSync(path.join(root, 'big.txt'), 'w');
  let size = 0;
  let i = 0;
  const parts: string[] = [];
  let pending = 0;
  while (size < TARGET) {
    const line = `${i} ${'x'.repeat((i * 7919) % 200)}\n`;
    parts.push(line);
    pending += line.length;
    size += line.length;
    i++;
    if (pending > 1 << 20) {
      fs.writeSync(fd, parts.join(''));
      parts.length = 0;
      pending = 0;
    }
  }
  fs.writeSync(fd, parts.join('') + 'tail without newline');
  fs.closeSync(fd);
  expectedLines = i;
}, 60_000);

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Count by hand what the commands must say. */
function lastLinesOfFile(n: number): string {
  const buf = fs.readFileSync(path.join(root, 'big.txt'));
  const text = buf.toString('latin1');
  const lines = text.split('\n');
  // The file ends without a newline: the final element is its last (unterminated) line.
  lastLines = lines.slice(-n);
  return lastLines.join('\n');
}

describe('streaming over a ~50 MB file', () => {
  it('wc -l gives the newline count', async () => {
    const out = await run(root, 'wc -l big.txt');
    expect(out.stderr).toBe('');
    expect(out.stdout.toString()).toBe(`${expectedLines} big.txt\n`);
    const c = await run(root, 'wc -c big.txt');
    expect(c.stdout.toString()).toBe(`${fs.statSync(path.join(root, 'big.txt')).size} big.txt\n`);
  }, 60_000);

  it('tail -n 3 gives the last three lines and reads only the end of the file', async () => {
    let bytesRead = 0;
    const orig = Vfs.prototype.openRandom;
    Vfs.prototype.openRandom = function (this: Vfs, p: string, cwd?: string) {
      const r = orig.call(this, p, cwd);
      return {
        size: r.size,
        readAt(buf: Uint8Array, pos: number, len?: number) {
          const n = r.readAt(buf, pos, len);
          bytesRead += n;
          return n;
        },
        close: () => r.close(),
      };
    };
    try {
      const out = await run(root, 'tail -n 3 big.txt');
      expect(out.exitCode).toBe(0);
      expect(out.stdout.toString('latin1')).toBe(lastLinesOfFile(3));
    } finally {
      Vfs.prototype.openRandom = orig;
    }
    expect(bytesRead).toBeLessThan(256 * 1024);
  }, 60_000);

  it('cat big | tail -n 2 works through a pipeline', async () => {
    const out = await run(root, 'cat big.txt | tail -n 2');
    expect(out.exitCode).toBe(0);
    expect(out.stdout.toString('latin1')).toBe(lastLinesOfFile(2));
  }, 60_000);

  it('cat big | wc -l counts through a pipeline', async () => {
    const out = await run(root, 'cat big.txt | wc -l');
    expect(out.stdout.toString()).toBe(`${expectedLines}\n`);
  }, 60_000);

  it('head stops early: head -n 2 of the big file', async () => {
    const out = await run(root, 'cat big.txt | head -n 2');
    expect(out.stdout.toString()).toBe('0 \n1 ' + 'x'.repeat(7919 % 200) + '\n');
  }, 60_000);
});
