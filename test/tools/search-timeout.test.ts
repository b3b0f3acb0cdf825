// Issue 17 §6: search keeps its timeout_ms. The deadline was looked at only after a chunk that
// ended a line: files skipped by include/exclude, binary files and chunks inside one long line
// never checked it, so a search ran on well past its timeout (7.7 s for 5 s).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspace, type Ws } from './setup.js';

let ws: Ws;
beforeAll(async () => {
  // maxFileSize: the huge file must be searched (reads past the zone's maximum are refused)
  ws = await workspace({ limits: { maxFileSize: 2 ** 40 } });
  // 64 GB with no newline: text at the start, then a hole (reads as NUL bytes, costs no disk).
  const fd = fs.openSync(path.join(ws.root, 'huge.txt'), 'w');
  fs.writeSync(fd, Buffer.alloc(16384, 'x'));
  fs.ftruncateSync(fd, 64 * 1024 ** 3);
  fs.closeSync(fd);
  for (let d = 0; d < 20; d++) {
    fs.mkdirSync(path.join(ws.root, 'tree', `d${d}`), { recursive: true });
    for (let f = 0; f < 200; f++) fs.writeFileSync(path.join(ws.root, 'tree', `d${d}`, `f${f}.txt`), 'needle\n');
  }
  // the worker is up, its tools loaded (exists would answer in the main thread: src/api/inline.ts)
  await ws.call('search', { pattern: 'needle', path: 'tree/d0/f0.txt' });
}, 60_000);
afterAll(async () => { await ws.close(); });

describe('search timeout_ms', () => {
  it('a file of one endless line is left at the deadline: timeout 2 s returns within 3 s, truncated', async () => {
    const t0 = Date.now();
    const r = await ws.call('search', { pattern: 'needle', path: 'huge.txt', timeout_ms: 2000 });
    const took = Date.now() - t0;
    expect(r.success).toBe(true);
    expect(r.data.truncated).toBe(true);
    expect(r.message).toMatch(/timeout_ms/);
    expect(took).toBeGreaterThanOrEqual(2000);
    expect(took).toBeLessThan(3000);
  }, 120_000);

  it('files passed over by include count against the deadline too', async () => {
    const r = await ws.call('search', { pattern: 'needle', path: 'tree', include: ['*.none'], timeout_ms: 1 });
    expect(r.success).toBe(true);
    expect(r.data.files_searched).toBe(0);
    expect(r.data.truncated).toBe(true);
    expect(r.message).toMatch(/timeout_ms/);
  }, 60_000);

  it('without a timeout the same searches run to the end', async () => {
    const r = await ws.call('search', { pattern: 'needle', path: 'tree', include: ['*.none'] });
    expect(r.data.truncated).toBe(false);
    const all = await ws.call('search', { pattern: 'needle', path: 'tree/d0' });
    expect(all.data).toMatchObject({ count: 200, files_matched: 200, truncated: false });
  }, 60_000);
});
