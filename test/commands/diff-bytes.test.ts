// diff compares lines as spans of the files' bytes, numbered by a hash of the bytes (no text
// made until a line is shown). Checked against the string matcher it replaced (diffLines on
// the lines' text) on random files full of repeated lines, and against GNU diff 3.8's output
// (recorded under LC_ALL=C) where bytes and newlines matter.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffFiles, exactKeys, lineKeys, splitLines, type DiffOptions } from '../../commands/diff/lines.js';
import { diffLines } from '../../src/gnulib/diffseq.js';
import { runArgv, tempDir } from '../helpers.js';

const scratch = tempDir('nosh-diffb-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let n = 0;
function zone(files: Record<string, Buffer>): string {
  const root = path.join(scratch, `z${n++}`, 'root');
  fs.mkdirSync(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content);
  return root;
}
/** mulberry32. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const plain: DiffOptions = { ignoreCase: false, white: '', ignoreBlank: false, stripCr: false };

describe('diff on bytes', () => {
  it('gives the string matcher\'s script on random files of repeated lines', () => {
    const rand = prng(24);
    const words = ['a', 'b', 'c', 'a ', '', 'longer line here', 'caf\xe9', '\xff\x00x', 'b\r'];
    const file = (lines: number): Buffer => {
      let s = '';
      for (let i = 0; i < lines; i++) s += words[Math.floor(rand() * words.length)] + '\n';
      if (rand() < 0.5) s = s.slice(0, -1); // an incomplete last line
      return Buffer.from(s, 'latin1');
    };
    for (let round = 0; round < 300; round++) {
      const a = file(Math.floor(rand() * 60)), b = rand() < 0.3 ? Buffer.from(a) : file(Math.floor(rand() * 60));
      const horizon = Math.floor(rand() * 4), minimal = rand() < 0.2;
      const f0 = splitLines(a, false), f1 = splitLines(b, false);
      const want = diffLines(exactKeys(f0), exactKeys(f1), lineKeys(f0, plain), lineKeys(f1, plain), { horizon, minimal });
      expect(diffFiles(f0, f1, { horizon, minimal })).toEqual(want);
    }
  });

  it('GNU\'s output for moved lines, a latin1 byte and a last line without newline', async () => {
    const root = zone({
      d1: Buffer.from('a\nb\nb\nc\nd\xe9\nx', 'latin1'), d2: Buffer.from('a\nb\nc\nb\nd\xe9\nx\n', 'latin1'),
      e1: Buffer.from('p\nx'), e2: Buffer.from('p\nx\n'),
      c1: Buffer.from('a\r\nb\r\nc\n'), c2: Buffer.from('a\nb\nC\n'),
    });
    const u = await runArgv(root, ['diff', '-u', '--label', 'a', '--label', 'b', 'd1', 'd2']);
    expect(u.exitCode).toBe(1);
    expect(u.stdout).toEqual(Buffer.from('--- a\n+++ b\n@@ -1,6 +1,6 @@\n a\n b\n-b\n c\n+b\n d\xe9\n-x\n\\ No newline at end of file\n+x\n', 'latin1'));
    const e = await runArgv(root, ['diff', 'e1', 'e2']);
    expect(e.stdout.toString()).toBe('2c2\n< x\n\\ No newline at end of file\n---\n> x\n');
    const c = await runArgv(root, ['diff', '-u', '--strip-trailing-cr', '--label', 'a', '--label', 'b', 'c1', 'c2']);
    expect(c.stdout.toString()).toBe('--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n b\n-c\n+C\n');
    const ci = await runArgv(root, ['diff', '-i', '--strip-trailing-cr', 'c1', 'c2']);
    expect([ci.exitCode, ci.stdout.toString()]).toEqual([0, '']);
  });
});
