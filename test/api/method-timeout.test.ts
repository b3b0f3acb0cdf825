// Issue 18 §5: one method model. Every method takes timeout_ms (a typed tool's run is bounded by
// it as exec's is), its maximum comes from the one Limits table, and every listing shows it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
/** The largest timeout_ms (src/limits.ts), written out so that the test does not derive it from the code it checks. */
const MAX_TIMEOUT = 300_000;

let root: string;
let nosh: Nosh;
beforeAll(async () => {
  root = tempDir('nosh-method-timeout-');
  for (let d = 0; d < 20; d++) {
    fs.mkdirSync(path.join(root, 'tree', `d${d}`), { recursive: true });
    for (let f = 0; f < 200; f++) fs.writeFileSync(path.join(root, 'tree', `d${d}`, `f${f}.txt`), 'needle\n');
  }
  nosh = await createNosh({ root, threads: 1 });
  // the worker is up, its tools loaded (exists would answer in the main thread: src/api/inline.ts)
  await nosh.call('search', { pattern: 'needle', path: 'tree/d0/f0.txt' });
}, 60_000);
afterAll(async () => {
  await nosh?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('timeout_ms on typed tools', () => {
  it('a slow tool call given 1 ms is stopped with TIMEOUT, as exec is', async () => {
    const find = await nosh.call('find', { path: 'tree', pattern: '*.txt', timeout_ms: 1 }) as any;
    expect(find.success).toBe(false);
    expect(find.error.code).toBe('TIMEOUT');
    expect(find.error.details.timeout_ms).toBe(1);
    const tree = await nosh.call('tree', { path: 'tree', timeout_ms: 1 }) as any;
    expect(tree.success).toBe(false);
    expect(tree.error.code).toBe('TIMEOUT');
    const exec = await nosh.exec({ command: 'find tree -name "*.txt"' }, { timeoutMs: 1 }) as any;
    expect(exec.error.code).toBe('TIMEOUT');
  }, 60_000);

  it('the same calls with room finish', async () => {
    const find = await nosh.call('find', { path: 'tree', pattern: '*.txt', timeout_ms: MAX_TIMEOUT }) as any;
    expect(find.success).toBe(true);
    const read = await nosh.call('read', { path: 'tree/d0/f0.txt', timeout_ms: 5000 }) as any;
    expect(read.success).toBe(true);
    const stats = await nosh.call('help', { timeout_ms: 5000 }) as any;
    expect(stats.success).toBe(true);
  }, 60_000);

  it('a timeout_ms above the maximum is INVALID_ARGUMENT naming timeout_ms, for every method', async () => {
    const names = nosh.methods().map((m) => m.name);
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) {
      const res = await nosh.call(name, { timeout_ms: MAX_TIMEOUT + 1 }) as any;
      expect(res.success, name).toBe(false);
      expect(res.error.code, name).toBe('INVALID_ARGUMENT');
      expect(res.error.details.issues.map((i: { path: string }) => i.path), name).toContain('timeout_ms');
    }
    const lib = await nosh.exec({ command: 'true' }, { timeoutMs: MAX_TIMEOUT + 1 }) as any;
    expect(lib.error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('every listing shows timeout_ms for every method', () => {
  it('the library, both surfaces', () => {
    for (const surface of ['runtime', 'model'] as const) {
      for (const m of nosh.methods(undefined, surface)) expect(Object.keys(m.input.shape), `${surface} ${m.name}`).toContain('timeout_ms');
    }
  });

  it('nosh schemas (jsonschema, and openai strict)', () => {
    for (const args of [['schemas'], ['schemas', '--format', 'openai', '--strict']]) {
      const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8' });
      expect(r.status).toBe(0);
      const tools = JSON.parse(r.stdout) as any[];
      expect(tools.length).toBeGreaterThan(20);
      for (const t of tools) {
        const schema = t.input_schema ?? t.function.parameters;
        expect(Object.keys(schema.properties), t.name ?? t.function.name).toContain('timeout_ms');
      }
    }
  });

  it('the MCP tool list', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, 'mcp', '--root', root], stderr: 'pipe' });
    const client = new Client({ name: 'nosh-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(20);
      for (const t of tools) expect(Object.keys(t.inputSchema.properties ?? {}), t.name).toContain('timeout_ms');
      const r = await client.callTool({ name: 'find', arguments: { path: 'tree', pattern: '*.txt', timeout_ms: 1 } });
      expect((r.structuredContent as any).error.code).toBe('TIMEOUT');
    } finally {
      await client.close();
    }
  }, 30_000);
});
