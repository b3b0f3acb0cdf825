/**
 * The shape of one entry of the method registry (src/api/methods.ts builds the registry; exec's
 * entry is in exec.ts so that exec needs no registry at start-up). Types only.
 */
import type { z } from 'zod';
import type { Envelope } from '../errors.js';
import type { CancelSignal } from '../pool/index.js';
import type { TaskRequest, TaskResponse } from '../exec/index.js';
import type { Change } from '../vfs/index.js';
import type { AuditNote } from '../audit/event.js';
import type { Context } from '../zones/context.js';
import type { Zone } from '../zones/workspace.js';
import type { WriteOrder } from './write-order.js';
import type { Surface } from './params.js';
import type { CallProgress } from './progress.js';

/** What a method is, as listed to callers (RPC, MCP, `nosh schemas`, nosh.methods()). */
export interface MethodInfo {
  name: string;
  description: string;
  input: z.ZodObject;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean };
}

/**
 * Where a method's work runs: in the main thread (host methods that read the workspace) or in a
 * worker of the pool (exec, the typed tools, import and transfer).
 */
export type Runs = 'main' | 'worker';

/**
 * Its place among the calls that change a zone (src/api/write-order.ts): 'read' never waits;
 * 'file' follows earlier writers of the file named by `path`; 'zone' follows every earlier writer
 * of the zone; 'command' is decided per command line (mayMutate); 'own': the handler takes its
 * place itself (import and transfer resolve their zones first).
 */
export type Order = 'read' | 'file' | 'zone' | 'command' | 'own';

/** One call as dispatch hands it to a handler. */
export interface Invocation {
  /** The call's time limit: its timeout_ms, or the configured default. */
  timeoutMs: number;
  signal?: CancelSignal;
  /** The caller's progress listener (onProgress) and when the call began: for main-thread work such as a commit. */
  progress?: CallProgress;
  /** Filled by the handler for the audit log. */
  note: AuditNote;
  /** Library only (nosh.exec): a host folder as the zone, and stdin as bytes. */
  root?: string;
  stdin?: Uint8Array;
}

/** What host methods may use of the engine (kept small so this file does not own the engine). */
export interface HostEngine {
  readonly config: import('../config.js').ResolvedConfig;
  readonly workspace: import('../zones/workspace.js').Workspace;
  zoneOf(req: { root?: string; zone?: string; context?: Context }): Zone | Promise<Zone>;
  runZoneTool(zone: Zone, name: string, args: unknown, o?: ZoneToolOptions): Promise<ZoneToolResult>;
  /** A versioned zone's repository, made ready (created, or what a stopped process left committed); NoshError for a zone not versioned. */
  openRepo(zone: Zone, context: Context | undefined): Promise<import('../versioning/repo.js').Repo>;
  /** The order of the calls that change a zone: host methods that write take their place in it. */
  readonly writes: Pick<WriteOrder, 'whole' | 'file'>;
  /** Ownership of group files and locked edits (src/meta). */
  readonly meta: import('../meta/index.js').MetaStore;
  /** The zone's key in the metadata store. */
  keyOf(zone: Zone): string;
  /** The ownership rows and locks of others that restrict a writing call in the zone (src/api/ownership.ts). */
  guardOf(zone: Zone, context: Context | undefined, only?: readonly string[]): Promise<import('../vfs/index.js').FileGuard | undefined>;
  /** Who a call is, for ownership and locks. */
  callerOf(zone: Zone, context: Context | undefined): import('./ownership.js').Caller;
  /** Versioning hooks of a writing call (see MethodEngine). */
  beginWrite(zone: Zone, context: Context | undefined): Promise<void>;
  abandonWrite(zone: Zone, code: string): void;
}

/** A worker tool's answer; `changes` (virtual paths) are for the audit log, not the envelope. */
export interface ZoneToolResult {
  data: unknown;
  message: string;
  changes?: import('../vfs/index.js').Change[];
  peerChanges?: import('../vfs/index.js').Change[];
}

/** What names a writing call in its commit (versioned zones): the method, what it was given, the caller's `message`. */
export interface CommitNote {
  method: string;
  /** The command line of an exec; absent for a tool (its changed paths name it). */
  summary?: string;
  message?: string;
  /** In a group zone: the mode of the files the call creates (its group_mode; default: the config's groupDefaultMode). */
  groupMode?: import('../meta/index.js').WriteAccess;
  /** The call's progress (Invocation.progress): a commit of many files reports its own. */
  progress?: CallProgress;
}

export interface ZoneToolOptions {
  /** The call may change files: in a versioned zone its changes are committed (see CommitNote). */
  commit?: CommitNote;
  /** Second zone of a transfer. */
  peer?: Zone;
  context?: Context;
  cwd?: string;
  signal?: CancelSignal;
  /** The call's time limit (default: the configured one). */
  timeoutMs?: number;
  /** The one file the call may change (write, edit: virtual, normalised): only its ownership row and lock are sent. */
  onlyPath?: string;
  /** Run a read-only call in the main thread first (src/api/inline.ts): its response, or undefined to run it in a worker. */
  inline?: (task: TaskRequest) => Promise<TaskResponse | undefined>;
}

/** What handlers may use of the engine. */
export interface MethodEngine extends HostEngine {
  /** Run a worker task (a command line or a tool) on the pool. */
  runTask(task: TaskRequest, timeoutMs: number, signal?: CancelSignal): Promise<TaskResponse>;
  /** The after-write hook of a call that changed files (nothing when none is set). */
  written(zone: Zone, context: Context | undefined, changes: Change[], about?: CommitNote): Promise<void>;
  /** Who commits in the zone are authored by, for this context. */
  authorOf(zone: Zone, context: Context | undefined): string;
  /** A writing call is about to run in the zone / failed without its changes (versioned zones). */
  beginWrite(zone: Zone, context: Context | undefined): Promise<void>;
  abandonWrite(zone: Zone, code: string): void;
  /** Whether an after-write hook is set. */
  readonly hasAfterWrite: boolean;

}

/** One entry of the method registry: every method is one of these, exec included. */
export interface Method<A = Record<string, unknown>> extends MethodInfo {
  /** The surfaces it is offered on: the model's and the runtime's, or the runtime's only. */
  surfaces: readonly Surface[];
  /** Offered to a read-only role (generalist, critic). */
  readOnlyRoles: boolean;
  runs: Runs;
  order: Order;
  /** Its calls may be answered in the main thread (src/api/inline.ts): dispatch wakes no worker for them. */
  inline?: boolean;
  /** Runs the call with its params as `input` parsed them; failures throw (NoshError, ZodError). */
  handler(engine: MethodEngine, args: A, call: Invocation): Promise<Envelope<unknown>>;
}
