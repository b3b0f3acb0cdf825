import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { WorkerPool, enableLinearRegexFallback } from '../../src/pool/index.js';
import { ONLINE } from '../../src/pool/lane.js';
import type { TaskRequest } from '../../src/exec/index.js';
import { defaultPolicy } from '../../src/vfs/index.js';
import { tempDir } from '../helpers.js';

let root: string;
let nosh: Nosh;

beforeAll(async () => {
  root = tempDir();
  // 30 MB of short lines: slow to format byte by byte, many lines to hold.
  fs.writeFileSync(path.join(root, 'big.txt'), 'abcdefgh\n'.repeat(3_500_000));
  fs.writeFileSync(path.join(root, 'small.txt'), 'hello\n');
  fs.writeFileSync(path.join(root, 'aaa.txt'), 'a'.repeat(5000) + '\n');
  fs.writeFileSync(path.join(root, 'line.txt'), 'x'.repeat(4_000_000) + '\n');
  fs.writeFileSync(path.join(root, 'pairs.txt'), 'ab'.repeat(10_000_000) + '\n');
  nosh = await createNosh({ root, threads: 2, limits: { memoryMb: 64 } });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('worker pool limits', () => {
  it('a task over its time limit ends with TIMEOUT and the next request works', async () => {
    const t0 = Date.now();
    const res = await nosh.exec({ command: 'cat -A big.txt' }, { timeoutMs: 200, stdoutFile: 'out.txt' });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(res.success).toBe(false);
    if (!res.success) {
      expect(res.error.code).toBe('TIMEOUT');
      expect(res.error.hint).toMatch(/timeoutMs/);
    }
    // Nothing torn: the interrupted write left no file behind.
    expect(fs.readdirSync(root).filter((f) => f.startsWith('out') || f.includes('nosh-tmp'))).toEqual([]);
    const next = await nosh.exec({ command: 'cat small.txt' });
    expect(next.success && next.data.stdout).toBe('hello\n');
  });

  it('many timeouts in a row never take the host down', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => nosh.exec({ command: 'cat -A big.txt' }, { timeoutMs: 50, stdoutFile: 'o.txt' })));
    for (const r of results) expect(!r.success && r.error.code).toBe('TIMEOUT');
    const next = await nosh.exec({ command: 'cat small.txt' });
    expect(next.success && next.data.stdout).toBe('hello\n');
  });

  it('a catastrophic regex ends fast or with TIMEOUT, and the next request works', async () => {
    const res = await nosh.exec({ command: "grep -E '(a|aa)*c' aaa.txt" }, { timeoutMs: 5000 });
    if (res.success) expect(res.data.exit_code).toBe(1);
    else expect(res.error.code).toBe('TIMEOUT');
    const next = await nosh.exec({ command: 'cat small.txt' });
    expect(next.success && next.data.stdout).toBe('hello\n');
  });

  it('a task that allocates without bound ends with MEMORY_LIMIT and the next request works', async () => {
    // tail reading a pipe must keep the last N lines: N larger than the input keeps them all
    // (about 126 MB of Buffers, outside the V8 heap: the byte-flow check catches it).
    const res = await nosh.exec({ command: 'cat big.txt big.txt big.txt big.txt | tail -n 100000000' }, { timeoutMs: 60_000 });
    expect(res.success).toBe(false);
    if (!res.success) {
      expect(res.error.code).toBe('MEMORY_LIMIT');
      expect(res.error.message).toMatch(/64 MB/);
    }
    const next = await nosh.exec({ command: 'cat small.txt' });
    expect(next, JSON.stringify({ res, next })).toMatchObject({ success: true, data: { stdout: 'hello\n' } });
  });
});

/** A nosh whose one worker has a 100 MB budget (where one allocation too big is fatal), closed after `body`. */
async function withSmallWorker(body: (small: Nosh) => Promise<void>): Promise<void> {
  const small = await createNosh({ root, threads: 1, limits: { memoryMb: 100 } });
  try {
    await body(small);
  } finally {
    await small.close();
  }
}

