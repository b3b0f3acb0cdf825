/** read's parse: "yaml" (Shannon's structured read), through the `yaml` package, with parse json's limits. */
import { CST, Lexer, parseAllDocuments } from 'yaml';
import { NoshError } from '../errors.js';
import { valueLimit } from '../runtime/memory.js';
import { readCapped } from './common.js';
import type { ToolContext, ToolResult } from './types.js';

/** Aliases one file may expand (the `yaml` package's guard against "billion laughs" counts from this). */
const MAX_ALIASES = 100;

export function parseYaml(ctx: ToolContext, args: { path: string }, cap: number, maxDepth: number): ToolResult {
  const buf = readCapped(ctx.fs, args.path, ctx.cwd, cap, 'parse');
  // The document tree the parser builds takes far more than the text: measured 40 heap bytes a
  // byte of a long string and up to 600 per structural character (a `,{}` flow list). The
  // parse is one step the worker's heap limit cannot stop gracefully, so an upper estimate past
  // the budget is refused first, as for JSON.
  const cost = yamlCost(buf);
  if (cost > valueLimit()) {
    const mb = Math.round(valueLimit() * 4 / 1048576);
    throw new NoshError('MEMORY_LIMIT', `${args.path}: parsing this YAML would take about ${Math.ceil(cost / 1048576)} MB, more than a quarter of the worker memory limit of ${mb} MB`,
      'Read it without parse (offset/limit), or pick out the part you need with exec (grep, sed, head).', { path: args.path, memory_mb: mb });
  }
  // The parser recurses per level: past a few thousand its stack overflows, and in a worker that
  // warmed up the overflow can land in V8's regex compiler, which ends the whole process. So
  // nesting is counted on the text first and a deep file refused before it is parsed.
  let text = buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const nest = nestingOf(text);
  if (nest > maxDepth) {
    throw new NoshError('INVALID_ARGUMENT', `${args.path}: YAML nested about ${nest} levels deep, more than parse handles (${maxDepth})`,
      'Read it without parse, or pick out the part you need with exec (grep, sed, head).', { path: args.path, depth: nest, limit: maxDepth });
  }
  const fail = (why: string, line?: number, column?: number): never => {
    const where = line !== undefined ? ` at line ${line} column ${column ?? 1}` : '';
    throw new NoshError('INVALID_ARGUMENT', `${args.path}: not valid YAML${where}`,
      'Read it without parse to see the text, then fix it with edit.',
      { path: args.path, parser: why.replace(/\s+/g, ' ').slice(0, 200), ...(line !== undefined ? { line, column } : {}) });
  };
  let docs;
  try {
    docs = parseAllDocuments(text, { uniqueKeys: true, prettyErrors: false });
  } catch (e) {
    return fail((e as Error).message);
  }
  const list = Array.isArray(docs) ? docs : [];
  const values: unknown[] = [];
  for (const doc of list) {
    const err = doc.errors[0];
    if (err) {
      const pos = err.linePos?.[0] ?? lineOf(text, err.pos[0]);
      return fail(err.message.split('\n')[0]!, pos.line, pos.col);
    }
    try {
      values.push(jsonSafe(doc.toJS({ maxAliasCount: MAX_ALIASES })));
    } catch (e) {
      // an alias bomb, or a tree so deep that the stack ran out
      return fail((e as Error).message);
    }
  }
  const parsed = values.length === 1 ? values[0] : values;
  const depth = depthOf(parsed);
  if (depth > maxDepth) {
    throw new NoshError('INVALID_ARGUMENT', `${args.path}: YAML nested ${depth} levels deep, more than parse handles (${maxDepth})`,
      'Read it without parse, or pick out the part you need with exec (grep, sed, head).', { path: args.path, depth, limit: maxDepth });
  }
  return { data: { path: args.path, parsed: values.length === 0 ? null : parsed, size: buf.length, ...(values.length !== 1 ? { documents: values.length } : {}) } };
}

function lineOf(text: string, at: number): { line: number; col: number } {
  const before = text.slice(0, at);
  return { line: before.split('\n').length, col: at - before.lastIndexOf('\n') };
}

/**
 * An upper bound of the nesting, without the parser's recursion: the flow brackets open at once
 * (from the `yaml` lexer's tokens, which know quotes and comments) plus the deepest block
 * indentation (a block level takes at least one more column: a space, or the `- `, `? ` or
 * `: ` of a compact entry).
 */
function nestingOf(text: string): number {
  let flow = 0;
  let flowDeepest = 0;
  for (const tok of new Lexer().lex(text)) {
    const t = CST.tokenType(tok);
    if (t === 'flow-map-start' || t === 'flow-seq-start') { if (++flow > flowDeepest) flowDeepest = flow; }
    else if ((t === 'flow-map-end' || t === 'flow-seq-end') && flow > 0) flow--;
  }
  let indent = 0;
  let col = 0;
  let lead = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) { col = 0; lead = true; continue; }
    if (!lead) continue;
    if (c === 0x20 || c === 0x2d || c === 0x3f || c === 0x3a) { if (++col > indent) indent = col; }
    else lead = false;
  }
  return flowDeepest + indent;
}

/** An upper estimate of the heap bytes parsing takes (see parseYaml). */
function yamlCost(buf: Buffer): number {
  let bytes = 40 * buf.length;
  for (const c of buf) {
    // { } [ ] , : - newline
    if (c === 0x7b || c === 0x7d || c === 0x5b || c === 0x5d || c === 0x2c || c === 0x3a || c === 0x2d || c === 0x0a) bytes += 600;
  }
  return bytes;
}

/**
 * What the reply can carry as JSON: !!binary as base64, timestamps as ISO strings, a map with
 * keys that are not strings as an object of their text, sets as arrays, .inf/.nan as strings.
 */
function jsonSafe(v: unknown): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint') return v.toString();
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (v instanceof Set) return [...v].map(jsonSafe);
  if (v instanceof Map) {
    const o: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [k, x] of v) o[typeof k === 'string' ? k : JSON.stringify(jsonSafe(k))] = jsonSafe(x);
    return { ...o };
  }
  if (typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(o, k, { value: jsonSafe((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return null;
}

/** Deepest nesting of arrays and objects, without recursion. */
function depthOf(v: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    if (d + 1 > deepest) deepest = d + 1;
    for (const y of Array.isArray(x) ? x : Object.values(x)) if (y !== null && typeof y === 'object') stack.push([y, d + 1]);
  }
  return deepest;
}
