// paste and join read files into one reused buffer (SpanReader over readChunks' `reuse`; join
// copies out the lines it holds before a refill) and CopyOut fills its buffer again when the
// output is a file sink (Output.consumes). Checked against GNU on inputs of many 256 KiB read
// chunks, to a file (stdoutFile: the reused output buffer), through a pipe (not reused) and
// captured: groups of equal keys that straddle chunk ends, lines longer than a chunk.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeTask } from '../../src/exec/index.js';
import { defaultPolicy } from '../../src/vfs/index.js';
import { tempDir } from '../helpers.js';

const root = tempDir('nosh-reuse-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Seeded lines `key,fields` with keys in C order; `dup` lines share a key in runs of 1-60. */
function keyed(seed: number, bytes: number, long = false): Buffer {
  let s = seed >>> 0;
  const rnd = (n: number) => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return (s >>> 8) % n; };
  const parts: string[] = [];
  let n = 0;
  let k = 0;
  while (n < bytes) {
    const run = rnd(4) === 0 ? 1 + rnd(12) : 1;
    k += 1 + rnd(2);
    for (let r = 0; r < run && n < bytes; r++) {
      const pad = long && rnd(300) === 0 ? 'x'.repeat(300_000 + rnd(100_000)) : 'v'.repeat(rnd(40));
      const line = `${String(k).padStart(8, '0')},${rnd(1000)},${pad}`;
      parts.push(line);
      n += line.length + 1;
    }
  }
  return Buffer.from(parts.join('\n') + '\n');
}

fs.writeFileSync(path.join(root, 'a.csv'), keyed(1, 1_400_000));
fs.writeFileSync(path.join(root, 'b.csv'), keyed(2, 900_000, true));
fs.writeFileSync(path.join(root, 'c.csv'), keyed(3, 700_000).subarray(0, -1)); // no last newline

function gnu(line: string): Buffer {
  const r = spawnSync('sh', ['-c', line], { cwd: root, env: { PATH: process.env.PATH, LC_ALL: 'C' }, maxBuffer: 1 << 30 });
  return r.stdout;
}

async function nosh(stages: string[][], stdoutFile?: string): Promise<Buffer> {
  const res = await executeTask({
    root, policy: defaultPolicy(), cwd: '/', stages: stages.map((argv) => ({ argv })), ...(stdoutFile ? { stdoutFile } : {}),
    limits: { maxOutputBytes: 1 << 28, maxResults: 1000, maxBufferBytes: 1 << 26 },
  });
  if (!res.ok) throw new Error(JSON.stringify(res.error));
  expect(res.result!.exitCode).toBe(0);
  if (!stdoutFile) return Buffer.from(res.result!.stdout);
  const out = fs.readFileSync(path.join(root, stdoutFile));
  fs.rmSync(path.join(root, stdoutFile));
  return out;
}

function same(got: Buffer, want: Buffer): void {
  if (got.equals(want)) return;
  let i = 0;
  while (i < got.length && got[i] === want[i]) i++;
  expect({ at: i, len: got.length, near: got.subarray(Math.max(0, i - 40), i + 40).toString('latin1') })
    .toEqual({ at: i, len: want.length, near: want.subarray(Math.max(0, i - 40), i + 40).toString('latin1') });
}

const cases: [string, string[]][] = [
  ['paste -d, a.csv b.csv c.csv', ['paste', '-d,', 'a.csv', 'b.csv', 'c.csv']],
  ['paste a.csv a.csv', ['paste', 'a.csv', 'a.csv']],
  ['join -t, a.csv b.csv', ['join', '-t,', 'a.csv', 'b.csv']],
  ['join -t, -a1 -a2 b.csv c.csv', ['join', '-t,', '-a1', '-a2', 'b.csv', 'c.csv']],
  ['join -t, -o 1.2,2.1,2.2 a.csv c.csv', ['join', '-t,', '-o', '1.2,2.1,2.2', 'a.csv', 'c.csv']],
  ['join -t, a.csv a.csv', ['join', '-t,', 'a.csv', 'a.csv']],
  ['cut -d, -f1,3 b.csv', ['cut', '-d,', '-f1,3', 'b.csv']],
];

describe('paste, join and cut with reused read and output buffers', () => {
  for (const [line, argv] of cases) {
    it(`${line}: to a file, through a pipe and captured, as GNU`, async () => {
      const want = gnu(line);
      expect(want.length).toBeGreaterThan(500_000);
      same(await nosh([argv], '/out.txt'), want);
      same(await nosh([argv, ['cat']], '/out.txt'), want);
      same(await nosh([argv]), want);
    }, 120_000);
  }
});
