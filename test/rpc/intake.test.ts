// How much `nosh serve` takes in at once: past maxInflight messages being answered, or
// maxHeldChars of their text plus answers the client has not read, messages wait and the
// server stops reading (the rest stays in the pipe). Before, a client sending 4 MB writes of
// one file faster than they were done grew the server by their whole size (1.2 GB RSS for
// 1000 of them; a few thousand would pass the main thread's heap limit and abort the host).
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Nosh } from '../../src/index.js';
import { serveRpc, type ServeOptions } from '../../src/rpc/server.js';

/** A Nosh whose calls answer when the test says so. */
function fakeNosh() {
  const calls: { id: unknown; answer: () => void }[] = [];
  const nosh = {
    call: (_method: string, params: Record<string, unknown>) => new Promise((resolve) => {
      calls.push({ id: params.n, answer: () => resolve({ success: true, data: { n: params.n, text: 'a'.repeat(Number(params.answer ?? 0)) }, message: 'ok' }) });
    }),
    methods: () => [{ name: 'read' }],
  } as unknown as Nosh;
  return { nosh, calls };
}

const req = (n: number, pad = 0, answer = 0) => JSON.stringify({ jsonrpc: '2.0', id: n, method: 'read', params: { n, pad: 'p'.repeat(pad), answer } }) + '\n';
const tick = () => new Promise((r) => setTimeout(r, 5));

function start(nosh: Nosh, opts: ServeOptions, output: Writable = new PassThrough()) {
  const input = new PassThrough();
  const answers: number[] = [];
  if (output instanceof PassThrough) output.on('data', (c: Buffer) => { for (const l of c.toString().split('\n')) if (l) answers.push(JSON.parse(l).id); });
  const done = serveRpc(nosh, input, output, opts);
  return { input, answers, done };
}

describe('the server takes in what it can hold', () => {
  it('past maxInflight messages wait in order, reading stops, and it resumes as answers go out', async () => {
    const { nosh, calls } = fakeNosh();
    const { input, answers, done } = start(nosh, { maxInflight: 3, ready: async () => {} });
    input.write(Array.from({ length: 10 }, (_, n) => req(n)).join(''));
    await tick();
    expect(calls.map((c) => c.id)).toEqual([0, 1, 2]);
    expect(input.isPaused()).toBe(true);
    calls[1]!.answer();
    await tick();
    expect(calls.map((c) => c.id)).toEqual([0, 1, 2, 3]);
    for (let i = 0; i < 12 && answers.length < 10; i++) {
      for (const c of calls) c.answer();
      await tick();
    }
    expect(calls.map((c) => c.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(answers.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(input.isPaused()).toBe(false);
    input.end();
    await done;
  });

  it('past maxHeldChars of messages being answered, the next ones wait', async () => {
    const { nosh, calls } = fakeNosh();
    const { input, answers, done } = start(nosh, { maxHeldChars: 2500, ready: async () => {} });
    input.write(Array.from({ length: 6 }, (_, n) => req(n, 1000)).join(''));
    await tick();
    expect(calls.map((c) => c.id)).toEqual([0, 1, 2]); // about 1060 characters each
    calls[0]!.answer();
    await tick();
    expect(calls.map((c) => c.id)).toEqual([0, 1, 2, 3]);
    for (let i = 0; i < 10 && answers.length < 6; i++) {
      for (const c of calls) c.answer();
      await tick();
    }
    expect(answers).toHaveLength(6);
    input.end();
    await done;
  });

  it('answers the client has not read count too: nothing new starts until it reads', async () => {
    const { nosh, calls } = fakeNosh();
    // A client that takes nothing until told: written answers stay in the stream's buffer.
    const pending: (() => void)[] = [];
    const output = new Writable({ highWaterMark: 16, write(_chunk, _enc, cb) { pending.push(cb); } });
    const { input, done } = start(nosh, { maxHeldChars: 2500, ready: async () => {} }, output);
    input.write([0, 1, 2].map((n) => req(n, 0, 1000)).join(''));
    await tick();
    expect(calls).toHaveLength(3);
    for (const c of calls) c.answer(); // 3 answers of about 1 080 characters, unread
    await tick();
    input.write([3, 4, 5].map((n) => req(n)).join(''));
    await tick();
    expect(calls).toHaveLength(3);
    expect(input.isPaused()).toBe(true);
    // The client reads them: the waiting messages start.
    while (pending.length > 0) pending.shift()!();
    await tick();
    expect(calls.map((c) => c.id)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(input.isPaused()).toBe(false);
    for (const c of calls) c.answer();
    input.end();
    for (let i = 0; i < 20 && !(await Promise.race([done.then(() => true), tick().then(() => false)])); i++) while (pending.length > 0) pending.shift()!();
    await done;
  });

  it('at EOF, messages still waiting are answered before serve resolves', async () => {
    const { nosh, calls } = fakeNosh();
    const { input, answers, done } = start(nosh, { maxInflight: 1, ready: async () => {} });
    input.end(Array.from({ length: 5 }, (_, n) => req(n)).join(''));
    let finished = false;
    void done.then(() => { finished = true; });
    for (let k = 0; k < 5; k++) {
      await tick();
      expect(calls).toHaveLength(k + 1);
      expect(finished).toBe(false);
      calls[k]!.answer();
    }
    await done;
    expect(answers).toEqual([0, 1, 2, 3, 4]);
  });

  it('a client gone (EPIPE) while messages wait: they are dropped and serve resolves once the running call ends', async () => {
    const { nosh, calls } = fakeNosh();
    const output = new PassThrough();
    const { input, done } = start(nosh, { maxInflight: 1, ready: async () => {} }, output);
    input.write([0, 1, 2].map((n) => req(n)).join(''));
    await tick();
    expect(calls).toHaveLength(1);
    output.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await tick();
    calls[0]!.answer();
    await done;
    expect(calls).toHaveLength(1);
  });
});
