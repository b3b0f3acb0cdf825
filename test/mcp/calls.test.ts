// tools/call as `nosh mcp` answers it without the SDK (src/mcp/server.ts FastCalls): progress
// notifications while a call runs, a cancelled call stopped (its worker freed) and not
// answered, and a call of another shape still answered by the SDK.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempDir } from '../helpers.js';

const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

let dir: string;
let client: Client;

beforeAll(async () => {
  dir = tempDir('nosh-mcp-calls-');
  fs.mkdirSync(path.join(dir, 'root'));
  fs.writeFileSync(path.join(dir, 'root', 'notes.txt'), 'alpha\n');
  // one worker: a call that was not stopped would hold it
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ root: path.join(dir, 'root'), threads: 1 }));
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, 'mcp', '--config', path.join(dir, 'config.json')], stderr: 'pipe' });
  client = new Client({ name: 'nosh-test', version: '1.0.0' });
  await client.connect(transport);
}, 30_000);

afterAll(async () => {
  await client?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('nosh mcp tool calls', () => {
  it('sends progress notifications to a client that asked for them', async () => {
    const ticks: number[] = [];
    const r = await client.callTool({ name: 'exec', arguments: { command: 'sleep 2.5' } }, undefined, { onprogress: (p) => ticks.push(p.progress) });
    expect(r.isError).toBe(false);
    // the first notification comes after a second with what was done so far: sleep reads no file
    expect(ticks.length).toBeGreaterThanOrEqual(1);
    expect(ticks[0]).toBe(0);
  }, 30_000);

  it('stops a cancelled call: the one worker is free for the next call', async () => {
    const abort = new AbortController();
    const slow = client.callTool({ name: 'exec', arguments: { command: 'sleep 60' } }, undefined, { signal: abort.signal, timeout: 120_000 });
    await new Promise((r) => setTimeout(r, 500));
    abort.abort('changed my mind');
    await expect(slow).rejects.toThrow();
    const r = await client.callTool({ name: 'exec', arguments: { command: 'cat notes.txt' } }, undefined, { timeout: 20_000 });
    expect(r.structuredContent).toMatchObject({ success: true, data: { stdout: 'alpha\n' } });
  }, 60_000);

  it('answers a call of another shape (other _meta keys) through the SDK, as before', async () => {
    const r = await client.callTool({ name: 'read', arguments: { path: 'notes.txt' }, _meta: { other: 1 } } as never);
    expect(r.structuredContent).toMatchObject({ success: true });
  }, 30_000);
});
