import { PassThrough, type Readable, type Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, JSONRPCMessageSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Nosh } from '../index.js';
import { fail, type Envelope } from '../errors.js';
import { LineSplitter } from '../rpc/lines.js';
import { MAX_DEPTH, scanLine, spliceId } from '../rpc/scan.js';
import { Cancel } from '../rpc/cancel.js';
import type { CancelSignal } from '../pool/index.js';

/** Largest accepted message line in bytes, as for JSON-RPC. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * The MCP server: every method of the model's surface as a tool, with its JSON Schema, its
 * annotations, and the envelope as structured content (isError when it failed). An MCP client
 * passes on what the model writes, so no tool takes `context` and the runtime methods (import,
 * maintenance) are not offered, whatever `nosh` is: identity is the one it was bound to.
 */
export function createMcpServer(nosh: Nosh, version: string, gate?: CallGate): Server {
  const server = new Server({ name: 'nosh', version }, { capabilities: { tools: {} } });
  const call = toolCaller(nosh, gate);
  const listTools = () => call.methods.map((m) => ({
    name: m.name,
    description: m.description,
    inputSchema: z.toJSONSchema(m.input) as { type: 'object'; properties?: Record<string, unknown> },
    annotations: m.annotations,
  }));
  let tools: ReturnType<typeof listTools> | undefined;

  // The tool list is the same for the life of the server: its JSON Schemas are made once.
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools ??= listTools() }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const token = req.params._meta?.progressToken;
    const map = token === undefined ? undefined : progressMapper(token, req.params.name);
    const progress = map && ((p: Progress) => {
      const params = map(p);
      if (params) void extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
    });
    return result(await call(req.params.name, req.params.arguments, extra.signal, progress));
  });
  return server;
}

type ToolCaller = ((name: string, args: Record<string, unknown> | undefined, signal: CancelSignal, progress?: (p: Progress) => void) => Promise<Envelope<unknown>>)
  & { methods: ReturnType<Nosh['methods']> };

/** tools/call, as the SDK's handler and the stdio fast path (serveMcpStdio) both answer it: the envelope (see result). */
function toolCaller(nosh: Nosh, gate?: CallGate): ToolCaller {
  const methods = nosh.methods(undefined, 'model');
  const names = new Set(methods.map((m) => m.name));
  const call = async (name: string, args: Record<string, unknown> | undefined, signal: CancelSignal, progress?: (p: Progress) => void): Promise<Envelope<unknown>> => {
    if (!names.has(name)) {
      return (fail('INVALID_ARGUMENT', `unknown tool '${name}'`, `Tools: ${methods.map((m) => m.name).join(', ')}.`, { tool: name }));
    }
    if (args !== undefined && Object.hasOwn(args, 'context')) {
      const env = fail('PERMISSION_DENIED', 'context is not a tool argument: who is calling is fixed when nosh mcp starts',
        'Call the tool without context (nosh mcp --user ID --role ROLE sets identity).', { key: 'context' });
      const { context: _claimed, ...rest } = args;
      nosh.recordRefusal?.(name, rest, env);
      return env;
    }
    // Calls past a second send progress (files and bytes done) when the client asked for it.
    gate?.enter();
    try {
      return await nosh.call(name, args ?? {}, { signal, onProgress: progress });
    } finally {
      gate?.leave();
    }
  };
  return Object.assign(call, { methods });
}

/** What a long call has done so far (files walked, bytes read; their totals where known; the commit phase). */
interface Progress { files: number; bytes: number; total?: number; total_bytes?: number; phase?: 'commit' }

/**
 * notifications/progress's params for one call's reports. MCP has one number and an optional
 * total, and the number must grow: it is the files (entries, changed paths) when their total
 * is known, else the bytes when theirs is, else files + bytes with no total. When that choice
 * changes within a call (a total becomes known, the commit phase after the worker part), the
 * new count is added past the last number sent (and so is its total), so it never goes back;
 * a report that would not raise it is not sent. The message says the counts as they are.
 */
