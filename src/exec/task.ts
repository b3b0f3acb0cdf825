import type { ErrorBody } from '../errors.js';
import type { Limits } from '../command/index.js';
import type { Change, FileGuard, Vfs, ZonePolicy } from '../vfs/index.js';
import type { Word } from '../parse/index.js';
import type { QuotaHandle } from '../vfs/charge.js';

/** What the main thread sends to a worker: plain data, structured-cloned. */
export interface TaskRequest {
  /** Host path of the zone root (never shown to anyone). */
  root: string;
  policy: ZonePolicy;
  /** Shared usage counter of the zone's quota. */
  quota?: QuotaHandle;
  cwd: string;
  /** Pipeline stages: words from the parser (globs still to expand) or literal argv. */
  stages: { words?: Word[]; argv?: string[] }[];
  /** A second zone (transfers between zones). */
  peer?: { root: string; policy: ZonePolicy; quota?: QuotaHandle; guard?: FileGuard };
  /** Group ownership rules and locks of others that restrict this call's changes (src/vfs/guard.ts). */
  guard?: FileGuard;
  /** A typed tool call instead of a command line (args already validated). */
  tool?: { name: string; args: unknown };
  stdin?: Uint8Array;
  limits: Limits;
  /** Heap + Buffer budget of the worker, MB (checked where bytes flow). */
  memoryMb?: number;
  /** Write the last stage's stdout to this zone path instead of returning it. */
  stdoutFile?: string;
  /** The context user (whoami, id); absent: 'default'. */
  user?: string;
  /** A versioned zone: its git directory (host path, never shown) and the caller, for the git command. */
  git?: { gitdir: string; user: string };
  /** Where the worker records its temp files (src/runtime/temps.ts): the lane's registry, set by the worker. */
  temps?: SharedArrayBuffer;
}

export interface TaskResult {
  exitCode: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  truncated: boolean;
  stdoutBytes: number;
  changes: Change[];
  /** Policy refusals the command met and reported on stderr (for the audit log): virtual paths. */
  refusals?: Refusal[];
  /** The commit message a command asked for (git restore / revert), for a versioned zone's commit. */
  commitMessage?: string;
}

/** A refused filesystem access inside a command (an error code of src/audit REFUSAL_CODES). */
export interface Refusal {
  code: string;
  path: string;
}

export interface ToolTaskResult {
  data: unknown;
  message: string;
  changes: Change[];
  /** Changes made in the peer zone (transfers). */
  peerChanges?: Change[];
}

export type TaskResponse =
  | { ok: true; result: TaskResult; tool?: undefined }
  | { ok: true; tool: ToolTaskResult; result?: undefined }
  | { ok: false; error: ErrorBody };

/** What a typed file tool gets when it runs inside a worker. */
export interface ToolContext {
  fs: Vfs;
  /** A second zone, for transfers between zones (internal tools only). */
  peer?: Vfs;
  /** Virtual working directory for relative paths. */
  cwd: string;
  limits: Limits;
  signal: AbortSignal;
}

export interface ToolResult {
  data: unknown;
  message?: string;
}

/** A typed tool as the worker runs it (src/tools' ToolDef is one; the worker entry finds them by name). */
export interface TaskTool {
  name: string;
  mutates: boolean;
  readOnlyMode?: boolean;
  deleteOnly?: boolean;
  run(ctx: ToolContext, args: never): Promise<ToolResult> | ToolResult;
}
