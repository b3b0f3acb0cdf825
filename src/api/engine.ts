import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';

import type { ResolvedConfig } from '../config.js';
import { NoshError, ok, type Envelope } from '../errors.js';
import { WorkerPool, type CancelSignal } from '../pool/index.js';
import { ContextSchema, type Context } from '../zones/context.js';
import { Workspace, withRole, type GroupProvider, type Zone } from '../zones/workspace.js';
import { chargeOf, type QuotaHandle } from '../zones/quota.js';
import { STALE_TEMP_SECONDS, removeStaleTemps } from '../zones/maintenance.js';
import type { Change } from '../vfs/index.js';
import { normalizeVirtual } from '../vfs/paths.js';
import { ExecOptionsSchema, ExecRequestSchema, buildTask, taskLimits, envelopeOfError, toEnvelope, type ExecData, type ExecOptions, type ExecRequest } from './exec.js';
import { ExecParams, ZoneParams, checkParamsSize } from './params.js';
import { nullsAsAbsent } from './strict.js';
import type { MethodInfo, Surface } from './methods.js';
import { WriteOrder, mayMutate, orderKey } from './write-order.js';
import type { HostEngine, ZoneToolOptions, ZoneToolResult } from './host.js';
import type { Role } from '../zones/context.js';
import { auditEvents, auditorFor, type AuditNote } from '../audit/event.js';
import type { AuditCallback } from '../audit/log.js';

/** What a committed write reports to the host (the versioning hook for documents and groups). */
export interface WriteEvent {
  zone: string;
  kind: Zone['kind'];
  versioned: boolean;
  user: string | undefined;
  changes: Change[];
}

export type AfterWrite = (event: WriteEvent) => void | Promise<void>;

export interface CallOptions {
  /** Abort the call (the worker running it is stopped). */
  signal?: CancelSignal;
}

/**
 * The method registry: the typed tools (and their zod schemas), the host methods and the
 * listing built from them. Loaded on first need rather than with the engine, so that `nosh
 * serve` answers an exec before it has loaded them; createNosh waits for it.
 */
interface Registry {
  tools: typeof import('../tools/index.js').TOOLS;
  host: typeof import('./host.js').HOST_METHODS;
  list: typeof import('./methods.js').listMethods;
}

let registry: Registry | undefined;
let registryLoading: Promise<Registry> | undefined;

function loadRegistry(): Promise<Registry> {
  registryLoading ??= Promise.all([import('../tools/index.js'), import('./host.js'), import('./methods.js')])
    .then(([t, h, m]) => (registry = { tools: t.TOOLS, host: h.HOST_METHODS, list: m.listMethods }));
  return registryLoading;
}

/** The engine behind the library API, RPC and MCP: zones, pool, methods. */
export class Engine implements HostEngine {
  readonly workspace: Workspace;
  private readonly pool: WorkerPool;
  private closed = false;
  /** The order of the calls that change files, per zone (see WriteOrder). */
  readonly writes = new WriteOrder();
  /** The audit log's sinks (src/audit); undefined when it is off. */
  private readonly audit: ReturnType<typeof auditorFor>;

  /** `pool`: one already started for this config's threads and memoryMb (the CLI starts it before loading the engine). */
  constructor(readonly config: ResolvedConfig, groupProvider?: GroupProvider, private readonly afterWrite?: AfterWrite, pool?: WorkerPool,
    audit?: AuditCallback) {
    this.workspace = new Workspace(config, groupProvider);
    this.pool = pool ?? new WorkerPool({ threads: config.threads, memoryMb: config.limits.memoryMb, rssMb: config.limits.rssMb });
    if (pool && config.limits.rssMb !== undefined) pool.setRssLimit(config.limits.rssMb);
    this.audit = auditorFor(config, this.workspace.base, audit);
    // Temp files that killed processes left mid-write are removed at start, in the background
    // (the scan yields to callers); ready() waits for it.
    this.swept = new Promise((r) => setImmediate(r))
      .then(() => removeStaleTemps(this.workspace.writableFolders(), STALE_TEMP_SECONDS)).catch(() => 0);
  }