function progressMapper(token: string | number, name: string) {
  let kind = '';
  let base = 0;
  let last = -1;
  return (p: Progress) => {
    const [k, done, total] = p.total !== undefined ? ['files', p.files, p.total]
      : p.total_bytes !== undefined ? ['bytes', p.bytes, p.total_bytes] : ['all', p.files + p.bytes, undefined];
    const key = `${p.phase ?? 'run'}/${k}`;
    if (key !== kind) {
      if (last >= 0) base = last + 1; // past the last number sent, even when nothing is done yet
      kind = key;
    }
    const progress = base + done;
    if (progress <= last) return undefined;
    last = progress;
    const of = (n: number, t: number | undefined) => `${n}${t !== undefined ? `/${t}` : ''}`;
    const message = `${name}: ${p.phase === 'commit' ? 'commit: ' : ''}${of(p.files, p.total)} files, ${of(p.bytes, p.total_bytes)} bytes`;
    return { progressToken: token, progress, ...(total !== undefined ? { total: base + total } : {}), message };
  };
}

/** A tool result carrying the envelope, as text and as structured content (FastCalls writes the same as resultLine). */
function result(env: Envelope<unknown>) {
  return {
    isError: !env.success,
    content: [{ type: 'text' as const, text: JSON.stringify(env) }],
    structuredContent: env as unknown as Record<string, unknown>,
  };
}

/**
 * The JSON-RPC answer carrying result(env), as one line, the envelope serialized once: its
 * text is both the text content (escaped as a string) and the structured content.
 */
