import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspace, type Ws } from './setup.js';

// Several workers: calls on one file really run at the same time unless something orders them.
let ws: Ws;
beforeAll(async () => { ws = await workspace({ threads: 4 }); });
afterAll(async () => { await ws.close(); });

describe('concurrent calls on one file lose nothing', () => {
  it('every append lands', async () => {
    ws.put('log.txt', '');
    const n = 40;
    const rs = await Promise.all(Array.from({ length: n }, (_, k) => ws.call('write', { path: 'log.txt', content: `line ${k}\n`, mode: 'append' })));
    expect(rs.every((r) => r.success)).toBe(true);
    const lines = ws.get('log.txt').split('\n').filter(Boolean).sort();
    expect(lines).toEqual(Array.from({ length: n }, (_, k) => `line ${k}`).sort());
  }, 120_000);

  it('every edit lands, whatever spelling of the path each one uses', async () => {
    const n = 40;
    ws.put('dir/ed.txt', Array.from({ length: n }, (_, k) => `L${k}\n`).join(''));
    const spell = ['dir/ed.txt', '/dir/ed.txt', './dir//ed.txt', 'dir/../dir/ed.txt'];
    const rs = await Promise.all(Array.from({ length: n }, (_, k) => ws.call('edit', { path: spell[k % spell.length], edits: [{ old_text: `L${k}\n`, new_text: `E${k}\n` }] })));
    expect(rs.every((r) => r.success)).toBe(true);
    expect(ws.get('dir/ed.txt')).toBe(Array.from({ length: n }, (_, k) => `E${k}\n`).join(''));
  }, 120_000);

  it('a cwd-relative path is the same file as its absolute spelling', async () => {
    ws.put('sub/c.txt', '');
    const rs = await Promise.all(Array.from({ length: 20 }, (_, k) => k % 2
      ? ws.call('write', { path: 'c.txt', cwd: '/sub', content: `${k}\n`, mode: 'append' })
      : ws.call('write', { path: '/sub/c.txt', content: `${k}\n`, mode: 'append' })));
    expect(rs.every((r) => r.success)).toBe(true);
    expect(ws.get('sub/c.txt').split('\n').filter(Boolean)).toHaveLength(20);
  }, 120_000);
});
