import { AsyncLocalStorage } from 'node:async_hooks';
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
 * together never pass a quota. (A quota spans several zones: its key is held too.) The
 * one-file writers of a zone in this process share one hold (see run).
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

  /** Open leases of one-file writers, by their keys (sorted, joined by NUL). */
  private readonly leases = new Map<string, Lease>();

  /**
   * Run a writer of the zones (WriteOrder keys) holding their order in every process.
   *
   * `shared` (a one-file writer: WriteOrder has already ordered it after earlier writers of its
   * file and after the last zone-wide writer, in this process): it may run beside the other
   * one-file writers of this process that hold the same keys. They share one hold of the keys
   * (a lease): the first takes it; the others join while it is open; the last to end lets it
   * go. Another process is kept out of the zone for the whole lease, so what runs beside is
   * only what runs beside with a store of one process (the memory store): writers of other
   * files, ordered in this process by WriteOrder; the commits of a versioned zone one at a
   * time in this process (Versioning's chain per repository) and, being inside the lease, in
   * every process. The quota is pulled from the store when the lease is taken and stored when
   * it ends: meanwhile no other process changes it, and the writers of this process count in
   * its ledger (atomic counters), as with one process. A lease admits at most LEASE_JOINS
   * writers, so that a steady stream of them lets the zone go now and then (a zone-wide writer
   * of this process, and the other processes, queue for the keys).
   */
  run<T>(roots: readonly string[], run: () => Promise<T>, shared = false): Promise<T> {
    if (this.meta.kind === 'memory') return run();
    const { order, quotas } = this.plan(roots);
    if (!shared) {
      const synced = quotas.length === 0 ? run : async () => {
        const entry = await this.pull(quotas);
        try {
          return await run();
        } finally {
          await this.push(quotas, entry);
        }
      };
      return this.hold(order, synced);
    }
    const id = order.join('\0');
    let lease = this.leases.get(id);
    if (!lease || lease.joins >= LEASE_JOINS) {
      const made = newLease();
      lease = made;
      this.leases.set(id, made);
      void this.hold(order, async () => {
        const entry = quotas.length === 0 ? [] : await this.pull(quotas);
        // the writers run in the hold's scope: the store's own (AsyncLocalStorage) state of the
        // keys held, i.e. PostgreSQL's connection holding them, which their store calls reuse
        // (a writer that took a connection of its own could wait for the pool forever, every
        // connection holding some zone); only the store keeps such state in a call chain
        made.hold(AsyncLocalStorage.snapshot());
        await made.drained;
        if (quotas.length > 0) await this.push(quotas, entry);
      }).catch((e: unknown) => made.fail(e)).finally(() => {
        if (this.leases.get(id) === made) this.leases.delete(id);
      });
    }
    return lease.with(run, () => {
      if (this.leases.get(id) === lease) this.leases.delete(id);
    });
  }

  /** The store keys of a writer's zones (with their quotas' keys), in the one order every process takes them; its quotas. */
  private plan(roots: readonly string[]): { order: string[]; quotas: QuotaHandle[] } {
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
    return { order: [...keys].sort(), quotas: [...quotas.values()] };
  }

  private hold<T>(order: readonly string[], run: () => Promise<T>): Promise<T> {
    const nest = (i: number): Promise<T> => (i === order.length ? run() : this.meta.withZone(order[i]!, () => nest(i + 1)));
    return nest(0);
  }

  /**
   * Each process counts its own writes in its ledger; the store keeps the usage all processes
   * left. Before a run (under the quota's key), what the others added since this process last
   * synced (the store's value minus the one it last saw) is added to the ledger; after it, the
   * ledger's count is stored (push). A counter met for the first time (a process's first
   * write to the quota, a session counted afresh) is recounted from disk under the lock, the
   * one moment no process changes it.
   */
  private async pull(quotas: QuotaHandle[]): Promise<(Usage | undefined)[]> {
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
    return entry;
  }

  private async push(quotas: QuotaHandle[], entry: (Usage | undefined)[]): Promise<void> {
    for (const [i, q] of quotas.entries()) {
      const c = new BigInt64Array(q.sab);
      const now = { bytes: Number(Atomics.load(c, q.index)), files: Number(Atomics.load(c, q.index + 1)) };
      const was = entry[i];
      if (was && now.bytes === was.bytes && now.files === was.files) continue;
      try {
        await this.meta.setQuotaUsage(q.name, now);
        this.seen.set(q.sab, now);
      } catch {
        // the calls' own results stand (their files are written): the store keeps what it had,
        // and this process's count, still in its ledger, is stored by its next writer
      }
    }
  }
}

/** How many one-file writers one lease admits before the next ones wait for a new one. */
const LEASE_JOINS = 32;

/** One hold of a writer's keys across processes, shared by the one-file writers of this process that join it. */
interface Lease {
  /** Writers admitted so far. */
  joins: number;
  /** The keys are held: let the writers run, each entered through `scope` (the hold's async context). */
  hold(scope: <R>(fn: () => R) => R): void;
  /** Taking the keys failed: every writer waiting fails with it. */
  fail(e: unknown): void;
  /** Resolves when the last writer admitted has ended (the lease then lets the keys go). */
  drained: Promise<void>;
  /** Run a writer in the lease (once held); `closing` is called when the last one ends. */
  with<T>(run: () => Promise<T>, closing: () => void): Promise<T>;
}

function newLease(): Lease {
  let held!: (scope: <R>(fn: () => R) => R) => void;
  let failed!: (e: unknown) => void;
  const ready = new Promise<<R>(fn: () => R) => R>((res, rej) => { held = res; failed = rej; });
  ready.catch(() => {});
  let drain!: () => void;
  const drained = new Promise<void>((r) => (drain = r));
  let active = 0;
  const lease: Lease = {
    joins: 0, hold: held, fail: failed, drained,
    async with(run, closing) {
      lease.joins++;
      active++;
      try {
        const scope = await ready;
        return await scope(run);
      } finally {
        if (--active === 0) {
          // no writer left: no new one joins; the keys are let go
          closing();
          lease.joins = Infinity;
          drain();
        }
      }
    },
  };
  return lease;
}

type Usage = { bytes: number; files: number };

/** The store key of a zone known only by its folder: as zoneKey names it. */
function keyOfRoot(base: string, root: string): string {
  const rel = path.relative(base, root);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? `abs:${path.resolve(root)}` : rel.split(path.sep).join('/');
}
