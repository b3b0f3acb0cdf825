/**
 * grep -r on two threads: the walk's small files are split between the command's thread and
 * one helper thread of the worker (commands/grep/helper.ts, started on the first such search
 * and kept). Each thread opens, reads, searches and closes its own files (an fd opened in one
 * thread and closed in another cost 2.7x the CPU of the serial run in bench/probes), and
 * per-file results are put back in walk order, so the output is the serial run's.
 *
 * What stays on the command's thread: the walk, every name check (Vfs.listedFileTarget gives
 * the helper a path through the open, located directory only for a name that passed them),
 * the directory checks before output leaves (GrepRun.settle, after the helper's opens), every
 * message. The helper opens `/proc/self/fd/DIR/NAME` as Vfs.openListedFileAt does (O_NOFOLLOW,
 * O_NONBLOCK, fstat: a regular file within the zone's size limit, under SMALL_FILE) and hands
 * back anything else untouched: the command's thread then runs the serial path for that file,
 * which reports what is wrong.
 *
 * Used only where one file's output does not depend on the files before it (no context lines,
 * -q, -o) and the search needs no other state (no content cache, no symlink following).
 */
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Worker, MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { buildMatcher, type Matcher } from './matcher.js';
import { copyLines, sortLines } from '../sort/line-sort.js';
import { OutBuffer, Scan, SGR, sgr, type Opts, type ScanHost } from './scan.js';
import type { RegexDialect } from '../../src/regex/index.js';
import type { CommandContext } from '../../src/command/index.js';

/** What the helper needs to search as the command does. */
export interface SearchSpec {
  patterns: string[];
  dialect: RegexDialect;
  flags: { i: boolean; w: boolean; x: boolean; z: boolean };
  o: Omit<Opts, 'fileRules' | 'dirRules'>;
  showName: boolean;
  maxBufferBytes: number;
}

/** One file's result: its output, or null: the serial path must do it. */
export interface FileResult {
  out: Buffer | null;
  nlines: number;
  binaryMatched: boolean;
}

/** A file as the helper opens it. */
export interface RemoteFile {
  path: string;
  maxSize: number;
}

/** Searching whole small files into a buffer of their own (both threads use it). */
export class FileSearcher implements ScanHost {
  readonly ctx: CommandContext;
  readonly o: Opts;
  readonly m: Matcher;
  readonly eol: number;
  readonly eolChar: string;
  readonly quietOut: boolean;
  readonly ctxOn = false;
  outFile: boolean | 'auto';
  used = false;
  exitNow = false;
  private out = new OutBuffer();

  constructor(readonly spec: SearchSpec, m?: Matcher) {
    this.o = { ...spec.o, fileRules: [], dirRules: [] };
    this.m = m ?? buildMatcher(spec.patterns, spec.dialect, spec.flags, () => {});
    this.ctx = { limits: { maxBufferBytes: spec.maxBufferBytes } } as unknown as CommandContext;
    this.eol = spec.o.z ? 0 : 10;
    this.eolChar = spec.o.z ? '\0' : '\n';
    this.quietOut = spec.o.count || spec.o.list !== '' || spec.o.quiet;
    this.outFile = spec.showName;
  }

  push(b: Buffer | string): void {
    this.out.push(b);
  }
  heldTooMuch(): boolean {
    return false;
  }
  async flush(): Promise<void> { /* held until the result is taken */ }

  /** Search `data` (a whole file) as `display`; its output and counts. */
  search(data: Buffer, display: string, width: number): FileResult {
    const s = new Scan(this, display, width);
    s.whole(data);
    reportLines(this, this.o, s.nlines, display);
    return { out: this.out.size > 0 ? this.out.take() : null, nlines: s.nlines, binaryMatched: s.binaryMatched };
  }
}

/** After a file: its count (-c) or name (-l, -L), as GrepRun.report prints them. */
export function reportLines(host: { push(b: Buffer | string): void; outFile: boolean | 'auto' }, o: Opts, nlines: number, name: string): void {
  const showName = host.outFile === true;
  const pushName = () => {
    const bytes = Buffer.from(name, 'utf8');
    host.push(o.color ? sgr(SGR.file, bytes.toString('latin1')) : bytes);
  };
  if (o.count && o.list === '' && !o.quiet) {
    if (showName) {
      pushName();
      host.push(o.nullName ? '\0' : o.color ? sgr(SGR.sep, ':') : ':');
    }
    host.push(nlines + '\n');
  }
  if (!o.quiet && ((o.list === 'l' && nlines > 0) || (o.list === 'L' && nlines === 0))) {
    pushName();
    host.push(o.nullName ? '\0' : '\n');
  }
}

/** -T's width of numbers (GrepRun.tabWidth). */
export function tabWidth(o: Opts, size: number): number {
  return o.tab ? String(size + (o.lineNo ? 1 : 0)).length : 0;
}

// ---- the helper's side --------------------------------------------------------------

const O_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/**
 * Open, read and search one file the command's thread named (its checks passed); null when
 * it is not a small regular file within the size limit now (the serial path redoes it).
 */
export function searchRemote(s: FileSearcher, f: RemoteFile, display: string, buf: Buffer, small: number): FileResult | null {
  let fd: number;
  try {
    fd = fs.openSync(f.path, O_FLAGS);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > f.maxSize || st.size >= small) return null;
    const n = fs.readSync(fd, buf, 0, st.size + 1, null);
    if (n > st.size) return null;
    return s.search(buf.subarray(0, n), display, tabWidth(s.o, st.size));
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

// ---- sort's job (commands/sort): half of the lines, on the helper -----------------------

/** Lines order[from, to) of `data` (all in shared memory) sorted, then copied into `out` from `at`. */
export interface SortJob {
  run: number;
  data: Uint8Array;
  starts: Uint32Array;
  order: Uint32Array;
  from: number;
  to: number;
  out: Uint8Array;
  at: number;
}

export function sortLinesJob(job: SortJob): void {
  const part = job.order.subarray(job.from, job.to);
  sortLines(job.data, job.starts, part);
  copyLines(job.data, job.starts, part, 0, part.length, job.out, job.at);
}

// ---- the command's side: the helper thread ------------------------------------------

let enabled = true;
/** Whether grep -r may use the helper thread (tests compare both paths). */
export function helperOn(): boolean {
  return enabled;
}
export function setHelper(on: boolean): void {
  enabled = on;
}

/** Under vitest the sources are .ts; the helper always runs the compiled JavaScript. */
function helperFile(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL('../../dist/commands/grep/helper.js', here) : new URL('./helper.js', here);
}

/** Signal words: [0] messages sent, [1] batches answered, [2] the helper runs. */
const SENT = 0;
const DONE = 1;
const ONLINE = 2;
/** How long the command's thread watches for the helper's answer before it sleeps, ms. */
const SPIN_MS = 0.1;

export interface Batch {
  run: number;
  files: { f: RemoteFile; display: string }[];
}

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
  begin(spec: SearchSpec): number {
    const run = ++this.runs;
    this.post({ kind: 'spec', run, spec });
    return run;
  }

  send(batch: Batch): void {
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
