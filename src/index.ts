/**
 * nosh as a library: `const nosh = await createNosh(config)`, then `nosh.exec(...)` or
 * `nosh.call(method, params)`. Every call returns an envelope; nothing throws for a bad
 * request or a failing command.
 */
import { parseConfig, type NoshConfig, type ResolvedConfig } from './config.js';
import type { Envelope } from './errors.js';
import { Engine, type AfterWrite, type CallOptions } from './api/engine.js';
import type { ExecData, ExecOptions, ExecRequest } from './api/exec.js';
import type { MethodInfo, Surface } from './api/methods.js';
import type { GroupProvider } from './zones/workspace.js';
import type { AuditCallback } from './audit/log.js';

export type { NoshConfig, ResolvedConfig } from './config.js';
export type { ExecData, ExecOptions, ExecRequest } from './api/exec.js';
export type { Envelope, ErrorBody, ErrorCode } from './errors.js';
export { NoshError, ERROR_CODES } from './errors.js';
export type { ZonePolicy } from './vfs/index.js';
export type { MethodInfo, Surface } from './api/methods.js';
export { listMethods } from './api/methods.js';
export { bindIdentity, type Binding } from './api/identity.js';
export type { AfterWrite, CallOptions, WriteEvent } from './api/engine.js';
export type { Context, Role } from './zones/context.js';
export type { GroupProvider } from './zones/workspace.js';
export type { AuditEvent, AuditChange, AuditCallback } from './audit/log.js';

export interface Nosh {
  /** Run a command line or an argv in a zone. */
  exec(req: ExecRequest, opts?: ExecOptions & CallOptions): Promise<Envelope<ExecData>>;
  /** Call any method of the registry by name with JSON params (what RPC and MCP use). */
  call(method: string, params: unknown, opts?: CallOptions): Promise<Envelope<unknown>>;
  /**
   * The methods this instance serves (a read-only role sees fewer). `surface` 'model' is what a
   * model may be offered (no `context`, no import or maintenance); 'runtime' (the library's default) is everything.
   */
  methods(role?: import('./zones/context.js').Role, surface?: Surface): MethodInfo[];
  /** Write the audit line of a call refused outside the engine (bindIdentity's refusals); optional. */
  recordRefusal?(method: string, params: unknown, envelope: Envelope<unknown>): void;
  /** The effective configuration. */
  readonly config: ResolvedConfig;
  /** Stop the workers (a worker still starting is let start first: up to 10 s). Calls after it fail with INTERNAL_ERROR. */
  close(): Promise<void>;
}

export interface CreateOptions {
  /** Group membership (default: the config's groups map). */
  groupProvider?: GroupProvider;
  /** Called in the main thread after every call that changed files (zone, user, changes). */
  afterWrite?: AfterWrite;
  /**
   * Called in the main thread with each audit event (a refused attempt or a change), besides
   * the config's audit file. What it throws is swallowed: it never fails a call.
   */
  audit?: AuditCallback;
}

/** Start nosh. A bad config throws a NoshError (INVALID_ARGUMENT) naming the key. */
export async function createNosh(config: NoshConfig = {}, opts: CreateOptions = {}): Promise<Nosh> {
  const engine = new Engine(parseConfig(config), opts.groupProvider, opts.afterWrite, undefined, opts.audit);
  try {
    await engine.ready();
  } catch (e) {
    await engine.close();
    throw e;
  }
  return {
    config: engine.config,
    exec: (req, o) => engine.exec(req, o),
    call: (m, p, o) => engine.call(m, p, o),
    methods: (role, surface) => engine.methods(role, surface),
    recordRefusal: (m, p, e) => engine.recordRefusal(m, p, e),
    close: () => engine.close(),
  };
}
