import type { Readable, Writable } from 'node:stream';
import type { Nosh } from '../index.js';
import { LineSplitter } from './lines.js';
import { MAX_DEPTH, scanLine, spliceId } from './scan.js';
import { Cancel } from './cancel.js';

/** JSON-RPC 2.0 error codes for protocol faults; tool failures travel as envelopes. */
export const RPC = { PARSE: -32700, INVALID_REQUEST: -32600, NO_METHOD: -32601, INVALID_PARAMS: -32602, INTERNAL: -32603, BUSY: -32001 } as const;

type Id = string | number | null;
interface Response { jsonrpc: '2.0'; id: Id; result?: unknown; error?: { code: number; message: string; data?: unknown } }
interface Request { jsonrpc: '2.0'; method: string; id?: Id; params?: Record<string, unknown> | unknown[] }

export interface ServeOptions {
  /** Largest accepted message line in bytes (default 16 MB). */
  maxLineBytes?: number;
  /**
   * Largest answer to one batch, in characters of JSON (default 64 MiB): the answers after it
   * are errors. A batch is answered in one line, so its answers are held until the last one.
   */
  maxBatchChars?: number;
  /**
   * Resolves when nosh.methods() may be called (the CLI loads the method registry lazily, so
   * that a first exec is answered without it). Awaited before the first look-up of a method
   * other than exec, and started once the first answer is out.
   */
  ready?: () => Promise<void>;
  /** Messages being answered at once (default 1024); more wait, and reading stops meanwhile. */
  maxInflight?: number;
  /**
   * Characters of message text being answered, plus answers not yet taken by the client,
   * past which reading stops (default 128 Mi): a client that sends faster than nosh answers,
   * or reads no answers, holds the server's memory to about that.
   */
  maxHeldChars?: number;
}

const DEFAULT_MAX = 16 * 1024 * 1024;
const DEFAULT_MAX_BATCH = 64 * 1024 * 1024;
const DEFAULT_MAX_INFLIGHT = 1024;
const DEFAULT_MAX_HELD = 128 * 1024 * 1024;

/**
 * Serve JSON-RPC 2.0 over newline-delimited streams: requests, notifications, batches,
 * concurrent requests answered as they finish, `$/cancelRequest` {id} aborting a running
 * call. When the input ends or is destroyed (EOF, SIGTERM) reading stops; resolves once every
 * running call has answered.
 */
