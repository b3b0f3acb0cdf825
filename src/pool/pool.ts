import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import { NoshError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { TaskRequest, TaskResponse } from '../exec/index.js';
import { enableLinearRegexFallback } from './regex-flags.js';
import { newTempRegistry, removeTemps, resetTempRegistry } from '../runtime/temps.js';
import { ONLINE, REPLIES, REQUESTS, STOP, Watch, counterMovedWithin, laneFlags, onlineWithin, raise, whenCounterMoves, type LaneChannel } from './lane.js';
import { newProgress, readProgress, resetProgress, type Progress } from '../runtime/progress.js';
import { Mailbox, newMailbox, receiveReply, sendTask } from './mailbox.js';

export interface PoolOptions {
  /** Worker threads (default: number of cores). */
  threads?: number;
  /** Heap limit of each worker, MB. */
  memoryMb?: number;
  /**
   * How long a lone caller blocks the event loop waiting for its reply (Atomics.wait: the
   * fastest wake-up there is) before it waits asynchronously instead, ms; 0 turns that off.
   */
  syncWaitMs?: number;
  /**
   * Watching before sleeping (src/pool/lane.ts Watch), µs: the caller for its reply, a worker
   * for its next request; each side stops by itself while it does not pay. 0: never.
   */
  syncWatchUs?: number;
  workerWatchUs?: number;
  /**
   * Budget of the whole process's resident memory, MB (default: threads x memoryMb x 2 +
   * 512; 0: no watch). See watchRss.
   */
  rssMb?: number;
  /** How often the RSS is looked at while tasks run, ms (default 75). */
  rssEveryMs?: number;
}

/**
 * What run() uses of an AbortSignal to cancel a task: an AbortSignal fits, and so does a
 * lighter object (the JSON-RPC server makes one per request, EventTargets cost more).
 */
export interface CancelSignal {
  readonly aborted: boolean;
  /**
   * Told the task's progress (src/runtime/progress.ts) once it has run PROGRESS_AFTER_MS, then
   * every PROGRESS_EVERY_MS while the counts move. On the signal because the signal already
   * travels from the call down to run(): one object carries both.
   */
  onProgress?: (p: Progress) => void;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A call's first progress report comes after this long (a call done sooner reports none). */
export const PROGRESS_AFTER_MS = 1000;
export const PROGRESS_EVERY_MS = 500;

/** Under vitest the sources are .ts; workers always run the compiled JavaScript. */
function workerFile(): string {
  const here = import.meta.url;
  const url = here.endsWith('.ts') ? new URL('../../dist/src/pool/worker.js', here) : new URL('./worker.js', here);
  return url.href;
}

type Balancer = NonNullable<ConstructorParameters<typeof Piscina>[0]>['loadBalancer'] & {};

/**
 * One lane per worker: piscina may only hand a lane task to a worker that has none. The
 * lowest thread id first, so a lane started again after idling lands on the worker it had,
 * whose code V8 has already optimised.
 */
const idleWorkerOnly: Balancer = (_task, workers) => {
  let idle: (typeof workers)[number] | null = null;
  for (const w of workers) {
    if (w.currentUsage === 0 && !w.terminating && !w.destroyed && (!idle || w.id < idle.id)) idle = w;
  }
  return idle;
};

/** A caller's task, queued or on a lane. */
interface Job {
  task: TaskRequest;
  resolve: (res: TaskResponse) => void;
  /** Armed once the job is not answered within run() itself (see run). */
  timer?: NodeJS.Timeout;
  timeoutMs: number;
  cancel?: CancelSignal;
  onCancel?: () => void;
  lane?: Lane;
  /** Why the pool stopped it, if it did. */
  stopped?: 'timeout' | 'cancel' | 'memory';
  /** Reports the lane's progress counters to cancel.onProgress while it runs. */
  progressTimer?: NodeJS.Timeout;
  /** Once a report was made: report the final counts, if they moved since (called as the job ends). */
  lastProgress?: () => void;
  /** The process's RSS when it was dispatched (only while the RSS watch runs). */
  rssAtStart?: number;
  done?: boolean;
}

/** The main thread's end of one worker's lane (src/pool/lane.ts). */
class Lane {
  readonly flags = new Int32Array(laneFlags());
  readonly boxMemory = newMailbox();
  readonly box: Mailbox;
  readonly temps = newTempRegistry();
  readonly progress = newProgress();
  /** What this lane's worker has been sent by number: policies, quota counters (src/pool/mailbox.ts). */
  readonly sent = new Set<number>();
  readonly abort = new TaskAbort();
  /** Replies taken so far. */
  replies = 0;
  job?: Job;
  /** Takes no more jobs: ended, or ending (retired). */
  dead = false;
  /** Its piscina task ended. */
  ended = false;
  /** Ended by the pool after sitting idle (see retireIdleLanes); started again on demand. */
  retired = false;
  /** Jobs taken, and their count when the idle check last looked. */
  jobs = 0;
  jobsSeen = 0;

  constructor(readonly index: number, readonly port: MessagePort) {
    this.box = new Mailbox(this.boxMemory, port);
  }
}

/** Lanes that end on their own, with no job on them, before the pool gives up restarting. */
const MAX_LANE_FAILURES = 5;
/** Jobs waiting for a lane before new ones are refused. */
const MAX_QUEUE = 10_000;
/**
 * A lane that took no job during one whole period of this length ends, so that its worker no
 * longer keeps the process alive: a program that never calls close() still exits.
 */
const IDLE_LANE_MS = 2_000;
/** Growth of the process during a task below which the RSS watch does not stop it, bytes. */
const RSS_GROWTH_MIN = 32 * 1024 * 1024;
/** How long close() or a timeout waits for a starting worker to run before terminating it anyway. */
const CLOSE_WAIT_MS = 10_000;


/**
 * The worker pool: tasks run on lanes, one per piscina worker; per task a timeout (the worker
 * is terminated and piscina replaces it), a heap limit (resourceLimits), and every failure
 * turned into an error body. Among idle lanes the lowest is always chosen, so one caller at a
 * time keeps one worker hot (its code optimised, its thread awake).
 */
export class WorkerPool {
  private readonly piscina: Piscina;
  readonly memoryMb: number;
  private readonly syncWaitMs: number;
  private readonly workerWatchUs: number;
  private readonly watch: Watch;
  private readonly lanes: Lane[] = [];
  private readonly queue: Job[] = [];
  private busy = 0;
  /** Lanes that ended with no job and no reason since the last reply (see MAX_LANE_FAILURES). */
  private laneFailures = 0;
  /** Set once lanes keep failing: every job then fails at once. */
  private broken: unknown = null;
  private closed = false;
  private readonly idleCheck: NodeJS.Timeout;
  private readonly maxLanes: number;
  /** The RSS budget in bytes (0: none), and its timer, armed only while a task runs. */
  private rssLimit = 0;
  private readonly rssEveryMs: number;
  private rssTimer: NodeJS.Timeout | null = null;
  /** A job the watch stopped whose lane has not ended yet: no second one until it has. */
  private rssVictim: Job | null = null;

  constructor(opts: PoolOptions = {}) {
    enableLinearRegexFallback();
    const threads = Math.max(1, opts.threads ?? availableParallelism());
    this.memoryMb = opts.memoryMb ?? 512;
    this.syncWaitMs = opts.syncWaitMs ?? 2;
    this.watch = new Watch(opts.syncWatchUs ?? 40);
    this.workerWatchUs = opts.workerWatchUs ?? 200;
    this.piscina = new Piscina({
      filename: workerFile(),
      minThreads: 1,
      maxThreads: threads,
      idleTimeout: 60_000,
      loadBalancer: idleWorkerOnly,
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, this.memoryMb / 8)) },
    });
    // One lane (and one worker) to start with: booting every worker at once slows the first
    // answer on a small machine. The others start when a job finds every lane busy.
    this.maxLanes = threads;
    this.rssEveryMs = opts.rssEveryMs ?? 75;
    this.setRssLimit(opts.rssMb ?? threads * this.memoryMb * 2 + 512);
    this.startLane(0);
    this.idleCheck = setInterval(() => this.retireIdleLanes(), IDLE_LANE_MS).unref();
  }

  run(task: TaskRequest, timeoutMs: number, cancel?: CancelSignal): Promise<TaskResponse> {
    return new Promise<TaskResponse>((resolve) => {
      if (this.closed) return resolve(failure(new NoshError('INTERNAL_ERROR', 'nosh is closed', 'Create a new instance.')));
      if (cancel?.aborted) return resolve(failure(cancelled()));
      if (this.broken) return resolve(failure(crashError(this.broken, this.memoryMb)));
      if (this.queue.length >= MAX_QUEUE) {
        return resolve(failure(new NoshError('BUSY', `too many requests are waiting (${MAX_QUEUE} queued); this one was not run`,
          'Nothing was done: retry this request after a short pause (e.g. 1 s), and send fewer requests at once.',
          { queued: this.queue.length, retry_after_ms: 1000 })));
      }
      const job: Job = { task, resolve, timeoutMs, cancel };
      const start = performance.now();
      let lane = this.lanes.find((l) => !l.job && !l.dead);
      if (!lane) {
        const retired = this.lanes.find((l) => l.retired);
        if (retired) lane = this.startLane(retired.index);
        else if (this.lanes.length < this.maxLanes) lane = this.startLane(this.lanes.length);
      }
      if (lane) this.dispatch(lane, job, true);
      else this.queue.push(job);
      // A lone caller's reply may be in already (dispatch waited for it, within the timeout):
      // then there is no timer to arm and clear, nor a listener. Nothing can abort or time
      // out the job during this synchronous call, so arming them now loses nothing.
      if (job.done) return;
      job.timer = setTimeout(() => this.stop(job, 'timeout'), Math.max(0, timeoutMs - (performance.now() - start)));
      if (cancel) {
        job.onCancel = () => this.stop(job, 'cancel');
        cancel.addEventListener('abort', job.onCancel, { once: true });
      }
    });
  }

  /**
   * A call is coming: wake the lane it will most likely take (the lowest idle one) while the
   * caller still validates and builds its task. A worker asleep between sparse calls takes
   * tens of µs to wake on a small VM; woken now, it watches for the request instead.
   */
  prewake(): void {
    const lane = this.lanes.find((l) => !l.job && !l.dead);
    if (lane) Atomics.notify(lane.flags, REQUESTS);
  }

  /** The RSS budget of the process, MB (0: no watch). */
  setRssLimit(mb: number): void {
    this.rssLimit = Math.max(0, mb) * 1024 * 1024;
    if (this.rssLimit === 0) this.unwatchRss();
    else if (this.busy > 0) this.watchRss();
  }

  get rssLimitMb(): number {
    return this.rssLimit / (1024 * 1024);
  }

  /**
   * The backstop behind the workers' own limits: memory that V8's heap limit does not
   * count (a regex engine's working memory, native buffers) can still grow the process. While
   * tasks run, the process's RSS is read every rssEveryMs (process.memoryUsage.rss(): one
   * syscall-free read of /proc, a few µs); past the budget, the running task under which the
   * process grew most is stopped as a timeout is (its worker terminated and replaced) and
   * answers MEMORY_LIMIT. Node 20 cannot read a busy worker's heap from here
   * (worker.getHeapStatistics is newer), so "grew most" is the RSS growth since its dispatch.
   * No timer runs while the pool is idle.
   */
  private watchRss(): void {
    if (this.rssTimer || this.rssLimit === 0) return;
    this.rssTimer = setInterval(() => this.checkRss(), this.rssEveryMs).unref();
  }

  private unwatchRss(): void {
    if (!this.rssTimer) return;
    clearInterval(this.rssTimer);
    this.rssTimer = null;
  }

  private checkRss(): void {
    const rss = process.memoryUsage.rss();
    if (rss <= this.rssLimit) return;
    if (this.rssVictim && !this.rssVictim.done) return; // its worker is still going down
    let victim: Job | undefined;
    for (const lane of this.lanes) {
      const job = lane?.job;
      if (!job || job.stopped || job.done) continue;
      if (!victim || (job.rssAtStart ?? rss) < (victim.rssAtStart ?? rss)) victim = job;
    }
    // Memory a terminated worker freed may stay in the process (the allocator keeps it): a
    // task that did not itself grow the process is not blamed for that.
    if (!victim || rss - (victim.rssAtStart ?? rss) < RSS_GROWTH_MIN) return;
    this.rssVictim = victim;
    this.stop(victim, 'memory');
  }

  get threads(): number {
    return this.piscina.threads.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.idleCheck);
    this.unwatchRss();
    for (const job of this.queue.splice(0)) this.finish(job, failure(new NoshError('INTERNAL_ERROR', 'nosh is closed', '')));
    for (const lane of this.lanes) {
      Atomics.store(lane.flags, STOP, 1);
      Atomics.notify(lane.flags, REQUESTS);
    }
    // Terminating a worker that is still starting (its isolate, its modules) can crash the
    // process on Node 20 (nodejs/node#56312), and a CLI whose line is refused closes the pool
    // it started a few ms before. So let each worker reach its lane first, for a while.
    await Promise.all(this.lanes.filter((l) => !l.ended).map((l) => onlineWithin(l.flags, CLOSE_WAIT_MS)));
    await this.piscina.destroy();
  }

  /**
   * Start (or restart) lane `index`: a piscina task that serves it until STOP or termination.
   * Jobs can be posted on it at once: its worker reads them when the task starts.
   */
  private startLane(index: number): Lane {
    const { port1, port2 } = new MessageChannel();
    const lane = new Lane(index, port1);
    this.lanes[index] = lane;
    const channel: LaneChannel = {
      flags: lane.flags.buffer as SharedArrayBuffer, box: lane.boxMemory, port: port2, temps: lane.temps, progress: lane.progress, memoryMb: this.memoryMb, watchUs: this.workerWatchUs,
    };
    this.piscina.run(channel, { transferList: [port2], signal: lane.abort as unknown as AbortSignal })
      .then(() => this.laneEnded(lane, undefined), (e: unknown) => this.laneEnded(lane, e));
    return lane;
  }

  private retireIdleLanes(): void {
    for (const lane of this.lanes) {
      if (!lane.dead && !lane.job && lane.jobs === lane.jobsSeen) {
        lane.dead = lane.retired = true;
        Atomics.store(lane.flags, STOP, 1);
        Atomics.notify(lane.flags, REQUESTS);
      }
      lane.jobsSeen = lane.jobs;
    }
  }

  /** Post the job on the lane; `caller` when called from run() (then it may wait for the reply). */
  private dispatch(lane: Lane, job: Job, caller = false): void {
    lane.job = job;
    lane.jobs++;
    job.lane = lane;
    this.busy++;
    if (this.rssLimit > 0) {
      if (!this.rssTimer) this.watchRss();
      job.rssAtStart = process.memoryUsage.rss();
    }
    resetTempRegistry(lane.temps);
    if (job.cancel?.onProgress) this.watchProgress(lane, job, job.cancel.onProgress);
    sendTask(lane.box, job.task, lane.sent);
    raise(lane.flags, REQUESTS);
    // A caller alone in flight sleeps on the reply counter instead of going back to the event
    // loop. Queued jobs never do: collect → next → dispatch would nest once per queued job.
    if (caller && this.busy === 1 && this.syncWaitMs > 0 && counterMovedWithin(lane.flags, REPLIES, lane.replies, Math.min(this.syncWaitMs, job.timeoutMs), this.watch)) this.collect(lane);
    else whenCounterMoves(lane.flags, REPLIES, lane.replies, () => { if (lane.job === job) this.collect(lane); });
  }

  /** Report the lane's counters while `job` runs on it: first after PROGRESS_AFTER_MS, then as they move. */
  private watchProgress(lane: Lane, job: Job, report: (p: Progress) => void): void {
    resetProgress(lane.progress);
    let last = '';
    const read = () => {
      const p = readProgress(lane.progress);
      const key = `${p.files}/${p.bytes}/${p.total}/${p.total_bytes}`;
      if (key === last) return;
      last = key;
      try { report(p); } catch { /* a listener's failure is not the task's */ }
    };
    const tick = () => {
      if (job.done || lane.job !== job) return;
      read();
      // A caller that was told the task's progress is also told where it ended.
      job.lastProgress = read;
      job.progressTimer = setTimeout(tick, PROGRESS_EVERY_MS);
    };
    job.progressTimer = setTimeout(tick, PROGRESS_AFTER_MS);
  }

  /** Take the reply of the lane's job and give the lane the next queued job. */
  private collect(lane: Lane): void {
    const job = lane.job;
    if (!job || lane.dead) return;
    const reply = receiveReply(lane.box);
    if (!reply) return;
    lane.replies++;
    lane.job = undefined;
    this.laneFailures = 0;
    if (--this.busy === 0) this.unwatchRss();
    this.finish(job, reply);
    this.next(lane);
  }

  private next(lane: Lane): void {
    const job = this.queue.shift();
    if (job) this.dispatch(lane, job);
  }

  /** Timeout or cancel: a queued job just ends; a running one takes its worker down with it. */
  private stop(job: Job, why: 'timeout' | 'cancel' | 'memory'): void {
    if (job.done || job.stopped) return;
    job.stopped = why;
    const lane = job.lane;
    if (lane) {
      // Its worker may still be starting (a lane restarted after a timeout): terminate it
      // only once it runs, as close() does. The caller hears when the lane has ended.
      if (Atomics.load(lane.flags, ONLINE) !== 0) lane.abort.abort();
      else void onlineWithin(lane.flags, CLOSE_WAIT_MS).then(() => lane.abort.abort());
      return;
    }
    this.queue.splice(this.queue.indexOf(job), 1);
    this.finish(job, failure(stoppedError(job)));
  }

  /** A lane's piscina task ended: its worker was stopped, crashed, or the pool closed. */
  private laneEnded(lane: Lane, error: unknown): void {
    lane.dead = lane.ended = true;
    Atomics.notify(lane.flags, ONLINE);
    lane.port.close();
    // Release a caller's pending wait on the lane (it finds the job gone and does nothing).
    Atomics.add(lane.flags, REPLIES, 1);
    Atomics.notify(lane.flags, REPLIES);
    const job = lane.job;
    lane.job = undefined;
    if (job) {
      if (--this.busy === 0) this.unwatchRss();
      // The worker was stopped mid-task: no finally ran there. Terminating is asynchronous,
      // so look again once it surely stopped.
      const roots = job.task.peer ? [job.task.root, job.task.peer.root] : [job.task.root];
      removeTemps(lane.temps, roots);
      setTimeout(() => removeTemps(lane.temps, roots), 250).unref();
      this.finish(job, failure(job.stopped ? stoppedError(job, this.rssLimitMb) : crashError(error, this.memoryMb)));
    } else if (!this.closed && !lane.retired) {
      this.laneFailures++;
    }
    if (this.closed || lane.retired) return;
    if (this.laneFailures > MAX_LANE_FAILURES) {
      // Workers that cannot even start (a broken install): fail fast instead of restarting forever.
      this.broken = error ?? new Error('worker lanes keep ending');
      for (const queued of this.queue.splice(0)) this.finish(queued, failure(crashError(error, this.memoryMb)));
      return;
    }
    this.next(this.startLane(lane.index));
  }

  private finish(job: Job, res: TaskResponse): void {
    if (job.done) return;
    job.done = true;
    clearTimeout(job.timer);
    clearTimeout(job.progressTimer);
    job.lastProgress?.();
    if (job.onCancel) job.cancel?.removeEventListener('abort', job.onCancel);
    job.resolve(res);
  }
}

