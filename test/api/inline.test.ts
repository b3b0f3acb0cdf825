// Typed reads answered in the main thread (src/api/inline.ts, issue #27 goal 2): they do not
// go to a worker, they answer exactly what a worker answers (the security checks included:
// blocked names, symlinks out of the zone, `..`, not-a-folder, suggestions), and a call past
// the inline budget, or with a time limit under a second, runs in a worker. Through the
// library (where the worker pool's run is watched) and through `nosh mcp` (FastCalls).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createNosh, type Nosh } from '../../src/index.js';
import { WorkerPool } from '../../src/pool/index.js';
import { INLINE_BYTES, INLINE_ENTRIES, INLINE_MIN_TIMEOUT_MS } from '../../src/api/inline.js';
import { OverInlineBudget, addProgress, withInlineBudget } from '../../src/runtime/progress.js';
import { tempDir } from '../helpers.js';

const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

let dir: string;
let root: string;
let nosh: Nosh;
let client: Client;

beforeAll(async () => {
  dir = tempDir('nosh-inline-');
  root = path.join(dir, 'root');
  // the calls' folder; the folder and file past the budgets are beside it, out of its walks
  const w = path.join(root, 'w');
  fs.mkdirSync(path.join(w, 'src', 'sub'), { recursive: true });
  fs.writeFileSync(path.join(w, 'notes.txt'), 'alpha\nbeta\ngamma');
  fs.writeFileSync(path.join(w, 'src', 'a.ts'), 'export const a = 1;\n');
  fs.writeFileSync(path.join(w, 'src', 'sub', 'b.ts'), 'export const b = 2;\n');
  fs.writeFileSync(path.join(w, 'my-secret.txt'), 'hidden\n');
  fs.writeFileSync(path.join(w, '.env'), 'KEY=1\n');
  fs.writeFileSync(path.join(dir, 'outside.txt'), 'outside\n');
  fs.symlinkSync(dir, path.join(w, 'up'));
  fs.symlinkSync(path.join(dir, 'outside.txt'), path.join(w, 'out.txt'));
  // past the budgets: more entries than an inline walk may visit, more bytes than it may read
  fs.mkdirSync(path.join(root, 'many'));
  for (let i = 0; i < INLINE_ENTRIES + 10; i++) fs.writeFileSync(path.join(root, 'many', `f${String(i).padStart(5, '0')}.txt`), '');
  fs.writeFileSync(path.join(root, 'big.txt'), 'x'.repeat(99) + '\n'.repeat(1) + 'y\n'.repeat(Math.ceil(INLINE_BYTES / 2)));
  // one worker: a call that needs one waits while `sleep` holds it
  nosh = await createNosh({ root, threads: 1 });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ root, threads: 1 }));
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, 'mcp', '--config', path.join(dir, 'config.json')], stderr: 'pipe' });
  client = new Client({ name: 'nosh-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await nosh?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

type Call = [string, Record<string, unknown>];

/** Calls of every inline tool, plain and refused ones: what each answers must not depend on the thread. */
const CALLS: Call[] = ([
  ['stat', { path: 'notes.txt' }],
  ['stat', { path: 'src' }],
  ['stat', { path: 'nots.txt' }],
  ['stat', { path: 'my-secret.txt' }],
  ['stat', { path: '.env' }],
  ['stat', { path: 'up/outside.txt' }],
  ['stat', { path: 'out.txt' }],
  ['stat', { path: '../../outside.txt' }],
  ['exists', { path: 'up/outside.txt' }],
  ['exists', { path: 'src/a.ts' }],
  ['list', { path: '.' }],
  ['list', { path: '.', hidden: true, recursive: true }],
  ['list', { path: 'up' }],
  ['list', { path: 'notes.txt' }],
  ['tree', { path: '.', hidden: true }],
  ['tree', { path: 'up' }],
  ['find', { path: '.', pattern: '*.ts' }],
  ['find', { path: '.', pattern: '*secret*' }],
  ['find', { path: 'up' }],
  ['read', { path: 'notes.txt' }],
  ['read', { path: 'notes.txt', offset: 2, limit: 1, line_numbers: true }],
  ['read', { path: 'my-secret.txt' }],
  ['read', { path: 'out.txt' }],
  ['read', { path: 'up/outside.txt' }],
  ['read', { path: 'src' }],
] as Call[]).map(([name, args]): Call => [name, { ...args, cwd: '/w' }]);

/** A stat's atime moves when a worker reads the file: left out of the comparison. */
function comparable(env: any): unknown {
  if (env?.success && env.data && typeof env.data === 'object' && 'atime' in env.data) return { ...env, data: { ...env.data, atime: '(any)' } };
  return env;
}

/** Calls of `fn` that reached the worker pool (WorkerPool.run, in this process). */
async function poolRuns<T>(fn: () => Promise<T>): Promise<{ value: T; runs: number }> {
  const spy = vi.spyOn(WorkerPool.prototype, 'run');
  try {
    const value = await fn();
    return { value, runs: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

describe('typed reads in the main thread (library)', () => {
  it('are answered without the worker pool', async () => {
    for (const [name, args] of CALLS) {
      const { value, runs } = await poolRuns(() => nosh.call(name, args));
      expect(runs, `${name} ${JSON.stringify(args)} went to the pool`).toBe(0);
      expect(value).toHaveProperty('success');
    }
  }, 60_000);

  it('answer what a worker answers, refusals included', async () => {
    // the worker has loaded the tools (a worker tool, no time limit) and its lane is running
    await nosh.call('hexdump', { path: 'w/notes.txt' });
    for (const [name, args] of CALLS) {
      const inline = await nosh.call(name, args);
      // a time limit under INLINE_MIN_TIMEOUT_MS sends the call to a worker
      const { value: worker, runs } = await poolRuns(() => nosh.call(name, { ...args, timeout_ms: INLINE_MIN_TIMEOUT_MS - 1 }));
      expect(runs).toBe(1);
      expect(comparable(inline), `${name} ${JSON.stringify(args)}`).toEqual(comparable(worker));
    }
    const refused = await nosh.call('stat', { path: 'up/outside.txt', cwd: '/w' }) as any;
    expect(refused.success).toBe(false);
    const secret = await nosh.call('read', { path: 'my-secret.txt', cwd: '/w' }) as any;
    expect(secret.success).toBe(false);
  }, 60_000);

  it('a call past the budget runs in a worker, and answers in full', async () => {
    const many = await poolRuns(() => nosh.call('list', { path: 'many', limit: 10_000 }) as Promise<any>);
    expect(many.runs).toBe(1);
    expect(many.value.data.total).toBe(INLINE_ENTRIES + 10);
    expect(many.value.data.entries.at(-1).name).toBe(`f${String(INLINE_ENTRIES + 9).padStart(5, '0')}.txt`);
    const big = await poolRuns(() => nosh.call('read', { path: 'big.txt', max_bytes: 4 * INLINE_BYTES }) as Promise<any>);
    expect(big.runs).toBe(1);
    expect(big.value.data.content.length).toBe(fs.statSync(path.join(root, 'big.txt')).size);
  }, 60_000);
});

describe('typed reads in the main thread (nosh mcp)', () => {
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })).structuredContent as any;

  it('answer what a worker answers, refusals included', async () => {
    const inline = [];
    for (const [name, args] of CALLS) inline.push(await call(name, args));
    await call('hexdump', { path: 'w/notes.txt' });
    for (const [i, [name, args]] of CALLS.entries()) {
      const worker = await call(name, { ...args, timeout_ms: INLINE_MIN_TIMEOUT_MS - 1 });
      expect(comparable(inline[i]), `${name} ${JSON.stringify(args)}`).toEqual(comparable(worker));
    }
  }, 60_000);

  it('a list past the budget is answered in full by a worker', async () => {
    const r = await call('list', { path: 'many', limit: 10_000 });
    expect(r.data.total).toBe(INLINE_ENTRIES + 10);
  }, 60_000);
});

describe('withInlineBudget', () => {
  it('reports a budget passed even when the work swallowed the throw', () => {
    const swallowed = withInlineBudget(2, 100, () => {
      try {
        addProgress(3);
      } catch (e) {
        expect(e).toBeInstanceOf(OverInlineBudget);
      }
      return 'done';
    });
    expect(swallowed).toEqual({ over: true });
    expect(withInlineBudget(2, 100, () => { addProgress(2, 100); return 'done'; })).toEqual({ over: false, value: 'done' });
    expect(withInlineBudget(2, 100, () => addProgress(0, 101))).toEqual({ over: true });
    // outside a budget (and outside a worker's task) addProgress counts nothing and never throws
    expect(() => addProgress(1e9, 1e9)).not.toThrow();
  });
});
