import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runSchemas, toolSchemas } from '../../src/cli/schemas.js';
import { listMethods } from '../../src/index.js';
import { TOOLS } from '../../src/tools/index.js';

const TOOL_NAMES = ['read', 'read_many', 'write', 'edit', 'delete', 'move', 'rename', 'copy', 'mkdir', 'exists', 'stat', 'list', 'tree', 'find', 'search', 'check_access'];

function capture(args: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => { out += String(s); return true; });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => { err += String(s); return true; });
  try {
    const code = runSchemas(args);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

/** Every property at every level of an object schema has a description. */
function undescribed(schema: any, where = ''): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries<any>(schema.properties ?? {})) {
    if (!v.description) out.push(`${where}${k}`);
    for (const sub of [v, v.items, ...(v.items?.anyOf ?? []), ...(v.anyOf ?? [])]) {
      if (sub?.type === 'object' && sub.properties) out.push(...undescribed(sub, `${where}${k}.`));
    }
  }
  return out;
}

describe('registry', () => {
  it('has every typed tool, with strict described inputs and consistent annotations', () => {
    const names = listMethods().map((m) => m.name);
    for (const t of TOOL_NAMES) expect(names).toContain(t);
    for (const t of TOOL_NAMES) {
      const def = TOOLS.get(t)!;
      expect(def.description.length).toBeGreaterThan(60);
      expect(def.annotations.readOnlyHint).toBe(!def.mutates);
      if (def.annotations.readOnlyHint) expect(def.annotations.destructiveHint).toBe(false);
    }
    for (const s of toolSchemas('jsonschema') as any[]) {
      if (!TOOL_NAMES.includes(s.name)) continue;
      expect(s.input_schema.additionalProperties, s.name).toBe(false);
      expect(undescribed(s.input_schema), s.name).toEqual([]);
    }
  });
});

describe('nosh schemas', () => {
  it('openai: function tools with parameters', () => {
    const r = capture(['--format', 'openai']);
    expect(r.code).toBe(0);
    const tools = JSON.parse(r.out);
    const read = tools.find((t: any) => t.function.name === 'read');
    expect(read.type).toBe('function');
    expect(read.function.parameters.type).toBe('object');
    expect(read.function.parameters.required).toEqual(['path']);
    expect(read.function.parameters.$schema).toBeUndefined();
    expect(tools.map((t: any) => t.function.name)).toEqual(listMethods(undefined, 'model').map((m) => m.name));
  });

  it('anthropic: name, description, input_schema; optional fields are not required', () => {
    const tools = JSON.parse(capture(['--format', 'anthropic']).out);
    const write = tools.find((t: any) => t.name === 'write');
    expect(Object.keys(write).sort()).toEqual(['description', 'input_schema', 'name']);
    expect(write.input_schema.required).toEqual(['path']);
    expect(write.input_schema.properties.mode.enum).toEqual(['overwrite', 'append', 'create']);
  });

  it('jsonschema (default) carries annotations; --methods and --read-only filter', () => {
    const all = JSON.parse(capture([]).out);
    expect(all.find((t: any) => t.name === 'delete').annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(all[0].input_schema.$schema).toContain('2020-12');
    const two = JSON.parse(capture(['--methods', 'read,edit', '--compact']).out);
    expect(two.map((t: any) => t.name)).toEqual(['read', 'edit']);
    const ro = JSON.parse(capture(['--read-only']).out);
    expect(ro.every((t: any) => t.annotations.readOnlyHint)).toBe(true);
    expect(ro.map((t: any) => t.name)).toContain('search');
    expect(ro.map((t: any) => t.name)).not.toContain('write');
  });

  it('bad format, unknown method, unknown flag: exit 2 with a message', () => {
    expect(capture(['--format', 'xml'])).toMatchObject({ code: 2, err: expect.stringContaining("unknown format 'xml'") });
    expect(capture(['--methods', 'nope'])).toMatchObject({ code: 2, err: expect.stringContaining('unknown method(s) nope') });
    expect(capture(['--bogus']).code).toBe(2);
    expect(capture(['--help'])).toMatchObject({ code: 0, out: expect.stringContaining('--format') });
  });

  it('works from the compiled CLI', () => {
    const out = execFileSync(process.execPath, ['dist/src/cli/main.js', 'schemas', '--format', 'anthropic', '--methods', 'search'], { encoding: 'utf8' });
    expect(JSON.parse(out)[0].name).toBe('search');
  });
});
