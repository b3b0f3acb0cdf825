import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempDir } from '../helpers.js';

const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
let root: string;
let client: Client;

beforeAll(async () => {
  root = tempDir('nosh-mcp-progress-');
  for (let d = 0; d < 10; d++) {
    fs.mkdirSync(path.join(root, `d${d}`));
    for (let f = 0; f < 50; f++) fs.writeFileSync(path.join(root, `d${d}`, `f${f}.txt`), 'line\n');
  }
  fs.writeFileSync(path.join(root, 'c.yaml'), 'a: [1, 2]\n');
  client = new Client({ name: 'nosh-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [MAIN, 'mcp', '--root', root], stderr: 'pipe' }));
}, 30_000);
afterAll(async () => {
  await client?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('nosh mcp: progress, yaml, sessions', () => {
  it('notifications/progress carry the files done of a call past a second', async () => {
    const seen: { progress: number; message?: string }[] = [];
    const r = await client.callTool({ name: 'exec', arguments: { command: 'grep -rl line . | sleep 2' } }, undefined, { onprogress: (p) => seen.push(p) });
    expect(r.isError).toBeFalsy();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)!.message).toMatch(/exec: \d+ files, \d+ bytes/);
    expect(Number(/(\d+) files/.exec(seen.at(-1)!.message!)![1])).toBeGreaterThanOrEqual(510);
  });

  it('notifications/progress carry a total where it is known (an unzip\'s entries), and only ever grow', async () => {
    const z = await client.callTool({ name: 'exec', arguments: { command: 'zip -qr t.zip d0 d1 d2 d3 d4 d5 d6 d7 d8 d9', timeout_ms: 120_000 } }, undefined, { timeout: 150_000 });
    expect(z.isError).toBeFalsy();
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const r = await client.callTool({ name: 'exec', arguments: { command: 'unzip -qo t.zip -d out | sleep 1.5', timeout_ms: 120_000 } }, undefined,
      { onprogress: (p) => seen.push(p), timeout: 150_000 });
    expect(r.isError).toBeFalsy();
    expect(seen.length).toBeGreaterThan(0);
    const last = seen.at(-1)!;
    expect(last.total).toBeDefined();
    expect(last.progress).toBe(last.total);
    expect(last.message).toBe('exec: 510/510 files, 0 bytes'); // 10 folders and their 500 files
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
  }, 150_000);

  it('read parse yaml and list_workspaces are tools', async () => {
    const y = await client.callTool({ name: 'read', arguments: { path: 'c.yaml', parse: 'yaml' } });
    expect((y.structuredContent as any).data.parsed).toEqual({ a: [1, 2] });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_workspaces', 'delete_workspace']));
  });
});
