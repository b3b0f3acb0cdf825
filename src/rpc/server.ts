import type { Readable, Writable } from 'node:stream';
import { z } from 'zod';
import type { Nosh } from '../index.js';
import { readLines } from './lines.js';

/** JSON-RPC 2.0 error codes for protocol faults; tool failures travel as envelopes. */
export const RPC = { PARSE: -32700, INVALID_REQUEST: -32600, NO_METHOD: -32601, INVALID_PARAMS: -32602, INTERNAL: -32603 } as const;

type Id = string | number | null;
interface Response { jsonrpc: '2.0'; id: Id; result?: unknown; error?: { code: number; message: string; data?: unknown } }

export interface ServeOptions {
  /** Largest accepted message line in bytes (default 16 MB). */
  maxLineBytes?: number;
}

/**
 * Serve JSON-RPC 2.0 over newline-delimited streams: requests, notifications, batches,
 * concurrent requests answered as they finish, `$/cancelRequest` {id} aborting a running
 * call. Resolves when the input ends and every running call has answered.
 */
export async function serveRpc(nosh: Nosh, input: Readable, output: Writable, opts: ServeOptions = {}): Promise<void> {
  const running = new Map<string, AbortController>();
  const pending = new Set<Promise<void>>();
  const send = (msg: Response | Response[]) => {
    output.write(JSON.stringify(msg) + '\n');
  };
  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  const oversize = () => send(errorResponse(null, RPC.INVALID_REQUEST, 'message too large', { max_bytes: opts.maxLineBytes ?? DEFAULT_MAX }));
  for await (const line of readLines(input, opts.maxLineBytes ?? DEFAULT_MAX, oversize)) {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      send(errorResponse(null, RPC.PARSE, 'Parse error'));
      continue;
    }
    if (Array.isArray(msg)) {
      if (msg.length === 0) {
        send(errorResponse(null, RPC.INVALID_REQUEST, 'Invalid Request: empty batch'));
        continue;
      }
      track(Promise.all(msg.map((m) => handle(nosh, m, running))).then((rs) => {
        const out = rs.filter((r): r is Response => r !== null);
        if (out.length > 0) send(out);
      }));
    } else {
      track(handle(nosh, msg, running).then((r) => { if (r) send(r); }));
    }
  }
  while (pending.size > 0) await Promise.all([...pending]);
}

const DEFAULT_MAX = 16 * 1024 * 1024;

const RequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string(),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  params: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
});

/** One request or notification; null when nothing is to be answered. */
async function handle(nosh: Nosh, raw: unknown, running: Map<string, AbortController>): Promise<Response | null> {
  const parsed = RequestSchema.safeParse(raw);
  if (!parsed.success) {
    const id = (raw as { id?: unknown })?.id;
    return errorResponse(typeof id === 'string' || typeof id === 'number' ? id : null, RPC.INVALID_REQUEST, 'Invalid Request');
  }
  const { method, params } = parsed.data;
  const isNotification = !('id' in (raw as object));
  const id: Id = parsed.data.id ?? null;

  if (method === '$/cancelRequest' || method === 'notifications/cancelled') {
    const target = (params as { id?: unknown; requestId?: unknown } | undefined);
    const key = JSON.stringify(target?.id ?? target?.requestId);
    running.get(key)?.abort();
    return isNotification ? null : { jsonrpc: '2.0', id, result: { cancelled: running.has(key) } };
  }
  if (method === 'rpc.discover' || method === 'methods') {
    const list = nosh.methods().map((m) => ({ name: m.name, description: m.description, annotations: m.annotations, params: z.toJSONSchema(m.input) }));
    return isNotification ? null : { jsonrpc: '2.0', id, result: list };
  }
  if (!nosh.methods().some((m) => m.name === method)) {
    return isNotification ? null : errorResponse(id, RPC.NO_METHOD, `Method not found: ${method}`);
  }
  if (Array.isArray(params)) return isNotification ? null : errorResponse(id, RPC.INVALID_PARAMS, 'Invalid params: pass an object of named parameters');

  const ac = new AbortController();
  const key = JSON.stringify(id);
  if (!isNotification) running.set(key, ac);
  try {
    const env = await nosh.call(method, params ?? {}, { signal: ac.signal });
    if (isNotification) return null;
    if (!env.success && env.error.code === 'INVALID_ARGUMENT' && Array.isArray(env.error.details.issues)) {
      return errorResponse(id, RPC.INVALID_PARAMS, `Invalid params: ${env.error.message}`, env.error);
    }
    return { jsonrpc: '2.0', id, result: env };
  } catch (e) {
    return isNotification ? null : errorResponse(id, RPC.INTERNAL, 'Internal error', { kind: (e as Error)?.name });
  } finally {
    if (running.get(key) === ac) running.delete(key);
  }
}

function errorResponse(id: Id, code: number, message: string, data?: unknown): Response {
  return data === undefined ? { jsonrpc: '2.0', id, error: { code, message } } : { jsonrpc: '2.0', id, error: { code, message, data } };
}
