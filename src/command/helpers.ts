import { VfsError } from '../vfs/index.js';
import { quoteNameColon } from './quote.js';
import type { CommandContext, Input } from './types.js';

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

/**
 * Split a byte stream into lines (each with its terminator, the last maybe without).
 * Yields Buffers; the separator defaults to '\n' (use 0 for -z).
 */
export async function* lines(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, sep = 0x0a): AsyncGenerator<Buffer> {
  let carry: Buffer | null = null;
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (carry) {
      buf = Buffer.concat([carry, buf]);
      carry = null;
    }
    let start = 0;
    for (;;) {
      const i = buf.indexOf(sep, start);
      if (i < 0) break;
      yield buf.subarray(start, i + 1);
      start = i + 1;
    }
    if (start < buf.length) carry = Buffer.from(buf.subarray(start));
  }
  if (carry) yield carry;
}

export type { Input };
