import { isUtf8 } from 'node:buffer';
import type { z } from 'zod';
import { NoshError, ok, type Envelope } from '../errors.js';
import { errorBody } from '../runtime/error-body.js';
import type { LimitsConfig } from '../config.js';
import { parseCommandLine } from '../parse/index.js';
import type { TaskRequest, TaskResponse } from '../exec/index.js';
import type { ZonePolicy } from '../vfs/index.js';
import type { ExecParams } from './params-schema.js';
import { LIMITS } from '../limits.js';
import { MAX_GROUPS, ROLES } from '../zones/context.js';
import type { Method } from './method.js';
import { mayMutate, orderKey } from './write-order.js';
import type { QuotaHandle } from '../vfs/charge.js';

/**
 * The library's exec request (nosh.exec(req, opts)): exec's wire parameters (ExecParams, the one
 * schema) in camelCase, plus what only a library caller can give: a host folder as `root`,
 * stdin as bytes. execParamsOf maps it onto the wire parameters.
 */
export interface ExecRequest {
  /** Host folder to use as the zone root (library callers only). */
  root?: string;
  zone?: string;
  context?: import('../zones/context.js').Context;
  cwd?: string;
  /** A command line: tokenized, checked for metacharacters, globs expanded in the zone. */
  command?: string;
  /** The argv form: no tokenizing, no globbing; args are literal. */
  cmd?: string;
  args?: string[];
}

export interface ExecOptions {
  stdin?: string | Uint8Array;
  timeoutMs?: number;
  maxOutputBytes?: number;
  stdoutFile?: string;
}

const OPTION_KEYS: Record<string, string> = { stdin: 'stdin', timeoutMs: 'timeout_ms', maxOutputBytes: 'max_output_bytes', stdoutFile: 'stdout_file' };

/** nosh.exec's request and options as exec's wire parameters, and the library-only parts beside them. */
export function execParamsOf(req: unknown, opts: Record<string, unknown>): { params: unknown; root?: string; stdin?: Uint8Array } {
  const unknown = Object.keys(opts).filter((k) => !Object.hasOwn(OPTION_KEYS, k));
  if (unknown.length > 0) {
    throw new NoshError('INVALID_ARGUMENT', `exec options: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.slice(0, 5).map((k) => JSON.stringify(k)).join(', ')}`,
      'Options are stdin, timeoutMs, maxOutputBytes, stdoutFile and signal.', { keys: unknown.slice(0, 20) });
  }
  if (typeof req !== 'object' || req === null || Array.isArray(req)) return { params: req };
  const { root, ...params } = req as Record<string, unknown>;
  if (root !== undefined && (typeof root !== 'string' || root === '')) {
    throw new NoshError('INVALID_ARGUMENT', 'root: a host folder, a non-empty string', 'Give root as a folder path, or a zone name as zone.');
  }
  let stdin: Uint8Array | undefined;
  for (const [k, v] of Object.entries(opts)) {
    if (v === undefined) continue;
    if (k === 'stdin' && v instanceof Uint8Array) stdin = v;
    else params[OPTION_KEYS[k]!] = v;
  }
  return { params, root: root as string | undefined, stdin };
}

export type ExecArgs = z.output<typeof ExecParams>;

export interface ExecData {
  exit_code: number;
  stdout: string;
  /** Present when stdout is not valid UTF-8: the exact bytes. */
  stdout_base64?: string;
  stderr: string;
  truncated: boolean;
  /** Bytes the command wrote to stdout (more than returned when truncated). */
  stdout_bytes: number;
  stdout_file?: string;
}

/** Longest command line, in UTF-8 bytes (Linux's ARG_MAX for a whole argv). */
export const MAX_COMMAND_LINE = 2 * 1024 * 1024;

/** The limits a worker task carries, from the configured ones (the output cap may be lowered per call). */
export function taskLimits(l: LimitsConfig, maxOutputBytes = l.maxOutputBytes) {
  return {
    maxOutputBytes, maxResults: l.maxResults, maxBufferBytes: l.maxBufferBytes,
    archive: { maxEntries: l.archiveEntries, maxRatio: l.archiveRatio, maxTotalBytes: l.archiveBytes },
    maxDatabaseBytes: l.maxDatabaseMb * 1024 * 1024, sqliteReadonly: l.sqliteReadonly,
    sqliteResultCacheBytes: l.sqliteResultCacheMb * 1024 * 1024,
    ...(l.contentCacheMb > 0 ? { contentCacheBytes: l.contentCacheMb * 1024 * 1024 } : {}),
  };
}