export function serveRpc(nosh: Nosh, input: Readable, output: Writable, opts: ServeOptions = {}): Promise<void> {
  // The client went away (EPIPE): stop reading; running calls finish, their answers are dropped.
  let gone = false;
  output.on('error', () => {
    gone = true;
    server.dropWaiting();
    input.destroy();
  });
  let stopped = false;
  const server = new RpcServer(nosh, (text) => { if (!gone) output.write(text + '\n'); }, opts.ready, opts.maxBatchChars ?? DEFAULT_MAX_BATCH, {
    maxInflight: opts.maxInflight ?? DEFAULT_MAX_INFLIGHT,
    maxHeldChars: opts.maxHeldChars ?? DEFAULT_MAX_HELD,
    backlog: () => output.writableLength,
    // Full: messages wait in the server, and the rest stays in the pipe (the client's writes block).
    full: (full) => { if (full) input.pause(); else if (!stopped) input.resume(); },
  });
  output.on('drain', () => server.pump());
  const max = opts.maxLineBytes ?? DEFAULT_MAX;
  const lines = new LineSplitter(max, (line) => server.admit(line),
    () => server.send(errorResponse(null, RPC.INVALID_REQUEST, 'message too large', { max_bytes: max })));
  return new Promise((resolve, reject) => {
    let failure: unknown;
    // EOF: a last line without its newline still counts; a destroyed input (SIGTERM) drops a partial one.
    const stop = (eof: boolean) => {
      if (stopped) return;
      stopped = true;
      input.off('data', onData);
      if (eof) lines.end();
      server.closing = true;
      server.drained().then(() => (failure === undefined ? resolve() : reject(failure)), reject);
    };
    const onData = (chunk: Buffer | string) => lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    input.on('data', onData);
    input.once('end', () => stop(true));
    input.once('close', () => stop(false));
    input.on('error', (e) => {
      if ((e as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') failure ??= e;
      stop(false);
    });
  });
}

/** How much a connection takes in at once (see ServeOptions). */
interface Intake {
  maxInflight: number;
  maxHeldChars: number;
  /** Characters of answers written but not yet taken by the client. */
  backlog: () => number;
  /** Called when messages start waiting (true) and when none waits any more (false). */
  full: (full: boolean) => void;
}

/** The protocol state of one connection: running calls (for cancel and shutdown) and the method names. */
class RpcServer {
  private readonly running = new Map<Id, Cancel>();
  private inflight = 0;
  /** Characters of the messages being answered. */
  private held = 0;
  /** Messages that came while the server was full, in order. */
  private readonly waiting: string[] = [];
  private idle: (() => void) | null = null;
  private names: Set<string> | undefined;
  private answered = false;
  /** The input ended: no more requests, so nothing to preload for. */
  closing = false;
  /** Write one message line (JSON text). */
  private readonly sendText: (text: string) => void;

  constructor(private readonly nosh: Nosh, write: (text: string) => void, private readonly ready: (() => Promise<void>) | undefined,
    private readonly maxBatchChars: number, private readonly intake: Intake) {
    this.sendText = (text) => {
      write(text);
      if (this.answered) return;
      this.answered = true;
      // The first answer is out: load the method registry now, while the client reads it.
      if (ready) setImmediate(() => { if (!this.closing) void ready().catch(() => {}); });
    };
  }

  /** The names of the methods served (nosh.methods() for the CLI's role), once the registry is loaded. */
  private async methodNames(): Promise<Set<string>> {
    if (this.names) return this.names;
    await this.ready?.();
    this.names = new Set(this.nosh.methods().map((m) => m.name));
    return this.names;
  }

  /** A message line from the client: answered now, or after the ones before it if the server is full. */
  admit(line: string): void {
    if (this.waiting.length === 0 && !this.isFull()) {
      this.line(line);
      return;
    }
    this.waiting.push(line);
    if (this.waiting.length === 1) this.intake.full(true);
  }

  /** Start waiting messages while there is room (after an answer, or when the client took answers). */
  pump(): void {
    if (this.waiting.length === 0) return;
    while (this.waiting.length > 0 && !this.isFull()) this.line(this.waiting.shift()!);
    if (this.waiting.length === 0) this.intake.full(false);
  }

  /** The client is gone: messages still waiting are never started (their answers could not be sent). */
  dropWaiting(): void {
    this.waiting.length = 0;
    this.settleIfIdle();
  }

  private isFull(): boolean {
    return this.inflight >= this.intake.maxInflight || this.held + this.intake.backlog() >= this.intake.maxHeldChars;
  }

  private line(line: string): void {
    // Before parsing: nesting past the bound is refused unparsed, and number ids keep their text.
    const scan = scanLine(line);
    if (scan.tooDeep) {
      this.send(errorResponse(null, RPC.INVALID_REQUEST, `Invalid Request: nested deeper than ${MAX_DEPTH} levels`, { max_depth: MAX_DEPTH }));
      return;
    }
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.send(errorResponse(null, RPC.PARSE, 'Parse error'));
      return;
    }
    if (!Array.isArray(msg)) {
      const raw = scan.ids.get(0);
      this.track(this.handle(msg).then((r) => { if (r) this.sendText(serialized(r, raw)); }), line.length);
      return;
    }
    if (msg.length === 0) {
      this.send(errorResponse(null, RPC.INVALID_REQUEST, 'Invalid Request: empty batch'));
      return;
    }
    // Each answer is serialized when it comes and counted against the batch's cap. Holding every
    // envelope and serializing the array at the end kept them all in the main thread's heap (300
    // reads of 5 MB: 1.5 GB), and JSON.stringify of a text past V8's longest string threw, so the
    // batch was never answered.
    const texts: (string | undefined)[] = new Array(msg.length);
    let chars = 0;
    this.track(Promise.all(msg.map((m, i) => this.handle(m).then((r) => {
      if (r === null) return;
      let text = serialized(r, scan.ids.get(i));
      if (chars + text.length > this.maxBatchChars) {
        text = JSON.stringify(errorResponse(r.id, RPC.INTERNAL, 'batch answer too large: this answer was dropped',
          { max_chars: this.maxBatchChars, hint: 'Send fewer requests per batch, or ask for less (max_bytes, limit), or send them one by one.' }));
        text = spliceId(text, r.id, scan.ids.get(i));
      }
      chars += text.length;
      texts[i] = text;
    }))).then(() => {
      const out = texts.filter((t): t is string => t !== undefined);
      if (out.length > 0) this.sendText(`[${out.join(',')}]`);
    }), line.length);
  }

  send(msg: Response): void {
    this.sendText(serialized(msg));
  }

  /** Resolves when no call is running and none waits. */
  drained(): Promise<void> {
    if (this.inflight === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => { this.idle = resolve; });
  }

  /** Count a message (`chars` of text) until it is answered. */
  private track(p: Promise<void>, chars: number): void {
    this.inflight++;
    this.held += chars;
    const done = () => {
      this.inflight--;
      this.held -= chars;
      this.pump();
      this.settleIfIdle();
    };
    p.then(done, done);
  }

  private settleIfIdle(): void {
    if (this.inflight === 0 && this.waiting.length === 0 && this.idle) {
      const idle = this.idle;
      this.idle = null;
      idle();
    }
  }

  /** One request or notification; null when nothing is to be answered. */
  private async handle(raw: unknown): Promise<Response | null> {
    if (!isRequest(raw)) {
      const id = (raw as { id?: unknown } | null)?.id;
      return errorResponse(typeof id === 'string' || Number.isFinite(id) ? id as Id : null, RPC.INVALID_REQUEST, 'Invalid Request');
    }
    const { method, params } = raw;
    const isNotification = !('id' in raw);
    const id: Id = raw.id ?? null;

    if (method === '$/cancelRequest' || method === 'notifications/cancelled') {
      const target = params as { id?: unknown; requestId?: unknown } | undefined;
      const key = (target?.id ?? target?.requestId) as Id;
      const ac = this.running.get(key);
      ac?.abort();
      return isNotification ? null : { jsonrpc: '2.0', id, result: { cancelled: ac !== undefined } };
    }
    if (method === 'rpc.discover' || method === 'methods') {
      if (isNotification) return null;
      try {
        await this.methodNames();
        const { z } = await import('zod');
        const list = this.nosh.methods().map((m) => ({ name: m.name, description: m.description, annotations: m.annotations, params: z.toJSONSchema(m.input) }));
        return { jsonrpc: '2.0', id, result: list };
      } catch (e) {
        return errorResponse(id, RPC.INTERNAL, 'Internal error', { kind: (e as Error)?.name });
      }
    }
    // exec is served to every role; any other method is looked up in the registry.
    if (method !== 'exec') {
      let names = this.names;
      if (!names) {
        try {
          names = await this.methodNames();
        } catch (e) {
          return isNotification ? null : errorResponse(id, RPC.INTERNAL, 'Internal error', { kind: (e as Error)?.name });
        }
      }
      if (!names.has(method)) return isNotification ? null : errorResponse(id, RPC.NO_METHOD, `Method not found: ${method}`);
    }
    if (Array.isArray(params)) return isNotification ? null : errorResponse(id, RPC.INVALID_PARAMS, 'Invalid params: pass an object of named parameters');

    const ac = new Cancel();
    if (!isNotification) this.running.set(id, ac);
    // A client that wants progress of a long call passes _meta.progressToken (as MCP does): it
    // gets {"method":"$/progress","params":{"token","value":{files,bytes,total?,total_bytes?,phase?}}} while the call runs.
    let p = params;
    let onProgress: ((v: unknown) => void) | undefined;
    if (p && Object.hasOwn(p, '_meta')) {
      const { _meta: meta, ...rest } = p as Record<string, unknown>;
      p = rest;
      const token = (meta as { progressToken?: unknown } | null)?.progressToken;
      if (typeof token === 'string' || typeof token === 'number') {
        onProgress = (value) => this.sendText(JSON.stringify({ jsonrpc: '2.0', method: '$/progress', params: { token, value } }));
      }
    }
    try {
      const env = await this.nosh.call(method, p ?? {}, { signal: ac, onProgress });
      if (isNotification) return null;
      if (!env.success && env.error.code === 'INVALID_ARGUMENT' && Array.isArray(env.error.details.issues)) {
        return errorResponse(id, RPC.INVALID_PARAMS, `Invalid params: ${env.error.message}`, env.error);
      }
      // Not run at all (the request queue is full): a server error the client retries, its envelope as data.
      if (!env.success && env.error.code === 'BUSY') return errorResponse(id, RPC.BUSY, `Server busy: ${env.error.message}`, env.error);
      return { jsonrpc: '2.0', id, result: env };
    } catch (e) {
      return isNotification ? null : errorResponse(id, RPC.INTERNAL, 'Internal error', { kind: (e as Error)?.name });
    } finally {
      if (this.running.get(id) === ac) this.running.delete(id);
    }
  }
}

/**
 * A JSON-RPC 2.0 request object: jsonrpc "2.0", a string method, an id that is a string, a
 * finite number or null (absent for a notification), params an object or an array when present.
 */
function isRequest(raw: unknown): raw is Request {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const r = raw as Record<string, unknown>;
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return false;
  const id = r.id;
  // A number id must come back as itself: 1e999 parses as Infinity, which JSON writes as null.
  if (id !== undefined && id !== null && typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) return false;
  const p = r.params;
  return p === undefined || (typeof p === 'object' && p !== null);
}

/**
 * A response as JSON, its id in the text it was sent as (`rawId`, for a number id); one that
 * JSON cannot hold (too long or too deep for V8) is an error with its id.
 */
function serialized(r: Response, rawId?: string): string {
  let text: string;
  try {
    text = JSON.stringify(r);
  } catch (e) {
    text = JSON.stringify(errorResponse(r.id, RPC.INTERNAL, 'Internal error: the answer could not be serialized', { kind: (e as Error)?.name }));
  }
  return spliceId(text, r.id, rawId);
}

function errorResponse(id: Id, code: number, message: string, data?: unknown): Response {
  return data === undefined ? { jsonrpc: '2.0', id, error: { code, message } } : { jsonrpc: '2.0', id, error: { code, message, data } };
}