describe('values that grow past the heap in one step', () => {
  // A worker whose heap cannot hold one allocation does not just end: V8's fatal
  // out-of-memory aborts the whole process. With 100 MB, sed's doubling pattern space did
  // that (the host died with "Reached heap limit"); it must end with MEMORY_LIMIT instead.
  it("sed's doubling and exploding pattern spaces end with MEMORY_LIMIT, the host and the next request fine", async () => {
    await withSmallWorker(async (small) => {
    for (const command of ["sed ':a;s/.*/&&/;ba' small.txt", "sed ':a;H;x;G;ba' small.txt", "sed 's/x/&&&&&&&&/g' line.txt", "sed ':a;N;$!ba' line.txt line.txt line.txt line.txt line.txt line.txt line.txt"]) {
      const res = await small.exec({ command }, { timeoutMs: 60_000 });
      expect(res.success ? res.data : res.error.code, command).toBe('MEMORY_LIMIT');
      if (!res.success) expect(res.error.message).toMatch(/sed's pattern/);
    }
    // Within the limit, the whole file in the pattern space still works.
    const joined = await small.exec({ command: "sed ':a;N;$!ba;s/\\n/ /g' small.txt aaa.txt" });
    expect(joined.success && joined.data.stdout).toBe(`hello ${'a'.repeat(5000)}\n`);
    const next = await small.exec({ command: 'cat small.txt' });
    expect(next.success && next.data.stdout).toBe('hello\n');
    });
  });
});

describe('one line with millions of matches', () => {
  // grep -o once listed every match of a line before printing any: 10 million matches of a
  // 20 MB line took a 100 MB heap, and the whole process died ("Reached heap limit").
  it('grep -o prints up to the output cap; into a pipe, past a quarter of the budget, MEMORY_LIMIT; the host and the next request fine', async () => {
    await withSmallWorker(async (small) => {
    const cut = await small.exec({ command: 'grep -o ab pairs.txt' }, { timeoutMs: 60_000, maxOutputBytes: 30 });
    expect(cut.success && cut.data).toMatchObject({ exit_code: 0, stdout: 'ab\n'.repeat(10), truncated: true });
    const piped = await small.exec({ command: 'grep -o ab pairs.txt | wc -l' }, { timeoutMs: 60_000 });
    expect(piped.success ? piped.data : piped.error.code).toBe('MEMORY_LIMIT');
    if (!piped.success) expect(piped.error.message).toMatch(/grep -o/);
    const next = await small.exec({ command: 'grep -o b small.txt aaa.txt' });
    expect(next.success && next.data).toMatchObject({ exit_code: 1, stdout: '' });
    // V8's backtracking over 10 M repetitions of a group runs out of stack: said as such.
    const deep = await small.exec({ command: "grep -cE '(ab)+' pairs.txt" }, { timeoutMs: 60_000 });
    expect(deep.success ? deep.data : deep.error.message).toMatch(/out of stack/);
    const hello = await small.exec({ command: 'grep -o l small.txt' });
    expect(hello.success && hello.data.stdout).toBe('l\nl\n');
    });
  });
});

describe('sed over long lines and big cycles', () => {
  // Each of these built something in the V8 heap many times the size of its input (a string
  // grown a character or a match at a time is one heap object per step; V8's global replace
  // keeps every match; R split its whole file; a cycle's output was flattened into one
  // string), and the whole host died with "Reached heap limit".
  it('stay within the budget: output cut or MEMORY_LIMIT, the host and the next request fine', async () => {
    fs.writeFileSync(path.join(root, 'ctrl.txt'), '\x01\x02'.repeat(4_000_000) + '\n');
    fs.writeFileSync(path.join(root, 'empty-lines.txt'), '\n'.repeat(20_000_000));
    const small = await createNosh({ root, threads: 1, limits: { memoryMb: 100 } });
    try {
      const pairs = 'ab'.repeat(30);
      const cut = { exit_code: 0, truncated: true };
      for (const [command, head] of [
        ["sed 's/a/&/g' pairs.txt", pairs],
        ["sed 's/a/\\U&/g' pairs.txt", 'Ab'.repeat(30)],
        ['sed y/ab/ba/ pairs.txt', 'ba'.repeat(30)],
        ['sed -n l ctrl.txt', '\\001\\002'.repeat(8)],
        [`sed -n '${'p;'.repeat(30)}' line.txt`, 'x'.repeat(60)],
      ] as const) {
        const res = await small.exec({ command }, { timeoutMs: 60_000 });
        expect(res.success && res.data, command).toMatchObject(cut);
        if (res.success) expect(res.data.stdout.slice(0, 60), command).toBe(head.slice(0, 60));
      }
      const r = await small.exec({ command: "sed 'R empty-lines.txt' small.txt" }, { timeoutMs: 60_000 });
      expect(r.success && r.data).toMatchObject({ exit_code: 0, stdout: 'hello\n\n' });
      const next = await small.exec({ command: 'cat small.txt' });
      expect(next.success && next.data.stdout).toBe('hello\n');
    } finally {
      await small.close();
      fs.rmSync(path.join(root, 'ctrl.txt'));
      fs.rmSync(path.join(root, 'empty-lines.txt'));
    }
  });
});

describe('sort by key over millions of lines', () => {
  // Sorting line numbers with Array.prototype.sort put about 24 bytes a line in the V8 heap
  // (the array and V8's work copies): 8 million lines killed the host with a 100 MB worker.
  it('sorts them, the host and the next request fine', async () => {
    fs.writeFileSync(path.join(root, 'nums.txt'), '7\n3\n'.repeat(4_000_000));
    const small = await createNosh({ root, threads: 1, limits: { memoryMb: 100 } });
    try {
      const res = await small.exec({ command: 'sort -n nums.txt' }, { timeoutMs: 60_000, maxOutputBytes: 10 });
      expect(res.success && res.data).toMatchObject({ exit_code: 0, stdout: '3\n'.repeat(5), truncated: true });
      const next = await small.exec({ command: 'sort -n small.txt' });
      expect(next.success && next.data.stdout).toBe('hello\n');
    } finally {
      await small.close();
      fs.rmSync(path.join(root, 'nums.txt'));
    }
  });
});

describe('a big stdin of short lines', () => {
  // stdin came as one chunk, and line splitters hold an object per line of a chunk: 12 M
  // empty lines were 12 M objects at once, and cut and uniq killed the host ("Reached heap limit").
  it('is read in pieces: the host and the next request fine', async () => {
    await withSmallWorker(async (small) => {
    const stdin = '\n'.repeat(12_000_000);
    for (const command of ['cut -c1', 'sed p']) {
      const res = await small.exec({ command }, { timeoutMs: 60_000, stdin, maxOutputBytes: 10 });
      expect(res.success && res.data, command).toMatchObject({ exit_code: 0, stdout: '\n'.repeat(10), truncated: true });
    }
    const next = await small.exec({ command: 'cut -c1-3' }, { stdin: 'hello\nworld\n' });
    expect(next.success && next.data.stdout).toBe('hel\nwor\n');
    });
  });
});

describe('a tr SET of millions of characters', () => {
  // Parsing a SET takes several heap values a character: an 8 M character SET (argv from the
  // library has no size limit) killed the host ("Reached heap limit").
  it('is MEMORY_LIMIT, the host and the next request fine', async () => {
    await withSmallWorker(async (small) => {
    const res = await small.exec({ cmd: 'tr', args: ['a'.repeat(8_000_000), 'b'] }, { timeoutMs: 60_000, stdin: 'abc\n' });
    expect(res.success ? res.data : res.error.message).toMatch(/tr's SET/);
    const next = await small.exec({ cmd: 'tr', args: ['a', 'b'] }, { stdin: 'abc\n' });
    expect(next.success && next.data.stdout).toBe('bbc\n');
    });
  });
});

describe('linear-time regex fallback', () => {
  it('is on in worker threads: a catastrophic backtracking regex returns quickly', async () => {
    enableLinearRegexFallback();
    const code = `
      const { parentPort } = require('node:worker_threads');
      const t0 = Date.now();
      const r = /(a|aa)*c/.test('a'.repeat(60));
      parentPort.postMessage({ r, ms: Date.now() - t0 });`;
    const w = new Worker(code, { eval: true });
    const msg = await new Promise<{ r: boolean; ms: number }>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await w.terminate();
    expect(msg.r).toBe(false);
    expect(msg.ms).toBeLessThan(5000);
  });
});

describe('close', () => {
  it('lets a worker that is still starting reach its lane before terminating it', async () => {
    // Terminating a worker mid-start can crash Node 20 (nodejs/node#56312): the CLI closes
    // the pool it started when the line is refused, a few ms later.
    for (let i = 0; i < 3; i++) {
      const pool = new WorkerPool({ threads: 1 });
      const lane = (pool as unknown as { lanes: { flags: Int32Array }[] }).lanes[0]!;
      expect(Atomics.load(lane.flags, ONLINE)).toBe(0);
      await pool.close();
      expect(Atomics.load(lane.flags, ONLINE)).toBe(1);
    }
  });

  it('a timeout before the worker has started waits for it, then ends with TIMEOUT', async () => {
    const pool = new WorkerPool({ threads: 1 });
    try {
      const lane = (pool as unknown as { lanes: { flags: Int32Array }[] }).lanes[0]!;
      const task = { root, policy: defaultPolicy(), cwd: '/', stages: [{ argv: ['cat', 'small.txt'] }], limits: { maxOutputBytes: 1e6, maxResults: 1000, maxBufferBytes: 1e8 } } as unknown as TaskRequest;
      const res = await pool.run(task, 1);
      expect(Atomics.load(lane.flags, ONLINE)).toBe(1);
      expect(res).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
      expect(await pool.run(task, 10_000)).toMatchObject({ ok: true, result: { stdout: Buffer.from('hello\n') } });
    } finally {
      await pool.close();
    }
  });
});

describe('prewake', () => {
  it('a lane woken ahead of a request runs each request once, and one woken for nothing goes back to sleep', async () => {
    const pool = new WorkerPool({ threads: 2 });
    try {
      const task = (n: number) => ({ root, policy: defaultPolicy(), cwd: '/', stages: [{ argv: ['echo', String(n)] }], limits: { maxOutputBytes: 1e6, maxResults: 1000, maxBufferBytes: 1e8 } }) as unknown as TaskRequest;
      for (let n = 0; n < 200; n++) {
        if (n % 3 === 0) pool.prewake();
        if (n % 7 === 0) await new Promise((r) => setTimeout(r, 1)); // the worker gives up watching and sleeps
        pool.prewake();
        const res = await pool.run(task(n), 10_000);
        expect(res).toMatchObject({ ok: true, result: { stdout: Buffer.from(`${n}\n`) } });
      }
      // Woken for nothing, close still ends the lanes.
      pool.prewake();
    } finally {
      await pool.close();
    }
  });
});
