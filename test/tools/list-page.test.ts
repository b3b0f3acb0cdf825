import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vfs } from '../../src/vfs/index.js';
import { defaultPolicy } from '../../src/vfs/policy.js';
import list from '../../src/tools/list.js';
import type { ToolContext } from '../../src/tools/types.js';
import { tempDir } from '../helpers.js';

// list stats only the entries it returns (issue #27: "list must not stat what it does not
// return"): a page of 2 out of 6 names costs 2 lstats, not 6. The tool is run in this thread
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
  it('stats only the page of a listing sorted by name', async () => {
    const first = await run({ limit: 2 });
    expect(first.data.entries.map((e: any) => [e.name, e.size])).toEqual([['a.txt', 2], ['b.txt', 1]]);
    expect(first.data).toMatchObject({ total: 6, next_cursor: 'o:2' });
    expect(first.stats).toBe(2);
    const second = await run({ limit: 2, cursor: 'o:2' });
    expect(second.data.entries.map((e: any) => [e.name, e.size])).toEqual([['c.txt', 4], ['d.txt', 6]]);
    expect(second.stats).toBe(2);
  });

  it('stats everything when the order needs it (size, reverse) or the page is the whole folder', async () => {
    const bySize = await run({ limit: 2, sort: 'size' });
    expect(bySize.data.entries.map((e: any) => e.name)).toEqual(['d.txt', 'e.txt']);
    expect(bySize.stats).toBe(6);
    const reversed = await run({ limit: 2, reverse: true });
    expect(reversed.data.entries.map((e: any) => [e.name, e.size])).toEqual([['f.txt', 3], ['e.txt', 5]]);
    const all = await run({});
    expect(all.data.entries.map((e: any) => e.size)).toEqual([2, 1, 4, 6, 5, 3]);
    expect(all.stats).toBe(6);
  });
});
