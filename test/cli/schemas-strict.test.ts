// `nosh schemas --format openai|openai-responses --strict`: OpenAI strict function calling, and
// the calls that come back from it (every key present, null for an optional one) round-trip.
// The validator (src/cli/openai-strict.ts) is written from OpenAI's Structured Outputs guide
// ("Supported schemas") and the function calling guide ("Strict mode"): the root is an object
// and not anyOf (R1); every object has additionalProperties: false (R2); every property is in
// required, optional ones as a union with null (R3); only the supported types and composition
// (anyOf, $ref; no allOf/not/oneOf/if) (R4); only the supported constraint keywords, none of
// minLength/maxLength/default/... (R5), and none at all for fine-tuned models (R6); size limits (R7).
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolSchemas } from '../../src/cli/schemas.js';
import { strictViolations } from '../../src/cli/openai-strict.js';
import { nullsAsAbsent } from '../../src/api/strict.js';
import { ExecParams } from '../../src/api/params-schema.js';
import { createNosh, listMethods, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const modelMethods = () => listMethods(undefined, 'model');

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [bin, 'schemas', ...args], { encoding: 'utf8' });
  if (r.error || r.signal) throw new Error(`nosh schemas ${args.join(' ')}: ${r.error?.message ?? r.signal}\n${r.stderr}`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const GOOD = {
  type: 'object',
  properties: { location: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['F', 'C', null] } },
  required: ['location', 'unit'],
  additionalProperties: false,
};

describe('the strict-mode validator', () => {
  it('accepts a schema written as OpenAI documents it', () => {
    expect(strictViolations(GOOD)).toEqual([]);
    expect(strictViolations(GOOD, { portable: true })).toEqual([]);
  });

  it('rejects minLength, a property missing from required, a missing additionalProperties: false', () => {
    const minLength = structuredClone(GOOD) as any;
    minLength.properties.location.minLength = 1;
    expect(strictViolations(minLength).join('\n')).toMatch(/'minLength' is not supported/);
    const missing = structuredClone(GOOD) as any;
    missing.required = ['location'];
    expect(strictViolations(missing).join('\n')).toMatch(/unit: not listed in required/);
    const open = structuredClone(GOOD) as any;
    delete open.additionalProperties;
    expect(strictViolations(open).join('\n')).toMatch(/additionalProperties must be false/);
    const nestedOpen = structuredClone(GOOD) as any;
    nestedOpen.properties.where = { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] };
    nestedOpen.required.push('where');
    expect(strictViolations(nestedOpen)).toEqual(['parameters.where: additionalProperties must be false (R2)']);
  });

  it('rejects allOf, default, a root anyOf, and constraints for fine-tuned models', () => {
    const allOf = structuredClone(GOOD) as any;
    allOf.properties.location = { allOf: [{ type: 'string' }] };
    expect(strictViolations(allOf).join('\n')).toMatch(/'allOf' is not supported .*R4/);
    const withDefault = structuredClone(GOOD) as any;
    withDefault.properties.location.default = 'Paris';
    expect(strictViolations(withDefault).join('\n')).toMatch(/'default' is not supported/);
    expect(strictViolations({ anyOf: [GOOD] }).join('\n')).toMatch(/root must/);
    const max = structuredClone(GOOD) as any;
    max.properties.n = { type: 'integer', maximum: 10 };
    max.required.push('n');
    expect(strictViolations(max)).toEqual([]);
    expect(strictViolations(max, { portable: true }).join('\n')).toMatch(/'maximum' is not supported by fine-tuned/);
  });

  it('the registry\'s plain schemas are not strict (the validator finds what --strict fixes)', () => {
    const plain = toolSchemas('openai') as any[];
    const read = plain.find((t) => t.function.name === 'read');
    expect(read.function.strict).toBe(false);
    const v = strictViolations(read.function.parameters).join('\n');
    expect(v).toMatch(/offset: not listed in required/);
    expect(strictViolations(plain.find((t) => t.function.name === 'edit').function.parameters).join('\n')).toMatch(/'minLength' is not supported/);
  });
});