  /** Run a call and write its audit lines (refusals, changes): the one place every call ends. */
  private async audited<T>(method: string, req: unknown, call: (note: AuditNote) => Promise<Envelope<T>>): Promise<Envelope<T>> {
    const t0 = performance.now();
    const note: AuditNote = {};
    const env = await call(note);
    this.emitAudit(method, req, env, note, performance.now() - t0);
    return env;
  }

  /** The audit lines of a finished call, to the sinks; a failure to build them never fails the call. */
  private emitAudit(method: string, req: unknown, env: Envelope<unknown>, note: AuditNote, ms: number): void {
    if (!this.audit) return;
    try {
      for (const e of auditEvents(this.config, method, req as never, env, note, ms)) this.audit.auditor.emit(e);
    } catch {
      this.audit.auditor.failures++;
    }
  }

  /** The start-up removal of stale temp files: how many it removed. */
  readonly swept: Promise<number>;

  /**
   * The zone of a request: an explicit host root (library only) or a named zone for the
   * context. A promise for a group zone (membership may be asked asynchronously) and on the
   * first call of a quota (its folders are scanned).
   */
  zoneOf(req: { root?: string; zone?: string; context?: Context }): Zone | Promise<Zone> {
    if (req.root !== undefined) {
      if (req.zone !== undefined) throw new NoshError('INVALID_ARGUMENT', 'give root or zone, not both', '');
      return withRole({ name: 'root', kind: 'root', root: req.root, versioned: false, policy: this.workspace.rootPolicy() }, req.context ?? {});
    }
    const zone = this.workspace.resolve(req.zone, req.context ?? {});
    return zone instanceof Promise ? zone.then((z) => this.seeded(z)) : this.seeded(zone);
  }

  private seeded(zone: Zone): Zone {
    if (zone.kind === 'storage' && this.config.root === undefined) seedWelcome(zone.root, zone.quota);
    return zone;
  }

  exec(rawReq: ExecRequest, rawOpts: ExecOptions & CallOptions = {}): Promise<Envelope<ExecData>> {
    return this.audit ? this.audited('exec', rawReq, (note) => this.execute(rawReq, rawOpts, note)) : this.execute(rawReq, rawOpts);
  }

  private async execute(rawReq: ExecRequest, rawOpts: ExecOptions & CallOptions = {}, note?: AuditNote): Promise<Envelope<ExecData>> {
    if (this.closed) return closedEnvelope();
    this.pool.prewake();
    try {
      const { signal, ...rest } = rawOpts;
      checkParamsSize(rawReq);
      const req = ExecRequestSchema.parse(rawReq);
      const opts = ExecOptionsSchema.parse(rest);
      const zoneOrPromise = this.zoneOf(req);
      const zone = zoneOrPromise instanceof Promise ? await zoneOrPromise : zoneOrPromise;
      const task = buildTask(req, opts, zone.root, zone.policy, this.config.limits, zone.quota);
      const timeoutMs = opts.timeoutMs ?? this.config.limits.timeoutMs;
      const run = async () => {
        const res = await this.pool.run(task, timeoutMs, signal);
        if (this.afterWrite && res.ok && res.result) await this.written(zone, req.context, res.result.changes);
        return res;
      };
      // A reading command line (most calls) goes straight to the pool: no wrapper on the hot path.
      const res = await (mayMutate(task) ? this.writes.whole(orderKey(zone).root, run) : this.pool.run(task, timeoutMs, signal));
      if (note && res.ok && res.result) ({ changes: note.changes, refusals: note.refusals } = res.result);
      return toEnvelope(res, opts, task.limits.maxOutputBytes);
    } catch (e) {
      return envelopeOfError(e);
    }
  }

