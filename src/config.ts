import { homedir } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import type { ConfigSchema, LimitsSchema } from './config-schema.js';
import { LIMITS } from './limits.js';

/**
 * The configuration: its types, its limits' maxima, and resolveConfig, which gives the defaults
 * of a plain config (--root / --base, what the CLI passes) without loading zod (95 modules, the
 * largest part of a one-shot call's start-up); anything else goes through the schemas of
 * src/config-schema.ts.
 */

export type NoshConfig = z.input<typeof ConfigSchema>;
export type ResolvedConfig = z.output<typeof ConfigSchema>;
export type LimitsConfig = z.output<typeof LimitsSchema>;

/** The file and folder limit of a quota of `mb` megabytes (see QuotasSchema.maxFiles). */
export function maxFilesFor(quotas: { maxFiles?: number }, mb: number): number {
  return quotas.maxFiles ?? Math.max(1000, Math.round(mb * 100));
}

/** The folder used when nothing is configured: $NOSH_HOME or ~/.nosh. */
export function defaultHome(): string {
  return process.env.NOSH_HOME || join(homedir(), '.nosh');
}

/** The resolved config: the fast path for the plain shapes, the schemas of config-schema.ts for the rest. */
export function resolveConfig(raw: NoshConfig | undefined): ResolvedConfig | Promise<ResolvedConfig> {
  return plainConfig(raw) ?? import('./config-schema.js').then((m) => m.parseConfig(raw));
}

/**
 * What ConfigSchema makes of a config holding at most `base`, `root` (strings) and `threads` (a
 * whole number 1-256): the defaults around them (test/zones/config.test.ts checks this against
 * the schema). Any other shape: undefined.
 */
function plainConfig(raw: unknown): ResolvedConfig | undefined {
  const r = (raw ?? {}) as Record<string, unknown>;
  if (typeof r !== 'object' || Object.getPrototypeOf(r) !== Object.prototype) return undefined;
  for (const k of Object.keys(r)) {
    const v = r[k];
    if (k === 'base' || k === 'root' ? typeof v !== 'string' : k !== 'threads' || !(Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 256)) return undefined;
  }
  const l = LIMITS;
  return {
    ...(r.base !== undefined ? { base: r.base as string } : {}),
    ...(r.root !== undefined ? { root: r.root as string } : {}),
    policy: {}, zones: {}, mounts: [],
    limits: {
      timeoutMs: l.timeoutMs.default, memoryMb: l.memoryMb.default, maxOutputBytes: l.maxOutputBytes.default, maxResults: l.maxResults.default,
      maxFileSize: l.maxFileSize.default, maxBufferBytes: l.maxBufferBytes.default, archiveEntries: l.archiveEntries.default,
      archiveRatio: l.archiveRatio.default, archiveBytes: l.archiveBytes.default, maxDatabaseMb: l.maxDatabaseMb.default,
      sqliteReadonly: false, sqliteResultCacheMb: l.sqliteResultCacheMb.default, contentCacheMb: l.contentCacheMb.default,
    },
    quotas: { userMb: 1000, groupMb: 2000, sessionMb: 100 },
    groups: {}, metadata: {}, groupDefaultMode: 'group', lockMaxAgeHours: 24, sessionTtlSeconds: 24 * 3600, sessionSweepSeconds: 600,
    defaultUser: 'default',
    ...(r.threads !== undefined ? { threads: r.threads as number } : {}),
    audit: { maxBytes: 10 * 1024 * 1024, keep: 5 },
    network: { mode: 'disabled' },
    links: { defaultExpiresSeconds: 24 * 3600, maxExpiresSeconds: 7 * 24 * 3600 },
    resultPageMaxKb: 500,
  };
}
