import { isUtf8 } from 'node:buffer';
import { z } from 'zod';
import { NoshError, ok, type Envelope } from '../errors.js';
import { errorBody } from '../runtime/error-body.js';
import type { LimitsConfig } from '../config.js';
import { parseCommandLine } from '../parse/index.js';
import type { TaskRequest, TaskResponse } from '../exec/index.js';
import type { ZonePolicy } from '../vfs/index.js';
import { ContextSchema } from '../zones/context.js';
import type { QuotaHandle } from '../vfs/charge.js';

export const ExecRequestSchema = z.object({
  /** Host folder to use as the zone root (library callers only). */
  root: z.string().min(1).optional(),
  zone: z.string().min(1).optional(),
  context: ContextSchema.optional(),
  cwd: z.string().default('/'),
  /** A command line: tokenized, checked for metacharacters, globs expanded in the zone. */
  command: z.string().optional(),
  /** The argv form: no tokenizing, no globbing; args are literal. */
  cmd: z.string().min(1).optional(),
  args: z.array(z.string()).default([]),
}).strict();

export const ExecOptionsSchema = z.object({
  stdin: z.union([z.string(), z.custom<Uint8Array>((v) => v instanceof Uint8Array, "stdin must be a string or bytes")]).optional(),
  timeoutMs: z.number().int().positive().max(300_000).optional(),
  maxOutputBytes: z.number().int().positive().max(5_000_000).optional(),
  stdoutFile: z.string().min(1).optional(),
}).strict();

export type ExecRequest = z.input<typeof ExecRequestSchema>;
export type ExecOptions = z.input<typeof ExecOptionsSchema>;

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
  return { maxOutputBytes, maxResults: l.maxResults, maxBufferBytes: l.maxBufferBytes };
}

/** Build the worker task for one exec call (zone already resolved to a root and policy). */
export function buildTask(req: z.output<typeof ExecRequestSchema>, opts: z.output<typeof ExecOptionsSchema>,
  root: string, policy: ZonePolicy, limits: LimitsConfig, quota?: QuotaHandle): TaskRequest {
  let stages: TaskRequest['stages'];
  if (req.cmd !== undefined) {
    if (req.command !== undefined) throw new NoshError('INVALID_ARGUMENT', 'give either command or cmd/args, not both', 'Use command for a command line, cmd+args for literal argv.');
    stages = [{ argv: [req.cmd, ...req.args] }];
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
  const stdin = typeof opts.stdin === 'string' ? Buffer.from(opts.stdin, 'utf8') : opts.stdin;
  return {
    root, policy, quota, cwd: req.cwd, stages, stdin,
    limits: taskLimits(limits, opts.maxOutputBytes),
    stdoutFile: opts.stdoutFile,
  };
}

/** Turn a worker response into the envelope of DESIGN.md. */
export function toEnvelope(res: TaskResponse, opts: z.output<typeof ExecOptionsSchema>, maxOutputBytes: number): Envelope<ExecData> {
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
  if (opts.stdoutFile) data.stdout_file = opts.stdoutFile;
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
