import { NoshError, type ErrorBody, type ErrorCode } from '../errors.js';
import { hintFor } from './hints.js';

/**
 * The one translation of anything thrown into the error body of an envelope
 * ({code, message, details, hint}): used by the worker (exec, typed tools, per-item results)
 * and by the serving thread (api). The runtime sits below the vfs and the api, so the two
 * error types from above are known by their shape, not imported: the Vfs's VfsError
 * (src/vfs/errors.ts implements PathFailure) and zod's ZodError.
 */

/** A file system failure on a virtual path: what src/vfs/errors.ts VfsError is. */
export interface PathFailure {
  /** 'VfsError'. */
  readonly name: string;
  readonly errno: string;
  /** Always a virtual path. */
  readonly path: string;
  readonly code: ErrorCode;
  /** strerror's text (taking it reports a refusal to the audit listener, as a command printing it). */
  readonly reason: string;
  readonly details: Record<string, unknown>;
}

/** A schema validation failure: zod's ZodError (its issues). */
interface ValidationFailure {
  name: 'ZodError';
  issues: { path: PropertyKey[]; message: string }[];
}

function isPathFailure(e: unknown): e is PathFailure {
  return e instanceof Error && e.name === 'VfsError' && typeof (e as Partial<PathFailure>).errno === 'string';
}

function isValidationFailure(e: unknown): e is ValidationFailure {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'ZodError' && Array.isArray((e as { issues?: unknown }).issues);
}

/** V8's own size limits (a string over about 512 MB, a buffer it cannot allocate): the command outgrew memory. */
const TOO_BIG = /^(?:Invalid string length|Invalid array length|Invalid typed array length|Array buffer allocation failed)/;

const MAX_ISSUES = 20;
const MAX_ISSUE_CHARS = 300;

/** The error body of an envelope for anything thrown (host paths scrubbed from internal errors). */
export function errorBody(e: unknown): ErrorBody {
  if (e instanceof NoshError) return e.toBody();
  if (e instanceof RangeError && TOO_BIG.test(e.message)) {
    return new NoshError('MEMORY_LIMIT', `command built a value larger than the worker can hold (${e.message})`,
      'Stream instead of building one huge value: process smaller files or ranges, or pipe through head.').toBody();
  }
  if (e instanceof RangeError && e.message.startsWith('Maximum call stack size exceeded')) {
    // Most often V8's backtracking regex on a repeated group over a very long line.
    return new NoshError('MEMORY_LIMIT', 'command ran out of stack (a repeated group such as (ab)+ matched over a very long line, or nesting too deep)',
      'Simplify the pattern (no repeated group over a whole long line), or work on smaller pieces of the input.').toBody();
  }
  if (isPathFailure(e)) {
    return new NoshError(e.code, `${e.path}: ${e.reason}`, hintFor(e.errno, e.details), { path: e.path, ...e.details }).toBody();
  }
  if (isValidationFailure(e)) {
    const first = e.issues[0];
    const where = first?.path.map(String).join('.') || 'request';
    // A few issues, each message cut: zod lists every unknown key in one message and gives one
    // issue per bad array item, and a 15 MB request made a 440 MB error in the main thread.
    const issues = e.issues.slice(0, MAX_ISSUES).map((i) => ({ path: i.path.map(String).join('.'), message: cut(i.message) }));
    return new NoshError('INVALID_ARGUMENT', `${where}: ${cut(first?.message ?? 'invalid')}`, 'Check the parameter names and types.',
      e.issues.length > MAX_ISSUES ? { issues, issues_total: e.issues.length } : { issues }).toBody();
  }
  const msg = e instanceof Error ? e.message : String(e);
  // Internal errors may carry host paths in their text: never pass them on.
  return new NoshError('INTERNAL_ERROR', 'internal error while running the command', 'Report this; try a simpler command.',
    { kind: e instanceof Error ? e.name : typeof e, message: scrub(msg) }).toBody();
}

function cut(message: string): string {
  return message.length > MAX_ISSUE_CHARS ? message.slice(0, MAX_ISSUE_CHARS) + '…' : message;
}

function scrub(msg: string): string {
  return msg.replace(/(?:\/[^\s'":]+)+/g, '<path>');
}
