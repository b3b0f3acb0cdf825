import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/rpc/lines.js';
import { serveRpc } from '../../src/rpc/server.js';
import type { Nosh } from '../../src/index.js';

function split(chunks: (string | Buffer)[], max = 1024): { lines: string[]; oversize: number } {
  const lines: string[] = [];
  let oversize = 0;
  const s = new LineSplitter(max, (l) => lines.push(l), () => oversize++);
  for (const c of chunks) s.push(typeof c === 'string' ? Buffer.from(c) : c);
  s.end();
  return { lines, oversize };
}

describe('LineSplitter', () => {
  it('splits lines inside one chunk and across chunks, dropping blank lines and a CR before LF', () => {
    expect(split(['a\nb\r\n\n  \nc']).lines).toEqual(['a', 'b', 'c']);
    expect(split(['{"a":', '1}\n{"b"', ':2}\r', '\n']).lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(split(['x', '', 'y\n', '\n', 'z']).lines).toEqual(['xy', 'z']);
  });

  it('decodes a UTF-8 character cut between chunks', () => {
    const b = Buffer.from('é€\n');
    expect(split([b.subarray(0, 1), b.subarray(1, 3), b.subarray(3)]).lines).toEqual(['é€']);
  });

  it('reports an over-long line once, skips it to its newline, and goes on', () => {
    const long = 'x'.repeat(100);
    expect(split([`ok\n${long.slice(0, 60)}`, `${long.slice(60)}${long}`, '\nnext\n'], 50)).toEqual({ lines: ['ok', 'next'], oversize: 1 });
    expect(split([`${long}\n${long}\nlast`], 50)).toEqual({ lines: ['last'], oversize: 2 });
    // exactly at the cap is accepted
    expect(split(['y'.repeat(50) + '\n'], 50).lines).toEqual(['y'.repeat(50)]);
  });
});

/** A Nosh whose calls wait for the test to finish them. */
function fakeNosh() {
  const calls: { method: string; params: unknown; signal?: AbortSignal; finish: (v: unknown) => void }[] = [];
  const nosh = {
    config: {} as Nosh['config'],
    exec: async () => { throw new Error('unused'); },
    call: (method: string, params: unknown, o?: { signal?: AbortSignal }) => new Promise((resolve) => {
      calls.push({ method, params, signal: o?.signal, finish: (data) => resolve({ success: true, data, message: 'ok' }) });
      o?.signal?.addEventListener('abort', () => resolve({ success: false, error: { code: 'CANCELLED', message: 'cancelled', details: {}, hint: '' } }));
    }),
    methods: () => [{ name: 'read' }, { name: 'exec' }],
    close: async () => {},
  } as unknown as Nosh;
  return { nosh, calls };
}

function pipes() {
  const input = new PassThrough();
  const output = new PassThrough();
  const out: unknown[] = [];
  let buf = '';
  output.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      out.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
  });
  return { input, output, out };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('serveRpc over in-memory streams', () => {
  it('validates the request object as JSON-RPC 2.0 does', async () => {
    const { nosh } = fakeNosh();
    const { input, output, out } = pipes();
    const done = serveRpc(nosh, input, output);
    for (const m of [
      { jsonrpc: '2.0', id: { a: 1 }, method: 'read' },
      { jsonrpc: '2.0', id: 7, method: 5 },
      { jsonrpc: '2.0', id: 8, method: 'read', params: 'x' },
      { jsonrpc: '2.0', id: 9, method: 'read', params: null },
      { id: 10, method: 'read' },
      'just a string',
      null,
    ]) input.write(JSON.stringify(m) + '\n');
    input.end();
    await done;
    expect(out.map((r) => [(r as { id: unknown }).id, (r as { error: { code: number } }).error.code])).toEqual([
      [null, -32600], [7, -32600], [8, -32600], [9, -32600], [10, -32600], [null, -32600], [null, -32600],
    ]);
  });

  it('an id JSON cannot carry back (1e999 parses as Infinity) is an invalid request, never answered as id null', async () => {
    const { nosh, calls } = fakeNosh();
    const { input, output, out } = pipes();
    const done = serveRpc(nosh, input, output);
    input.write('{"jsonrpc":"2.0","id":1e999,"method":"read","params":{"path":"a"}}\n');
    input.write('{"jsonrpc":"2.0","id":-1e999,"method":"read","params":{"path":"a"}}\n');
    input.end();
    await done;
    expect(calls).toHaveLength(0);
    expect(out).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } },
    ]);
  });

  it('answers as calls finish, cancels by id (number or string), and waits for running calls at EOF', async () => {
    const { nosh, calls } = fakeNosh();
    const { input, output, out } = pipes();
    const done = serveRpc(nosh, input, output);
    input.write('{"jsonrpc":"2.0","id":1,"method":"read","params":{"path":"a"}}\n{"jsonrpc":"2.0","id":"1","method":"read"}\n');
    await tick();
    expect(calls.map((c) => c.params)).toEqual([{ path: 'a' }, {}]);
    calls[1]!.finish('second');
    await tick();
    expect(out).toEqual([{ jsonrpc: '2.0', id: '1', result: { success: true, data: 'second', message: 'ok' } }]);
    input.write('{"jsonrpc":"2.0","id":2,"method":"read"}\n');
    await tick();
    input.write('{"jsonrpc":"2.0","id":"c","method":"$/cancelRequest","params":{"id":2}}\n');
    await tick();
    expect(calls[2]!.signal!.aborted).toBe(true);
    expect(calls[0]!.signal!.aborted).toBe(false);
    input.end();
    let finished = false;
    void done.then(() => { finished = true; });
    await tick();
    expect(finished).toBe(false); // call 1 still runs
    calls[0]!.finish('first');
    await done;
    expect(out.slice(1)).toEqual([
      { jsonrpc: '2.0', id: 'c', result: { cancelled: true } },
      { jsonrpc: '2.0', id: 2, result: { success: false, error: { code: 'CANCELLED', message: 'cancelled', details: {}, hint: '' } } },
      { jsonrpc: '2.0', id: 1, result: { success: true, data: 'first', message: 'ok' } },
    ]);
  });

  it('EOF: a last line without its newline is served', async () => {
    const { nosh, calls } = fakeNosh();
    const { input, output, out } = pipes();
    const done = serveRpc(nosh, input, output);
    input.end('{"jsonrpc":"2.0","id":1,"method":"read"}');
    await tick();
    calls[0]!.finish('ok');
    await done;
    expect(out).toEqual([{ jsonrpc: '2.0', id: 1, result: { success: true, data: 'ok', message: 'ok' } }]);
  });

  it('a destroyed input (SIGTERM) stops reading, drops a partial line, and lets running calls answer', async () => {
    const { nosh, calls } = fakeNosh();
    const { input, output, out } = pipes();
    const done = serveRpc(nosh, input, output);
    input.write('{"jsonrpc":"2.0","id":1,"method":"read"}\n{"jsonrpc":"2.0","id":2,"meth');
    await tick();
    input.destroy();
    await tick();
    calls[0]!.finish('ok');
    await done;
    expect(out).toEqual([{ jsonrpc: '2.0', id: 1, result: { success: true, data: 'ok', message: 'ok' } }]);
  });
});
