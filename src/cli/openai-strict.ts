/**
 * OpenAI strict function calling (Structured Outputs, `strict: true`): the conversion of a
 * method's JSON Schema into the subset strict mode takes, and a validator of that subset.
 *
 * The rules, from OpenAI's Structured Outputs guide ("Supported schemas") and the function
 * calling guide ("Strict mode"):
 *  R1  the root of `parameters` is an object, not an `anyOf`;
 *  R2  every object sets `additionalProperties: false` (nested objects too);
 *  R3  every key of `properties` is listed in `required`; an optional field is emulated with a
 *      union with null (`type: ["string", "null"]`, or `anyOf` with `{type: "null"}`);
 *  R4  types: string, number, integer, boolean, object, array, null, enum, anyOf (nested);
 *      `$ref`/`$defs` are allowed; `allOf`, `not`, `oneOf`, `if`/`then`/`else`,
 *      `dependentRequired`, `dependentSchemas` are not;
 *  R5  the only constraint keywords supported: strings `pattern`, `format` (date-time, time,
 *      date, duration, email, hostname, ipv4, ipv6, uuid); numbers `multipleOf`, `maximum`,
 *      `exclusiveMaximum`, `minimum`, `exclusiveMinimum`; arrays `minItems`, `maxItems`.
 *      Not supported: `minLength`, `maxLength`, `default`, `patternProperties`,
 *      `unevaluatedProperties`, `propertyNames`, `minProperties`, `maxProperties`,
 *      `unevaluatedItems`, `contains`, `minContains`, `maxContains`, `uniqueItems` (any keyword
 *      not in the supported list is refused here);
 *  R6  fine-tuned models support none of the R5 constraints (`portable` mode checks this too);
 *  R7  limits: at most 5000 object properties in all, 10 levels of object nesting, 1000 enum
 *      values in all.
 * `toStrictSchema` emits the portable subset (R1-R7): it drops every constraint keyword, since
 * nosh validates the call against the full schema anyway (a bad value is INVALID_ARGUMENT with
 * a hint). A null the model sends for an optional property means "not given" (src/api/strict.ts).
 */

type Schema = Record<string, unknown>;

const STRUCTURAL = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', '$ref', '$defs', 'description', 'title']);
const CONSTRAINTS = new Set(['pattern', 'format', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'minItems', 'maxItems']);
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean', 'array']);

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A method's JSON Schema (an object) in OpenAI's strict subset. */
export function toStrictSchema(schema: Schema): Schema {
  return convert(schema);
}

function convert(s: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (!STRUCTURAL.has(k)) continue; // R5/R6: constraints and annotations go
    if (k === 'properties' || k === 'required' || k === 'additionalProperties') continue;
    if (k === 'items' && isSchema(v)) out.items = convert(v);
    else if (k === 'anyOf' && Array.isArray(v)) out.anyOf = v.map((o) => (isSchema(o) ? convert(o) : o));
    else if (k === '$defs' && isSchema(v)) out.$defs = Object.fromEntries(Object.entries(v).map(([n, d]) => [n, isSchema(d) ? convert(d) : d]));
    else out[k] = v;
  }
  if (s.type === 'object' || isSchema(s.properties)) {
    const props = isSchema(s.properties) ? s.properties : {};
    const required = new Set(Array.isArray(s.required) ? s.required as string[] : []);
    const properties: Schema = {};
    for (const [name, p] of Object.entries(props)) {
      const c = convert(isSchema(p) ? p : {});
      properties[name] = required.has(name) ? c : orNull(c); // R3
    }
    out.type = 'object';
    out.properties = properties;
    out.required = Object.keys(properties); // R3
    out.additionalProperties = false; // R2
  }
  return out;
}

/** R3: the schema, or null. */
function orNull(s: Schema): Schema {
  if (typeof s.type === 'string' && PRIMITIVE.has(s.type) && s.anyOf === undefined && s.const === undefined) {
    const out: Schema = { ...s, type: [s.type, 'null'] };
    if (Array.isArray(s.enum)) out.enum = [...s.enum, null];
    return out;
  }
  const { description, ...rest } = s;
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: 'null' }] };
}

export interface StrictOptions {
  /** R6: refuse the constraints fine-tuned models do not take either. */
  portable?: boolean;
}

/** The violations of OpenAI's strict-mode rules in a function's `parameters` ([] when it is valid). */
export function strictViolations(parameters: unknown, opts: StrictOptions = {}): string[] {
  const errors: string[] = [];
  const stats = { properties: 0, enums: 0 };
  if (!isSchema(parameters)) return ['parameters: not an object schema'];
  if (parameters.type !== 'object') errors.push('parameters: the root must be type "object" (R1)');
  if (parameters.anyOf !== undefined) errors.push('parameters: the root must not be anyOf (R1)');
  check(parameters, 'parameters', 1, errors, stats, opts);
  if (stats.properties > 5000) errors.push(`${stats.properties} object properties (more than 5000, R7)`);
  if (stats.enums > 1000) errors.push(`${stats.enums} enum values (more than 1000, R7)`);
  return errors;
}

function check(s: Schema, at: string, depth: number, errors: string[], stats: { properties: number; enums: number }, opts: StrictOptions): void {
  for (const [k, v] of Object.entries(s)) {
    if (CONSTRAINTS.has(k)) {
      if (opts.portable) errors.push(`${at}: '${k}' is not supported by fine-tuned models (R6)`);
      if (k === 'format' && !FORMATS.has(v as string)) errors.push(`${at}: format '${String(v)}' is not supported (R5)`);
    } else if (!STRUCTURAL.has(k)) {
      errors.push(`${at}: keyword '${k}' is not supported in strict mode (${['allOf', 'not', 'oneOf', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas'].includes(k) ? 'R4' : 'R5'})`);
    }
  }
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  for (const t of types) if (!TYPES.has(t as string)) errors.push(`${at}: type '${String(t)}' is not supported (R4)`);
  if (s.type === undefined && s.anyOf === undefined && s.$ref === undefined && s.enum === undefined && s.const === undefined) {
    errors.push(`${at}: no type (R4)`);
  }
  if (Array.isArray(s.enum)) stats.enums += s.enum.length;
  if (types.includes('object') || s.properties !== undefined) {
    if (depth > 10) errors.push(`${at}: objects nested more than 10 levels (R7)`);
    if (s.additionalProperties !== false) errors.push(`${at}: additionalProperties must be false (R2)`);
    const props = isSchema(s.properties) ? s.properties : {};
    const required = Array.isArray(s.required) ? s.required : [];
    for (const name of Object.keys(props)) {
      stats.properties++;
      if (!required.includes(name)) errors.push(`${at}.${name}: not listed in required (R3)`);
    }
    for (const name of required) if (!(name in props)) errors.push(`${at}: required '${String(name)}' is not a property`);
    for (const [name, p] of Object.entries(props)) {
      if (isSchema(p)) check(p, `${at}.${name}`, depth + 1, errors, stats, opts);
      else errors.push(`${at}.${name}: not a schema`);
    }
  }
  if (isSchema(s.items)) check(s.items, `${at}[]`, depth, errors, stats, opts);
  if (Array.isArray(s.anyOf)) s.anyOf.forEach((o, i) => (isSchema(o) ? check(o, `${at}|${i}`, depth, errors, stats, opts) : errors.push(`${at}|${i}: not a schema`)));
  if (isSchema(s.$defs)) for (const [n, d] of Object.entries(s.$defs)) if (isSchema(d)) check(d, `${at}.$defs.${n}`, depth, errors, stats, opts);
}
