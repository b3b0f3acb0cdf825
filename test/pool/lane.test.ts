import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { counterMovedWithin, laneFlags, REPLIES, Watch, whenCounterMoves } from '../../src/pool/lane.js';
import { WorkerPool } from '../../src/pool/index.js';
import { defaultPolicy } from '../../src/vfs/index.js';
import { tempDir } from '../helpers.js';

/**
 * A thread that first sends a bare notify (what a late notify for the previous reply looks
 * like), then, a little later, raises the counter and notifies: a waiter must not take the
 * first wake-up for a reply.
 */
function lateNotifyThenReply(flags: SharedArrayBuffer): Worker {
  return new Worker(`
    const { workerData } = require('node:worker_threads');
    const f = new Int32Array(workerData);
    const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    pause(20);
    Atomics.notify(f, ${REPLIES});
    pause(40);
    Atomics.add(f, ${REPLIES}, 1);
    Atomics.notify(f, ${REPLIES});
  `, { eval: true, workerData: flags });
}

describe('lane counters', () => {
  it('a blocking wait ignores a wake-up whose counter did not move', async () => {
    const sab = laneFlags();
    const flags = new Int32Array(sab);
    const w = lateNotifyThenReply(sab);
    await new Promise((r) => w.once('online', r));
    expect(counterMovedWithin(flags, REPLIES, 0, 10_000)).toBe(true);
    expect(Atomics.load(flags, REPLIES)).toBe(1);
    await w.terminate();
  });

  it('an asynchronous wait ignores a wake-up whose counter did not move', async () => {
    const sab = laneFlags();
    const flags = new Int32Array(sab);
    const seen: number[] = [];
    const moved = new Promise<void>((resolve) => whenCounterMoves(flags, REPLIES, 0, () => { seen.push(Atomics.load(flags, REPLIES)); resolve(); }));
    const keepAlive = setTimeout(() => {}, 10_000);
    const w = lateNotifyThenReply(sab);
    await moved;
    clearTimeout(keepAlive);
    expect(seen).toEqual([1]);
    await w.terminate();
  });

  it('a blocking wait gives up after its time when nothing moves', () => {
    const flags = new Int32Array(laneFlags());
    expect(counterMovedWithin(flags, REPLIES, 0, 5)).toBe(false);
  });
});

describe('Watch: watching a counter only while it pays', () => {
  it('sees a counter that moved, and reports one that never moves', () => {
    const flags = new Int32Array(laneFlags());
    const watch = new Watch(20);
    expect(watch.moved(flags, REPLIES, 0)).toBe(false);
    Atomics.add(flags, REPLIES, 1);
    expect(watch.moved(flags, REPLIES, 0)).toBe(true);
  });

  it('stops after misses, then looks again once every 8 waits', () => {
    const flags = new Int32Array(laneFlags());
    const watch = new Watch(5);
    for (let i = 0; i < 2; i++) expect(watch.moved(flags, REPLIES, 0)).toBe(false); // two misses: it stops
    Atomics.add(flags, REPLIES, 1);
    const seen = Array.from({ length: 8 }, () => watch.moved(flags, REPLIES, 0));
    expect(seen.slice(0, 7).every((m) => m === false)).toBe(true);
    expect(seen[7]).toBe(true);
    expect(watch.moved(flags, REPLIES, 0)).toBe(true); // and keeps watching while it pays
  });

  it('a watch of 0 never watches', () => {
    const flags = new Int32Array(laneFlags());
    Atomics.add(flags, REPLIES, 1);
    expect(new Watch(0).moved(flags, REPLIES, 0)).toBe(false);
  });
});

describe('the pool over lanes', () => {
  it('one thread, thousands of jobs at once: every one answered, in order of arrival', async () => {
    const root = tempDir();
    const pool = new WorkerPool({ threads: 1, memoryMb: 128 });
    try {
      const limits = { maxOutputBytes: 1_000_000, maxResults: 1000, maxBufferBytes: 100_000_000 };
      const order: number[] = [];
      const runs = Array.from({ length: 3000 }, (_, i) =>
        pool.run({ root, policy: defaultPolicy(), cwd: '/', stages: [{ argv: ['echo', String(i)] }], limits }, 60_000)
          .then((r) => { order.push(i); return r.ok && r.result ? Buffer.from(r.result.stdout).toString() : JSON.stringify(r); }));
      const out = await Promise.all(runs);
      expect(out.every((s, i) => s === `${i}\n`)).toBe(true);
      expect(order).toEqual(order.slice().sort((a, b) => a - b));
    } finally {
      await pool.close();
    }
  });
});
