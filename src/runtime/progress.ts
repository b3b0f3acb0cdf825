/**
 * Progress of a long worker task, for `$/progress` / `notifications/progress`. The worker
 * counts into a small SharedArrayBuffer of its lane (files, bytes, total files when known);
 * the main thread reads it on a timer while the task runs: no message, no event-loop turn of
 * the worker, nothing at all when no caller asked for progress (the counters are plain
 * stores). Slots are Float64 (aligned 8-byte stores do not tear); a reading a step old is fine.
 */
export interface Progress {
  files: number;
  bytes: number;
  /** Files to do, when the task knows (archive extraction, a commit's file list). */
  total?: number;
}

const FILES = 0;
const BYTES = 1;
const TOTAL = 2;

export function newProgress(): SharedArrayBuffer {
  return new SharedArrayBuffer(3 * Float64Array.BYTES_PER_ELEMENT);
}

/** Main thread, before a task is sent: zero the counters. */
export function resetProgress(sab: SharedArrayBuffer): void {
  const a = new Float64Array(sab);
  a[FILES] = 0;
  a[BYTES] = 0;
  a[TOTAL] = -1;
}

export function readProgress(sab: SharedArrayBuffer): Progress {
  const a = new Float64Array(sab);
  const total = a[TOTAL]!;
  return { files: a[FILES]!, bytes: a[BYTES]!, ...(total >= 0 ? { total } : {}) };
}

let current: Float64Array | null = null;

/** Worker: the counters of the task it runs now (its lane's). */
export function setProgressTarget(sab: SharedArrayBuffer | undefined): void {
  current = sab ? new Float64Array(sab) : null;
}

/** Worker: `files` more files (or entries) done, `bytes` more bytes. */
export function addProgress(files: number, bytes = 0): void {
  if (current === null) return;
  current[FILES] += files;
  current[BYTES] += bytes;
}

/** Worker: the whole count of files, once known. */
export function setProgressTotal(total: number): void {
  if (current !== null) current[TOTAL] = total;
}
