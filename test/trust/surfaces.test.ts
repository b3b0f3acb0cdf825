// Two surfaces from one registry: what a model may be offered (MCP tools, `nosh schemas`) never
// has `context`, `import` or `maintenance`; the runtime's (library, trusted JSON-RPC) has them.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { MAIN, startMcp } from './transports.js';

let base: string;
let nosh: Nosh;
beforeAll(async () => {
  base = tempDir('nosh-surfaces-');
  nosh = await createNosh({ base });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});

const RUNTIME_ONLY = ['import', 'maintenance'];

describe('the model surface', () => {
  it('the MCP tool list has no context, import or maintenance', async () => {
    const mcp = await startMcp(['--base', base]);
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.length).toBeGreaterThan(15);
      for (const t of tools) {
        expect(RUNTIME_ONLY).not.toContain(t.name);
        expect(JSON.stringify(t.inputSchema), t.name).not.toMatch(/"context"/);
      }
    } finally {
      await mcp.close();
    }
  }, 30_000);

  for (const format of ['openai', 'anthropic', 'jsonschema']) {
    it(`nosh schemas --format ${format} has no context, import or maintenance`, () => {
      const r = spawnSync(process.execPath, [MAIN, 'schemas', '--format', format], { encoding: 'utf8' });
      expect(r.status).toBe(0);
      const out = JSON.parse(r.stdout) as unknown[];
      const names = out.map((t: any) => t.name ?? t.function.name);
      expect(names).toContain('exec');
      for (const n of RUNTIME_ONLY) expect(names).not.toContain(n);
      expect(r.stdout).not.toMatch(/"context"/);
    });
  }
});

describe('the runtime surface', () => {
  it('the library lists every method, with context', () => {
    const names = nosh.methods().map((m) => m.name);
    for (const n of RUNTIME_ONLY) expect(names).toContain(n);
    for (const m of nosh.methods()) expect(Object.keys(m.input.shape), m.name).toContain('context');
    const model = nosh.methods(undefined, 'model');
    expect(model.map((m) => m.name).sort()).toEqual(names.filter((n) => !RUNTIME_ONLY.includes(n)).sort());
    for (const m of model) expect(Object.keys(m.input.shape), m.name).not.toContain('context');
  });

  it('a library call may still name its context and call import', async () => {
    const r = await nosh.call('import', { context: { user: 'u1', conversation: 'c' }, name: 'f.txt', content: 'x' });
    expect(r.success).toBe(true);
    expect(fs.readFileSync(path.join(base, 'users', 'u1', 'Uploads', 'c', 'f.txt'), 'utf8')).toBe('x');
  });
});