function cancelled(): NoshError {
  return new NoshError('CANCELLED', 'the request was cancelled', '');
}

function stoppedError(job: Job, rssLimitMb = 0): NoshError {
  if (job.stopped === 'cancel') return cancelled();
  if (job.stopped === 'memory') {
    return new NoshError('MEMORY_LIMIT', `command stopped: the nosh process passed its memory budget of ${Math.round(rssLimitMb)} MB while it ran`,
      'Memory outside the worker heap grew (e.g. very many patterns or a huge regex, or native buffers): use fewer or simpler patterns (grep -F for plain strings), or smaller inputs.',
      { rss_mb: Math.round(rssLimitMb) });
  }
  return new NoshError('TIMEOUT', `command timed out after ${job.timeoutMs} ms`,
    `Narrow the work (a smaller path, a simpler pattern, head to cut output) or raise timeoutMs (max ${LIMITS.timeoutMs.max}).`,
    { timeout_ms: job.timeoutMs });
}

function crashError(e: unknown, memoryMb: number): NoshError {
  const code = (e as { code?: string })?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory|heap/i.test(String((e as Error)?.message))) {
    return new NoshError('MEMORY_LIMIT', `command exceeded the worker memory limit of ${memoryMb} MB`,
      'Stream instead of loading everything: process smaller files or ranges, or pipe through head.',
      { memory_mb: memoryMb });
  }
  return new NoshError('INTERNAL_ERROR', 'the worker running the command failed', 'Retry; if it repeats, simplify the command.',
    { kind: (e as Error)?.name ?? 'Error' });
}

/**
 * The least piscina needs to stop a lane's task (it calls addEventListener('abort', fn) and
 * later removeEventListener, and reads aborted / reason).
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
