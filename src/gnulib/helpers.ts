import { VfsError } from '../vfs/index.js';
import { quoteNameColon } from './quote.js';
import type { CommandContext, Input } from '../command/types.js';

/** Print "cmd: 'path': reason" for a filesystem error; other errors propagate. */
export async function reportFileError(ctx: CommandContext, path: string, err: unknown): Promise<void> {
  if (err instanceof VfsError) return ctx.warn(`${quoteNameColon(path)}: ${err.reason}`);
  throw err;
}

/** Operands as GNU tools read them: none means stdin, '-' means stdin. */
export function inputOperands(operands: string[]): string[] {
  return operands.length === 0 ? ['-'] : operands;
}

/** Chunks of one input operand: a file in the zone or stdin for '-'. */
export function openInput(ctx: CommandContext, operand: string): AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  if (operand === '-') return ctx.stdin;
  return ctx.fs.readChunks(operand, ctx.cwd);
}

/** Read a whole operand into memory, bounded by limits.maxBufferBytes. */
export async function readOperand(ctx: CommandContext, operand: string): Promise<Buffer> {
  if (operand === '-') return ctx.stdin.readAll();
  return ctx.fs.readFile(operand, ctx.cwd);
}

export type { Input };

/**
 * An operand file checked now as fopen would open it: a missing or refused file throws its
 * VfsError here (GNU reports it before reading anything), while a directory "opens" and its
 * error (EISDIR) comes at the first read. The chunks are read lazily (no descriptor is held
 * until then). `reuse`: every chunk is read into the same buffer (the caller keeps nothing of
 * a chunk once it asks for the next).
 */
export function openAsFopen(ctx: CommandContext, name: string, reuse = false): Iterable<Uint8Array> {
  try {
    ctx.fs.openRandom(name, ctx.cwd).close();
  } catch (e) {
    if (e instanceof VfsError && e.errno === 'EISDIR') {
      return (function* (): Generator<Uint8Array> {
        throw e;
      })();
    }
    throw e;
  }
  return ctx.fs.readChunks(name, ctx.cwd, undefined, reuse);
}
