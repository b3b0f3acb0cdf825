import { performance } from 'node:perf_hooks';
import type { MessagePort } from 'node:worker_threads';
import type { TaskRequest, TaskResponse } from '../exec/task.js';
import { Mailbox, receiveTask, sendReply } from './mailbox.js';
import { setProgressTarget } from '../runtime/progress.js';

/**
 * A lane: the hot path between the main thread and one worker.
 *
 * Piscina owns the threads (creation, heap limits, termination, replacement); each worker
 * runs one long-lived piscina task, its lane. Requests and replies travel through the lane's
 * mailbox (src/pool/mailbox.ts: shared memory, or its MessagePort for what does not fit),
 * and neither side waits for them through its event loop: counters in shared memory say
 * that a message is there, and a waiting thread sleeps on them with Atomics.wait (a futex, a
 * few microseconds to wake). A per-task piscina.run costs about 20 µs of main-thread work
 * plus an event-loop wake-up on each side, more than a small command itself takes.
 */
export interface LaneChannel {
  /** Int32 counters, see REQUESTS / REPLIES / STOP / ONLINE. */
  flags: SharedArrayBuffer;
  /** The mailbox's shared memory (src/pool/mailbox.ts). */
  box: SharedArrayBuffer;
  port: MessagePort;
  /** Where the lane's current task records its temp files (src/runtime/temps.ts). */
  temps: SharedArrayBuffer;
  /** The lane's progress counters (src/runtime/progress.ts). */
  progress: SharedArrayBuffer;
  /** The worker's heap + Buffer budget, MB. */
  memoryMb: number;
  /** How long the worker watches for its next request before it sleeps, µs (see Watch). */
  watchUs: number;
}

/** Requests posted by the main thread. */
export const REQUESTS = 0;
/** Replies posted by the worker. */
export const REPLIES = 1;
/** Set by the main thread to end the lane (the worker's task then returns). */
export const STOP = 2;
/** Set by the worker once its lane task runs: from then on terminating it is safe (see WorkerPool.close). */
export const ONLINE = 3;

export function laneFlags(): SharedArrayBuffer {
  return new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
}

/** Raise `counter` (a message was sent), waking the other side if it sleeps on it. */
export function raise(flags: Int32Array, counter: number): void {
  Atomics.add(flags, counter, 1);
  Atomics.notify(flags, counter);
}

/**
 * How often a Watch that stopped tries again. A burst of calls after an idle spell starts
 * slow on a VM (misses turn the watch off), and then pays for every wake-up until the watch
 * looks again: every 8 waits the bench's interleaved cat row was 39-60 µs (median 44) where
 * every 64 gave 34-62 µs (median 50) over 7 alternating runs. A probe costs at most the
 * watch's length once per 8 waits.
 */
const PROBE_EVERY = 8;

/**
 * Watching a counter for a while before sleeping on it. Waking a sleeping thread costs its
 * waker a futex call and, on a small VM, an interrupt to another virtual CPU: tens of
 * microseconds. A message that comes while the receiver still watches costs neither side
 * that; one that does not costs the watch. So a Watch keeps watching only while it pays:
 * each miss (the watch ran out) counts double against each hit, and once it stops it tries
 * again every PROBE_EVERY waits. Sparse traffic or slow commands turn it off by themselves.
 */
export class Watch {
  private score = 4;
  private waits = 0;

  constructor(private readonly us: number) {}

  /** Wait for flags[counter] to leave `seen` by watching, if watching pays now; true if it moved. */
  moved(flags: Int32Array, counter: number, seen: number): boolean {
    if (this.us <= 0) return false;
    if (this.score <= 0) {
      if (++this.waits % PROBE_EVERY !== 0) return false;
      this.score = 1;
    }
    const end = performance.now() + this.us / 1000;
    do {
      for (let i = 0; i < 64; i++) {
        if (Atomics.load(flags, counter) !== seen) {
          this.score = Math.min(8, this.score + 1);
          return true;
        }
      }
    } while (performance.now() < end);
    this.score -= 2;
    return false;
  }
}

/*
 * Waiting for a counter to move. A wake-up alone proves nothing: a side raises the counter
 * before it notifies, so a late notify for the previous message can wake a waiter for the
 * next one. Both waits therefore look at the counter again after every wake-up.
 */

/** Block until flags[counter] is no longer `seen`, at most `ms` (watching first if given a Watch); true if it moved. */
export function counterMovedWithin(flags: Int32Array, counter: number, seen: number, ms: number, watch?: Watch): boolean {
  if (watch?.moved(flags, counter, seen)) return true;
  const end = performance.now() + ms;
  for (let left = ms; Atomics.load(flags, counter) === seen; left = end - performance.now()) {
    if (left <= 0 || Atomics.wait(flags, counter, seen, left) === 'timed-out') break;
  }
  return Atomics.load(flags, counter) !== seen;
}

/** Call `then` (once, from the event loop) when flags[counter] is no longer `seen`. */
export function whenCounterMoves(flags: Int32Array, counter: number, seen: number, then: () => void): void {
  const wait = waitAsync(flags, counter, seen);
  if (!wait.async) queueMicrotask(then);
  else void wait.value.then(() => whenCounterMoves(flags, counter, seen, then));
}

/** True once the lane's worker runs its lane task; false if woken otherwise (its lane ended) or after `ms`. */
export async function onlineWithin(flags: Int32Array, ms: number): Promise<boolean> {
  const wait = waitAsync(flags, ONLINE, 0, ms);
  if (wait.async) await wait.value;
  return Atomics.load(flags, ONLINE) !== 0;
}

/** Atomics.waitAsync (in Node since 16; in TypeScript's lib only from es2024). */
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, index: number, value: number, timeoutMs?: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

/** How long a worker woken ahead of a request watches for it (WorkerPool.prewake), µs. */
const PREWAKE_WATCH_US = 100;

/** Watch flags[counter] for up to `us` while it is `seen`. */
function watchFor(flags: Int32Array, counter: number, seen: number, us: number): void {
  const end = performance.now() + us / 1000;
  while (Atomics.load(flags, counter) === seen && performance.now() < end) { /* watch */ }
}

/** Worker side: serve requests until the main thread sets STOP. */
export async function serveLane(channel: LaneChannel, handle: (request: TaskRequest) => Promise<TaskResponse>): Promise<void> {
  const flags = new Int32Array(channel.flags);
  const box = new Mailbox(channel.box, channel.port);
  const watch = new Watch(channel.watchUs);
  const sent = new Map<number, unknown>();
  let seen = 0;
  setProgressTarget(channel.progress);
  raise(flags, ONLINE);
  for (;;) {
    watch.moved(flags, REQUESTS, seen);
    while (Atomics.load(flags, REQUESTS) === seen) {
      if (Atomics.load(flags, STOP) !== 0) {
        channel.port.close();
        return;
      }
      Atomics.wait(flags, REQUESTS, seen);
      // Woken with no request yet: a call is coming (WorkerPool.prewake) and its task is
      // being built. Watch for it rather than sleep again.
      if (Atomics.load(flags, STOP) === 0) watchFor(flags, REQUESTS, seen, PREWAKE_WATCH_US);
    }
    seen++;
    const task = receiveTask(box, sent);
    task.temps = channel.temps;
    task.memoryMb = channel.memoryMb;
    sendReply(box, await handle(task));
    raise(flags, REPLIES);
  }
}
