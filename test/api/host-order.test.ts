import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

// Host methods that write (import, transfer) take their place in the zones' write order, as
// the tools do: without it, a call sent second could land first and undo the other.
const base = tempDir('nosh-host-order-');
let nosh: Nosh;
beforeAll(async () => { nosh = await createNosh({ base, threads: 4 }); });
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});

const ctx = { user: 'carol', conversation: 'c1' };
// Big enough that writing it takes longer than a small call sent right after it.
const big = 'x'.repeat(4 << 20);

async function text(zone: string, path: string): Promise<string> {
  const r = await nosh.call('read', { zone, context: ctx, path, limit: 1 });
  expect(r.success).toBe(true);
  return (r as { data: { content: string } }).data.content;
}

describe('host methods in the write order', () => {
  it('a transfer copies what the write sent before it wrote', async () => {
    for (let round = 0; round < 8; round++) {
      const path = `t${round}.txt`;
      expect((await nosh.call('write', { zone: 'storage', context: ctx, path, content: 'old\n' })).success).toBe(true);
      const [w, t] = await Promise.all([
        nosh.call('write', { zone: 'storage', context: ctx, path, content: `new\n${big}` }),
        nosh.call('transfer', { context: ctx, from: 'storage', to: 'documents', path }),
      ]);
      expect([w.success, t.success]).toEqual([true, true]);
      expect(await text('documents', path)).toBe('new\n');
    }
  }, 120_000);

  it('an edit sent after a transfer applies to what the transfer wrote', async () => {
    for (let round = 0; round < 8; round++) {
      const path = `e${round}.txt`;
      await nosh.call('write', { zone: 'documents', context: ctx, path, content: 'before\n' });
      await nosh.call('write', { zone: 'storage', context: ctx, path, content: `copied\n${big}` });
      const [t, e] = await Promise.all([
        nosh.call('transfer', { context: ctx, from: 'storage', to: 'documents', path, overwrite: true }),
        nosh.call('edit', { zone: 'documents', context: ctx, path, edits: [{ old_text: 'copied', new_text: 'edited' }] }),
      ]);
      expect([t.success, e.success]).toEqual([true, true]);
      expect(await text('documents', path)).toBe('edited\n');
    }
  }, 120_000);

  it('two imports of one name land in the order they were sent', async () => {
    for (let round = 0; round < 8; round++) {
      const name = `i${round}.txt`;
      const [a, b] = await Promise.all([
        nosh.call('import', { context: ctx, name, content: `first\n${big}` }),
        nosh.call('import', { context: ctx, name, content: 'second\n', overwrite: true }),
      ]);
      expect([a.success, b.success]).toEqual([true, true]);
      expect(await text('uploads', name)).toBe('second\n');
    }
  }, 120_000);

  it('the output zone is the folder output/ of storage: writes through either are ordered together', async () => {
    for (let round = 0; round < 8; round++) {
      const path = `o${round}.txt`;
      expect((await nosh.call('write', { zone: 'output', context: ctx, path, content: `a\n${big}\n` })).success).toBe(true);
      const rs = await Promise.all([
        nosh.exec({ zone: 'storage', context: ctx, command: `sed -i 1s/a/A/ output/${path}` }),
        nosh.call('edit', { zone: 'output', context: ctx, path, edits: [{ old_text: 'A\n', new_text: 'B\n' }] }),
        nosh.call('write', { zone: 'output', context: ctx, path, content: 'end\n', mode: 'append' }),
      ]);
      expect(rs.map((r) => r.success)).toEqual([true, true, true]);
      const text = await nosh.call('exec', { zone: 'storage', context: ctx, command: `sed -n '1p;$p' output/${path}` });
      expect(text.success && (text.data as { stdout: string }).stdout.slice(0, 40)).toBe('B\nend\n');
    }
  }, 120_000);
});
