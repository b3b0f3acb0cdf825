/**
 * nosh as a library: `const nosh = await createNosh(config)`, then `nosh.exec(...)`.
 * Every call returns an envelope; nothing throws for a bad request or a failing command.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { ConfigSchema, defaultHome, type NoshConfig, type ResolvedConfig } from './config.js';
import { WorkerPool } from './pool/index.js';
import { defaultPolicy, type ZonePolicy } from './vfs/index.js';
import { NoshError, ok, type Envelope } from './errors.js';
import { TOOLS } from './tools/index.js';
import { ExecParams, listMethods, type MethodInfo } from './api/methods.js';
import {
  ExecOptionsSchema, ExecRequestSchema, buildTask, envelopeOfError, toEnvelope,
  type ExecData, type ExecOptions, type ExecRequest,
} from './api/exec.js';

export type { NoshConfig, ResolvedConfig } from './config.js';
export type { ExecData, ExecOptions, ExecRequest } from './api/exec.js';
export type { Envelope, ErrorBody, ErrorCode } from './errors.js';
export { NoshError, ERROR_CODES } from './errors.js';
export type { ZonePolicy } from './vfs/index.js';

export type { MethodInfo } from './api/methods.js';
export { listMethods } from './api/methods.js';

export interface CallOptions {
  /** Abort the call (the worker running it is stopped). */
  signal?: AbortSignal;
}

export interface Nosh {
  /** Run a command line or an argv in a zone. */
  exec(req: ExecRequest, opts?: ExecOptions & CallOptions): Promise<Envelope<ExecData>>;
  /** Call any method of the registry by name with JSON params (what RPC and MCP use). */
  call(method: string, params: unknown, opts?: CallOptions): Promise<Envelope<unknown>>;
  /** The methods this instance serves. */
  methods(): MethodInfo[];
  /** The effective configuration. */
  readonly config: ResolvedConfig;
  /** Stop the workers. Pending calls finish first. */
  close(): Promise<void>;
}

export async function createNosh(config: NoshConfig = {}): Promise<Nosh> {
  const cfg = ConfigSchema.parse(config);
  const pool = new WorkerPool({ threads: cfg.threads, memoryMb: cfg.limits.memoryMb });
  const rootPolicy: ZonePolicy = defaultPolicy({ maxFileSize: cfg.limits.maxFileSize, ...stripUndefined(cfg.policy) });
  let closed = false;

  function zoneOf(req: { root?: string; zone?: string }): { root: string; policy: ZonePolicy } {
    if (req.zone !== undefined) {
      throw new NoshError('INVALID_ZONE', `unknown zone '${req.zone}'`, 'Name a root folder with root, or configure zones.');
    }
    const root = req.root ?? cfg.root ?? defaultRoot();
    return { root, policy: rootPolicy };
  }

  async function exec(rawReq: ExecRequest, rawOpts: ExecOptions & CallOptions = {}): Promise<Envelope<ExecData>> {
    if (closed) return envelopeOfError(new NoshError('INTERNAL_ERROR', 'nosh is closed', 'Create a new instance.'));
    try {
      const { signal, ...rest } = rawOpts;
      const req = ExecRequestSchema.parse(rawReq);
      const opts = ExecOptionsSchema.parse(rest);
      const { root, policy } = zoneOf(req);
      const task = buildTask(req, opts, root, policy, cfg.limits);
      const res = await pool.run(task, opts.timeoutMs ?? cfg.limits.timeoutMs, signal);
      return toEnvelope(res, opts, task.limits.maxOutputBytes);
    } catch (e) {
      return envelopeOfError(e);
    }
  }

  async function callTool(name: string, params: unknown, opts: CallOptions): Promise<Envelope<unknown>> {
    const tool = TOOLS.get(name)!;
    const { zone, cwd, ...args } = (params ?? {}) as { zone?: string; cwd?: string };
    const parsed = tool.input.parse(args);
    const { root, policy } = zoneOf({ zone });
    const limits = { maxOutputBytes: cfg.limits.maxOutputBytes, maxResults: cfg.limits.maxResults, maxBufferBytes: cfg.limits.maxBufferBytes };
    const res = await pool.run({ root, policy, cwd: cwd ?? '/', stages: [], tool: { name, args: parsed }, limits }, cfg.limits.timeoutMs, opts.signal);
    if (!res.ok) return { success: false, error: res.error };
    return ok(res.tool!.data, res.tool!.message);
  }

  return {
    config: cfg,
    exec,
    async call(method, params, opts = {}) {
      if (closed) return envelopeOfError(new NoshError('INTERNAL_ERROR', 'nosh is closed', 'Create a new instance.'));
      try {
        if (method === 'exec') {
          const p = ExecParams.parse(params ?? {});
          return await exec(
            { zone: p.zone, cwd: p.cwd, command: p.command, cmd: p.cmd, args: p.args },
            { stdin: p.stdin, timeoutMs: p.timeout_ms, maxOutputBytes: p.max_output_bytes, stdoutFile: p.stdout_file, signal: opts.signal },
          );
        }
        if (TOOLS.has(method)) return await callTool(method, params, opts);
        return envelopeOfError(new NoshError('INVALID_ARGUMENT', `unknown method '${method}'`,
          `Methods: ${listMethods().map((m) => m.name).join(', ')}.`));
      } catch (e) {
        return envelopeOfError(e);
      }
    },
    methods: listMethods,
    async close() {
      closed = true;
      await pool.close();
    },
  };
}

/** The embedded default: a folder under $NOSH_HOME (or ~/.nosh), created with a welcome file. */
export function defaultRoot(): string {
  const root = join(defaultHome(), 'workspace');
  if (!fs.existsSync(root)) {
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(join(root, 'README.txt'), 'This is your nosh workspace.\nTry: ls -la, cat README.txt, echo hello | wc -c\n');
  }
  return root;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
