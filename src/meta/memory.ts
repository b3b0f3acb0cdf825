import type { LinkRecord } from '../links/store.js';
import { isUnder, type FileLock, type MetaStore, type Ownership, type WriteAccess } from './store.js';

/**
 * The metadata store of one process, kept in memory: for tests and for an instance made
 * without a base that other processes share. Nothing survives the process.
 */
export class MemoryMetaStore implements MetaStore {
  readonly kind = 'memory' as const;
  private readonly owners = new Map<string, Map<string, Ownership>>();
  private readonly held = new Map<string, Map<string, FileLock>>();
  private readonly links = new Map<string, LinkRecord>();

  async open(): Promise<void> {}
  async close(): Promise<void> {}

  private group(group: string): Map<string, Ownership> {
    let g = this.owners.get(group);
    if (!g) this.owners.set(group, (g = new Map()));
    return g;
  }

  private zone(zone: string): Map<string, FileLock> {
    let z = this.held.get(zone);
    if (!z) this.held.set(zone, (z = new Map()));
    return z;
  }

  async ownerships(group: string, paths: readonly string[]): Promise<Ownership[]> {
    const g = this.owners.get(group);
    return g ? paths.flatMap((p) => (g.has(p) ? [{ ...g.get(p)! }] : [])) : [];
  }

  async ownershipsUnder(group: string, dir: string): Promise<Ownership[]> {
    const g = this.owners.get(group);
    if (!g) return [];
    return [...g.values()].filter((r) => isUnder(r.path, dir)).map((r) => ({ ...r })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async putOwnerships(group: string, rows: readonly { path: string; owner: string; mode: WriteAccess }[], replace = false): Promise<void> {
    const g = this.group(group);
    const now = Date.now();
    for (const r of rows) {
      const old = g.get(r.path);
      if (old && !replace) continue;
      g.set(r.path, { group, path: r.path, owner: r.owner, mode: r.mode, createdAt: old?.createdAt ?? now, updatedAt: now });
    }
  }

  async updateOwnership(group: string, path: string, patch: { owner?: string; mode?: WriteAccess }): Promise<Ownership | undefined> {
    const row = this.owners.get(group)?.get(path);
    if (!row) return undefined;
    if (patch.owner !== undefined) row.owner = patch.owner;
    if (patch.mode !== undefined) row.mode = patch.mode;
    row.updatedAt = Date.now();
    return { ...row };
  }

  async moveOwnerships(group: string, from: string, to: string): Promise<void> {
    const g = this.owners.get(group);
    if (!g || from === to) return;
    const moving = [...g.values()].filter((r) => isUnder(r.path, from));
    for (const r of moving) g.delete(r.path);
    const now = Date.now();
    for (const r of moving) {
      const path = to + r.path.slice(from.length);
      g.set(path, { ...r, path, updatedAt: now });
    }
  }

  async deleteOwnerships(group: string, paths: readonly string[]): Promise<void> {
    const g = this.owners.get(group);
    if (!g) return;
    for (const r of [...g.values()]) if (paths.some((p) => isUnder(r.path, p))) g.delete(r.path);
  }

  async takeLock(lock: FileLock, now: number): Promise<{ taken: boolean; lock: FileLock }> {
    const z = this.zone(lock.zone);
    const old = z.get(lock.path);
    if (old && old.expiresAt > now) return { taken: false, lock: { ...old } };
    z.set(lock.path, { ...lock });
    return { taken: true, lock: { ...lock } };
  }

  async locks(zone: string, paths: readonly string[]): Promise<FileLock[]> {
    const z = this.held.get(zone);
    return z ? paths.flatMap((p) => (z.has(p) ? [{ ...z.get(p)! }] : [])) : [];
  }

  async locksUnder(zone: string, dir: string): Promise<FileLock[]> {
    const z = this.held.get(zone);
    return z ? [...z.values()].filter((l) => isUnder(l.path, dir)).map((l) => ({ ...l })) : [];
  }

  async releaseLock(zone: string, path: string): Promise<boolean> {
    return this.held.get(zone)?.delete(path) ?? false;
  }

  async expiredLocks(now: number): Promise<FileLock[]> {
    return [...this.held.values()].flatMap((z) => [...z.values()].filter((l) => l.expiresAt < now).map((l) => ({ ...l })));
  }

  async withZone<T>(_zone: string, run: () => Promise<T>): Promise<T> {
    return run(); // one process: WriteOrder already orders the zone
  }

  async quotaUsage(): Promise<undefined> {
    return undefined; // one process: its ledger is the usage
  }

  async setQuotaUsage(): Promise<void> {}

  // ---- links (issue #21)
  async putLinks(rows: readonly LinkRecord[]): Promise<void> {
    for (const r of rows) if (!this.links.has(r.id)) this.links.set(r.id, structuredClone(r));
  }

  async link(id: string): Promise<LinkRecord | undefined> {
    const r = this.links.get(id);
    return r ? structuredClone(r) : undefined;
  }

  async linksOf(scope: string): Promise<LinkRecord[]> {
    return [...this.links.values()].filter((r) => r.scope === scope).sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1))
      .map((r) => structuredClone(r));
  }

  async deleteLink(id: string): Promise<boolean> {
    return this.links.delete(id);
  }

  async addLinkHits(hits: ReadonlyMap<string, number>): Promise<void> {
    for (const [id, n] of hits) {
      const r = this.links.get(id);
      if (r) r.hits += n;
    }
  }
}