describe('nosh schemas --strict', () => {
  it('chat completions: every tool is strict and passes the validator (also the fine-tuned subset)', () => {
    const r = cli(['--format', 'openai', '--strict', '--compact']);
    expect(r.code).toBe(0);
    const tools = JSON.parse(r.stdout);
    expect(tools.map((t: any) => t.function.name)).toEqual(modelMethods().map((m) => m.name));
    for (const t of tools) {
      expect(Object.keys(t)).toEqual(['type', 'function']);
      expect(t.type).toBe('function');
      expect(t.function.strict).toBe(true);
      expect(Object.keys(t.function)).toEqual(['name', 'description', 'parameters', 'strict']);
      expect(strictViolations(t.function.parameters, { portable: true }), t.function.name).toEqual([]);
    }
    const read = tools.find((t: any) => t.function.name === 'read').function.parameters;
    expect(read.properties.path.type).toBe('string');
    expect(read.properties.offset.type).toEqual(['integer', 'null']);
    expect(read.properties.context).toBeUndefined(); // the model's surface
    expect(tools.some((t: any) => ['import', 'maintenance'].includes(t.function.name))).toBe(false);
  });

  it('responses API: {type, name, description, parameters, strict} at the top level', () => {
    const r = cli(['--format', 'openai-responses', '--strict', '--compact']);
    expect(r.code).toBe(0);
    const tools = JSON.parse(r.stdout);
    expect(tools.map((t: any) => t.name)).toEqual(modelMethods().map((m) => m.name));
    for (const t of tools) {
      expect(Object.keys(t)).toEqual(['type', 'name', 'description', 'parameters', 'strict']);
      expect(t.strict).toBe(true);
      expect(strictViolations(t.parameters, { portable: true }), t.name).toEqual([]);
    }
    // without --strict the Responses API would make the schema strict on its own: we say false
    expect(JSON.parse(cli(['--format', 'openai-responses', '--compact']).stdout)[0].strict).toBe(false);
  });

  it('--strict with a format that has no strict mode is a usage error', () => {
    const r = cli(['--format', 'anthropic', '--strict']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--strict .* openai/);
  });
});

