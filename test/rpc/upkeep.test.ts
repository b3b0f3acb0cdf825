import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

// nosh serve with a companion identity and the session sweep on a one-second timer.
const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
let dir: string;
let base: string;
let child: ReturnType<typeof spawn>;
const pending = new Map<number, (m: any) => void>();
const notes: any[] = [];
let nextId = 1;

function call(method: string, params: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
}

beforeAll(() => {
  dir = tempDir('nosh-upkeep-');
  base = path.join(dir, 'ws');
  const tree = path.join(base, 'companion', 'Storage', 'tree');
  for (let d = 0; d < 10; d++) {
    fs.mkdirSync(path.join(tree, `d${d}`), { recursive: true });
    for (let f = 0; f < 50; f++) fs.writeFileSync(path.join(tree, `d${d}`, `f${f}`), 'x\n');
  }
  fs.writeFileSync(path.join(dir, 'nosh.json'), JSON.stringify({ base, companion: {}, sessionTtlSeconds: 2, sessionSweepSeconds: 1 }));
  child = spawn(process.execPath, [bin, 'serve', '--config', path.join(dir, 'nosh.json')], { stdio: ['pipe', 'pipe', 'inherit'] });
  createInterface({ input: child.stdout! }).on('line', (l) => {
    const m = JSON.parse(l);
    if (m.id === undefined) notes.push(m);
    pending.get(m.id)?.(m);
    pending.delete(m.id);
  });
});
afterAll(async () => {
  child.stdin!.end();
  await new Promise((r) => child.once('exit', r));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('nosh serve: companion scope and the TTL sweep', () => {
  it('a call with no user runs as the companion, under companion/', async () => {
    const w = await call('write', { path: 'hello.txt', content: 'hi' });
    expect(w.result.success).toBe(true);
    expect(fs.readFileSync(path.join(base, 'companion', 'Storage', 'hello.txt'), 'utf8')).toBe('hi');
    const o = await call('exec', { command: 'cat hello.txt', zone: 'storage' });
    expect(o.result.data.stdout).toBe('hi');
  });

  it('an unused session is removed by the timer, with no maintenance call', async () => {
    const w = await call('write', { zone: 'session:tmp1', path: 'f.txt', content: 'x' });
    expect(w.result.success).toBe(true);
    const listed = await call('list_workspaces', {});
    expect(listed.result.data.workspaces.map((x: any) => x.id)).toEqual(['tmp1']);
    const root = path.join(base, 'sessions', 'tmp1');
    const past = Date.now() / 1000 - 60;
    fs.utimesSync(root, past, past);
    const deadline = Date.now() + 30_000;
    while (fs.existsSync(root) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(fs.existsSync(root)).toBe(false);
    expect((await call('list_workspaces', {})).result.data.workspaces).toEqual([]);
  }, 40_000);

  it('a call with _meta.progressToken past a second gets $/progress notifications with the files done', async () => {
    const r = await call('exec', { command: 'find tree -type f | sleep 2', _meta: { progressToken: 'tok-1' } });
    expect(r.result.success).toBe(true);
    const mine = notes.filter((n) => n.method === '$/progress' && n.params.token === 'tok-1');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.at(-1).params.value.files).toBeGreaterThanOrEqual(510);
    const before = notes.length;
    expect((await call('exec', { command: 'ls', _meta: { progressToken: 'tok-2' } })).result.success).toBe(true);
    expect(notes.length).toBe(before);
  });

  it('$/progress carries the total where it is known: an unzip\'s entries', async () => {
    expect((await call('exec', { command: 'zip -qr t.zip tree', timeout_ms: 120_000 })).result.success).toBe(true);
    const r = await call('exec', { command: 'unzip -qo t.zip -d out | sleep 1.5', timeout_ms: 120_000, _meta: { progressToken: 'tok-3' } });
    expect(r.result.data.exit_code).toBe(0);
    const mine = notes.filter((n) => n.method === '$/progress' && n.params.token === 'tok-3');
    expect(mine.length).toBeGreaterThan(0);
    // tree/, its 10 folders and 500 files; the last report is the end state
    expect(mine.at(-1).params.value).toEqual({ files: 511, bytes: 0, total: 511 });
  }, 150_000);
});
