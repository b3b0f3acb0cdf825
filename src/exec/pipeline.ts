import { NoshError, readonlyError } from '../errors.js';
import { Vfs, VfsError, type Change } from '../vfs/index.js';
import { BrokenPipe, CollectingOutput, OptionError, OutputLimitReached, Pipe, UsageError, bufferInput, infoAsked, parseArgs, type CommandContext, type CommandDef, type Input, type Limits, type Output } from '../command/index.js';
import { loadCommand } from '../../commands/index.js';

export interface PipelineResult {
  exitCode: number;
  stdout: Buffer;
  stderr: Buffer;
  /** stdout was cut at the output limit. */
  truncated: boolean;
  /** Bytes the last stage wrote to stdout before it stopped. */
  stdoutBytes: number;
  changes: Change[];
}

export interface PipelineRequest {
  stages: string[][];
  cwd: string;
  stdin?: Uint8Array;
  limits: Limits;
  signal?: AbortSignal;
  /** Where the last stage's stdout goes instead of being collected (stdout_file). */
  stdoutSink?: Output;
}

const STDERR_CAP = 64 * 1024;
/** The signal of a task nobody can cancel from inside (the pool stops the worker instead). */
export const NEVER: AbortSignal = new AbortController().signal;
const DELETE_ONLY = new Set(['rm', 'rmdir']);

/**
 * Look up every stage's command and check the zone policy before anything runs; `writes`:
 * some stage changes files (tee, sed w or -i, sort -o, find -delete ...).
 */
async function planStages(vfs: Vfs, stages: string[][]): Promise<{ defs: (CommandDef | undefined)[]; writes: boolean }> {
  const defs: (CommandDef | undefined)[] = [];
  let writes = false;
  for (const argv of stages) {
    const name = argv[0]!;
    const def = await loadCommand(name);
    const allowed = vfs.policy.allowedCommands;
    if (allowed && !allowed.includes(name)) {
      throw new NoshError('COMMAND_FORBIDDEN', `${name}: command not allowed in this zone`,
        `Allowed here: ${allowed.join(', ')}.`, { command: name });
    }
    if (def) {
      const rest = argv.slice(1);
      const mutates = typeof def.mutates === 'function' ? def.mutates(rest, name) : def.mutates;
      if (mutates) writes = true;
      if (mutates && vfs.policy.readonly && !(vfs.policy.allowDelete && DELETE_ONLY.has(def.name))) {
        throw readonlyError(name, vfs.policy);
      }
    }
    defs.push(def);
  }
  return { defs, writes };
}

/** Run one command line's stages, stdout of each feeding stdin of the next, all streamed. */
export async function runPipeline(vfs: Vfs, req: PipelineRequest): Promise<PipelineResult> {
  const { defs, writes } = await planStages(vfs, req.stages);
  const signal = req.signal ?? NEVER;
  // The cap bounds what is returned, never what is written to files: a line that changes
  // files runs to its end and the stdout past the cap is dropped (the result says truncated);
  // a reading line stops at the cap (so `cat huge` ends there).
  const finalOut = new CollectingOutput(req.limits.maxOutputBytes, !writes);
  const stderr = new CollectingOutput(STDERR_CAP, false);
  const pipes = req.stages.slice(1).map(() => new Pipe());
  const runs = req.stages.map(async (argv, i) => {
    const stdin: Input = i === 0 ? bufferInput(req.stdin) : pipes[i - 1]!;
    const stdout: Output = i === req.stages.length - 1 ? (req.stdoutSink ?? finalOut) : pipes[i]!;
    try {
      return await runStage(defs[i], argv, { vfs, cwd: req.cwd, stdin, stdout, stderr, limits: req.limits, signal });
    } finally {
      if (i > 0) pipes[i - 1]!.closeReader();
      if (i < pipes.length) pipes[i]!.end();
    }
  });
  const settled = await Promise.allSettled(runs);
  let truncated = finalOut.truncated;
  const codes: number[] = [];
  for (const s of settled) {
    if (s.status === 'fulfilled') codes.push(s.value);
    else if (s.reason instanceof OutputLimitReached) {
      truncated = true;
      codes.push(0);
    } else throw s.reason;
  }
  return {
    exitCode: codes[codes.length - 1] ?? 0,
    stdout: finalOut.result(),
    stderr: stderr.result(),
    truncated,
    stdoutBytes: finalOut.bytes,
    changes: vfs.changes,
  };
}

interface StageIo {
  vfs: Vfs;
  cwd: string;
  stdin: Input;
  stdout: Output;
  stderr: Output;
  limits: Limits;
  signal: AbortSignal;
}

async function runStage(def: CommandDef | undefined, argv: string[], io: StageIo): Promise<number> {
  const name = argv[0]!;
  if (!def) {
    await io.stderr.write(`nosh: ${name}: command not found\n`);
    return 127;
  }
  // Diagnostics carry the command's own name: GNU's egrep/fgrep are wrappers that run grep.
  const warn = async (msg: string) => { await io.stderr.write(`${def.name}: ${msg}\n`); };
  const args = argv.slice(1);
  let ctx: CommandContext;
  try {
    const parsed = def.parse === 'raw' ? { opts: parseArgs({ ...def, flags: [] }, []).opts, operands: args } : parseArgs(def, args);
    const info = def.parse === 'raw' ? undefined : infoAsked(def, parsed.opts);
    if (info !== undefined) {
      await io.stdout.write(info);
      return 0;
    }
    ctx = { name, args, opts: parsed.opts, values: parsed.opts.values(), operands: parsed.operands, fs: io.vfs, cwd: io.cwd, stdin: io.stdin,
      stdout: io.stdout, stderr: io.stderr, signal: io.signal, limits: io.limits, warn };
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(def, e, io);
    throw e;
  }
  try {
    return await def.run(ctx);
  } catch (e) {
    if (e instanceof BrokenPipe) return 141;
    if (e instanceof UsageError) return usageFailure(def, e, io);
    if (e instanceof VfsError) {
      await warn(`${e.path}: ${e.reason}`);
      return def.troubleStatus ?? 1;
    }
    throw e;
  }
}

/** GNU's usage error: the message, then (unless the option error says not) the "Try --help" line. */
async function usageFailure(def: CommandDef, e: UsageError, io: StageIo): Promise<number> {
  const name = def.name;
  const tryHelp = !(e instanceof OptionError) || e.tryHelp;
  const tryPrefix = def.tryHelpNamed ? `${name}: ` : '';
  await io.stderr.write(`${name}: ${e.message}\n${tryHelp ? `${tryPrefix}Try '${name} --help' for more information.\n` : ''}`);
  return (e instanceof OptionError ? e.status : undefined) ?? def.usageStatus ?? 2;
}
