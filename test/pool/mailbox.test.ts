import * as fs from 'node:fs';
import * as path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAILBOX_BYTES, Mailbox, newMailbox, receiveReply, sendReply } from '../../src/pool/mailbox.js';
import { WorkerPool } from '../../src/pool/index.js';
import type { TaskRequest } from '../../src/exec/index.js';
import { runTask as executeTask } from '../../src/pool/task.js';
import { defaultPolicy, type ZonePolicy } from '../../src/vfs/index.js';
import { tempDir } from '../helpers.js';

describe('mailbox', () => {
  const { port1, port2 } = new MessageChannel();
  const sab = newMailbox();
  const sender = new Mailbox(sab, port1);
  const receiver = new Mailbox(sab, port2);
  afterAll(() => { port1.close(); port2.close(); });
  const roundTrip = (parts: (string | Uint8Array | undefined)[] | null, whole: unknown = 'by port') => {
    sender.send(() => parts, () => whole);
    return receiver.receive((p) => p);
  };

  it('carries text, bytes and absent parts, in order', () => {
    const bytes = Uint8Array.from([0, 255, 10, 13]);
    const got = roundTrip(['{"a":"é€😀"}', bytes, undefined]) as unknown[];
    expect(got[0]).toBe('{"a":"é€😀"}');
    expect(Buffer.compare(got[1] as Buffer, Buffer.from(bytes))).toBe(0);
    expect(got[2]).toBeUndefined();
    expect(roundTrip(['', new Uint8Array(0)])).toEqual(['', Buffer.alloc(0), undefined]);
  });

  it('gives out copies: writing the box again does not change what was received', () => {
    const first = roundTrip(['x', Buffer.from('first')]) as Buffer[];
    roundTrip(['y', Buffer.from('SECOND')]);
    expect(first[1]!.toString()).toBe('first');
  });

  it('sends by port what does not fit, to the byte (multibyte text measured exactly)', () => {
    const room = MAILBOX_BYTES - 28;
    // 3-byte characters: 3 * length fits only just; one byte more does not.
    const fits = '€'.repeat(Math.floor(room / 3));
    expect((roundTrip([fits]) as string[])[0]).toBe(fits);
    expect(roundTrip([fits + 'xx'], { port: 1 })).toEqual({ port: 1 });
    expect(roundTrip(['a', new Uint8Array(room)], { port: 2 })).toEqual({ port: 2 });
    expect(roundTrip(['a', new Uint8Array(room - 1)])).not.toEqual({ port: 2 });
  });

  it("a tool's text content crosses as its own part, in its place among the fields; lone surrogates as JSON keeps them", () => {
    for (const content of ['line 1\nligne 2 é€😀\n"quoted" \\ back\n', '', 'a\ud800b']) {
      const reply = { ok: true as const, tool: { data: { path: '/a', content, total_lines: 2 }, message: 'ok', changes: [] } };
      sendReply(sender, reply);
      const got = receiveReply(receiver);
      expect(got).toEqual(reply);
      expect(Object.keys((got as typeof reply).tool.data)).toEqual(['path', 'content', 'total_lines']);
    }
  });

  it('sends by port what the boxed form refuses or throws on', () => {
    expect(roundTrip(null, { port: 3 })).toEqual({ port: 3 });
    sender.send(() => { throw new TypeError('Do not know how to serialize a BigInt'); }, () => ({ port: 4 }));
    expect(receiver.receive((p) => p)).toEqual({ port: 4 });
  });
});

