import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vfs } from '../../src/vfs/index.js';
import { defaultPolicy } from '../../src/vfs/policy.js';
import list from '../../src/tools/list.js';
import type { ToolContext } from '../../src/tools/types.js';
import { tempDir } from '../helpers.js';

// list stats only the entries it returns (issue #27: "list must not stat what it does not
// return"): none unless sizes or times are asked for (details, sort by size or mtime), and
// then a page of 2 out of 6 names costs 2 lstats, not 6. The tool is run in this thread
// on a Vfs whose lstatAt is counted.
let root: string;
beforeAll(() => {
  root = tempDir('nosh-list-page-');
  for (const [i, n] of ['b', 'a', 'f', 'c', 'e', 'd'].entries()) fs.writeFileSync(path.join(root, `${n}.txt`), 'x'.repeat(i + 1));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function run(args: Record<string, unknown>): Promise<{ data: any; stats: number }> {
  const vfs = new Vfs(root, defaultPolicy());
  let stats = 0;
  const lstatAt = vfs.lstatAt.bind(vfs);
  vfs.lstatAt = (dir, name) => { stats++; return lstatAt(dir, name); };
  const ctx = { fs: vfs, cwd: '/', signal: new AbortController().signal, limits: {} } as unknown as ToolContext;
  const r = await list.run(ctx, list.input.parse(args));
  return { data: r.data, stats };
}

describe('list paging', () => {
  it('stats nothing unless sizes or times are asked for: name and type from the listing', async () => {
    const all = await run({});
    expect(all.data.entries).toEqual(['a', 'b', 'c', 'd', 'e', 'f'].map((n) => ({ name: `${n}.txt`, type: 'file' })));
    expect(all.data).toMatchObject({ total: 6, next_cursor: null });
    expect(all.stats).toBe(0);
    const page = await run({ limit: 2, cursor: 'o:2', reverse: true, recursive: true, pattern: '*.txt' });
    expect(page.data.entries).toEqual([{ name: 'd.txt', type: 'file' }, { name: 'c.txt', type: 'file' }]);
    expect(page.stats).toBe(0);
    // Asked for: the same rows as before, with size and mtime.
    const details = await run({ details: true });
    expect(details.data.entries.map((e: any) => Object.keys(e))).toEqual(Array(6).fill(['name', 'type', 'size', 'mtime']));
    expect(details.data.entries[0]).toEqual({ name: 'a.txt', type: 'file', size: 2, mtime: fs.statSync(path.join(root, 'a.txt')).mtime.toISOString() });
    expect(details.stats).toBe(6);
  });

  it('stats only the page of a listing sorted by name', async () => {
    const first = await run({ limit: 2, details: true });
    expect(first.data.entries.map((e: any) => [e.name, e.size])).toEqual([['a.txt', 2], ['b.txt', 1]]);
    expect(first.data).toMatchObject({ total: 6, next_cursor: 'o:2' });
    expect(first.stats).toBe(2);
    const second = await run({ limit: 2, cursor: 'o:2', details: true });
    expect(second.data.entries.map((e: any) => [e.name, e.size])).toEqual([['c.txt', 4], ['d.txt', 6]]);
    expect(second.stats).toBe(2);
  });

  it('stats everything when the order needs it (size, reverse) or the page is the whole folder', async () => {
    const bySize = await run({ limit: 2, sort: 'size' });
    expect(bySize.data.entries.map((e: any) => e.name)).toEqual(['d.txt', 'e.txt']);
    expect(bySize.stats).toBe(6);
    const reversed = await run({ limit: 2, reverse: true, details: true });
    expect(reversed.data.entries.map((e: any) => [e.name, e.size])).toEqual([['f.txt', 3], ['e.txt', 5]]);
    const all = await run({ details: true });
    expect(all.data.entries.map((e: any) => e.size)).toEqual([2, 1, 4, 6, 5, 3]);
    expect(all.stats).toBe(6);
  });
});
