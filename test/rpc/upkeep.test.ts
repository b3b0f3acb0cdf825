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
  fs.writeFileSync(path.join(dir, 'nosh.json'), JSON.stringify({ base, companion: {}, sessionTtlSeconds: 2, sessionSweepSeconds: 1 }));
  child = spawn(process.execPath, [bin, 'serve', '--config', path.join(dir, 'nosh.json')], { stdio: ['pipe', 'pipe', 'inherit'] });
  createInterface({ input: child.stdout! }).on('line', (l) => {
    const m = JSON.parse(l);
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
});