describe('tasks across the mailbox', () => {
  let root: string;
  let pool: WorkerPool;
  const limits = { maxOutputBytes: 5_000_000, maxResults: 1000, maxBufferBytes: 100_000_000 };
  /** Frozen with its lists, as the workspace shares policies: the main thread then keeps its text. */
  const frozen = (p: ZonePolicy): ZonePolicy => (Object.freeze(p.blockedPatterns), Object.freeze(p));
  const task = (t: Partial<TaskRequest>, policy: ZonePolicy = frozen(defaultPolicy())): TaskRequest =>
    ({ root, policy, cwd: '/', stages: [], limits, ...t });
  const stdout = (r: Awaited<ReturnType<WorkerPool['run']>>) => r.ok && r.result ? Buffer.from(r.result.stdout) : Buffer.from(JSON.stringify(r));

  beforeAll(() => {
    root = tempDir();
    fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\nbeta\n');
    pool = new WorkerPool({ threads: 1, memoryMb: 128 });
  });
  afterAll(async () => {
    await pool.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('stdin and stdout larger than the box arrive whole (by port), and small ones after them', async () => {
    const big = Buffer.alloc(MAILBOX_BYTES + 4096, 'xyz\n');
    expect(stdout(await pool.run(task({ stages: [{ argv: ['wc', '-c'] }], stdin: big }), 30_000)).toString()).toBe(`${big.length}\n`);
    expect(Buffer.compare(stdout(await pool.run(task({ stages: [{ argv: ['cat'] }], stdin: big }), 30_000)), big)).toBe(0);
    expect(stdout(await pool.run(task({ stages: [{ argv: ['cat', 'a.txt'] }] }), 30_000)).toString()).toBe('alpha\nbeta\n');
    const bin = Buffer.from([0, 1, 2, 255, 254, 10]);
    expect(Buffer.compare(stdout(await pool.run(task({ stages: [{ argv: ['cat'] }], stdin: bin }), 30_000)), bin)).toBe(0);
  });

  it('a quota counter reaches the worker the first time by port, then by number: both writes are counted', async () => {
    // bytes at index 0 (as a quota counts them: a 5-byte file takes a block), files at index 1
    const sab = new SharedArrayBuffer(16);
    const quota = { sab, index: 0, limit: 1_000_000, maxFiles: 100, name: 'test' };
    for (const [i, name] of ['q1.txt', 'q2.txt'].entries()) {
      const r = await pool.run(task({ quota, tool: { name: 'write', args: { path: name, content: '12345' } } }), 30_000);
      expect(r.ok).toBe(true);
      const st = fs.statSync(path.join(root, name));
      expect(Number(new BigInt64Array(sab)[0])).toBe(Math.max(5, st.blocks * 512) * (i + 1));
      expect(Number(new BigInt64Array(sab)[1])).toBe(i + 1);
    }
    const full = { sab: new SharedArrayBuffer(16), index: 0, limit: 3, maxFiles: 100, name: 'small' };
    const r = await pool.run(task({ quota: full, tool: { name: 'write', args: { path: 'q3.txt', content: '12345' } } }), 30_000);
    expect(r.ok ? 'written' : r.error.code).toBe('QUOTA_EXCEEDED');
  });

  it('a policy that is not frozen is sent afresh each time: a change to it takes effect', async () => {
    const policy = defaultPolicy();
    const write = task({ tool: { name: 'write', args: { path: 'p.txt', content: 'x' } } }, policy);
    expect((await pool.run(write, 30_000)).ok).toBe(true);
    policy.readonly = true;
    const r = await pool.run(write, 30_000);
    expect(r.ok ? 'written' : r.error.code).toBe('ZONE_READONLY');
  });

  it('a frozen policy whose pattern list is not frozen is sent afresh too', async () => {
    const patterns: string[] = [];
    const policy = Object.freeze(defaultPolicy({ blockedPatterns: patterns }));
    const read = task({ tool: { name: 'read', args: { path: 'a.txt' } } }, policy);
    expect((await pool.run(read, 30_000)).ok).toBe(true);
    patterns.push('a.txt');
    const r = await pool.run(read, 30_000);
    expect(r.ok ? 'read' : r.error.code).toBe('BLOCKED_PATH');
  });

  it('two frozen policies with different rules never share a worker-side policy', async () => {
    const open = frozen(defaultPolicy());
    const blocked = frozen(defaultPolicy({ blockedPatterns: ['a.txt'] }));
    for (let i = 0; i < 3; i++) {
      expect(stdout(await pool.run(task({ stages: [{ argv: ['cat', 'a.txt'] }] }, open), 30_000)).toString()).toBe('alpha\nbeta\n');
      const r = await pool.run(task({ tool: { name: 'read', args: { path: 'a.txt' } } }, blocked), 30_000);
      expect(r.ok ? 'read' : r.error.code).toBe('BLOCKED_PATH');
    }
  });

  it('replies through the pool equal the same tasks run in this thread', async () => {
    const tasks = [
      task({ stages: [{ argv: ['ls', '-la'] }] }),
      task({ stages: [{ argv: ['cat', 'missing'] }] }),
      task({ stages: [{ argv: ['grep', '-n', 'a', 'a.txt'] }, { argv: ['wc', '-l'] }] }),
      // Cut output: truncated and the full byte count cross in the compact reply.
      task({ stages: [{ argv: ['cat', 'a.txt'] }], limits: { ...limits, maxOutputBytes: 4 } }),
      // A change: the reply goes as JSON with its changes.
      task({ stages: [{ argv: ['touch', '-d', '2020-01-01', 'a.txt'] }] }),
      task({ tool: { name: 'read', args: { path: 'a.txt', line_numbers: true } } }),
      task({ tool: { name: 'stat', args: { path: 'a.txt' } } }),
      task({ tool: { name: 'list', args: { path: '/' } } }),
      task({ tool: { name: 'read', args: { path: 'nope.txt' } } }),
    ];
    for (const t of tasks) {
      const here = await executeTask(structuredClone(t));
      const there = await pool.run(t, 30_000);
      // JSON leaves out undefined fields; so does the comparison.
      expect(normal(there)).toEqual(normal(here));
    }
  });
});

function normal(r: unknown): unknown {
  return JSON.parse(JSON.stringify(r, (_k, v: unknown) => v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v));
}
