import * as v8 from 'node:v8';

let done = false;

/**
 * V8 falls back to its linear-time regex engine when a regex backtracks too much, so a
 * user's catastrophic pattern cannot hang a worker. V8 flags are per process, so setting it
 * once in the host covers every worker isolate created after.
 */
export function enableLinearRegexFallback(): void {
  if (done) return;
  v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  done = true;
}
