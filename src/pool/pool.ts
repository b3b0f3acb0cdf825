import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { NoshError } from '../errors.js';
import type { TaskRequest, TaskResponse } from '../exec/index.js';
import { enableLinearRegexFallback } from './regex-flags.js';
import { releaseTempRegistry, removeTemps, takeTempRegistry } from './temps.js';

export interface PoolOptions {
  /** Worker threads (default: number of cores). */
  threads?: number;
  /** Heap limit of each worker, MB. */
  memoryMb?: number;
}

/** Under vitest the sources are .ts; workers always run the compiled JavaScript. */
function workerFile(): string {
  const here = import.meta.url;
  const url = here.endsWith('.ts') ? new URL('../../dist/src/pool/worker.js', here) : new URL('./worker.js', here);
  return url.href;
}

type Balancer = NonNullable<ConstructorParameters<typeof Piscina>[0]>['loadBalancer'] & {};
type Worker = Parameters<Balancer>[1][number];

/**
 * One task per worker at a time (a timeout terminates the worker, so it must run nothing
 * else), and among idle workers always the same one (lowest id): one caller at a time keeps
 * one worker hot (its code optimised, its thread awake) instead of waking each in turn;
 * concurrent callers still spread over all of them. Null queues the task.
 */
const stickyBalancer: Balancer = (_task, workers) => {
  let idle: Worker | null = null;
  for (const w of workers) {
    if (w.currentUsage === 0 && !w.terminating && !w.destroyed && (!idle || w.id < idle.id)) idle = w;
  }
  return idle;
};

/**
 * The worker pool: per task a timeout (the worker is terminated and replaced), a heap
 * limit (resourceLimits), and every failure turned into an error body.
 */
export class WorkerPool {
  private readonly piscina: Piscina;
  readonly memoryMb: number;

  constructor(opts: PoolOptions = {}) {
    enableLinearRegexFallback();
    const threads = Math.max(1, opts.threads ?? availableParallelism());
    this.memoryMb = opts.memoryMb ?? 512;
    this.piscina = new Piscina({
      filename: workerFile(),
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 60_000,
      maxQueue: 'auto',
      loadBalancer: stickyBalancer,
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, this.memoryMb / 8)) },
    });
  }

  async run(task: TaskRequest, timeoutMs: number, cancel?: AbortSignal): Promise<TaskResponse> {
    const ac = new TaskAbort();
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; ac.abort(); }, timeoutMs);
    const onCancel = () => ac.abort();
    cancel?.addEventListener('abort', onCancel, { once: true });
    if (cancel?.aborted) ac.abort();
    const temps = takeTempRegistry();
    try {
      const res = (await this.piscina.run({ ...task, memoryMb: this.memoryMb, temps }, { signal: ac as unknown as AbortSignal })) as TaskResponse;
      releaseTempRegistry(temps);
      return res;
    } catch (e) {
      // The worker was stopped (timeout, cancel, crash): no finally ran there. Terminating
      // is asynchronous, so look again once it surely stopped.
      const roots = task.peer ? [task.root, task.peer.root] : [task.root];
      removeTemps(temps, roots);
      setTimeout(() => removeTemps(temps, roots), 250).unref();
      if (timedOut) {
        return failure(new NoshError('TIMEOUT', `command timed out after ${timeoutMs} ms`,
          'Narrow the work (a smaller path, a simpler pattern, head to cut output) or raise timeoutMs (max 300000).',
          { timeout_ms: timeoutMs }));
      }
      if (cancel?.aborted) return failure(new NoshError('CANCELLED', 'the request was cancelled', ''));
      const code = (e as { code?: string })?.code;
      if (code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory|heap/i.test(String((e as Error)?.message))) {
        return failure(new NoshError('MEMORY_LIMIT', `command exceeded the worker memory limit of ${this.memoryMb} MB`,
          'Stream instead of loading everything: process smaller files or ranges, or pipe through head.',
          { memory_mb: this.memoryMb }));
      }
      return failure(new NoshError('INTERNAL_ERROR', 'the worker running the command failed', 'Retry; if it repeats, simplify the command.',
        { kind: (e as Error)?.name ?? 'Error' }));
    } finally {
      clearTimeout(timer);
      cancel?.removeEventListener('abort', onCancel);
    }
  }

  get threads(): number {
    return this.piscina.threads.length;
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}

/**
 * The least piscina needs to stop a task (it calls addEventListener('abort', fn) and later
 * removeEventListener, and reads aborted / reason): a full AbortController per task is an
 * EventTarget, measurably dearer on the hot path of small commands.
 */
class TaskAbort {
  aborted = false;
  reason: unknown = undefined;
  private listener: (() => void) | null = null;

  addEventListener(_type: 'abort', fn: () => void): void {
    this.listener = fn;
  }

  removeEventListener(): void {
    this.listener = null;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new Error('aborted');
    const fn = this.listener;
    this.listener = null;
    fn?.();
  }
}

function failure(e: NoshError): TaskResponse {
  return { ok: false, error: e.toBody() };
}
