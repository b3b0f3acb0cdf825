// The optional content cache of repeated searches (limits.contentCacheMb, src/vfs/content-cache.ts):
// it must never serve stale content, nor content the policy of the search does not allow.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeTask } from '../../src/exec/index.js';
import { defaultPolicy, type ZonePolicy } from '../../src/vfs/index.js';
import { contentCache, nowMs } from '../../src/vfs/content-cache.js';
import { setMemoryBudget } from '../../src/runtime/memory.js';
import { createNosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

setMemoryBudget(512);
const scratch = tempDir('nosh-grep-cache-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let n = 0;
function zone(files: Record<string, string>): string {
  const root = path.join(scratch, `z${n++}`);
  for (const [name, content] of Object.entries(files)) {
    const p = path.join(root, name);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
  return root;
}

async function grep(root: string, line: string, cacheBytes: number | undefined = 1 << 20, policy: Partial<ZonePolicy> = {}): Promise<string> {
  const res = await executeTask({
    root, policy: defaultPolicy(policy), cwd: '/', stages: [{ argv: line.split(' ') }],
    limits: { maxOutputBytes: 1 << 20, maxResults: 1000, maxBufferBytes: 1 << 26, ...(cacheBytes ? { contentCacheBytes: cacheBytes } : {}) },
  });
  if (!res.ok) throw new Error(JSON.stringify(res.error));
  return Buffer.from(res.result!.stdout).toString();
}

/** Rewrite `file` in place (same inode, same size) as soon as possible after `since`; the delay, ms. */
function rewrite(file: string, content: string, since: bigint): number {
  fs.writeFileSync(file, content); // O_TRUNC on the same inode
  return Number(process.hrtime.bigint() - since) / 1e6;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('grep -r content cache', () => {
  it('is off unless configured', async () => {
    contentCache(0);
    const root = zone({ 'd/a.txt': 'needle\n' });
    expect(await grep(root, 'grep -r needle d', undefined)).toBe('d/a.txt:needle\n');
    expect(contentCache(undefined)).toBeNull();
  });

  it('sees a file changed within one millisecond after a search, the file just written (racy timestamps)', async () => {
    const c = contentCache(1 << 20)!;
    const root = zone({});
    const file = path.join(root, 'd', 'f.txt');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    let fast = 0;
    for (let i = 0; i < 30; i++) {
      // Same size, same inode: only the timestamps (one coarse clock tick) can tell them apart.
      fs.writeFileSync(file, `needle ${i % 2 === 0 ? 'aa' : 'bb'}\n`);
      expect(await grep(root, 'grep -r needle d')).toBe(`d/f.txt:needle ${i % 2 === 0 ? 'aa' : 'bb'}\n`);
      const t = process.hrtime.bigint();
      if (rewrite(file, `needle ${i % 2 === 0 ? 'cc' : 'dd'}\n`, t) <= 1) fast++;
      expect(await grep(root, 'grep -r needle d')).toBe(`d/f.txt:needle ${i % 2 === 0 ? 'cc' : 'dd'}\n`);
    }
    expect(fast).toBeGreaterThan(0);
    expect(c.racy).toBeGreaterThan(0);
  });

  it('keeps nothing whose timestamps a later change could repeat (a coarse clock: one tick, or whole seconds)', () => {
    // Linux 6.13+ gives a file changed after a stat a fine-grained time (multigrain timestamps),
    // so a file system cannot show this here: an identity as a 1 s (or one-tick) clock gives it.
    const c = contentCache(1 << 20)!;
    c.clear();
    const now = nowMs();
    const second = now - (now % 1000);
    const st = { dev: 1, ino: 42, size: 4, mtimeMs: second, ctimeMs: second };
    c.put(st, now, Buffer.from('old\n'));
    // Rewritten within the same second: the same identity.
    expect(c.get(st)).toBeNull();
    // Old enough: kept, and only for exactly that identity.
    const old = { ...st, mtimeMs: second - 5000, ctimeMs: second - 5000 };
    c.put(old, now, Buffer.from('old\n'));
    expect(c.get(old)?.toString()).toBe('old\n');
    // One microsecond later (lstat's double keeps about 0.25 us at today's dates).
    expect(c.get({ ...old, ctimeMs: old.ctimeMs + 0.001 })).toBeNull();
    expect(c.get({ ...old, size: 5 })).toBeNull();
    expect(c.get({ ...old, dev: 2 })).toBeNull();
    c.clear();
  });

  it('serves an unchanged file from memory, and sees every kind of change of it', async () => {
    const c = contentCache(1 << 20)!;
    c.clear();
    const root = zone({ 'd/a.txt': 'needle one\n', 'd/b.txt': 'needle two\n', 'd/s/c.txt': 'no\n' });
    // Older than the racy window: kept from the first search on.
    await sleep(2100);
    expect(await grep(root, 'grep -r needle d')).toBe('d/a.txt:needle one\nd/b.txt:needle two\n');
    const stored = c.stored;
    const hits = c.hits;
    expect(stored).toBeGreaterThanOrEqual(3);
    expect(await grep(root, 'grep -rn needle d')).toBe('d/a.txt:1:needle one\nd/b.txt:1:needle two\n');
    expect(c.hits).toBe(hits + 3);
    // In place, same size, within a millisecond of the search.
    const t = process.hrtime.bigint();
    rewrite(path.join(root, 'd/a.txt'), 'needle ONE\n', t);
    expect(await grep(root, 'grep -r needle d')).toBe('d/a.txt:needle ONE\nd/b.txt:needle two\n');
    // Replaced by rename (another inode, maybe the number of one just freed).
    fs.writeFileSync(path.join(root, 'd/tmp'), 'needle TWO\n');
    fs.renameSync(path.join(root, 'd/tmp'), path.join(root, 'd/b.txt'));
    expect(await grep(root, 'grep -r needle d')).toBe('d/a.txt:needle ONE\nd/b.txt:needle TWO\n');
    // Truncated, removed.
    fs.truncateSync(path.join(root, 'd/a.txt'), 0);
    fs.rmSync(path.join(root, 'd/b.txt'));
    expect(await grep(root, 'grep -r needle d')).toBe('');
  }, 20_000);

  it('sees a cached folder change: a file replaced by rename, appended with its old mtime, added, removed', async () => {
    const c = contentCache(1 << 20)!;
    c.clear();
    const root = zone({ 'd/a.txt': 'needle a\n', 'd/b.txt': 'needle b\n', 'd/s/c.txt': 'needle c\n' });
    // a.txt's mtime a whole second (utimes can set exactly that again).
    const wholeSecond = Math.floor(Date.now() / 1000) - 10;
    fs.utimesSync(path.join(root, 'd/a.txt'), wholeSecond, wholeSecond);
    await sleep(2100);
    const grepD = () => grep(root, 'grep -r needle d');
    expect(await grepD()).toBe('d/a.txt:needle a\nd/b.txt:needle b\nd/s/c.txt:needle c\n');
    expect(c.listStored).toBeGreaterThanOrEqual(2);
    const listHits = c.listHits;
    const hits = c.hits;
    expect(await grepD()).toBe('d/a.txt:needle a\nd/b.txt:needle b\nd/s/c.txt:needle c\n');
    // Both folders' names and all three files came from the cache.
    expect(c.listHits).toBe(listHits + 2);
    expect(c.hits).toBe(hits + 3);
    // Replaced by rename: another inode (same size), within a millisecond.
    const b = path.join(root, 'd/b.txt');
    fs.writeFileSync(path.join(root, 'd/b.new'), 'needle B\n');
    fs.renameSync(path.join(root, 'd/b.new'), b);
    expect(await grepD()).toBe('d/a.txt:needle a\nd/b.txt:needle B\nd/s/c.txt:needle c\n');
    // Appended, then its mtime set back to the old one: only size (and ctime) differ.
    const a = path.join(root, 'd/a.txt');
    const before = fs.statSync(a);
    fs.appendFileSync(a, 'needle more\n');
    fs.utimesSync(a, before.atime, wholeSecond);
    expect(fs.statSync(a).mtimeMs).toBe(before.mtimeMs);
    expect(await grepD()).toBe('d/a.txt:needle a\nd/a.txt:needle more\nd/b.txt:needle B\nd/s/c.txt:needle c\n');
    // A new file in a folder whose listing was kept (d/s), then one removed from it.
    await sleep(2100);
    expect(await grepD()).toBe('d/a.txt:needle a\nd/a.txt:needle more\nd/b.txt:needle B\nd/s/c.txt:needle c\n');
    const kept = c.listHits;
    expect(await grepD()).toBe('d/a.txt:needle a\nd/a.txt:needle more\nd/b.txt:needle B\nd/s/c.txt:needle c\n');
    expect(c.listHits).toBe(kept + 2);
    fs.writeFileSync(path.join(root, 'd/s/new.txt'), 'needle new\n');
    expect(await grepD()).toBe('d/a.txt:needle a\nd/a.txt:needle more\nd/b.txt:needle B\nd/s/c.txt:needle c\nd/s/new.txt:needle new\n');
    fs.rmSync(path.join(root, 'd/s/c.txt'));
    expect(await grepD()).toBe('d/a.txt:needle a\nd/a.txt:needle more\nd/b.txt:needle B\nd/s/new.txt:needle new\n');
    // A folder replaced by another of the same name (rename): its own names, not the kept ones.
    fs.mkdirSync(path.join(root, 'd/t'));
    fs.writeFileSync(path.join(root, 'd/t/x.txt'), 'needle x\n');
    fs.rmSync(path.join(root, 'd/s'), { recursive: true });
    fs.renameSync(path.join(root, 'd/t'), path.join(root, 'd/s'));
    expect(await grepD()).toBe('d/a.txt:needle a\nd/a.txt:needle more\nd/b.txt:needle B\nd/s/x.txt:needle x\n');
  }, 30_000);

  it('applies the policy of each search to kept listings', async () => {
    const c = contentCache(1 << 20)!;
    c.clear();
    const root = zone({ 'd/.env': 'needle=secret\n', 'd/ok.txt': 'needle\n', 'd/k/x.md': 'needle md\n' });
    await sleep(2100);
    const open = { blockedPatterns: [], replaceDefaultBlocked: true };
    expect(await grep(root, 'grep -r needle d', 1 << 20, open)).toBe('d/.env:needle=secret\nd/k/x.md:needle md\nd/ok.txt:needle\n');
    const listHits = c.listHits;
    expect(await grep(root, 'grep -r needle d', 1 << 20, { blockedPatterns: ['.env', 'k'] })).toBe('d/ok.txt:needle\n');
    expect(await grep(root, 'grep -r needle d', 1 << 20, { allowedExtensions: ['.txt'] })).toBe('d/ok.txt:needle\n');
    expect(c.listHits).toBeGreaterThan(listHits);
  }, 20_000);

  it('never shows a file the search may not read, even when it is kept', async () => {
    const c = contentCache(1 << 20)!;
    c.clear();
    const root = zone({ 'd/.env': 'needle=secret\n', 'd/ok.txt': 'needle\n' });
    await sleep(2100);
    const s0 = c.stored;
    // A policy that allows .env reads it (and keeps it) ...
    expect(await grep(root, 'grep -r needle d', 1 << 20, { blockedPatterns: [], replaceDefaultBlocked: true })).toBe('d/.env:needle=secret\nd/ok.txt:needle\n');
    expect(c.stored - s0).toBe(2);
    // ... one that blocks it never sees it.
    expect(await grep(root, 'grep -r needle d', 1 << 20, { blockedPatterns: ['.env'] })).toBe('d/ok.txt:needle\n');
    expect(await grep(root, 'grep -r needle d', 1 << 20, { allowedExtensions: ['.txt'] })).toBe('d/ok.txt:needle\n');
    // A size limit below the file's size refuses it as before.
    expect(await grep(root, 'grep -rs needle d', 1 << 20, { maxFileSize: 4 })).toBe('');
  }, 20_000);

  it('stays within its budget', async () => {
    const c = contentCache(10_000)!;
    c.clear();
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`d/f${i}.txt`] = `needle ${i}\n` + 'x'.repeat(2000) + '\n';
    const root = zone(files);
    await sleep(2100);
    await grep(root, 'grep -rc needle d', 10_000);
    expect(c.stored).toBeGreaterThan(4);
    expect(c.size).toBeLessThanOrEqual(10_000);
    // Turned off again: dropped.
    expect(contentCache(0)).toBeNull();
  }, 20_000);

  it('through the library (limits.contentCacheMb): a change within a millisecond is seen', async () => {
    const root = zone({ 'd/a.txt': 'needle one\n', 'd/b.txt': 'needle two\n' });
    await sleep(2100);
    const nosh = await createNosh({ root, threads: 1, limits: { contentCacheMb: 4 } });
    try {
      const exec = async () => {
        const r = await nosh.exec({ command: 'grep -r needle d' });
        if (!r.success) throw new Error(r.error.message);
        return r.data.stdout;
      };
      expect(await exec()).toBe('d/a.txt:needle one\nd/b.txt:needle two\n');
      expect(await exec()).toBe('d/a.txt:needle one\nd/b.txt:needle two\n');
      for (let i = 0; i < 10; i++) {
        const want = `needle ${String(i).padStart(3, '0')}\n`;
        rewrite(path.join(root, 'd/a.txt'), want, process.hrtime.bigint());
        expect(await exec()).toBe(`d/a.txt:${want}d/b.txt:needle two\n`);
      }
    } finally {
      await nosh.close();
    }
  }, 30_000);
});
