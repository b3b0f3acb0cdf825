import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

// Drives the compiled `nosh serve` over real pipes, as a client process would.
const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

class Client {
  readonly proc: ChildProcessWithoutNullStreams;
  private buf = '';
  private waiters: ((msg: unknown) => void)[] = [];
  private inbox: unknown[] = [];
  exited: Promise<number | null>;

  constructor(root: string, extra: string[] = []) {
    this.proc = spawn(process.execPath, [bin, 'serve', '--root', root, ...extra], { stdio: 'pipe' });
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (d: string) => {
      this.buf += d;
      for (let i = this.buf.indexOf('\n'); i >= 0; i = this.buf.indexOf('\n')) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        const msg = JSON.parse(line);
        const w = this.waiters.shift();
        if (w) w(msg);
        else this.inbox.push(msg);
      }
    });
    this.exited = new Promise((r) => this.proc.on('exit', (code) => r(code)));
  }

  send(msg: unknown): void {
    this.proc.stdin.write((typeof msg === 'string' ? msg : JSON.stringify(msg)) + '\n');
  }

  next(): Promise<any> {
    const m = this.inbox.shift();
    if (m !== undefined) return Promise.resolve(m);
    return new Promise((r) => this.waiters.push(r));
  }

  async request(method: string, params: unknown, id: number | string = Math.random()): Promise<any> {
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.next();
  }
}

let root: string;
let client: Client;

beforeAll(() => {
  root = tempDir();
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\nbeta\ngamma\n');
  fs.writeFileSync(path.join(root, 'big.txt'), 'abcdefgh\n'.repeat(3_000_000));
  client = new Client(root);
});
afterAll(async () => {
  client.proc.stdin.end();
  await client.exited;
  fs.rmSync(root, { recursive: true, force: true });
});

describe('nosh serve (JSON-RPC 2.0 over stdio)', () => {
  it('answers exec with the envelope', async () => {
    const r = await client.request('exec', { command: 'cat a.txt' }, 1);
    expect(r).toEqual({ jsonrpc: '2.0', id: 1, result: { success: true, message: 'ok', data: { exit_code: 0, stdout: 'alpha\nbeta\ngamma\n', stderr: '', truncated: false, stdout_bytes: 17 } } });
  });

  it('answers read, and lists its methods with JSON schemas', async () => {
    const r = await client.request('read', { path: 'a.txt', offset: 2, limit: 1 }, 'r1');
    expect(r.id).toBe('r1');
    expect(r.result.data).toMatchObject({ content: 'beta\n', start_line: 2, end_line: 2, total_lines: 3 });
    const m = await client.request('methods', {}, 'm');
    const names = m.result.map((x: { name: string }) => x.name);
    expect(names).toContain('exec');
    expect(names).toContain('read');
    const exec = m.result.find((x: { name: string }) => x.name === 'exec');
    expect(exec.params.type).toBe('object');
    expect(Object.keys(exec.params.properties)).toContain('command');
  });

  it('tool failures are envelopes, protocol faults are JSON-RPC errors', async () => {
    const missing = await client.request('read', { path: 'nope.txt' }, 2);
    expect(missing.result.success).toBe(false);
    expect(missing.result.error.code).toBe('FILE_NOT_FOUND');
    client.send('{not json');
    expect((await client.next()).error.code).toBe(-32700);
    client.send({ jsonrpc: '1.0', id: 3, method: 'exec' });
    expect(await client.next()).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(await client.request('nope', {}, 4)).toMatchObject({ id: 4, error: { code: -32601 } });
    expect(await client.request('exec', { command: 7 }, 5)).toMatchObject({ id: 5, error: { code: -32602 } });
    expect(await client.request('exec', ['cat'], 6)).toMatchObject({ id: 6, error: { code: -32602 } });
    expect(await client.request('read', { path: 'a.txt', zone: 5 }, 7)).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(await client.request('read', { path: 'a.txt', cwd: ['/'] }, 8)).toMatchObject({ id: 8, error: { code: -32602 } });
    client.send('[]');
    expect((await client.next()).error.code).toBe(-32600);
  });

  it('answers a batch with an array, leaving out notifications', async () => {
    client.send([
      { jsonrpc: '2.0', id: 'b1', method: 'exec', params: { command: 'cat a.txt' } },
      { jsonrpc: '2.0', method: 'exec', params: { command: 'true' } },
      { jsonrpc: '2.0', id: 'b2', method: 'nope' },
      42,
    ]);
    const r = await client.next();
    expect(Array.isArray(r)).toBe(true);
    expect(r).toHaveLength(3);
    expect(r.find((x: { id: string }) => x.id === 'b1').result.success).toBe(true);
    expect(r.find((x: { id: string }) => x.id === 'b2').error.code).toBe(-32601);
    expect(r.find((x: { id: null }) => x.id === null).error.code).toBe(-32600);
  });

  it('answers 200 concurrent requests, each id exactly once', async () => {
    const n = 200;
    for (let i = 0; i < n; i++) client.send({ jsonrpc: '2.0', id: `c${i}`, method: 'exec', params: { command: i % 2 ? 'cat a.txt' : 'pwd' } });
    const seen = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const r = await client.next();
      seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
      expect(r.result.success).toBe(true);
      const idx = Number(String(r.id).slice(1));
      expect(r.result.data.stdout).toBe(idx % 2 ? 'alpha\nbeta\ngamma\n' : '/\n');
    }
    expect(seen.size).toBe(n);
    expect([...seen.values()].every((v) => v === 1)).toBe(true);
  });

  it('a cancel stops a long task', async () => {
    const t0 = Date.now();
    client.send({ jsonrpc: '2.0', id: 'long', method: 'exec', params: { command: 'cat -A big.txt', stdout_file: 'out.txt', timeout_ms: 120000 } });
    await new Promise((r) => setTimeout(r, 150));
    client.send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 'long' } });
    const r = await client.next();
    expect(r.id).toBe('long');
    expect(r.result.success).toBe(false);
    expect(r.result.error.code).toBe('CANCELLED');
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(fs.existsSync(path.join(root, 'out.txt'))).toBe(false);
  });

  it('an edit that would grow without bound is refused, and the server keeps answering', async () => {
    fs.writeFileSync(path.join(root, 'grow.txt'), 'abc\n');
    const edits = Array.from({ length: 200 }, () => ({ old_text: 'a', new_text: 'aa', replace_all: true }));
    const r = await client.request('edit', { path: 'grow.txt', edits }, 'grow');
    expect(r.result.success).toBe(false);
    expect(r.result.error.code).toBe('FILE_TOO_LARGE');
    expect(fs.readFileSync(path.join(root, 'grow.txt'), 'utf8')).toBe('abc\n');
    const after = await client.request('exec', { command: 'pwd' }, 'after-grow');
    expect(after.result.data.stdout).toBe('/\n');
  }, 120_000);

  it('refuses a 50 MB line and keeps answering', async () => {
    const huge = '{"jsonrpc":"2.0","id":"huge","method":"exec","params":{"command":"' + 'x'.repeat(50 * 1024 * 1024) + '"}}';
    client.send(huge);
    const r = await client.next();
    expect(r.error.code).toBe(-32600);
    expect(r.error.message).toMatch(/too large/);
    const after = await client.request('exec', { command: 'pwd' }, 'after');
    expect(after.result.data.stdout).toBe('/\n');
  });
});

