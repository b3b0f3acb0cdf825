import type { CancelSignal } from '../pool/index.js';

/**
 * How a running call is stopped: the CancelSignal the worker pool takes (src/pool), without
 * an AbortController per request. Those are EventTargets: creating one and listening on it
 * cost a small read 30 to 50 µs of its round trip through `nosh serve` (measured on the
 * 2-core bench VM), for a cancel that hardly ever comes.
 */
export class Cancel implements CancelSignal {
  aborted = false;
  private listeners: (() => void)[] | null = null;

  addEventListener(_type: 'abort', fn: () => void): void {
    if (!this.aborted) (this.listeners ??= []).push(fn);
  }

  removeEventListener(_type: 'abort', fn: () => void): void {
    const i = this.listeners?.indexOf(fn) ?? -1;
    if (i >= 0) this.listeners!.splice(i, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners ?? [];
    this.listeners = null;
    for (const fn of listeners) fn();
  }
}
