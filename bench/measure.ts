/**
 * Timing: warm-up, then samples taken one at a time with process.hrtime.bigint, summarised
 * as min / median / p90 / max. A time budget bounds each measurement on slow systems.
 */

export interface Stats {
  /** Samples taken. */
  n: number;
  min: number;
  median: number;
  p90: number;
  max: number;
  mean: number;
  /** What the figures count: 'ns' per call, 'ops/s', or 'bytes'. */
  unit: 'ns' | 'ops/s' | 'bytes';
}

export interface MeasureOptions {
  /** Calls made and thrown away before timing starts. */
  warmup: number;
  /** Time cap of the warm-up (default a third of budgetMs). */
  warmupMs?: number;
  /** Samples wanted. */
  samples: number;
  /** Stop taking samples after this long (but take at least minSamples). */
  budgetMs: number;
  minSamples?: number;
}

export function summarise(values: number[], unit: Stats['unit'] = 'ns'): Stats {
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return { n: 0, min: NaN, median: NaN, p90: NaN, max: NaN, mean: NaN, unit };
  const at = (q: number) => s[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!;
  const median = n % 2 === 1 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
  return { n, min: s[0]!, median, p90: at(0.9), max: s[n - 1]!, mean: s.reduce((a, b) => a + b, 0) / n, unit };
}

/** Time `fn` sequentially: one call at a time, never overlapping. */
export async function measure(fn: () => Promise<unknown>, o: MeasureOptions): Promise<Stats> {
  return summarise(await samples(fn, o));
}

/**
 * Several systems measured in turns (rounds of each in turn), so that a burst of load on a
 * shared machine falls on all of them rather than on whichever was being measured then.
 */
export async function measureInterleaved(fns: (() => Promise<unknown>)[], opts: MeasureOptions[], rounds = 5): Promise<Stats[]> {
  const all: number[][] = fns.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [i, fn] of fns.entries()) {
      const o = opts[i]!;
      const want = Math.ceil(o.samples / rounds);
      all[i]!.push(...await samples(fn, {
        warmup: r === 0 ? o.warmup : Math.min(3, o.warmup), warmupMs: r === 0 ? o.warmupMs : undefined,
        samples: want, budgetMs: o.budgetMs / rounds, minSamples: 1,
      }));
    }
  }
  return all.map((s) => summarise(s));
}

async function samples(fn: () => Promise<unknown>, o: MeasureOptions): Promise<number[]> {
  // Warm-up: capped (by default a third of the budget), so slow systems do not spend it all here.
  const warmEnd = process.hrtime.bigint() + BigInt(Math.round((o.warmupMs ?? o.budgetMs / 3) * 1e6));
  for (let i = 0; i < o.warmup; i++) {
    await fn();
    if (process.hrtime.bigint() > warmEnd) break;
  }
  const times: number[] = [];
  const minSamples = o.minSamples ?? Math.min(3, o.samples);
  const deadline = process.hrtime.bigint() + BigInt(Math.round(o.budgetMs * 1e6));
  for (let i = 0; i < o.samples; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    const t1 = process.hrtime.bigint();
    times.push(Number(t1 - t0));
    if (t1 > deadline && times.length >= minSamples) break;
  }
  return times;
}

/**
 * Throughput: `callers` loops call `fn` back to back for `durationMs` after `warmupMs`;
 * returns completed calls per second, one figure per 250 ms window. Time is read with
 * hrtime in the loops, not with timers: an in-memory system may never yield to the event loop.
 */
export async function throughput(fn: () => Promise<unknown>, callers: number, durationMs: number, warmupMs: number): Promise<Stats> {
  const ms = () => Number(process.hrtime.bigint()) / 1e6;
  const t0 = ms();
  const start = t0 + warmupMs;
  const end = start + durationMs;
  const windowMs = 250;
  const counts = new Array<number>(Math.ceil(durationMs / windowMs)).fill(0);
  const loops = Array.from({ length: callers }, async () => {
    for (;;) {
      await fn();
      const now = ms();
      if (now >= end) return;
      if (now >= start) counts[Math.floor((now - start) / windowMs)]!++;
    }
  });
  await Promise.all(loops);
  return summarise(counts.map((c) => c / (windowMs / 1000)), 'ops/s');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A duration in ns as a short human figure: 83.2 µs, 1.24 ms, 3.10 s. */
export function fmtNs(ns: number): string {
  if (!Number.isFinite(ns)) return '-';
  if (ns < 1e3) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toPrecision(3)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toPrecision(3)} ms`;
  return `${(ns / 1e9).toPrecision(3)} s`;
}

export function fmtValue(s: Stats): string {
  if (s.unit === 'ns') return fmtNs(s.median);
  if (s.unit === 'ops/s') return `${s.median >= 100 ? Math.round(s.median) : s.median.toPrecision(3)} ops/s`;
  return `${(s.median / 1048576).toFixed(1)} MB`;
}
