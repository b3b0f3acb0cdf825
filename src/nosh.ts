/**
 * createNosh: the one way an instance is made (the library, and the CLI for exec, repl, serve
 * and mcp). Kept apart from index.ts so that the CLI loads it without the method registry that
 * index.ts re-exports (listMethods): `nosh serve` answers an exec before the typed tools are loaded.
 */
import { resolveConfig, type NoshConfig, type ResolvedConfig } from './config.js';
import type { Envelope } from './errors.js';
import { Engine, type AfterWrite, type CallOptions } from './api/engine.js';
import type { ExecData, ExecOptions, ExecRequest } from './api/exec.js';
import type { MethodInfo } from './api/method.js';
import type { Surface } from './api/params.js';
import type { GroupProvider } from './zones/workspace.js';
import type { AuditCallback } from './audit/log.js';
import type { WorkerPool } from './pool/index.js';

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
  /** Resolves when the method registry is loaded (at once unless createNosh was told not to wait: `defer`). */
  ready?(): Promise<void>;
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
  /** A worker pool already started for this config's threads and memoryMb (the CLI starts it first, so the workers boot while it loads). */
  pool?: WorkerPool;
  /**
   * Return without waiting for the method registry (the typed tools, the host methods): exec is
   * served at once, other calls wait for it; methods() needs nosh.ready() first. For `nosh serve`'s start-up.
   */
  defer?: boolean;
  /** `config` already resolved (resolveConfig): the CLI resolves it once to size its early pool, and is not made to do it twice. */
  resolved?: ResolvedConfig;
}

/** The engine behind an instance createNosh made (for the link server, src/http: it reads zones in this process). */
const ENGINES = new WeakMap<object, Engine>();

export function engineOf(nosh: Nosh): Engine {
  const e = ENGINES.get(nosh);
  if (!e) throw new Error('nosh: not an instance made by createNosh (a bound or wrapped instance cannot serve links; pass the one createNosh returned)');
  return e;
}

/** Start nosh. A bad config throws a NoshError (INVALID_ARGUMENT) naming the key. */
export async function createNosh(config: NoshConfig = {}, opts: CreateOptions = {}): Promise<Nosh> {
  const engine = new Engine(opts.resolved ?? await resolveConfig(config), opts.groupProvider, opts.afterWrite, opts.pool, opts.audit);
  if (!opts.defer) {
    try {
      await engine.ready();
    } catch (e) {
      await engine.close();
      throw e;
    }
  }
  const nosh: Nosh = {
    config: engine.config,
    exec: (req, o) => engine.exec(req, o),
    call: (m, p, o) => engine.call(m, p, o),
    methods: (role, surface) => engine.methods(role, surface),
    recordRefusal: (m, p, e) => engine.recordRefusal(m, p, e),
    ready: () => engine.ready(),
    close: () => engine.close(),
  };
  ENGINES.set(nosh, engine);
  return nosh;
}
