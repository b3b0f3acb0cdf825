import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { NoshError } from '../errors.js';

/**
 * The worker's heap limit (resourceLimits) does not count Buffers, which live outside the
 * V8 heap. So the places every byte passes through (file chunks, pipes) also check the
 * isolate's heap plus external memory against the same budget: a command that buffers
 * without bound ends with MEMORY_LIMIT instead of growing the host process.
 */
let budget = Infinity;
let budgetMb = 0;
let baseline = 0;

function usage(): number {
  const s = getHeapStatistics() as ReturnType<typeof getHeapStatistics> & { external_memory?: number };
  return s.used_heap_size + (s.external_memory ?? 0);
}

/**
 * Start a task's budget. What the worker holds at the task's first check (its code, garbage
 * of an earlier task that V8 has not freed yet: Buffers are released lazily, and at most the
 * task's first MiB) is the baseline; the task may grow by the budget from there. Taken at
 * the first check rather than here: most tasks never pass a MiB, and getHeapStatistics
 * costs them 1.5-3 µs.
 */
export function setMemoryBudget(mb: number): void {
  budgetMb = mb;
  budget = mb * 1024 * 1024;
  baseline = -1;
  unchecked = 0;
}

function checkMemory(): void {
  if (budget === Infinity) return;
  if (baseline < 0) {
    baseline = usage();
    return;
  }
  if (usage() - baseline > budget) {
    throw new NoshError('MEMORY_LIMIT', `command exceeded the worker memory limit of ${budgetMb} MB`,
      'Stream instead of loading everything: process smaller files or ranges, or pipe through head.', { memory_mb: budgetMb });
  }
}

/**
 * The longest value (in characters or bytes) a command should build by growing one string,
 * such as sed's pattern and hold spaces: a quarter of the budget, Infinity without one.
 * A worker whose heap cannot hold one single allocation does not just end: V8's fatal
 * out-of-memory aborts the whole process (Node grants a worker only a little more heap to
 * stop in). So a value that grows by doubling or by one big replacement is stopped while
 * even its next step would still fit.
 */
export function valueLimit(): number {
  return budget / 4;
}

/** The error for a value past valueLimit(). */
export function valueTooBig(what: string): NoshError {
  return new NoshError('MEMORY_LIMIT', `${what} grew past ${Math.floor(budgetMb / 4)} MB, a quarter of the worker memory limit of ${budgetMb} MB`,
    'Work on smaller pieces: fewer lines at a time (no N loop over a whole big file), or a smaller replacement.', { memory_mb: budgetMb });
}

/** Bytes seen since the last check (see noteBytes). */
let unchecked = 0;
const CHECK_EVERY = 1 << 20;

/**
 * Bytes passed through a chunk boundary (file read, pipe): checkMemory once per MiB of them
 * instead of per chunk (getHeapStatistics costs about 1.5 µs; a search over many small files
 * would pay it per file). A budget is hundreds of MiB, so the check still comes in time.
 */
export function noteBytes(n: number): void {
  unchecked += n;
  if (unchecked >= CHECK_EVERY) {
    unchecked = 0;
    checkMemory();
  }
}

let gc: (() => void) | undefined;

/**
 * After a task hit the budget its garbage must go before the next task runs in this worker,
 * or the next one would be refused too. V8 exposes gc() only behind a flag, set on demand.
 */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
