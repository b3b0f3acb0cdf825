/**
 * `nosh schemas --format openai|anthropic|jsonschema`: the tool definitions for
 * function-calling APIs, generated from the method registry (the same one RPC and MCP serve).
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { listMethods, type MethodInfo } from '../api/methods.js';

const FORMATS = ['openai', 'anthropic', 'jsonschema'] as const;
type Format = (typeof FORMATS)[number];

const USAGE = `Usage: nosh schemas [--format openai|anthropic|jsonschema] [--methods a,b,...] [--read-only] [--compact]

Prints the nosh methods as tool definitions for function-calling APIs (JSON on stdout):
  openai      [{type: "function", function: {name, description, parameters}}]  (Chat Completions tools)
  anthropic   [{name, description, input_schema}]                               (Messages API tools)
  jsonschema  [{name, description, input_schema, annotations}]                  (default; JSON Schema 2020-12)
--methods keeps only the named methods; --read-only keeps the methods that change nothing.
`;

/** JSON Schema of a method's arguments, as a caller sends them (input side: defaults optional). */
export function inputSchemaOf(m: MethodInfo): Record<string, unknown> {
  const schema = z.toJSONSchema(m.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** The tool definitions in one of the formats. */
export function toolSchemas(format: Format, methods: MethodInfo[] = listMethods(undefined, 'model')): unknown[] {
  return methods.map((m) => {
    const schema = inputSchemaOf(m);
    switch (format) {
      case 'openai': return { type: 'function', function: { name: m.name, description: m.description, parameters: schema } };
      case 'anthropic': return { name: m.name, description: m.description, input_schema: schema };
      case 'jsonschema': return { name: m.name, description: m.description, input_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema }, annotations: m.annotations };
    }
  });
}

export function runSchemas(args: string[]): number {
  let values;
  try {
    ({ values } = parseArgs({
      args, strict: true, allowPositionals: false,
      options: {
        format: { type: 'string', short: 'f' }, methods: { type: 'string' }, 'read-only': { type: 'boolean' },
        compact: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
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
  const out = toolSchemas(format, methods);
  process.stdout.write(JSON.stringify(out, null, values.compact ? undefined : 2) + '\n');
  return 0;
}
