import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

// Two instances on one base in one process: each has its own WriteOrder and quota ledger, as two
// processes do; the embedded store's lock files order them (a lock file's holder is this pid).
describe('two nosh instances on one base (embedded store)', () => {
  it('300 concurrent appends to one file, half through each, keep all 300 lines', async () => {
    const base = tempDir();
    const [a, b] = await Promise.all([createNosh({ base, threads: 2 }), createNosh({ base, threads: 2 })]);
    try {
      const calls = [];
      for (let i = 0; i < 150; i++) {
        calls.push(a.call('write', { path: 'log.txt', content: `a-${i}\n`, mode: 'append' }));
        calls.push(b.exec({ command: 'tee -a log.txt' }, { stdin: `b-${i}\n` }));
      }
      const envs = await Promise.all(calls);
      expect(envs.filter((e) => !e.success)).toEqual([]);
      const lines = fs.readFileSync(path.join(base, 'users', 'default', 'Storage', 'log.txt'), 'utf8').split('\n').filter(Boolean);
      expect(lines).toHaveLength(300);
      expect(new Set(lines).size).toBe(300);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 300_000);

  it('a quota spent through one instance is seen by the other', async () => {
    const base = tempDir();
    const [a, b] = await Promise.all([createNosh({ base, threads: 1, quotas: { userMb: 1 } }), createNosh({ base, threads: 1, quotas: { userMb: 1 } })]);
    try {
      const chunk = 'x'.repeat(300 * 1024);
      // b counts the quota first (nothing there yet), then a fills it
      expect((await b.call('write', { path: 'b0.bin', content: 'b' })).success).toBe(true);
      for (let i = 0; i < 3; i++) expect((await a.call('write', { path: `a${i}.bin`, content: chunk })).success).toBe(true);
      const over = await b.call('write', { path: 'b1.bin', content: chunk });
      expect(over.success).toBe(false);
      expect(!over.success && over.error.code).toBe('QUOTA_EXCEEDED');
      // freeing space through one is seen by the other
      expect((await a.exec({ command: 'rm a0.bin a1.bin' })).success).toBe(true);
      expect((await b.call('write', { path: 'b1.bin', content: chunk })).success).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 120_000);
});

// The CLI's `--root DIR` keeps its store in the default base (~/.nosh) whatever DIR is: two
// processes on two different folders share that base, and their 'root' zones are different
// zones. They once shared the key 'root': one's long call held the other's writes (BUSY after
// 60 s) and a lock on a path in one folder was a lock on that path in the other.
describe('two root folders on one base', () => {
  it('do not share a write order or locks', async () => {
    const base = tempDir();
    const [ra, rb] = [tempDir(), tempDir()];
    for (const r of [ra, rb]) fs.writeFileSync(path.join(r, 'a.txt'), 'one\n');
    const [a, b] = await Promise.all([createNosh({ base, root: ra, threads: 2 }), createNosh({ base, root: rb, threads: 2 })]);
    try {
      for (const n of [a, b]) expect((await n.call('write', { path: 'warm.txt', content: 'x' })).success).toBe(true);
      // a writing call that lasts: it holds its zone's order until it is cancelled
      const ac = new AbortController();
      const long = a.exec({ command: 'touch held.txt | sleep 60' }, { signal: ac.signal });
      await new Promise((r) => setTimeout(r, 300));
      const write = b.call('write', { path: 'b.txt', content: 'x' });
      // b's write in another folder does not wait for it (before the fix it waited 60 s)
      const first = await Promise.race([write.then(() => 'write'), long.then(() => 'long')]);
      expect(first).toBe('write');
      expect((await write).success).toBe(true);
      ac.abort();
      await long;
      const open = await a.call('lockedit_open', { path: 'a.txt' });
      expect(open.success).toBe(true);
      expect((await b.call('write', { path: 'a.txt', content: 'two\n' })).success).toBe(true);
      expect(fs.readFileSync(path.join(rb, 'a.txt'), 'utf8')).toBe('two\n');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);
});