/** Build the worker task for one exec call (zone already resolved to a root and policy). */
export function buildTask(req: ExecArgs, stdinBytes: Uint8Array | undefined,
  root: string, policy: ZonePolicy, limits: LimitsConfig, quota?: QuotaHandle): TaskRequest {
  let stages: TaskRequest['stages'];
  if (req.cmd !== undefined) {
    if (req.command !== undefined) throw new NoshError('INVALID_ARGUMENT', 'give either command or cmd/args, not both', 'Use command for a command line, cmd+args for literal argv.');
    stages = [{ argv: [req.cmd, ...(req.args ?? [])] }];
  } else if (req.command !== undefined) {
    // The serving thread parses it: a hostile line of many MB cost up to a second of every caller's time.
    if (req.command.length > MAX_COMMAND_LINE) {
      const bytes = Buffer.byteLength(req.command);
      if (bytes > MAX_COMMAND_LINE) {
        throw new NoshError('INVALID_ARGUMENT', `the command line is ${bytes} bytes; the limit is ${MAX_COMMAND_LINE} (2 MiB, as the kernel's ARG_MAX)`,
          'Pass long text on stdin, write it to a file with the write tool, or give the argument list as cmd + args.', { bytes, max_bytes: MAX_COMMAND_LINE });
      }
    }
    const parsed = parseCommandLine(req.command, { pipes: policy.pipes });
    if (parsed.stages.length === 0) throw new NoshError('MISSING_PARAMETER', 'the command line is empty', 'Give a command, e.g. ls -la.');
    stages = parsed.stages.map((words) => ({ words }));
  } else {
    throw new NoshError('MISSING_PARAMETER', 'command is required', 'Pass command: "ls -la" or cmd: "ls", args: ["-la"].');
  }
  const stdin = typeof req.stdin === 'string' ? Buffer.from(req.stdin, 'utf8') : stdinBytes;
  return {
    root, policy, quota, cwd: req.cwd ?? '/', stages, stdin,
    limits: taskLimits(limits, req.max_output_bytes),
    stdoutFile: req.stdout_file,
  };
}

/** Turn a worker response into the envelope of DESIGN.md. */
export function toEnvelope(res: TaskResponse, stdoutFile: string | undefined, maxOutputBytes: number): Envelope<ExecData> {
  if (!res.ok) return { success: false, error: res.error };
  const r = res.result;
  if (!r) return { success: false, error: { code: 'INTERNAL_ERROR', message: 'unexpected worker reply', details: {}, hint: '' } };
  const stdout = Buffer.from(r.stdout.buffer, r.stdout.byteOffset, r.stdout.byteLength);
  const data: ExecData = {
    exit_code: r.exitCode,
    stdout: stdout.toString('utf8'),
    stderr: Buffer.from(r.stderr).toString('utf8'),
    truncated: r.truncated,
    stdout_bytes: r.stdoutBytes,
  };
  if (!isUtf8(stdout)) data.stdout_base64 = stdout.toString('base64');
  if (stdoutFile) data.stdout_file = stdoutFile;
  let message = r.exitCode === 0 ? 'ok' : `exited with status ${r.exitCode}`;
  if (r.truncated) {
    message += `; output cut at ${maxOutputBytes} bytes of ${r.stdoutBytes}+. ` +
      "Page with head -n / tail -n / sed -n 'A,Bp', narrow the search, or save it with stdout_file.";
  }
  return ok(data, message);
}

/** The error envelope of anything thrown (the one translation: src/runtime/error-body.ts). */
export function envelopeOfError(e: unknown): Envelope<never> {
  return { success: false, error: errorBody(e) };
}

/**
 * exec's params checked by hand, for the shapes callers send (no zod on the one-shot CLI's path,
 * and none per call on a server's): the args, as ExecParams would give them, or undefined for
 * anything else, which the registry's entry (ExecParams) then parses or refuses with its message.
 * test/api/exec-args.test.ts holds the two to the same answers.
 */
export function execArgsOf(params: unknown): ExecArgs | undefined {
  if (typeof params !== 'object' || params === null || Object.getPrototypeOf(params) !== Object.prototype) return undefined;
  const p = params as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(p)) {
    if (!Object.hasOwn(EXEC_KEYS, k)) return undefined;
    const v = p[k];
    if (v === undefined) continue;
    const got = EXEC_KEYS[k]!(v);
    if (got === undefined) return undefined;
    out[k] = got;
  }
  return out as ExecArgs;
}

