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

  it('every sed -i lands (each reads the file the previous one wrote)', async () => {
    const n = 24;
    ws.put('s.txt', Array.from({ length: n }, (_, k) => `w${k}\n`).join('') + 'x\n'.repeat(50_000));
    const rs = await Promise.all(Array.from({ length: n }, (_, k) => ws.call('exec', { command: `sed -i s/^w${k}$/W${k}/ s.txt` })));
    expect(rs.map((r) => r.success && r.data.exit_code)).toEqual(Array(n).fill(0));
    const lines = ws.get('s.txt').split('\n');
    expect(lines.slice(0, n + 1)).toEqual([...Array.from({ length: n }, (_, k) => `W${k}`), 'x']);
    expect(lines).toHaveLength(n + 50_001);
  }, 120_000);

  it('edit, write append, tee -a and sed -i on one file, all at once: every change lands', async () => {
    ws.put('mix.txt', 'alpha\nbeta\n' + 'x\n'.repeat(50_000));
    const rs = await Promise.all([
      ws.call('exec', { command: 'sed -i s/alpha/ALPHA/ mix.txt' }),
      ws.call('edit', { path: 'mix.txt', edits: [{ old_text: 'beta', new_text: 'BETA' }] }),
      ws.call('exec', { command: 'tee -a mix.txt', stdin: 'from tee\n' }),
      ws.call('write', { path: '/mix.txt', content: 'from write\n', mode: 'append' }),
      ws.call('exec', { command: 'sed -i 1iFIRST mix.txt' }),
    ]);
    expect(rs.every((r) => r.success)).toBe(true);
    const text = ws.get('mix.txt');
    expect(text.startsWith('FIRST\nALPHA\nBETA\n')).toBe(true);
    expect(text.endsWith('x\nfrom tee\nfrom write\n') || text.endsWith('x\nfrom write\nfrom tee\n')).toBe(true);
  }, 120_000);

  it('a command line writing through stdout_file and mv of the same file keep the call order', async () => {
    ws.put('o.txt', 'old\n');
    const rs = await Promise.all([
      ws.call('exec', { command: 'echo new', stdout_file: 'o.txt' }),
      ws.call('exec', { command: 'mv o.txt moved.txt' }),
    ]);
    expect(rs.map((r) => r.success && r.data.exit_code)).toEqual([0, 0]);
    expect(ws.get('moved.txt')).toBe('new\n');
  }, 120_000);
});
