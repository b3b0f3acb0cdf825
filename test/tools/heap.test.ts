// Tool calls whose result could not fit a small worker heap in one piece. A worker whose heap
// cannot hold one allocation does not just end: V8's fatal "Reached heap limit" aborts the whole
// process (every user's server). These must answer, or end with a clear error, and the next
// call must work.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let root: string;
let nosh: Nosh;
const call = (method: string, params: Record<string, unknown>) => nosh.call(method, params) as Promise<any>;

beforeAll(async () => {
  root = tempDir();
  fs.writeFileSync(path.join(root, 'empty.txt'), Buffer.alloc(20_000_000, 0x0a)); // 20 M empty lines
  fs.writeFileSync(path.join(root, 'zeros.json'), '[' + '0,'.repeat(9_999_999) + '0]'); // 20 MB: 10 M numbers
  nosh = await createNosh({ root, threads: 1, limits: { memoryMb: 100 } });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function nextCallWorks(): Promise<void> {
  const r = await call('read', { path: 'empty.txt', head: 2 });
  expect(r.data).toMatchObject({ content: '\n\n', total_lines: 20_000_000 });
}

describe('read inside a 100 MB worker', () => {
  // The last N lines were held as a list of N strings: 20 M of them filled the heap.
  it('tail of more lines than the heap holds keeps only what the cap returns', async () => {
    const r = await call('read', { path: 'empty.txt', tail: 100_000_000, max_bytes: 5_000_000 });
    expect(r.data).toMatchObject({ start_line: 15_000_001, end_line: 20_000_000, total_lines: 20_000_000, truncated: true });
    expect(r.data.content).toBe('\n'.repeat(5_000_000));
    const numbered = await call('read', { path: 'empty.txt', tail: 3, line_numbers: true });
    expect(numbered.data).toMatchObject({ content: '19999998\t\n19999999\t\n20000000\t\n', start_line: 19_999_998, truncated: false });
    await nextCallWorks();
  }, 60_000);

  // JSON.parse built 10 M array slots (80 MB, then a copy) in one step.
  it('parse of JSON whose value would not fit is MEMORY_LIMIT before parsing', async () => {
    const r = await call('read', { path: 'zeros.json', parse: 'json' });
    expect(r.success ? r.data : r.error.code).toBe('MEMORY_LIMIT');
    expect(r.error.hint).toMatch(/without parse/);
    await nextCallWorks();
  }, 60_000);

  // A value 5000 deep came back, but its envelope overflowed JSON.stringify's stack in the main thread.
  it('parse refuses JSON nested deeper than 1000 levels; 1000 is fine', async () => {
    fs.writeFileSync(path.join(root, 'deep.json'), '['.repeat(5000) + ']'.repeat(5000));
    const r = await call('read', { path: 'deep.json', parse: 'json' });
    expect(r.success ? r.data : r.error.code).toBe('INVALID_ARGUMENT');
    expect(r.error.details).toMatchObject({ depth: 5000, limit: 1000 });
    fs.writeFileSync(path.join(root, 'ok.json'), '{"a":'.repeat(999) + '[1]' + '}'.repeat(999));
    const ok = await call('read', { path: 'ok.json', parse: 'json' });
    expect(ok.success).toBe(true);
    expect(JSON.stringify(ok)).toContain('[1]');
  });

  it('base64 reads only the bytes it returns, and says the size', async () => {
    const r = await call('read', { path: 'zeros.json', encoding: 'base64', max_bytes: 6 });
    expect(r.data).toMatchObject({ content: Buffer.from('[0,0,0').toString('base64'), size: 20_000_001, truncated: true });
  });
});

describe('edit inside a 100 MB worker', () => {
  // The diff split both whole texts into arrays of lines: 2 x 10 M strings filled the heap.
  it('replace_all on every line of a 20 MB file answers, with only the changed region diffed and the diff cut', async () => {
    fs.writeFileSync(path.join(root, 'xs.txt'), 'x\n'.repeat(10_000_000));
    const r = await call('edit', { path: 'xs.txt', edits: [{ old_text: 'x', new_text: 'y', replace_all: true }], dry_run: true });
    expect(r.success ? r.data.replacements : r.error).toBe(10_000_000);
    expect(r.data.diff_truncated).toBe(true);
    expect(r.data.diff).toMatch(/^Index: \/xs.txt\n={67}\n--- \/xs.txt\t\n\+\+\+ \/xs.txt\t\n@@ -1,10000000 \+1,10000000 @@\n-x\n\+y\n-x\n/);
    await nextCallWorks();
  }, 60_000);

  it('an edit far down a big file diffs only its lines, with their numbers', async () => {
    const r = await call('edit', { path: 'xs.txt', edits: [{ insert_after_line: 9_000_000, text: 'hello' }], dry_run: true });
    expect(r.data.diff).toBe('Index: /xs.txt\n' + '='.repeat(67) + '\n--- /xs.txt\n+++ /xs.txt\n@@ -8999998,6 +8999998,7 @@\n x\n x\n x\n+hello\n x\n x\n x\n');
  }, 60_000);
});

describe('search inside a 32 MB worker', () => {
  // A line is tested whole: a 22 MB line was joined in one allocation past the heap, and V8's
  // out-of-memory aborted the host. Lines past a quarter of the budget are skipped and counted.
  it('a line longer than a quarter of the budget is skipped and counted; the lines after it are searched', async () => {
    const small = await createNosh({ root, threads: 1, limits: { memoryMb: 32 } });
    try {
      fs.writeFileSync(path.join(root, 'long.txt'), 'b1\n' + 'ab'.repeat(11_000_000) + '\nb3\n' + 'b'.repeat(9_000_000));
      const r = await small.call('search', { pattern: 'b', path: 'long.txt', context_lines: 1 }) as any;
      expect(r.success).toBe(true);
      expect(r.data.matches.map((m: { line: number }) => m.line)).toEqual([1, 3]);
      expect(r.data.matches[1].before).toEqual([]);
      expect(r.data.long_lines_skipped).toBe(2);
      expect(r.message).toMatch(/2 line\(s\) longer than 8 MB/);
      const next = await small.call('search', { pattern: 'b3', path: 'long.txt' }) as any;
      expect(next.data.matches).toEqual([{ path: '/long.txt', line: 3, text: 'b3' }]);
      // edit holds the text several times over: a file past a quarter of the budget is refused.
      const edit = await small.call('edit', { path: 'long.txt', edits: [{ old_text: 'b3', new_text: 'B3' }] }) as any;
      expect(edit.success ? edit.data : edit.error.code).toBe('MEMORY_LIMIT');
    } finally {
      await small.close();
    }
  }, 60_000);
});
