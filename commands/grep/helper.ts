/**
 * The helper thread of grep -r (commands/grep/parallel.ts): searches the batches of small
 * files the command's thread sends, each opened, read, searched and closed here, and answers
 * with their results in the order given. sort uses it too: one half of a big input's lines
 * sorted and copied into the shared output (SortJob). Loops on shared counters (no event loop): it watches
 * for the next batch for a moment, then sleeps until one comes.
 */
import { workerData, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { FileSearcher, searchRemote, type Batch, type FileResult, type SearchSpec } from './parallel.js';
import { sortLinesJob, type SortJob } from '../../src/gnulib/line-sort.js';
import { SMALL_FILE } from './scan.js';

const { port, sig } = workerData as { port: MessagePort; sig: Int32Array };
const buf = Buffer.allocUnsafe(SMALL_FILE + 1);
let current: { run: number; searcher: FileSearcher } | null = null;
/** How long to watch for the next batch before sleeping, ms: 0.1-0.5 cost 20-60% more CPU on a busy 2-core VM for no steady gain. */
const WATCH_MS = 0;

function handle(msg: { kind: 'spec'; run: number; spec: SearchSpec } | ({ kind: 'batch' } & Batch) | ({ kind: 'sort' } & SortJob)): void {
  if (msg.kind === 'sort') {
    let ok = false;
    try {
      sortLinesJob(msg);
      ok = true;
    } catch { /* answered as not done: the command's thread does it */ }
    port.postMessage({ sorted: msg.run, ok });
    Atomics.add(sig, 1, 1);
    Atomics.notify(sig, 1);
    return;
  }
  if (msg.kind === 'spec') {
    try {
      current = { run: msg.run, searcher: new FileSearcher(msg.spec) };
    } catch {
      current = null;
    }
    return;
  }
  const s = current?.run === msg.run ? current.searcher : null;
  const results: (FileResult | null)[] = msg.files.map(({ f, display }) => {
    if (!s) return null;
    try {
      return searchRemote(s, f, display, buf, SMALL_FILE);
    } catch {
      return null;
    }
  });
  port.postMessage({ results });
  Atomics.add(sig, 1, 1);
  Atomics.notify(sig, 1);
}

let seen = 0;
Atomics.store(sig, 2, 1); // online
for (;;) {
  const end = performance.now() + WATCH_MS;
  while (Atomics.load(sig, 0) === seen && performance.now() < end) { /* watch */ }
  while (Atomics.load(sig, 0) === seen) Atomics.wait(sig, 0, seen, 1000);
  seen = Atomics.load(sig, 0);
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) handle(m.message);
}