type Check = (v: unknown) => unknown;
const str = (min = 0, max = Infinity): Check => (v) => (typeof v === 'string' && v.length >= min && v.length <= max ? v : undefined);
const int = (max: number): Check => (v) => (Number.isSafeInteger(v) && (v as number) > 0 && (v as number) <= max ? v : undefined);
const strings = (max = Infinity): Check => (v) => (Array.isArray(v) && v.length <= max && v.every((x) => typeof x === 'string') ? [...v] : undefined);
const oneOf = (values: readonly string[]): Check => (v) => (values.includes(v as string) ? v : undefined);
const CONTEXT_KEYS: Record<string, Check> = { user: str(), conversation: str(), session: str(), groups: strings(MAX_GROUPS), role: oneOf(ROLES) };
const EXEC_KEYS: Record<string, Check> = {
  zone: str(1), cwd: str(), command: str(), cmd: str(1), args: strings(), stdin: str(),
  timeout_ms: int(LIMITS.timeoutMs.max), max_output_bytes: int(LIMITS.maxOutputBytes.max), stdout_file: str(1),
  message: str(0, 10_000), group_mode: oneOf(['owner', 'group', 'owner_ro']),
  context: (v) => {
    if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return undefined;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (!Object.hasOwn(CONTEXT_KEYS, k)) return undefined;
      if (x === undefined) continue;
      const got = CONTEXT_KEYS[k]!(x);
      if (got === undefined) return undefined;
      out[k] = got;
    }
    return out;
  },
};

/** exec's registry entry but its schema (ExecParams, added by the registry: src/api/methods.ts); the engine runs it without the registry. */
export const EXEC_HANDLER: Omit<Method<ExecArgs>, 'input'> = {
  name: 'exec',
  description: 'Run a Unix command line (ls, cat, grep, find, sed, head, wc, ...) in the zone, GNU-compatible output. ' +
    'No shell: no ; && > $() or variables; use stdout_file to save output. Returns exit_code, stdout, stderr, truncated.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  surfaces: ['model', 'runtime'],
  // a read-only role runs the commands that change nothing
  readOnlyRoles: true,
  runs: 'worker',
  order: 'command',
  async handler(engine, p, call) {
    const known = engine.zoneOf({ root: call.root, zone: p.zone, context: p.context });
    const zone = known instanceof Promise ? await known : known;
    const task = buildTask(p, call.stdin, zone.root, zone.policy, engine.config.limits, zone.quota);
    task.user = (zone.kind === 'root' || zone.kind === 'mount' ? p.context?.user : engine.workspace.userOf(p.context ?? {})) ?? undefined;
    if (zone.gitdir) task.git = { gitdir: zone.gitdir, user: engine.authorOf(zone, p.context) };
    const net = engine.config.network as { mode: string; allow?: string[]; hosts?: Record<string, string>; maxBytes?: number; timeoutMs?: number; maxRedirects?: number };
    if (net.mode === 'safe') {
      task.limits = { ...task.limits, network: { allow: (net.allow ?? []).map((h) => h.toLowerCase()), hosts: Object.fromEntries(Object.entries(net.hosts ?? {}).map(([k, x]) => [k.toLowerCase(), x])),
        maxBytes: net.maxBytes ?? engine.config.limits.maxFileSize, timeoutMs: net.timeoutMs ?? 30_000, maxRedirects: net.maxRedirects ?? 5 } };
    }
    // A reading command line (most calls) goes straight to the pool: no wrapper on the hot path.
    const res = await (mayMutate(task)
      ? engine.writes.whole(orderKey(zone).root, async () => {
        await engine.beginWrite(zone, p.context);
        if (call.root === undefined && !zone.policy.readonly) task.guard = await engine.guardOf(zone, p.context);
        const r = await engine.runTask(task, call.timeoutMs, call.signal);
        if (!r.ok || !r.result) engine.abandonWrite(zone, r.ok ? 'INTERNAL_ERROR' : r.error.code);
        else if (engine.hasAfterWrite || zone.versioned || zone.kind === 'group') {
          const summary = p.command ?? [p.cmd!, ...(p.args ?? [])].join(' ');
          await engine.written(zone, p.context, r.result.changes,
            { method: 'exec', summary, message: r.result.commitMessage ?? p.message, groupMode: p.group_mode, progress: call.progress });
        }
        return r;
      })
      : engine.runTask(task, call.timeoutMs, call.signal));
    if (res.ok && res.result) ({ changes: call.note.changes, refusals: call.note.refusals } = res.result);
    return toEnvelope(res, p.stdout_file, task.limits.maxOutputBytes);
  },
};
