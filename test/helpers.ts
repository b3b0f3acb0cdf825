import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCommandLine } from '../src/parse/index.js';
import { executeTask } from '../src/exec/index.js';
import { defaultPolicy, type ZonePolicy } from '../src/vfs/index.js';
// @ts-expect-error plain JS module shared with the GNU recorder
import { buildTree as buildTreeJs, snapshotTree as snapshotJs } from './gnu/tree.mjs';

export const buildTree: (root: string, tree: Record<string, unknown>) => void = buildTreeJs;
export const snapshotTree: (root: string) => string[] = snapshotJs;

export function tempDir(prefix = 'nosh-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface RunOutput {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
  truncated: boolean;
  /** Set when the run failed as a whole (error envelope). */
  error?: { code: string; message: string; hint: string };
}

export interface RunOptions {
  cwd?: string;
  stdin?: string | Buffer;
  policy?: Partial<ZonePolicy>;
  maxOutputBytes?: number;
  /** A versioned zone: its git directory and user (the git command). */
  git?: { gitdir: string; user: string };
}

/** Run a command line in-process (no worker pool) against a host folder as zone root. */
export async function run(root: string, line: string, opts: RunOptions = {}): Promise<RunOutput> {
  const policy = defaultPolicy(opts.policy);
  let stages;
  try {
    stages = parseCommandLine(line, { pipes: policy.pipes }).stages.map((words) => ({ words }));
  } catch (e) {
    const err = e as { code: string; message: string; hint: string };
    return { exitCode: -1, stdout: Buffer.alloc(0), stderr: '', truncated: false, error: { code: err.code, message: err.message, hint: err.hint } };
  }
  return runTask(root, stages, opts, policy);
}

/** Run an argv (no tokenizing, no globbing) in-process. */
export async function runArgv(root: string, argv: string[], opts: RunOptions = {}): Promise<RunOutput> {
  return runTask(root, [{ argv }], opts, defaultPolicy(opts.policy));
}

async function runTask(root: string, stages: { words?: unknown[]; argv?: string[] }[], opts: RunOptions, policy: ZonePolicy): Promise<RunOutput> {
  const res = await executeTask({
    root, policy, cwd: opts.cwd ?? '/', stages: stages as never, git: opts.git,
    stdin: opts.stdin === undefined ? undefined : Buffer.from(opts.stdin),
    limits: { maxOutputBytes: opts.maxOutputBytes ?? 5_000_000, maxResults: 1000, maxBufferBytes: 256 * 1024 * 1024 },
  });
  if (!res.ok) return { exitCode: -1, stdout: Buffer.alloc(0), stderr: '', truncated: false, error: res.error };
  const r = res.result!;
  return { exitCode: r.exitCode, stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr).toString('utf8'), truncated: r.truncated };
}
