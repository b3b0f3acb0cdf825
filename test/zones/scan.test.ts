/**
 * Folder scans (a quota's first count, stats, maintenance) run in the serving thread: they
 * are asynchronous, so a zone of many empty files (which no byte quota bounds) does not
 * block other callers while it is counted.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { forEachFile } from '../../src/zones/quota.js';
import { tempDir } from '../helpers.js';

const base = tempDir('nosh-scan-');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** Event-loop turns (setImmediate) taken while f runs: 0 if it never yields. */
async function turnsDuring(f: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let on = true;
  const spin = () => {
    if (!on) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    await f();
  } finally {
    on = false;
  }
  return turns;
}

// No wall-clock bound (machines here are shared): the walk must yield, which a synchronous
// one never does, and still count every file.
it('counts a zone of 40 000 files, giving the event loop turns while it walks', async () => {
  const storage = path.join(base, 'users', 'alice', 'Storage');
  for (let d = 0; d < 40; d++) {
    const dir = path.join(storage, `d${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 1000; f++) fs.writeFileSync(path.join(dir, `f${f}`), f === 0 ? 'abc' : '');
  }
  let seen = 0;
  // 40 000 lstats take far longer than one 10 ms slice on any machine.
  expect(await turnsDuring(() => forEachFile(storage, () => { seen++; }))).toBeGreaterThan(0);
  expect(seen).toBe(40_000);

  const nosh = await createNosh({ base, threads: 1 });
  try {
    const ctx = { user: 'alice' };
    expect((await nosh.exec({ zone: 'storage', context: ctx, command: 'true' })).success).toBe(true);
    expect((await nosh.call('maintenance', { rescan: true })).success).toBe(true);
    const stats = await nosh.call('stats', { context: ctx });
    expect(stats.success).toBe(true);
    const d = stats.data as { zones: Record<string, { files: number }>; quotas: Record<string, { used: number }> };
    expect(d.zones.storage!.files).toBeGreaterThanOrEqual(40_000);
    expect(d.quotas['user:alice']!.used).toBeGreaterThanOrEqual(40 * 3);
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
