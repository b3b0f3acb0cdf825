import * as path from 'node:path';
import type { ResolvedConfig } from '../config.js';
import type { Zone } from '../zones/workspace.js';
import { EmbeddedMetaStore } from './embedded.js';
import { PostgresMetaStore } from './postgres.js';
import type { MetaStore } from './store.js';

export type { MetaStore, Ownership, FileLock, WriteAccess } from './store.js';
export { WRITE_ACCESS, isUnder } from './store.js';

export { MemoryMetaStore } from './memory.js';
export { EmbeddedMetaStore, removeStaleMetaTemps } from './embedded.js';
export { PostgresMetaStore } from './postgres.js';

/**
 * The store the config names: PostgreSQL when `metadata.url` is set, else the embedded one in
 * the base (access_auth.sqlite). Construction is cheap: nothing is loaded or connected until
 * open() (PostgreSQL) or the first use (the embedded store's sql.js and file).
 */
export function createMetaStore(cfg: ResolvedConfig, base: string): MetaStore {
  const url = cfg.metadata?.url;
  return url ? new PostgresMetaStore(url) : new EmbeddedMetaStore(base);
}

/**
 * The key that names a zone in the store, the same in every process serving the base: the
 * zone's folder relative to the base ('groups/eng', 'users/alice/Storage'), or 'abs:' and the
 * folder for one outside it (a mount, the 'root' of `--root DIR`). Not the zone's name: every
 * `nosh exec --root DIR` shares the default base, and two DIRs are two zones named 'root'.
 */
export function zoneKey(base: string, zone: Pick<Zone, 'kind' | 'name' | 'root'>): string {
  const rel = path.relative(base, zone.root);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return `abs:${path.resolve(zone.root)}`;
  return rel.split(path.sep).join('/');
}
