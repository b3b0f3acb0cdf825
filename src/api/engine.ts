import * as fs from 'node:fs';
import * as path from 'node:path';

import type { ResolvedConfig } from '../config.js';
import { NoshError, type Envelope } from '../errors.js';
import { WorkerPool, type CancelSignal } from '../pool/index.js';
import type { Context } from '../zones/context.js';
import { Workspace, withRole, type GroupProvider, type Zone } from '../zones/workspace.js';
import { chargeOf, type QuotaHandle } from '../zones/quota.js';
import { STALE_TEMP_SECONDS, removeStaleTemps } from '../zones/maintenance.js';
import type { Change } from '../vfs/index.js';
import type { TaskRequest, TaskResponse } from '../exec/index.js';
import { LIMITS } from '../limits.js';
import type { Progress } from '../runtime/progress.js';
import { phaseProgress } from './progress.js';
import { EXEC_HANDLER, execArgsOf, execParamsOf, taskLimits, envelopeOfError, type ExecData, type ExecOptions, type ExecRequest } from './exec.js';
import { checkParamsSize, type Surface } from './params.js';
import { nullsAsAbsent } from './strict.js';
import type { Invocation, Method, MethodEngine, MethodInfo } from './method.js';
import { createMetaStore, zoneKey, type MetaStore, type WriteAccess } from '../meta/index.js';
import { flushLinks } from '../links/index.js';
import { guardOf, recordOwnership, relOf, type Caller } from './ownership.js';
import type { FileGuard } from '../vfs/index.js';
import { WriteOrder } from './write-order.js';
import { AcrossProcesses } from './across.js';
import type { ZoneToolOptions, ZoneToolResult } from './host.js';
import type { Role } from '../zones/context.js';
import { auditEvents, auditorFor, type AuditNote } from '../audit/event.js';
import type { AuditCallback } from '../audit/log.js';
import { Versioning, changedPaths, commitMessage, notVersioned, type VersionedZone } from '../versioning/commit.js';
import type { Repo } from '../versioning/repo.js';
import type { CommitNote } from './method.js';

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
  /**
   * Progress of a call that runs longer than a second (files and bytes done, the total when
   * known), every half second while it moves: what `$/progress` and MCP's notifications/progress carry.
   */
  onProgress?: (p: Progress) => void;
}

/** The call's signal, carrying its progress listener down to the pool (see CancelSignal.onProgress). */
function progressSignal(opts: CallOptions): CancelSignal | undefined {
  if (!opts.onProgress) return opts.signal;
  const s = opts.signal;
  return {
    get aborted() { return s?.aborted ?? false; },
    addEventListener: (t, l, o) => s?.addEventListener(t, l, o),
    removeEventListener: (t, l) => s?.removeEventListener(t, l),
    onProgress: opts.onProgress,
  };
}

/**
 * The method registry (src/api/methods.ts): exec's entry is loaded with the engine, the rest (the
 * typed tools and their zod schemas, the host methods) on first need, so that `nosh serve`
 * answers an exec before it has loaded them; createNosh waits for it unless told not to.
 */
type Registry = typeof import('./methods.js');

let registry: Registry | undefined;
let registryLoading: Promise<Registry> | undefined;

function loadRegistry(): Promise<Registry> {
  registryLoading ??= import('./methods.js').then((m) => (registry = m));
  return registryLoading;
}

/** The engine behind the library API, RPC and MCP: zones, pool, methods. */
export class Engine implements MethodEngine {
  readonly workspace: Workspace;
  private readonly pool: WorkerPool;
  private closed = false;
  /** The order of the calls that change files, per zone (see WriteOrder), and across processes (AcrossProcesses). */
  readonly writes = new WriteOrder((zones, run, oneFile) => this.across.run(zones, run, oneFile));
  private readonly across: AcrossProcesses;
  /** The commits of versioned zones (src/versioning). */
  readonly versioning = new Versioning();
  /** Ownership of group files and locked edits, shared with the other processes serving the base (src/meta). */
  readonly meta: MetaStore;
  private readonly metaOpened: Promise<void>;
  /** The audit log's sinks (src/audit); undefined when it is off. */
  private readonly audit: ReturnType<typeof auditorFor>;

