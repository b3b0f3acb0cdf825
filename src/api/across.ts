import * as path from 'node:path';
import { zoneKey, type MetaStore } from '../meta/index.js';
import type { QuotaHandle, QuotaLedger } from '../zones/quota.js';
import type { Zone } from '../zones/workspace.js';
import { orderKey } from './write-order.js';

/**
 * The write order across processes: WriteOrder orders the writers of one process; this holds,
 * around each writer's run, the zone's order in the metadata store (a lock file for the
 * embedded store, an advisory lock for PostgreSQL) so that the processes serving one base keep
 * one order per zone. Under it, the quota the zone counts against is synced with the usage
 * the store keeps: set from the store before the run, stored after, so that the processes
 * together never pass a quota. (A quota spans several zones: its key is held too.)
 */
export class AcrossProcesses {
  /** Per WriteOrder key (a zone's order root): the zone's store key and its quota, learnt as zones resolve. */
  private readonly zones = new Map<string, { key: string; quota?: QuotaHandle }>();
  /** Per quota counter: the usage the store held when this process last synced it. */
  private readonly seen = new WeakMap<SharedArrayBuffer, Usage>();

  constructor(private readonly meta: MetaStore, private readonly base: string, private readonly ledger: QuotaLedger) {}

  /** A zone resolved for a call: remember its key and quota for its writers. */
  learn(zone: Zone): void {
    if (this.meta.kind === 'memory') return;
    const root = orderKey(zone).root;
    const key = zone.kind === 'output' ? keyOfRoot(this.base, root) : zoneKey(this.base, zone);
    const known = this.zones.get(root);
    if (known?.key !== key || known.quota !== zone.quota) this.zones.set(root, { key, quota: zone.quota });
  }

  /** Run a writer of the zones (WriteOrder keys) holding their order in every process. */
  run<T>(roots: readonly string[], run: () => Promise<T>): Promise<T> {
    if (this.meta.kind === 'memory') return run();
    const keys = new Set<string>();
    const quotas = new Map<string, QuotaHandle>();
    for (const root of roots) {
      const z = this.zones.get(root);
      keys.add(z?.key ?? keyOfRoot(this.base, root));
      if (z?.quota) {
        quotas.set(z.quota.name, z.quota);
        keys.add(`quota:${z.quota.name}`);
      }
    }
    // one order of taking for every process: no two writers wait for each other
    const order = [...keys].sort();
    const synced = quotas.size === 0 ? run : () => this.synced([...quotas.values()], run);
    const nest = (i: number): Promise<T> => (i === order.length ? synced() : this.meta.withZone(order[i]!, () => nest(i + 1)));
    return nest(0);
  }

  /**
   * Each process counts its own writes in its ledger; the store keeps the usage all processes
   * left. Before a run, what the others added since this process last synced (the store's
   * value minus the one it last saw) is added to the ledger; after it, the ledger's count is
   * stored. A counter met for the first time (a process's first write to the quota, a session
   * counted afresh) is recounted from disk under the lock, the one moment no process changes it.
   */
  private async synced<T>(quotas: QuotaHandle[], run: () => Promise<T>): Promise<T> {
    const entry: (Usage | undefined)[] = [];
    for (const q of quotas) {
      const c = new BigInt64Array(q.sab);
      const last = this.seen.get(q.sab);
      const stored = await this.meta.quotaUsage(q.name);
      if (!last) await this.ledger.recount(q.name);
      else if (stored) {
        Atomics.add(c, q.index, BigInt(stored.bytes - last.bytes));
        Atomics.add(c, q.index + 1, BigInt(stored.files - last.files));
      }
      if (last && stored) this.seen.set(q.sab, stored);
      entry.push(last ? stored ?? last : undefined);
    }
    try {
      return await run();
    } finally {
      for (const [i, q] of quotas.entries()) {
        const c = new BigInt64Array(q.sab);
        const now = { bytes: Number(Atomics.load(c, q.index)), files: Number(Atomics.load(c, q.index + 1)) };
        const was = entry[i];
        if (was && now.bytes === was.bytes && now.files === was.files) continue;
        try {
          await this.meta.setQuotaUsage(q.name, now);
          this.seen.set(q.sab, now);
        } catch {
          // the call's own result stands (its files are written): the store keeps what it had,
          // and this process's count, still in its ledger, is stored by its next writer
        }
      }
    }
  }
}

type Usage = { bytes: number; files: number };

/** The store key of a zone known only by its folder: as zoneKey names it. */
function keyOfRoot(base: string, root: string): string {
  const rel = path.relative(base, root);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? `abs:${path.resolve(root)}` : rel.split(path.sep).join('/');
}
