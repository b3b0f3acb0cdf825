import { valueLimit } from './memory.js';

/**
 * A map of entries that each weigh some bytes, within a byte budget: the least recently used
 * go first. The worker's caches are built on it (src/vfs/content-cache.ts, the sqlite result
 * cache in src/gnulib/sqlite/result-cache.ts).
 */
export class ByteLru<K, V> {
  private readonly map = new Map<K, { value: V; bytes: number }>();
  private used = 0;

  constructor(private budget: number) {}

  /** Bytes held. */
  get size(): number {
    return this.used;
  }

  get entries(): number {
    return this.map.size;
  }

  get limit(): number {
    return this.budget;
  }

  setBudget(budget: number): void {
    this.budget = budget;
    this.trim();
  }

  /** The entry's value, now the most recently used; undefined if absent. */
  get(key: K): V | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  /** Keep `value` under `key` (replacing what was there), then drop the oldest past the budget. */
  set(key: K, value: V, bytes: number): void {
    this.delete(key);
    this.map.set(key, { value, bytes });
    this.used += bytes;
    this.trim();
  }

  delete(key: K): boolean {
    const e = this.map.get(key);
    if (!e) return false;
    this.map.delete(key);
    this.used -= e.bytes;
    return true;
  }

  /** Drop every entry `drop` says; how many went. */
  deleteWhere(drop: (value: V) => boolean): number {
    let n = 0;
    for (const [k, e] of this.map) {
      if (drop(e.value) && this.delete(k)) n++;
    }
    return n;
  }

  clear(): void {
    this.map.clear();
    this.used = 0;
  }

  private trim(): void {
    for (const k of this.map.keys()) {
      if (this.used <= this.budget) break;
      this.delete(k);
    }
  }
}

/**
 * A worker's cache for a call whose limits give it `bytes`: `held` with that budget, a new one
 * if none is held, or none (0 or absent; the one held is emptied). Capped at a quarter of the
 * worker's memory (valueLimit).
 */
export function budgeted<C extends { setBudget(b: number): void; clear(): void }>(held: C | null, bytes: number | undefined, make: (budget: number) => C): C | null {
  const budget = Math.min(bytes ?? 0, Math.floor(valueLimit()));
  if (budget <= 0) {
    held?.clear();
    return null;
  }
  if (!held) return make(budget);
  held.setBudget(budget);
  return held;
}