  /** `pool`: one already started for this config's threads and memoryMb (the CLI starts it before loading the engine). */
  constructor(readonly config: ResolvedConfig, groupProvider?: GroupProvider, private readonly afterWrite?: AfterWrite, pool?: WorkerPool,
    audit?: AuditCallback) {
    this.workspace = new Workspace(config, groupProvider);
    this.meta = createMetaStore(config, this.workspace.base);
    this.across = new AcrossProcesses(this.meta, this.workspace.base, this.workspace.quotas);
    this.metaOpened = this.meta.open();
    this.metaOpened.catch(() => {}); // ready() reports it
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
      const root = withRole({ name: 'root', kind: 'root', root: req.root, versioned: false, policy: this.workspace.rootPolicy() }, req.context ?? {});
      this.across.learn(root);
      return root;
    }
    const zone = this.workspace.resolve(req.zone, req.context ?? {});
    return zone instanceof Promise ? zone.then((z) => this.seeded(z)) : this.seeded(zone);
  }

  private seeded(zone: Zone): Zone {
    this.across.learn(zone);
    if (zone.kind === 'storage' && this.config.root === undefined) seedWelcome(zone.root, zone.quota);
    return zone;
  }

  /** The library's exec: its camelCase request and options mapped onto exec's parameters, then dispatched as every call. */
  exec(req: ExecRequest, opts: ExecOptions & CallOptions = {}): Promise<Envelope<ExecData>> {
    const run = (note: AuditNote) => {
      try {
        const { signal, onProgress, ...rest } = opts;
        const { params, root, stdin } = execParamsOf(req, rest as Record<string, unknown>);
        return this.dispatch('exec', params, { signal, onProgress }, note, { root, stdin });
      } catch (e) {
        return Promise.resolve(envelopeOfError(e));
      }
    };
    return (this.audit ? this.audited('exec', req, run) : run({})) as Promise<Envelope<ExecData>>;
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
    return this.audit ? this.audited(method, params, (note) => this.dispatch(method, params, opts, note)) : this.dispatch(method, params, opts, {});
  }

  /**
   * The one dispatch path: the registry entry, its params parsed by its schema, its handler run
   * within the call's timeout_ms (a worker's run is stopped by the pool; a main-thread method's
   * answer is given up at the deadline, its work left to finish).
   */
  private async dispatch(method: string, params: unknown, opts: CallOptions, note: AuditNote,
    lib: Pick<Invocation, 'root' | 'stdin'> = {}): Promise<Envelope<unknown>> {
    if (this.closed) return closedEnvelope();
    try {
      // strict function calling sends null for an optional argument not given (src/api/strict.ts);
      // the size check's walk tells whether the params hold a null, so they are walked once
      const nulls = checkParamsSize(params);
      // exec's usual params are checked by hand (no zod, no registry); any other shape goes to its schema
      const fast = method === 'exec' && !nulls ? execArgsOf(params ?? {}) : undefined;
      const entry: Method | undefined = fast ? EXEC_HANDLER as unknown as Method : (registry ?? await loadRegistry()).METHODS.get(method);
      // a method that may answer in this thread (src/api/inline.ts) wakes no worker
      if (!entry?.inline) this.pool.prewake();
      if (nulls) params = nullsAsAbsent(entry?.input, params);
      if (!entry) {
        const list = (registry ?? await loadRegistry()).listMethods();
        throw new NoshError('INVALID_ARGUMENT', `unknown method '${method}'`, `Methods: ${list.map((m) => m.name).join(', ')}.`);
      }
      const args = (fast ?? entry.input.parse(params ?? {})) as Record<string, unknown> & { timeout_ms?: number };
      const call: Invocation = { timeoutMs: args.timeout_ms ?? this.config.limits.timeoutMs, signal: progressSignal(opts), note, ...lib,
        ...(opts.onProgress ? { progress: { report: opts.onProgress, since: Date.now() } } : {}) };
      const done = entry.handler(this, args, call);
      // A worker's run is always bounded (by the pool); a main-thread method only when the call gives timeout_ms.
      return await (entry.runs === 'main' && args.timeout_ms !== undefined ? withinTimeout(method, done, args.timeout_ms) : done);
    } catch (e) {
      return envelopeOfError(e);
    }
  }

  /** The registry's methods; needs ready() to have resolved (createNosh waits for it). */
  methods(role?: Role, surface?: Surface): MethodInfo[] {
    if (!registry) throw new Error('nosh: methods() before the method registry was loaded (await ready())');
    return registry.listMethods(role, surface);
  }

  /** Load the method registry (the typed tools, the host methods): what methods() needs. */
  async ready(): Promise<void> {
    await Promise.all([loadRegistry(), this.swept, this.metaOpened]);
  }

  /** Run a worker tool in a zone (and a peer zone for transfers); failures throw as NoshError. */
  async runZoneTool(zone: Zone, name: string, args: unknown, o: ZoneToolOptions = {}): Promise<ZoneToolResult> {
    const { peer, context } = o;
    if (o.commit) for (const z of [zone, peer]) if (z) await this.beginWrite(z, context);
    // a one-file call gets that file's row and lock only (a followed symlink could reach another file: then all)
    const guard = o.commit && !zone.policy.readonly ? await this.guardOf(zone, context, o.onlyPath === undefined || zone.policy.followSymlinks ? undefined : [relOf(o.onlyPath)]) : undefined;
    const peerGuard = o.commit && peer ? await this.guardOf(peer, context) : undefined;
    const task: TaskRequest = {
      root: zone.root, policy: zone.policy, quota: zone.quota, cwd: o.cwd ?? '/', stages: [], tool: { name, args }, limits: taskLimits(this.config.limits),
      peer: peer && { root: peer.root, policy: peer.policy, quota: peer.quota, guard: peerGuard }, guard,
    };
    // a typed read may be answered in this thread (src/api/inline.ts); undefined: past its budget
    const res = (o.inline && !o.commit && !peer && !o.signal?.aborted ? await o.inline(task) : undefined)
      ?? await this.pool.run(task, o.timeoutMs ?? this.config.limits.timeoutMs, o.signal);
    if (!res.ok) {
      if (o.commit) for (const z of [zone, peer]) if (z) this.abandonWrite(z, res.error.code);
      throw new NoshError(res.error.code, res.error.message, res.error.hint, res.error.details);
    }
    if (this.afterWrite || o.commit) {
      await this.written(zone, context, res.tool!.changes, o.commit);
      if (peer) await this.written(peer, context, res.tool!.peerChanges ?? [], o.commit);
    }
    // the changes go to the audit log (see dispatch), never into the envelope
    return { data: res.tool!.data, message: res.tool!.message, changes: res.tool!.changes, peerChanges: res.tool!.peerChanges };
  }

  /** Run a worker task on the pool. */
  runTask(task: TaskRequest, timeoutMs: number, signal?: CancelSignal): Promise<TaskResponse> {
    return this.pool.run(task, timeoutMs, signal);
  }

  /** Who a call is, for ownership and locks: the zone's user and the context's conversation. */
  callerOf(zone: Zone, context: Context | undefined): Caller {
    return { user: this.authorOf(zone, context), conversation: context?.conversation ?? '' };
  }

  /** The zone's key in the metadata store. */
  keyOf(zone: Zone): string {
    // a library call's own root folder (and a lock's working copy) is named by its folder: 'root' is the configured root
    if (zone.kind === 'root' && (this.config.root === undefined || path.resolve(this.config.root) !== path.resolve(zone.root))) return `abs:${path.resolve(zone.root)}`;
    return zoneKey(this.workspace.base, zone);
  }

  /** What a writing call in the zone may not change: the ownership rows and locks of others (undefined: nothing). */
  async guardOf(zone: Zone, context: Context | undefined, only?: readonly string[]): Promise<FileGuard | undefined> {
    return guardOf(this.meta, zone, this.keyOf(zone), this.callerOf(zone, context), Date.now(), only);
  }

  get hasAfterWrite(): boolean {
    return this.afterWrite !== undefined;
  }

  async openRepo(zone: Zone, context: Context | undefined): Promise<Repo> {
    if (!zone.gitdir) throw notVersioned(zone.name);
    return this.versioning.open(versionedZone(zone), this.authorOf(zone, context));
  }

  /** A writing call is about to run: a versioned zone marks its repository (see Versioning.begin). */
  async beginWrite(zone: Zone, context: Context | undefined): Promise<void> {
    if (zone.gitdir) await this.versioning.begin(versionedZone(zone), this.authorOf(zone, context));
  }

  /** Who a commit in the zone is authored by: the context's user. */
  authorOf(zone: Zone, context: Context | undefined): string {
    return zone.kind === 'root' || zone.kind === 'mount' ? context?.user ?? this.config.companion?.user ?? this.config.defaultUser : this.workspace.userOf(context ?? {});
  }

  /** A writing call failed: what it changed is found by the next commit's comparison. */
  abandonWrite(zone: Zone, code: string): void {
    if (zone.gitdir) this.versioning.abandon(versionedZone(zone), code);
  }

  /** The commit of a call's changes in a versioned zone (one commit, the paths it changed). */
  private async commitOf(zone: Zone, context: Context | undefined, changes: Change[], about: CommitNote | undefined): Promise<void> {
    const paths = changedPaths(changes);
    const progress = phaseProgress(about?.progress, 'commit');
    try {
      await this.versioning.commit(versionedZone(zone), { paths, user: this.authorOf(zone, context), message: commitMessage(about, paths), conversation: context?.conversation,
        onProgress: progress?.update });
    } finally {
      progress?.end();
    }
  }

  /**
   * After-write work in the main thread: the hook where versioned zones will commit. It is
   * bounded by the call timeout: a hook that never ends would otherwise hold every later
   * writer of the zone (they wait for this call) and the caller forever.
   */
  async written(zone: Zone, context: Context | undefined, changes: Change[], about?: CommitNote): Promise<void> {
    if (zone.kind === 'group' && changes.length > 0) {
      const mode: WriteAccess = about?.groupMode ?? this.config.groupDefaultMode;
      await recordOwnership(this.meta, this.keyOf(zone), changes, this.authorOf(zone, context), mode);
    }
    if (zone.gitdir && about) await this.commitOf(zone, context, changes, about);
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
    await flushLinks(this.meta).catch(() => {}); // the links' counted hits
    await this.meta.close();
  }
}

export function versionedZone(zone: Zone): VersionedZone {
  return { root: zone.root, gitdir: zone.gitdir!, policy: zone.policy, quota: zone.quota };
}

/** A main-thread method's answer, or TIMEOUT at the call's deadline (as the pool stops a worker's run). */
function withinTimeout<T>(method: string, work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoshError('TIMEOUT', `${method} timed out after ${ms} ms`,
      `Retry later, or raise timeout_ms (max ${LIMITS.timeoutMs.max}).`, { timeout_ms: ms })), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

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

