/**
 * find's helper thread (src/gnulib/helper-thread.ts, Helper.get('find')): walks the subtrees
 * of a split find (./parallel.ts) and answers each subtree's output on its own. Loops on shared
 * counters (no event loop), as grep's helper does: it sleeps until a job comes.
 */
import { workerData, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { CommandContext } from '../../src/command/index.js';
import { runFindJob, type FindJob } from './parallel.js';
import { Walker } from './eval.js';

const { port, sig } = workerData as { port: MessagePort; sig: Int32Array };

function handle(msg: { kind: 'find' } & FindJob): void {
  if (msg.kind !== 'find') return;
  runFindJob(msg, (m) => {
    port.postMessage(m, m.out ? [m.out.buffer as ArrayBuffer] : []);
    Atomics.add(sig, 1, 1);
    Atomics.notify(sig, 1);
  }, (ctx, plan, nowMs) => new Walker(ctx as unknown as CommandContext, plan, nowMs));
}

let seen = 0;
Atomics.store(sig, 2, 1); // online
for (;;) {
  while (Atomics.load(sig, 0) === seen) Atomics.wait(sig, 0, seen, 1000);
  seen = Atomics.load(sig, 0);
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) handle(m.message);
}
