/**
 * Folder scans (a quota's first count, stats, maintenance) run in the serving thread: they
 * are asynchronous, so a zone of many empty files (which no byte quota bounds) does not
 * block other callers while it is counted.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

const base = tempDir('nosh-scan-');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** The longest time the event loop went without running a 1 ms timer while f ran. */
async function longestGap(f: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  try {
    await f();
  } finally {
    clearInterval(timer);
  }
  return Math.max(gap, performance.now() - last);
}

it('counts a zone of 40 000 files without blocking the event loop', async () => {
  const storage = path.join(base, 'users', 'alice', 'Storage');
  for (let d = 0; d < 40; d++) {
    const dir = path.join(storage, `d${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 1000; f++) fs.writeFileSync(path.join(dir, `f${f}`), f === 0 ? 'abc' : '');
  }
  // what a synchronous walk of that tree costs
  const t = performance.now();
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p); else fs.lstatSync(p);
    }
  };
  walk(storage);
  const sync = performance.now() - t;

  const nosh = await createNosh({ base, threads: 1 });
  try {
    const ctx = { user: 'alice' };
    const gaps = [
      await longestGap(() => nosh.exec({ zone: 'storage', context: ctx, command: 'true' })),
      await longestGap(() => nosh.call('stats', { context: ctx })),
      await longestGap(() => nosh.call('maintenance', { rescan: true })),
    ];
    const stats = await nosh.call('stats', { context: ctx });
    expect(stats.success).toBe(true);
    const d = stats.data as { zones: Record<string, { files: number }>; quotas: Record<string, { used: number }> };
    expect(d.zones.storage!.files).toBeGreaterThanOrEqual(40_000);
    expect(d.quotas['user:alice']!.used).toBeGreaterThanOrEqual(40 * 3);
    for (const g of gaps) expect(g).toBeLessThan(Math.max(40, sync / 2));
  } finally {
    await nosh.close();
  }
}, 60_000);

it('refuses a context naming more than 1000 groups before stats makes their folders', async () => {
  const nosh = await createNosh({ base, threads: 1 });
  try {
    const groups = Array.from({ length: 50_000 }, (_, i) => `g${i}`);
    const r = await nosh.call('stats', { context: { user: 'bob', groups } });
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.code).toBe('INVALID_ARGUMENT');
    expect(fs.existsSync(path.join(base, 'groups', 'g0'))).toBe(false);
  } finally {
    await nosh.close();
  }
});