  /**
   * Log a call refused before it reached the engine (the trust boundary of bindIdentity: a
   * request that tried to change who it is). `req` carries the identity the caller is bound to.
   */
  recordRefusal(method: string, req: unknown, env: Envelope<unknown>): void {
    this.emitAudit(method, req, env, {}, 0);
  }

  /** Call any registry method by name with JSON params (what RPC and MCP use). */
  call(method: string, params: unknown, opts: CallOptions = {}): Promise<Envelope<unknown>> {
    return this.audit ? this.audited(method, params, (note) => this.dispatch(method, params, opts, note)) : this.dispatch(method, params, opts);
  }

  private async dispatch(method: string, params: unknown, opts: CallOptions = {}, note?: AuditNote): Promise<Envelope<unknown>> {
    if (this.closed) return closedEnvelope();
    this.pool.prewake();
    try {
      // strict function calling sends null for an optional argument not given (src/api/strict.ts);
      // the size check's walk tells whether the params hold a null, so they are walked once
      if (checkParamsSize(params)) params = nullsAsAbsent(method === 'exec' ? ExecParams : (registry ?? await loadRegistry()).list().find((m) => m.name === method)?.input, params);
      if (method === 'exec') {
        const p = ExecParams.parse(params ?? {});
        return await this.execute(
          { zone: p.zone, context: p.context, cwd: p.cwd, command: p.command, cmd: p.cmd, args: p.args },
          { stdin: p.stdin, timeoutMs: p.timeout_ms, maxOutputBytes: p.max_output_bytes, stdoutFile: p.stdout_file, signal: opts.signal }, note,
        );
      }
      const { tools, host: hostMethods, list } = registry ?? await loadRegistry();
      const tool = tools.get(method);
      if (tool) {
        const { zone, cwd, context, ...args } = (params ?? {}) as { zone?: unknown; cwd?: unknown; context?: unknown };
        // zone and cwd as the registry's schema has them (a wrong type is INVALID_ARGUMENT, not a crash):
        // checked by hand on the hot path, the zod schema only names what is wrong.
        if ((zone !== undefined && (typeof zone !== 'string' || zone === '')) || (cwd !== undefined && typeof cwd !== 'string')) {
          z.object(ZoneParams).pick({ zone: true, cwd: true }).parse({ zone, cwd });
        }
        const parsed = tool.input.parse(args);
        const ctx = context === undefined ? undefined : ContextSchema.parse(context);
        const zoneOrPromise = this.zoneOf({ zone: zone as string | undefined, context: ctx });
        const z0 = zoneOrPromise instanceof Promise ? await zoneOrPromise : zoneOrPromise;
        const run = () => this.runZoneTool(z0, method, parsed, { context: ctx, cwd: cwd as string | undefined, signal: opts.signal });
        const key = orderKey(z0);
        const out = await (!tool.mutates ? run()
          : ONE_FILE.has(method) ? this.writes.file(key.root, key.prefix + normalizeVirtual((parsed as { path: string }).path, (cwd as string | undefined) ?? '/'), run)
          : this.writes.whole(key.root, run));
        if (note) ({ changes: note.changes, peerChanges: note.peerChanges } = out);
        return ok(out.data, out.message);
      }
      const host = hostMethods.find((m) => m.name === method);
      if (host) {
        const out = await host.run(this, host.input.parse(params ?? {}) as Record<string, unknown>);
        if (note) ({ changes: note.changes, peerChanges: note.peerChanges } = out as AuditNote);
        return ok(out.data, out.message ?? 'ok');
      }
      return envelopeOfError(new NoshError('INVALID_ARGUMENT', `unknown method '${method}'`,
        `Methods: ${list().map((m) => m.name).join(', ')}.`));
    } catch (e) {
      return envelopeOfError(e);
    }
  }

  /** The registry's methods; needs ready() to have resolved (createNosh waits for it). */
  methods(role?: Role, surface?: Surface): MethodInfo[] {
    if (!registry) throw new Error('nosh: methods() before the method registry was loaded (await ready())');
    return registry.list(role, surface);
  }