export function resultLine(id: Id, env: Envelope<unknown>): string {
  const text = JSON.stringify(env);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"isError":${!env.success},"content":[{"type":"text","text":${JSON.stringify(text)}}],` +
    `"structuredContent":${text}}}`;
}

/**
 * The client's lines, each passed on whole as one chunk; a line over maxLineBytes is answered
 * with an error and skipped, never buffered. The SDK's stdio transport closes the whole
 * session on a message over its buffer size (10 MB), which ended `nosh mcp` on one big call,
 * and concatenates its buffer on every chunk of a long line. A line that is not a JSON-RPC
 * message, which the SDK drops without a word, is answered here as `nosh serve` does: -32700
 * (not JSON) or -32600 (nested too deep, or not a request, notification or response).
 * `intercept` sees each parsed message first; a message it takes (true) goes no further.
 */
export function boundedLines(input: Readable, output: Writable, maxLineBytes = MAX_LINE_BYTES, intercept?: (msg: unknown) => boolean): PassThrough {
  const lines = new PassThrough();
  const refuse = (code: number, message: string, data?: unknown, id: unknown = null, rawId?: string) => {
    const error = data === undefined ? { code, message } : { code, message, data };
    output.write(spliceId(JSON.stringify({ jsonrpc: '2.0', id, error }), id, rawId) + '\n');
  };
  const splitter = new LineSplitter(maxLineBytes, (line) => {
    const scan = scanLine(line);
    if (scan.tooDeep) return refuse(-32600, `Invalid Request: nested deeper than ${MAX_DEPTH} levels`, { max_depth: MAX_DEPTH });
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      return refuse(-32700, 'Parse error');
    }
    if (intercept?.(msg)) return;
    if (!JSONRPCMessageSchema.safeParse(msg).success) {
      const id = (msg as { id?: unknown } | null)?.id;
      const known = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
      return refuse(-32600, 'Invalid Request', undefined, known ? id : null, known ? scan.ids.get(0) : undefined);
    }
    lines.write(line + '\n');
  }, () => refuse(-32600, 'message too large', { max_bytes: maxLineBytes }));
  input.on('data', (chunk: Buffer | string) => splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  input.once('end', () => {
    splitter.end();
    lines.end();
  });
  return lines;
}

/**
 * Tool calls being answered at once: reaching `max`, `full(true)` (stop reading the client);
 * back under it, `full(false)`. The SDK starts every request as it reads it, and each may
 * carry 16 MB: a client sending faster than nosh answers would grow the server without bound.
 */
export class CallGate {
  private running = 0;

  constructor(private readonly max: number, private readonly full: (full: boolean) => void) {}

  enter(): void {
    if (++this.running === this.max) this.full(true);
  }

  leave(): void {
    if (--this.running === this.max - 1) this.full(false);
  }
}

/** Tool calls `nosh mcp` answers at once before it stops reading (32 messages of up to 16 MB). */
const MAX_CALLS = 32;

/** Serve MCP over stdio until the client disconnects. */
export async function serveMcpStdio(nosh: Nosh, version: string): Promise<void> {
  const gate = new CallGate(MAX_CALLS, (full) => { if (full) process.stdin.pause(); else process.stdin.resume(); });
  const server = createMcpServer(nosh, version, gate);
  const fast = new FastCalls(toolCaller(nosh, gate), (line) => process.stdout.write(line + '\n'));
  // the transport's own cap only has to pass any line boundedLines lets through
  const transport = new StdioServerTransport(boundedLines(process.stdin, process.stdout, MAX_LINE_BYTES, (msg) => fast.take(msg)), process.stdout, { maxBufferSize: MAX_LINE_BYTES + 2 });
  const closed = new Promise<void>((resolve) => { server.onclose = () => resolve(); });
  await server.connect(transport);
  process.stdin.once('end', () => {
    fast.abortAll();
    void server.close();
  });
  await closed;
}

type Id = string | number;

/**
 * tools/call answered without the SDK (issue #27: `nosh mcp` took 190 µs more per call than
 * `nosh serve`, most of it the SDK validating each message with zod three times: the
 * message, the request, the result). Only a call of the plain shape is taken: `jsonrpc`,
 * an id (a string or a safe integer), `method`, and params of `name`, `arguments` (an object)
 * and `_meta` with at most a `progressToken`; any other message, a malformed call included,
 * goes on to the SDK and is answered as before. A `notifications/cancelled` naming a call
 * taken here aborts it (and goes on to the SDK too); a cancelled call is not answered, as the
 * SDK does not answer one.
 */
export class FastCalls {
  private readonly running = new Map<Id, Cancel>();

  /** `send`: one message as a line of JSON, without its newline. */
  constructor(private readonly call: ToolCaller, private readonly send: (line: string) => void) {}

  /** Take `msg` if it is a plain tools/call (true), else leave it (false). */
  take(msg: unknown): boolean {
    if (!isPlainObject(msg) || msg.jsonrpc !== '2.0') return false;
    if (msg.method === 'notifications/cancelled' && !Object.hasOwn(msg, 'id')) {
      const id = isPlainObject(msg.params) ? msg.params.requestId : undefined;
      if ((typeof id === 'string' || typeof id === 'number')) this.running.get(id)?.abort();
      return false;
    }
    const call = plainToolCall(msg);
    if (call === undefined || this.running.has(call.id)) return false;
    const controller = new Cancel();
    this.running.set(call.id, controller);
    const { id, name, args, token } = call;
    const map = token === undefined ? undefined : progressMapper(token, name);
    const progress = map && ((p: Progress) => {
      const params = map(p);
      if (params && !controller.aborted) this.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params }));
    });
    this.call(name, args, controller, progress).then(
      (env) => resultLine(id, env),
    ).catch((e: unknown) => JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: e instanceof Error ? e.message : 'Internal error' } }),
    ).then((answer) => {
      if (this.running.get(id) === controller) this.running.delete(id);
      if (!controller.aborted) this.send(answer);
    });
    return true;
  }

  /** The client went away: stop every call (as the SDK does on close). */
  abortAll(): void {
    for (const c of this.running.values()) c.abort();
    this.running.clear();
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hasOnlyKeys(o: Record<string, unknown>, keys: readonly string[]): boolean {
  for (const k in o) if (!keys.includes(k)) return false;
  return true;
}

/** A tools/call of the plain shape FastCalls takes, or undefined. */
function plainToolCall(msg: Record<string, unknown>): { id: Id; name: string; args?: Record<string, unknown>; token?: Id } | undefined {
  const { id, params } = msg;
  if (msg.method !== 'tools/call' || !hasOnlyKeys(msg, ['jsonrpc', 'id', 'method', 'params'])) return undefined;
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  if (!isPlainObject(params) || !hasOnlyKeys(params, ['name', 'arguments', '_meta']) || typeof params.name !== 'string') return undefined;
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  const meta = params._meta;
  let token: Id | undefined;
  if (meta !== undefined) {
    if (!isPlainObject(meta) || !hasOnlyKeys(meta, ['progressToken'])) return undefined;
    const t = meta.progressToken;
    if (t !== undefined && typeof t !== 'string' && !Number.isSafeInteger(t)) return undefined;
    token = t as Id | undefined;
  }
  return { id: id as Id, name: params.name, args: args as Record<string, unknown> | undefined, token };
}
