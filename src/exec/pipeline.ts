import { NoshError, readonlyError } from '../errors.js';
import { Vfs, VfsError, type Change } from '../vfs/index.js';
import { BrokenPipe, CollectingOutput, OptionError, OutputLimitReached, Pipe, UsageError, bufferInput, infoAsked, parseArgs, type CommandContext, type CommandDef, type Input, type Limits, type Output, type RepoAccess } from '../command/index.js';
import { hasCommand, loadCommand } from '../../commands/index.js';

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
  /** The context user (whoami, id). */
  user?: string;
  /** A versioned zone's history (the git command). */
  repo?: RepoAccess;
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
    const def = await loadCommand(argv[0]!);
    checkAllowed(vfs, argv[0]!);
    // xargs: the command it runs is checked too (its batch arguments are checked when it runs)
    let runs = def?.runs?.(argv.slice(1));
    for (let d = def, args = argv, depth = 0; d && depth < 8; depth++) {
      if (checkMutates(vfs, d, args)) writes = true;
      if (!runs || runs.length === 0) break;
      args = runs;
      d = await loadCommand(args[0]!);
      runs = d?.runs?.(args.slice(1));
    }
    defs.push(def);
  }
  return { defs, writes };
}

function checkAllowed(vfs: Vfs, name: string): void {
  const allowed = vfs.policy.allowedCommands;
  if (allowed && !allowed.includes(name)) {
    throw new NoshError('COMMAND_FORBIDDEN', `${name}: command not allowed in this zone`,
      `Allowed here: ${allowed.join(', ')}.`, { command: name });
  }
}

/** Does this argv change files? A read-only zone refuses it (READ_ONLY). */
function checkMutates(vfs: Vfs, def: CommandDef, argv: string[]): boolean {
  const name = argv[0]!;
  const mutates = typeof def.mutates === 'function' ? def.mutates(argv.slice(1), name) : def.mutates;
  if (mutates && vfs.policy.readonly && !def.readOnlyMode && !(vfs.policy.allowDelete && DELETE_ONLY.has(def.name))) {
    throw readonlyError(name, vfs.policy);
  }
  return mutates;
}

/**
 * ctx.run: a command run by another (xargs) gets the checks of a stage, and its failures are
 * GNU's exit statuses with the reason on stderr, not an error of the whole task.
 */
async function runNested(caller: string, argv: string[], io: StageIo, stdin: Input | undefined): Promise<number> {
  const name = argv[0] ?? '';
  const def = await loadCommand(name);
  if (!def) {
    await io.stderr.write(`${caller}: ${name}: No such file or directory\n`);
    return 127;
  }
  try {
    checkAllowed(io.vfs, name);
    checkMutates(io.vfs, def, argv);
  } catch (e) {
    if (!(e instanceof NoshError)) throw e;
    await io.stderr.write(`${caller}: ${e.message}${e.hint ? ` (${e.hint})` : ''}\n`);
    return e.code === 'COMMAND_FORBIDDEN' ? 127 : 126;
  }
  return runStage(def, argv, { ...io, stdin: stdin ?? bufferInput(undefined) });
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
      return await runStage(defs[i], argv, { vfs, cwd: req.cwd, stdin, stdout, stderr, limits: req.limits, signal, user: req.user, repo: req.repo });
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
  user?: string;
  repo?: RepoAccess;
}

/** Tools nosh does not build, named with what to do instead (exit 127 as command not found). */
const NOT_BUILT: Readonly<Record<string, string>> = {
  iconv: 'nosh has no iconv: files are bytes; read UTF-8 as is, or convert with a script outside nosh.',
  less: 'there is no terminal to page on: use cat, head -n N, tail -n N or sed -n START,ENDp.',
  more: 'there is no terminal to page on: use cat, head -n N, tail -n N or sed -n START,ENDp.',
};

async function runStage(def: CommandDef | undefined, argv: string[], io: StageIo): Promise<number> {
  const name = argv[0]!;
  if (!def) {
    const instead = Object.hasOwn(NOT_BUILT, name) ? NOT_BUILT[name] : undefined;
    if (instead) {
      await io.stderr.write(`nosh: ${name}: not available in nosh: ${instead}\n`);
      return 127;
    }
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
      stdout: io.stdout, stderr: io.stderr, signal: io.signal, limits: io.limits, warn, user: io.user ?? 'default',
      commandExists: (n: string) => hasCommand(n) && (!io.vfs.policy.allowedCommands || io.vfs.policy.allowedCommands.includes(n)),
      run: (nested: string[], stdin?: Input) => runNested(def.name, nested, io, stdin), repo: io.repo };
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
