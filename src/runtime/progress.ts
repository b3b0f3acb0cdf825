/**
 * Progress of a long worker task, for `$/progress` / `notifications/progress`. The worker
 * counts into a small SharedArrayBuffer of its lane (files, bytes, and their totals when known);
 * the main thread reads it on a timer while the task runs: no message, no event-loop turn of
 * the worker, nothing at all when no caller asked for progress (the counters are plain
 * stores). Slots are Float64 (aligned 8-byte stores do not tear); a reading a step old is fine.
 */
export interface Progress {
  files: number;
  bytes: number;
  /** Files (or archive entries, or a commit's changed paths) to do, when the task knows: unzip, zip -r, a commit. */
  total?: number;
  /** Bytes to read, when the task knows: tar x/t (the archive's size), gzip/gunzip, sqlite3 .import, import_csv. */
  total_bytes?: number;
  /**
   * 'commit': the main thread commits the call's changes in a versioned zone, after the worker
   * part; files/bytes/total count that commit only (changed paths written, bytes hashed).
   */
  phase?: 'commit';
}

const FILES = 0;
const BYTES = 1;
const TOTAL = 2;
const TOTAL_BYTES = 3;

export function newProgress(): SharedArrayBuffer {
  return new SharedArrayBuffer(4 * Float64Array.BYTES_PER_ELEMENT);
}

/** Main thread, before a task is sent: zero the counters. */
export function resetProgress(sab: SharedArrayBuffer): void {
  const a = new Float64Array(sab);
  a[FILES] = 0;
  a[BYTES] = 0;
  a[TOTAL] = -1;
  a[TOTAL_BYTES] = -1;
}

export function readProgress(sab: SharedArrayBuffer): Progress {
  const a = new Float64Array(sab);
  const total = a[TOTAL]!;
  const totalBytes = a[TOTAL_BYTES]!;
  return { files: a[FILES]!, bytes: a[BYTES]!, ...(total >= 0 ? { total } : {}), ...(totalBytes >= 0 ? { total_bytes: totalBytes } : {}) };
}

let current: Float64Array | null = null;

/** Worker: the counters of the task it runs now (its lane's). */
export function setProgressTarget(sab: SharedArrayBuffer | undefined): void {
  current = sab ? new Float64Array(sab) : null;
}

/**
 * Main thread: what an inline tool call (src/api/inline.ts) may still walk and read before it
 * is handed to a worker instead; null outside one. The counts that feed progress in a worker
 * (entries walked, bytes read) bound the call's work here.
 */
let inline: { files: number; bytes: number; over: boolean } | null = null;

/** Thrown by addProgress when an inline call passes its budget (the call then goes to a worker). */
export class OverInlineBudget extends Error {
  constructor() {
    super('over the inline budget');
  }
}

/**
 * Main thread: run `fn` (synchronous work) with a budget of `files` entries and `bytes` bytes;
 * past it, addProgress throws OverInlineBudget. `over`: the budget was passed (then fn's value
 * or error means nothing: a caller that swallowed the throw is caught by this too).
 */
export function withInlineBudget<T>(files: number, bytes: number, fn: () => T): { over: true } | { over: false; value: T } {
  const budget = { files, bytes, over: false };
  inline = budget;
  try {
    const value = fn();
    return budget.over ? { over: true } : { over: false, value };
  } catch (e) {
    if (budget.over) return { over: true };
    throw e;
  } finally {
    inline = null;
  }
}

/** Worker: `files` more files (or entries) done, `bytes` more bytes. */
export function addProgress(files: number, bytes = 0): void {
  if (current === null) {
    if (inline !== null && ((inline.files -= files) < 0 || (inline.bytes -= bytes) < 0)) {
      inline.over = true;
      throw new OverInlineBudget();
    }
    return;
  }
  current[FILES] += files;
  current[BYTES] += bytes;
}

/**
 * Worker: `more` files (entries) are left to do, once known: the total is the files counted so
 * far and those (zip -r counts its walk, then the entries it writes; unzip its entries).
 */
export function setProgressTotal(more: number): void {
  if (current !== null) current[TOTAL] = current[FILES]! + more;
}

/**
 * Worker: `bytes` are left to read, once known (an input's size): the total is the bytes read so
 * far and those (a stage that reads after others, `cat a | gunzip b`, counts its own on top).
 */
export function setProgressTotalBytes(bytes: number): void {
  if (current !== null) current[TOTAL_BYTES] = current[BYTES]! + bytes;
}
