/**
 * nosh as a library: `const nosh = await createNosh(config)`, then `nosh.exec(...)`.
 * Every call returns an envelope; nothing throws for a bad request or a failing command.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { ConfigSchema, defaultHome, type NoshConfig, type ResolvedConfig } from './config.js';
import { WorkerPool } from './pool/index.js';
import { defaultPolicy, type ZonePolicy } from './vfs/index.js';
import { NoshError, type Envelope } from './errors.js';
import {
  ExecOptionsSchema, ExecRequestSchema, buildTask, envelopeOfError, toEnvelope,
  type ExecData, type ExecOptions, type ExecRequest,
} from './api/exec.js';

export type { NoshConfig, ResolvedConfig } from './config.js';
export type { ExecData, ExecOptions, ExecRequest } from './api/exec.js';
export type { Envelope, ErrorBody, ErrorCode } from './errors.js';
export { NoshError, ERROR_CODES } from './errors.js';
export type { ZonePolicy } from './vfs/index.js';

export interface Nosh {
  /** Run a command line or an argv in a zone. */
  exec(req: ExecRequest, opts?: ExecOptions): Promise<Envelope<ExecData>>;
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

  return {
    config: cfg,
    async exec(rawReq, rawOpts = {}) {
      if (closed) return envelopeOfError(new NoshError('INTERNAL_ERROR', 'nosh is closed', 'Create a new instance.'));
      try {
        const req = ExecRequestSchema.parse(rawReq);
        const opts = ExecOptionsSchema.parse(rawOpts);
        const { root, policy } = zoneOf(req);
        const task = buildTask(req, opts, root, policy, cfg.limits);
        const res = await pool.run(task, opts.timeoutMs ?? cfg.limits.timeoutMs);
        return toEnvelope(res, opts, task.limits.maxOutputBytes);
      } catch (e) {
        return envelopeOfError(e);
      }
    },
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
