// Issue 17 §6 over real pipes: ids come back exactly as sent (digits JSON numbers lose in a
// double), and a line nested deeper than nosh parses is refused before parsing, so the
// request after it is answered at once. `nosh serve` and `nosh mcp` both.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

/** A spawned server: raw lines in, raw answer lines out. */
class Raw {
  readonly proc: ChildProcessWithoutNullStreams;
  private buf = '';
  private readonly lines: string[] = [];
  private waiter: (() => void) | null = null;

  constructor(mode: 'serve' | 'mcp', root: string) {
    this.proc = spawn(process.execPath, [bin, mode, '--root', root], { stdio: 'pipe' });
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (d: string) => {
      this.buf += d;
      for (let i = this.buf.indexOf('\n'); i >= 0; i = this.buf.indexOf('\n')) {
        this.lines.push(this.buf.slice(0, i));
        this.buf = this.buf.slice(i + 1);
      }
      this.waiter?.();
    });
  }

  write(text: string): void {
    this.proc.stdin.write(text + '\n');
  }

  /** The next answer line, as text. */
  async next(): Promise<string> {
    while (this.lines.length === 0) await new Promise<void>((r) => { this.waiter = r; });
    this.waiter = null;
    return this.lines.shift()!;
  }

  async close(): Promise<void> {
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.stdin.end();
    await exited;
  }
}

let root: string;
beforeAll(() => {
  root = tempDir('nosh-protocol-');
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const DEEP = '['.repeat(16 * 1024 * 1024 - 16);

describe('nosh serve: ids', () => {
  let s: Raw;
  beforeAll(() => { s = new Raw('serve', root); });
  afterAll(async () => { await s.close(); });

  it('a number id past 2^53 comes back with every digit', async () => {
    s.write('{"jsonrpc":"2.0","id":9007199254740993,"method":"exec","params":{"command":"cat a.txt"}}');
    const line = await s.next();
    expect(line.startsWith('{"jsonrpc":"2.0","id":9007199254740993,')).toBe(true);
    expect(line).toContain('alpha');
  });

  it('ids written as 1.0, -0, 1E2 and 12345678901234567890123 come back as written, in a batch too', async () => {
    s.write('[{"jsonrpc":"2.0","id":1.0,"method":"exec","params":{"command":"true"}}, {"jsonrpc":"2.0", "id" : 1E2 ,"method":"nope"},'
      + '{"jsonrpc":"2.0","method":"exec","params":{"command":"true","id":5},"id":12345678901234567890123},{"id":-0,"jsonrpc":"2.0"}]');
    const line = await s.next();
    expect(line).toContain('{"jsonrpc":"2.0","id":1.0,"result":');
    expect(line).toContain('{"jsonrpc":"2.0","id":1E2,"error":{"code":-32601');
    // the params' own "id" (refused as an unknown key) is not taken for the request's
    expect(line).toContain('{"jsonrpc":"2.0","id":12345678901234567890123,"error":{"code":-32602');
    expect(line).toContain('{"jsonrpc":"2.0","id":-0,"error":{"code":-32600');
  });

  it('an error for a single request keeps the id too; string ids are untouched', async () => {
    s.write('{"jsonrpc":"2.0","id":9007199254740995,"method":"nope"}');
    expect(await s.next()).toMatch(/^\{"jsonrpc":"2\.0","id":9007199254740995,"error":\{"code":-32601/);
    s.write('{"jsonrpc":"2.0","id":"9007199254740993","method":"exec","params":{"command":"true"}}');
    expect(await s.next()).toMatch(/^\{"jsonrpc":"2\.0","id":"9007199254740993","result"/);
  });
});

describe('nosh serve: nesting', () => {
  let s: Raw;
  beforeAll(() => { s = new Raw('serve', root); });
  afterAll(async () => { await s.close(); });

  it('a 16 MB line of [ is refused as too deep, and the next request is answered', async () => {
    s.write(DEEP);
    s.write('{"jsonrpc":"2.0","id":2,"method":"exec","params":{"command":"cat a.txt"}}');
    const first = JSON.parse(await s.next());
    expect(first).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/nest/), data: { max_depth: 1000 } } });
    const second = JSON.parse(await s.next());
    expect(second).toMatchObject({ id: 2, result: { success: true, data: { stdout: 'alpha\n' } } });
  }, 60_000);

  it('nesting up to the bound is parsed; inside strings brackets do not count', async () => {
    const ok = `{"jsonrpc":"2.0","id":3,"method":"exec","params":{"command":"true","x":${'['.repeat(990)}${']'.repeat(990)},"s":"${'['.repeat(5000)}"}}`;
    s.write(ok);
    const r = JSON.parse(await s.next());
    // the unknown parameter x makes it invalid params, which shows it was parsed
    expect(r.id).toBe(3);
    expect(r.error?.code).toBe(-32602);
  });
});

describe('nosh mcp: malformed lines are answered', () => {
  let s: Raw;
  beforeAll(() => { s = new Raw('mcp', root); });
  afterAll(async () => { await s.close(); });

  it('a line that is not JSON: -32700; not a JSON-RPC message: -32600 with its id; then the session works', async () => {
    s.write('this is not json');
    expect(JSON.parse(await s.next())).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    s.write('{"jsonrpc":"2.0","id":7,"params":{}}');
    expect(JSON.parse(await s.next())).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600 } });
    s.write('[1,2]');
    expect(JSON.parse(await s.next())).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    s.write('"just a string"');
    expect(JSON.parse(await s.next())).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    s.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }));
    expect(JSON.parse(await s.next())).toMatchObject({ id: 1, result: { serverInfo: { name: 'nosh' } } });
  }, 30_000);

  it('a 16 MB line of [ is refused as too deep, and the next request is answered', async () => {
    s.write(DEEP);
    s.write(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'read', arguments: { path: 'a.txt' } } }));
    expect(JSON.parse(await s.next())).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/nest/) } });
    const r = JSON.parse(await s.next());
    expect(r.id).toBe(8);
    expect(r.result.structuredContent).toMatchObject({ success: true, data: { content: 'alpha\n' } });
  }, 60_000);
});
