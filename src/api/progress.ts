/**
 * Progress of the main-thread part of a call (the commit of a versioned zone's changes, after
 * the worker part that the pool reports): the same listener as the worker's counts, with the
 * same rules — nothing before the call has run PROGRESS_AFTER_MS, then at most one report per
 * PROGRESS_EVERY_MS, and the final counts as the phase ends once a report was made. The work
 * calls update() as it moves; no timer (the clock is read on each update).
 */
import { PROGRESS_AFTER_MS, PROGRESS_EVERY_MS } from '../pool/pool.js';
import type { Progress } from '../runtime/progress.js';

/** A call's progress listener and when the call began (made by the engine's dispatch). */
export interface CallProgress {
  report: (p: Progress) => void;
  since: number;
}

export interface PhaseProgress {
  /** The phase's counts now (reported when due). */
  update(p: Omit<Progress, 'phase'>): void;
  /** The phase ended: its last counts, if any report of it was made and they moved since. */
  end(): void;
}

export function phaseProgress(call: CallProgress | undefined, phase: NonNullable<Progress['phase']>): PhaseProgress | undefined {
  if (!call) return undefined;
  let latest: Progress | undefined;
  let sentKey = '';
  let sentAt = 0;
  let shown = false;
  const send = () => {
    if (!latest) return;
    const key = `${latest.files}/${latest.bytes}/${latest.total}/${latest.total_bytes}`;
    if (key === sentKey) return;
    sentKey = key;
    sentAt = Date.now();
    try { call.report(latest); } catch { /* a listener's failure is not the call's */ }
  };
  return {
    update(p) {
      latest = { ...p, phase };
      const now = Date.now();
      if (now - call.since < PROGRESS_AFTER_MS || (shown && now - sentAt < PROGRESS_EVERY_MS)) return;
      shown = true;
      send();
    },
    end() {
      if (shown) send();
    },
  };
}
