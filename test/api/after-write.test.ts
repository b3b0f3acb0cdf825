import * as fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createNosh, type WriteEvent } from '../../src/index.js';
import { tempDir } from '../helpers.js';

const base = tempDir('nosh-hook-');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('afterWrite hook (where versioned zones will commit)', () => {
  it('reports each call that changed files, with zone, user and changes; read-only calls report nothing', async () => {
    const events: WriteEvent[] = [];
    const nosh = await createNosh({ base, threads: 1 }, { afterWrite: (e) => { events.push(e); } });
    const ctx = { user: 'alice' };
    await nosh.exec({ zone: 'documents', context: ctx, command: 'mkdir notes' });
    await nosh.call('write', { zone: 'documents', context: ctx, path: 'notes/a.md', content: 'hello\n' });
    await nosh.exec({ zone: 'documents', context: ctx, command: 'cat notes/a.md' });
    await nosh.exec({ zone: 'documents', context: ctx, command: 'rm notes/a.md' });
    await nosh.close();
    expect(events.map((e) => [e.zone, e.versioned, e.user, e.changes.map((c) => `${c.op} ${c.path} ${c.delta}`)])).toEqual([
      ['documents', true, 'alice', ['mkdir /notes 0']],
      ['documents', true, 'alice', ['write /notes/a.md 6']],
      ['documents', true, 'alice', ['delete /notes/a.md -6']],
    ]);
  });

  it('a transfer reports both zones', async () => {
    const events: WriteEvent[] = [];
    const nosh = await createNosh({ base, threads: 1 }, { afterWrite: (e) => { events.push(e); } });
    const ctx = { user: 'bob' };
    await nosh.call('write', { zone: 'storage', context: ctx, path: 'x.txt', content: 'x' });
    events.length = 0;
    const r = await nosh.call('transfer', { context: ctx, from: 'storage', to: 'documents', path: 'x.txt' });
    expect(r.success).toBe(true);
    await nosh.close();
    expect(events.map((e) => e.zone).sort()).toEqual(['documents']);
    expect(events[0]!.changes[0]).toMatchObject({ op: 'write', path: '/x.txt', delta: 1 });
  });

  it('a hook that never ends is bounded by the call timeout, and the zone\'s later writers go on', async () => {
    let calls = 0;
    // The timeout is long enough for the writes themselves on a loaded machine (300 ms was not
    // always: a write that times out never reaches the hook), and the workers are started first.
    const nosh = await createNosh({ base, threads: 2, limits: { timeoutMs: 1500 } }, { afterWrite: () => { calls++; return new Promise(() => {}); } });
    const ctx = { user: 'dave' };
    const warm = () => nosh.exec({ zone: 'storage', context: ctx, command: 'true' }, { timeoutMs: 30_000 });
    expect((await Promise.all([warm(), warm()])).map((r) => r.success)).toEqual([true, true]);
    const first = await nosh.call('write', { zone: 'storage', context: ctx, path: 'h.txt', content: 'one\n' });
    const [second, third] = await Promise.all([
      nosh.call('write', { zone: 'storage', context: ctx, path: 'h.txt', content: 'two\n' }),
      nosh.exec({ zone: 'storage', context: ctx, command: 'touch t.txt' }),
    ]);
    const read = await nosh.call('read', { zone: 'storage', context: ctx, path: 'h.txt' });
    await nosh.close();
    for (const r of [first, second, third]) {
      expect(r.success).toBe(false);
      if (!r.success) expect(r.error.code).toBe('TIMEOUT');
    }
    expect(calls).toBe(3);
    expect(read.success && (read.data as { content: string }).content).toBe('two\n');
  }, 20_000);
});