describe('anthropic: stable bytes for cache_control', () => {
  it('two runs print the same bytes, tools in registry order whatever --methods order', () => {
    const a = cli(['--format', 'anthropic']);
    const b = cli(['--format', 'anthropic']);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    const tools = JSON.parse(a.stdout);
    expect(tools.map((t: any) => t.name)).toEqual(modelMethods().map((m) => m.name));
    expect(Object.keys(tools[0].input_schema).slice(0, 2)).toEqual(['type', 'properties']);
    expect(cli(['--format', 'anthropic', '--methods', 'write,read']).stdout).toBe(cli(['--format', 'anthropic', '--methods', 'read,write']).stdout);
    const cached = JSON.parse(cli(['--format', 'anthropic', '--cache-control']).stdout);
    expect(cached.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(cached.slice(0, -1).every((t: any) => t.cache_control === undefined)).toBe(true);
  });
});

describe('strict-mode calls round-trip', () => {
  let nosh: Nosh;
  let root: string;
  beforeAll(async () => {
    root = tempDir();
    for (const f of ['a.txt', 'b.txt', 'del.txt', 'mv.txt', 'rn.txt', 'cp.txt', 'lk.txt']) fs.writeFileSync(path.join(root, f), 'hello\nworld\n');
    nosh = await createNosh({ root, threads: 1 });
  });
  afterAll(async () => {
    await nosh.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  // a real value for what each method needs; everything else is null, as a strict model sends it
  const NEEDED: Record<string, Record<string, unknown>> = {
    exec: { command: 'cat a.txt' },
    read: { path: 'a.txt' },
    read_many: { paths: ['a.txt', 'b.txt'] },
    write: { path: 'new.txt', content: 'x\n' },
    edit: { path: 'b.txt', edits: [{ old_text: 'hello', new_text: 'bye', replace_all: null }, { insert_after_line: 0, text: 'top' }] },
    delete: { path: 'del.txt' },
    move: { from: 'mv.txt', to: 'mv2.txt' },
    rename: { from: 'rn.txt', to: 'rn2.txt' },
    copy: { from: 'cp.txt', to: 'cp2.txt' },
    mkdir: { path: 'dir' },
    exists: { path: 'a.txt' },
    stat: { path: 'a.txt' },
    search: { pattern: 'hello' },
    check_access: { path: 'a.txt' },
    zip: { path: 'z.zip', paths: ['a.txt'] },
    unzip: { path: 'z.zip', destination: 'uz' },
    zipinfo: { path: 'z.zip' },
    hexdump: { path: 'a.txt' },
    convert_eol: { path: 'cp.txt', to: 'crlf' },
    transfer: { from: 'storage', to: 'documents', path: 'a.txt' },
    diff_versions: { path: 'a.txt', from: 'HEAD' },
    restore: { path: 'a.txt', version: 'HEAD' },
    sqlite: { path: 'q.db', sql: 'select 1' },
    import_csv: { path: 'q.db', table: 't', csv_path: 'a.txt' },
    group_info: { group: 'team' },
    group_set_mode: { group: 'team', path: 'a.txt', mode: 'group' },
    group_chown: { group: 'team', path: 'a.txt', owner: 'bob' },
    lockedit_open: { path: 'lk.txt' },
    lockedit_exec: { path: 'lk.txt', command: 'cat lk.txt' },
    lockedit_overwrite: { path: 'lk.txt', content: 'x\n' },
    lockedit_save: { path: 'lk.txt' },
    lockedit_cancel: { path: 'lk.txt' },
    force_unlock: { path: 'lk.txt' },
    delete_workspace: { session: 'never-used' },
    link_create: { path: 'no-such-file.txt' },
    link_delete: { id: 'no-such-link' },
    save_result_page: { title: 'T', content: 'x'.repeat(500 * 1024 + 1) }, // over resultPageMaxKb: nothing written
  };

  // the group tools need a group zone, the lock methods after lockedit_open a lock, the link methods a file, a link,
  // a report under the size cap: past validation is the point
  const PAST_VALIDATION = new Set(['transfer', 'history', 'diff_versions', 'restore', 'undo', 'group_info', 'group_set_mode', 'group_chown',
    'lockedit_exec', 'lockedit_overwrite', 'lockedit_save', 'lockedit_cancel', 'force_unlock', 'delete_workspace', 'link_create', 'link_delete', 'save_result_page']);

  it('every method takes its strict-form arguments with nulls for the optional ones', async () => {
    const tools = toolSchemas('openai', modelMethods(), { strict: true }) as any[];
    const failures: string[] = [];
    for (const t of tools) {
      const { name, parameters } = t.function;
      const args: Record<string, unknown> = {};
      for (const key of parameters.required) args[key] = NEEDED[name]?.[key] ?? null;
      // what the model sends: every key present, null where no value
      expect(Object.keys(args)).toEqual(Object.keys(parameters.properties));
      const r = await nosh.call(name, args) as any;
      // transfer needs zones, the version methods a versioned zone (and undo a conversation), which a
      // bare root does not have: they get past validation, which is the point
      const invalid = !r.success && r.error.code === 'INVALID_ARGUMENT' && /Invalid input|Unrecognized key|Too (small|big)/.test(r.error.message);
      if (!r.success && (!PAST_VALIDATION.has(name) || invalid)) failures.push(`${name}: ${r.error.code} ${r.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('top\nbye\nworld\n');
    expect(fs.existsSync(path.join(root, 'new.txt'))).toBe(true);
    expect(fs.readFileSync(path.join(root, 'uz/a.txt'), 'utf8')).toBe('hello\nworld\n');
  }, 60_000);

  it('a null for a required argument is still refused', async () => {
    for (const [method, args] of [['read', { path: null }], ['edit', { path: 'a.txt', edits: [{ old_text: null, new_text: 'x' }] }],
      ['search', { pattern: null, path: null }]] as const) {
      const r = await nosh.call(method, args) as any;
      expect(r.success, method).toBe(false);
      expect(r.error.code).toBe('INVALID_ARGUMENT');
    }
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('hello\nworld\n');
  });

  it('nullsAsAbsent drops only optional nulls and does not change its input', () => {
    const input = { command: 'ls', cmd: null, args: null, stdin: null, zone: null };
    expect(nullsAsAbsent(ExecParams, input)).toEqual({ command: 'ls' });
    expect(input.cmd).toBeNull();
    expect(nullsAsAbsent(ExecParams, { cmd: null, extra: null })).toEqual({ extra: null }); // not in the schema: kept (and refused)
    const read = listMethods().find((m) => m.name === 'read')!.input;
    expect(nullsAsAbsent(read, { path: null, offset: null })).toEqual({ path: null });
  });
});

describe('strict-mode calls through nosh serve', () => {
  it('a model connection takes nulls for optional arguments, not for required ones', async () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, 'a.txt'), 'one\ntwo\n');
    const child = spawn(process.execPath, [bin, 'serve', '--root', root], { stdio: ['pipe', 'pipe', 'inherit'] });
    const replies = new Map<number, (m: any) => void>();
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = JSON.parse(l);
      replies.get(m.id)?.(m);
    });
    let id = 0;
    const call = (method: string, params: unknown) => new Promise<any>((resolve) => {
      replies.set(++id, resolve);
      child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
    try {
      const read = await call('read', { path: 'a.txt', offset: 2, limit: null, line_numbers: null, max_bytes: null, encoding: null, head: null,
        tail: null, byte_offset: null, byte_length: null, parse: null, zone: null, cwd: null });
      expect(JSON.stringify(read)).toContain('two');
      expect(JSON.stringify(read)).not.toContain('INVALID_ARGUMENT');
      const exec = await call('exec', { command: 'cat a.txt', cmd: null, args: null, stdin: null, timeout_ms: null, max_output_bytes: null, stdout_file: null, zone: null, cwd: null });
      expect(JSON.stringify(exec)).toContain('one\\ntwo\\n');
      const bad = await call('read', { path: null, zone: null });
      expect(JSON.stringify(bad)).toContain('INVALID_ARGUMENT');
    } finally {
      child.stdin!.end();
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 30_000);
});
