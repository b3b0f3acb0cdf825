/**
 * `nosh schemas --format openai|openai-responses|anthropic|jsonschema [--strict]`: the tool definitions for
 * function-calling APIs, generated from the method registry (the same one RPC and MCP serve).
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { listMethods, type MethodInfo } from '../api/methods.js';
import { toStrictSchema } from './openai-strict.js';

const FORMATS = ['openai', 'openai-responses', 'anthropic', 'jsonschema'] as const;
type Format = (typeof FORMATS)[number];

const USAGE = `Usage: nosh schemas [--format openai|openai-responses|anthropic|jsonschema] [--strict] [--cache-control]
                    [--methods a,b,...] [--read-only] [--compact]

Prints the nosh methods as tool definitions for function-calling APIs (JSON on stdout):
  openai            [{type: "function", function: {name, description, parameters, strict}}]  (Chat Completions tools)
  openai-responses  [{type: "function", name, description, parameters, strict}]              (Responses API tools)
  anthropic         [{name, description, input_schema}]                                       (Messages API tools)
  jsonschema        [{name, description, input_schema, annotations}]                          (default; JSON Schema 2020-12)
--strict (openai, openai-responses): OpenAI strict mode, strict: true. Every property is in
  required, an optional one is typed "or null", every object has additionalProperties: false and
  constraint keywords (minLength, maximum, ...) are left out (nosh still checks them). A null the
  model sends for an optional argument means "not given". Without --strict, strict is false.
--cache-control (anthropic): cache_control {type: "ephemeral"} on the last tool. The output is
  byte-for-byte the same on every run (registry order, fixed key order), so the prefix caches.
--methods keeps only the named methods; --read-only keeps the methods that change nothing.
`;

/** JSON Schema of a method's arguments, as a caller sends them (input side: defaults optional). */
export function inputSchemaOf(m: MethodInfo): Record<string, unknown> {
  const schema = z.toJSONSchema(m.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return stable(schema) as Record<string, unknown>;
}

/** Schema keywords in one fixed order (the rest sorted), at every level: the same bytes on every run. */
const KEY_ORDER = ['type', 'description', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items', 'anyOf'];
function stable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stable);
  if (typeof v !== 'object' || v === null) return v;
  const o = v as Record<string, unknown>;
  const rank = (k: string) => (KEY_ORDER.includes(k) ? KEY_ORDER.indexOf(k) : KEY_ORDER.length);
  const keys = Object.keys(o).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    // property names keep the registry's order (declared order), their schemas are ordered
    out[k] = k === 'properties' || k === '$defs'
      ? Object.fromEntries(Object.entries(o[k] as Record<string, unknown>).map(([n, s]) => [n, stable(s)]))
      : k === 'enum' || k === 'const' || k === 'required' ? o[k] : stable(o[k]);
  }
  return out;
}

export interface SchemaOptions {
  /** OpenAI strict mode (openai, openai-responses). */
  strict?: boolean;
  /** Anthropic: cache_control on the last tool. */
  cacheControl?: boolean;
}

/** The tool definitions in one of the formats, in registry order. */
export function toolSchemas(format: Format, methods: MethodInfo[] = listMethods(undefined, 'model'), opts: SchemaOptions = {}): unknown[] {
  const strict = opts.strict === true;
  const tools = methods.map((m) => {
    const schema = inputSchemaOf(m);
    const parameters = strict ? stable(toStrictSchema(schema)) : schema;
    switch (format) {
      case 'openai': return { type: 'function', function: { name: m.name, description: m.description, parameters, strict } };
      case 'openai-responses': return { type: 'function', name: m.name, description: m.description, parameters, strict };
      case 'anthropic': return { name: m.name, description: m.description, input_schema: schema } as Record<string, unknown>;
      case 'jsonschema': return { name: m.name, description: m.description, input_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema }, annotations: m.annotations };
    }
  });
  if (format === 'anthropic' && opts.cacheControl && tools.length > 0) {
    tools[tools.length - 1] = { ...tools[tools.length - 1], cache_control: { type: 'ephemeral' } };
  }
  return tools;
}

export function runSchemas(args: string[]): number {
  let values;
  try {
    ({ values } = parseArgs({
      args, strict: true, allowPositionals: false,
      options: {
        format: { type: 'string', short: 'f' }, methods: { type: 'string' }, 'read-only': { type: 'boolean' },
        compact: { type: 'boolean' }, strict: { type: 'boolean' }, 'cache-control': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    process.stderr.write(`nosh schemas: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const format = (values.format ?? 'jsonschema') as Format;
  if (!FORMATS.includes(format)) {
    process.stderr.write(`nosh schemas: unknown format '${values.format}' (use ${FORMATS.join(', ')})\n`);
    return 2;
  }
  if (values.strict && format !== 'openai' && format !== 'openai-responses') {
    process.stderr.write(`nosh schemas: --strict is OpenAI's strict mode: use it with --format openai or openai-responses\n`);
    return 2;
  }
  if (values['cache-control'] && format !== 'anthropic') {
    process.stderr.write(`nosh schemas: --cache-control is for --format anthropic\n`);
    return 2;
  }
  let methods = listMethods(undefined, 'model');
  if (values.methods !== undefined) {
    const wanted = values.methods.split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = wanted.filter((w) => !methods.some((m) => m.name === w));
    if (unknown.length) {
      process.stderr.write(`nosh schemas: unknown method(s) ${unknown.join(', ')} (methods: ${methods.map((m) => m.name).join(', ')})\n`);
      return 2;
    }
    methods = methods.filter((m) => wanted.includes(m.name));
  }
  if (values['read-only']) methods = methods.filter((m) => m.annotations.readOnlyHint);
  const out = toolSchemas(format, methods, { strict: values.strict, cacheControl: values['cache-control'] });
  process.stdout.write(JSON.stringify(out, null, values.compact ? undefined : 2) + '\n');
  return 0;
}
