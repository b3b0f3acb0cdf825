import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempDir } from '../helpers.js';

// The audit log of `nosh serve` and `nosh mcp`: the file in the base, written as calls end.
const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const SECRET = 'SECRET-MARKER-b81d44';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });
function dir(prefix: string): string {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
}

function auditLines(base: string): Record<string, unknown>[] {
  return fs.readFileSync(path.join(base, 'audit.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** Send JSON-RPC requests to `nosh serve` one by one; the replies in order. */
async function serve(args: string[], requests: { method: string; params: unknown }[]): Promise<any[]> {
  const proc = spawn(process.execPath, [MAIN, 'serve', ...args], { stdio: 'pipe' });
  proc.stdout.setEncoding('utf8');
  let buf = '';
  const replies: any[] = [];
  let wake: (() => void) | undefined;
  proc.stdout.on('data', (d: string) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      replies.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
      wake?.();
    }
  });
  for (const [id, r] of requests.entries()) {
    proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, ...r }) + '\n');
    while (replies.length <= id) await new Promise<void>((res) => { wake = res; });
  }
  const exited = new Promise((r) => proc.on('exit', r));
  proc.stdin.end();
  await exited;
  return replies;
}

describe('audit log over the transports', () => {
  it('JSON-RPC (nosh serve --base B): refusals and changes land in B/audit.log, without contents or host paths', async () => {
    const base = dir('nosh-audit-rpc-');
    const replies = await serve(['--base', base, '--user', 'alice'], [
      { method: 'write', params: { path: 'a.txt', content: `${SECRET}\n` } },
      { method: 'exec', params: { command: 'tee b.txt', stdin: SECRET } },
      { method: 'exec', params: { command: 'cat .env' } },
      { method: 'read', params: { path: '.env' } },
      { method: 'exec', params: { command: 'cat a.txt && rm a.txt' } },
      { method: 'exec', params: { command: 'cat a.txt' } },
    ]);
    expect(replies.map((r) => r.result?.success ?? r.error?.code)).toEqual([true, true, true, false, false, true]);
    const log = auditLines(base);
    expect(log.map((e) => [e.event, e.method, e.result, e.user])).toEqual([
      ['change', 'write', 'ok', 'alice'],
      ['change', 'exec', 'ok', 'alice'],
      ['refused', 'exec', 'BLOCKED_PATH', 'alice'],
      ['refused', 'read', 'BLOCKED_PATH', 'alice'],
      ['refused', 'exec', 'METACHAR_REJECTED', 'alice'],
    ]);
    expect(log[4]).toMatchObject({ command: 'cat a.txt && rm a.txt', zone: 'storage' });
    const text = fs.readFileSync(path.join(base, 'audit.log'), 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(base);
  }, 60_000);

  it('MCP (nosh mcp --base B): a refused tool call is logged', async () => {
    const base = dir('nosh-audit-mcp-');
    const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, 'mcp', '--base', base, '--user', 'alice'], stderr: 'pipe' });
    const client = new Client({ name: 'nosh-audit-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const w = await client.callTool({ name: 'write', arguments: { path: 'n.txt', content: SECRET } });
      const r = await client.callTool({ name: 'exec', arguments: { command: 'ls $(cat n.txt)' } });
      expect([!!w.isError, !!r.isError]).toEqual([false, true]);
    } finally {
      await client.close();
    }
    const log = auditLines(base);
    expect(log.map((e) => [e.event, e.method, e.result, e.user, e.zone])).toEqual([
      ['change', 'write', 'ok', 'alice', 'storage'],
      ['refused', 'exec', 'METACHAR_REJECTED', 'alice', 'storage'],
    ]);
    const text = fs.readFileSync(path.join(base, 'audit.log'), 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(base);
  }, 60_000);
});