  /** Load the method registry (the typed tools, the host methods): what methods() needs. */
  async ready(): Promise<void> {
    await Promise.all([loadRegistry(), this.swept]);
  }

  /** Run a worker tool in a zone (and a peer zone for transfers); failures throw as NoshError. */
  async runZoneTool(zone: Zone, name: string, args: unknown, o: ZoneToolOptions = {}): Promise<ZoneToolResult> {
    const { peer, context } = o;
    const res = await this.pool.run({
      root: zone.root, policy: zone.policy, quota: zone.quota, cwd: o.cwd ?? '/', stages: [], tool: { name, args }, limits: taskLimits(this.config.limits),
      peer: peer && { root: peer.root, policy: peer.policy, quota: peer.quota },
    }, this.config.limits.timeoutMs, o.signal);
    if (!res.ok) throw new NoshError(res.error.code, res.error.message, res.error.hint, res.error.details);
    if (this.afterWrite) {
      await this.written(zone, context, res.tool!.changes);
      if (peer) await this.written(peer, context, res.tool!.peerChanges ?? []);
    }
    // the changes go to the audit log (see dispatch), never into the envelope
    return { data: res.tool!.data, message: res.tool!.message, changes: res.tool!.changes, peerChanges: res.tool!.peerChanges };
  }

  /**
   * After-write work in the main thread: the hook where versioned zones will commit. It is
   * bounded by the call timeout: a hook that never ends would otherwise hold every later
   * writer of the zone (they wait for this call) and the caller forever.
   */
  private async written(zone: Zone, context: Context | undefined, changes: Change[]): Promise<void> {
    if (!this.afterWrite || changes.length === 0) return;
    const user = zone.kind === 'root' || zone.kind === 'mount' ? context?.user : this.workspace.userOf(context ?? {});
    const hook = Promise.resolve(this.afterWrite({ zone: zone.name, kind: zone.kind, versioned: zone.versioned, user, changes }));
    const ms = this.config.limits.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NoshError('TIMEOUT',
        `the change was made, but the after-write step (the commit of a versioned zone) did not finish within ${ms} ms`,
        'The files are changed: read them before retrying, and tell the operator if this repeats.')), ms);
    });
    try {
      await Promise.race([hook, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.audit?.file?.close();
    await this.pool.close();
  }
}

/**
 * Mutating tools that change only the file named by their `path` (zone root + normalised
 * virtual path is the key of WriteOrder.file); the other mutating tools may change any file.
 */
const ONE_FILE = new Set(['write', 'edit']);

function closedEnvelope() {
  return envelopeOfError(new NoshError('INTERNAL_ERROR', 'nosh is closed', 'Create a new instance.'));
}

const seeded = new Set<string>();

const WELCOME = 'This is your nosh workspace.\nTry: ls -la, cat README.txt, echo hello | wc -c\n';

/**
 * A new personal storage gets a short welcome file, so a first `ls` shows something useful.
 * The quota ledger was built before the file existed: its bytes are added to it here.
 */
function seedWelcome(root: string, quota?: QuotaHandle): void {
  if (seeded.has(root)) return;
  seeded.add(root);
  const file = path.join(root, 'README.txt');
  try {
    // one entry read, not the whole listing: a root of a million files stalled the first call
    const dir = fs.opendirSync(root, { bufferSize: 1 });
    let empty: boolean;
    try { empty = dir.readSync() === null; } finally { dir.closeSync(); }
    if (empty) {
      fs.writeFileSync(file, WELCOME, { flag: 'wx' });
      if (quota) {
        const counters = new BigInt64Array(quota.sab);
        Atomics.add(counters, quota.index, BigInt(chargeOf(fs.statSync(file))));
        Atomics.add(counters, quota.index + 1, 1n);
      }
    }
  } catch { /* best effort */ }
}

