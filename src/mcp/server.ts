import { PassThrough, type Readable, type Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, JSONRPCMessageSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Nosh } from '../index.js';
import { fail, type Envelope } from '../errors.js';
import { LineSplitter } from '../rpc/lines.js';
import { MAX_DEPTH, scanLine, spliceId } from '../rpc/scan.js';

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
  const methods = nosh.methods(undefined, 'model');

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: methods.map((m) => ({
      name: m.name,
      description: m.description,
      inputSchema: z.toJSONSchema(m.input) as { type: 'object'; properties?: Record<string, unknown> },
      annotations: m.annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args } = req.params;
    if (!methods.some((m) => m.name === name)) {
      return result(fail('INVALID_ARGUMENT', `unknown tool '${name}'`, `Tools: ${methods.map((m) => m.name).join(', ')}.`, { tool: name }));
    }
    if (args !== undefined && Object.hasOwn(args, 'context')) {
      const env = fail('PERMISSION_DENIED', 'context is not a tool argument: who is calling is fixed when nosh mcp starts',
        'Call the tool without context (nosh mcp --user ID --role ROLE sets identity).', { key: 'context' });
      const { context: _claimed, ...rest } = args;
      nosh.recordRefusal?.(name, rest, env);
      return result(env);
    }
    // Calls past a second send progress (files and bytes done) when the client asked for it.
    const token = req.params._meta?.progressToken;
    const onProgress = token === undefined ? undefined : (p: { files: number; bytes: number; total?: number }) => {
      void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: p.total !== undefined ? p.files : p.files + p.bytes,
        ...(p.total !== undefined ? { total: p.total } : {}), message: `${name}: ${p.files} files, ${p.bytes} bytes` } }).catch(() => {});
    };
    gate?.enter();
    try {
      return result(await nosh.call(name, args ?? {}, { signal: extra.signal, onProgress }));
    } finally {
      gate?.leave();
    }
  });
  return server;
}

/** A tool result carrying the envelope, as text and as structured content. */
function result(env: Envelope<unknown>) {
  return {
    isError: !env.success,
    content: [{ type: 'text' as const, text: JSON.stringify(env) }],
    structuredContent: env as unknown as Record<string, unknown>,
  };
}

/**
 * The client's lines, each passed on whole as one chunk; a line over maxLineBytes is answered
 * with an error and skipped, never buffered. The SDK's stdio transport closes the whole
 * session on a message over its buffer size (10 MB), which ended `nosh mcp` on one big call,
 * and concatenates its buffer on every chunk of a long line. A line that is not a JSON-RPC
 * message, which the SDK drops without a word, is answered here as `nosh serve` does: -32700
 * (not JSON) or -32600 (nested too deep, or not a request, notification or response).
 */
export function boundedLines(input: Readable, output: Writable, maxLineBytes = MAX_LINE_BYTES): PassThrough {
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
  const server = createMcpServer(nosh, version, new CallGate(MAX_CALLS, (full) => { if (full) process.stdin.pause(); else process.stdin.resume(); }));
  // the transport's own cap only has to pass any line boundedLines lets through
  const transport = new StdioServerTransport(boundedLines(process.stdin, process.stdout), process.stdout, { maxBufferSize: MAX_LINE_BYTES + 2 });
  const closed = new Promise<void>((resolve) => { server.onclose = () => resolve(); });
  await server.connect(transport);
  process.stdin.once('end', () => void server.close());
  await closed;
}
