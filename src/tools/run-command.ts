import { NoshError } from '../errors.js';
import { runPipeline, type PipelineResult } from '../exec/index.js';
import type { ToolContext } from './types.js';

/**
 * Runs one nosh command for a typed tool (zip, unzip): the same code, policy checks and limits
 * as `exec`, with argv built from typed arguments (no command line is parsed, so nothing in an
 * argument can become an option or another command).
 */
export async function runCommand(ctx: ToolContext, argv: string[]): Promise<PipelineResult & { out: string; err: string }> {
  const r = await runPipeline(ctx.fs, { stages: [argv], cwd: ctx.cwd, limits: ctx.limits, signal: ctx.signal });
  return { ...r, out: r.stdout.toString('utf8'), err: r.stderr.toString('utf8') };
}

/** A path or pattern handed to a command as an operand: one that could be read as an option is refused. */
export function operand(what: string, value: string): string {
  if (value.startsWith('-')) {
    throw new NoshError('INVALID_ARGUMENT', `${what} may not begin with '-': ${value}`, `Write it as ./${value} if it is a path.`, { [what]: value });
  }
  return value;
}