describe('start-up (the method registry is loaded lazily)', () => {
  it('a fresh server answers read, an unknown method and methods as its first requests', async () => {
    for (const [method, params, check] of [
      ['read', { path: 'a.txt' }, (r: any) => expect(r.result.data.content).toBe('alpha\nbeta\ngamma\n')],
      ['nope', {}, (r: any) => expect(r.error.code).toBe(-32601)],
      ['methods', {}, (r: any) => expect(r.result.map((m: { name: string }) => m.name)).toContain('read')],
    ] as const) {
      const c = new Client(root);
      check(await c.request(method, params, 1));
      c.proc.stdin.end();
      expect(await c.exited).toBe(0);
    }
  });

  it('a read-only --role does not serve write methods, first request or not', async () => {
    const c = new Client(root, ['--role', 'critic']);
    expect(await c.request('write', { path: 'w.txt', content: 'x' }, 1)).toMatchObject({ error: { code: -32601 } });
    expect((await c.request('exec', { command: 'pwd' }, 2)).result.success).toBe(true);
    expect(await c.request('write', { path: 'w.txt', content: 'x' }, 3)).toMatchObject({ error: { code: -32601 } });
    c.proc.stdin.end();
    expect(await c.exited).toBe(0);
    expect(fs.existsSync(path.join(root, 'w.txt'))).toBe(false);
  });
});

describe('shutdown', () => {
  it('on EOF, running calls finish and answer before the server exits', async () => {
    const c = new Client(root);
    c.send({ jsonrpc: '2.0', id: 'w', method: 'exec', params: { command: 'cat a.txt', stdout_file: 'copy.txt' } });
    c.proc.stdin.end();
    const r = await c.next();
    expect(r.result.success).toBe(true);
    expect(await c.exited).toBe(0);
    expect(fs.readFileSync(path.join(root, 'copy.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
  });

  it('on SIGTERM, stops reading but a running write finishes and answers', async () => {
    const c = new Client(root);
    expect((await c.request('exec', { command: 'pwd' }, 1)).result.success).toBe(true);
    c.send({ jsonrpc: '2.0', id: 'w', method: 'exec', params: { command: 'cat -A big.txt', stdout_file: 'term.txt', timeout_ms: 120000 } });
    await new Promise((r) => setTimeout(r, 150));
    c.proc.kill('SIGTERM');
    const r = await c.next();
    expect(r.id).toBe('w');
    expect(r.result.success).toBe(true);
    expect(await c.exited).toBe(0);
    expect(fs.statSync(path.join(root, 'term.txt')).size).toBe(3_000_000 * 10);
  });

  it('a client that stops reading (EPIPE) ends the server quietly', async () => {
    const c = new Client(root);
    expect((await c.request('exec', { command: 'pwd' }, 1)).result.success).toBe(true);
    let stderr = '';
    c.proc.stderr.on('data', (d) => { stderr += d; });
    c.proc.stdin.on('error', () => { /* the server may be gone before the last writes */ });
    c.proc.stdout.destroy();
    for (let i = 0; i < 20; i++) c.send({ jsonrpc: '2.0', id: i, method: 'exec', params: { command: 'cat a.txt' } });
    expect(await c.exited).toBe(0);
    expect(stderr).toBe('');
  });

  it('on SIGTERM, exits cleanly', async () => {
    const c = new Client(root);
    expect((await c.request('exec', { command: 'pwd' }, 1)).result.success).toBe(true);
    c.proc.kill('SIGTERM');
    expect(await c.exited).toBe(0);
  });
});
