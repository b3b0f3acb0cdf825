/**
 * The helper thread of a worker (one per worker, started on first use, kept while it works):
 * grep -r sends it batches of small files (commands/grep/parallel.ts), sort half of a big
 * input's lines (SortJob, src/gnulib/line-sort.ts). Its code is commands/grep/helper.ts.
 */
import { performance } from 'node:perf_hooks';
import { Worker, MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { SortJob } from './line-sort.js';

/** One file's result: its output, or null: the serial path must do it. */
export interface FileResult {
  out: Buffer | null;
  nlines: number;
  binaryMatched: boolean;
}

let enabled = true;
/** Whether grep -r and sort may use the helper thread (tests compare both paths). */
export function helperOn(): boolean {
  return enabled;
}
export function setHelper(on: boolean): void {
  enabled = on;
}

/** Under vitest the sources are .ts; the helper always runs the compiled JavaScript. */
function helperFile(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL('../../dist/commands/grep/helper.js', here) : new URL('../../commands/grep/helper.js', here);
}

/** Signal words: [0] messages sent, [1] batches answered, [2] the helper runs. */
const SENT = 0;
const DONE = 1;
const ONLINE = 2;
/** How long the command's thread watches for the helper's answer before it sleeps, ms. */
const SPIN_MS = 0.1;

/** The worker's helper thread (one per worker, started on first use, kept while it works). */
export class Helper {
  private static one: Helper | null = null;
  private static failed = false;
  private readonly sig = new Int32Array(new SharedArrayBuffer(12));
  private readonly port: MessagePort;
  private readonly worker: Worker;
  private runs = 0;
  dead = false;
  /** Batches the helper answered (tests: the two-thread path did run). */
  static answered = 0;

  private constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(helperFile(), {
      workerData: { port: port2, sig: this.sig },
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
    });
    this.worker.unref();
    this.worker.on('error', () => { this.dead = true; });
    this.worker.on('exit', () => { this.dead = true; if (Helper.one === this) Helper.one = null; });
  }

  /** The worker's helper, or null where it cannot run. */
  static get(): Helper | null {
    if (Helper.failed) return null;
    if (Helper.one && !Helper.one.dead) return Helper.one;
    try {
      Helper.one = new Helper();
    } catch {
      Helper.failed = true;
      return null;
    }
    return Helper.one;
  }

  /** The helper thread runs (until then, and once dead, the command's thread does all the work). */
  ready(): boolean {
    return !this.dead && Atomics.load(this.sig, ONLINE) !== 0;
  }

  /** Start a search: the helper builds its matcher once; the run's number. */
  begin(spec: unknown): number {
    const run = ++this.runs;
    this.post({ kind: 'spec', run, spec });
    return run;
  }

  send(batch: object): void {
    this.post({ kind: 'batch', ...batch });
  }

  private post(m: unknown): void {
    this.port.postMessage(m);
    Atomics.add(this.sig, SENT, 1);
    Atomics.notify(this.sig, SENT);
  }

  /** The next batch's results (waiting at most `ms`); null if the helper did not answer. */
  take(ms: number): (FileResult | null)[] | null {
    const m = this.receive(ms);
    return m ? (m as { results: (FileResult | null)[] }).results.map(revive) : null;
  }

  /** Start sorting half of sort's lines (see SortJob); its run number for sorted(). */
  sort(job: Omit<SortJob, 'run'>): number {
    const run = ++this.runs;
    this.post({ kind: 'sort', run, ...job });
    return run;
  }

  /** Whether the helper did its sort (waiting at most `ms`): false, and the job is the caller's. */
  sorted(run: number, ms: number): boolean {
    const m = this.receive(ms) as { sorted?: number; ok?: boolean } | null;
    return m !== null && m.sorted === run && m.ok === true;
  }

  /** The helper's next answer (waiting at most `ms`); null if it did not answer. */
  private receive(ms: number): unknown {
    const end = Date.now() + ms;
    for (;;) {
      const m = receiveMessageOnPort(this.port);
      if (m) {
        Helper.answered++;
        return m.message;
      }
      if (this.dead || Date.now() >= end) return null;
      const seen = Atomics.load(this.sig, DONE);
      // A moment of watching first: its batch was started before this thread's half.
      const until = performance.now() + SPIN_MS;
      while (Atomics.load(this.sig, DONE) === seen && performance.now() < until) { /* watch */ }
      const again = receiveMessageOnPort(this.port);
      if (again) {
        Helper.answered++;
        return again.message;
      }
      Atomics.wait(this.sig, DONE, seen, 50);
    }
  }

  /** A helper that failed to answer is not used again. */
  abandon(): void {
    this.dead = true;
    if (Helper.one === this) Helper.one = null;
    void this.worker.terminate();
  }
}

/** Buffers come back over the port as Uint8Arrays. */
function revive(r: FileResult | null): FileResult | null {
  if (!r || !r.out) return r;
  return { ...r, out: Buffer.from(r.out.buffer, r.out.byteOffset, r.out.byteLength) };
}
