import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { NoshError } from './errors.js';

/** Limits of DESIGN.md, all configurable; the maxima bound what a caller may ask for. */
export const LimitsSchema = z.object({
  timeoutMs: z.number().int().positive().max(300_000).default(30_000),
  memoryMb: z.number().int().min(16).max(16_384).default(512),
  maxOutputBytes: z.number().int().positive().max(5_000_000).default(50_000),
  maxResults: z.number().int().positive().default(1000),
  maxFileSize: z.number().int().positive().default(300 * 1024 * 1024),
  maxBufferBytes: z.number().int().positive().default(256 * 1024 * 1024),
}).strict();

export const PolicySchema = z.object({
  readonly: z.boolean().optional(),
  allowDelete: z.boolean().optional(),
  allowedCommands: z.array(z.string()).nullable().optional(),
  allowedExtensions: z.array(z.string()).nullable().optional(),
  blockedPatterns: z.array(z.string()).optional(),
  followSymlinks: z.boolean().optional(),
  maxFileSize: z.number().int().positive().optional(),
  pipes: z.boolean().optional(),
}).strict();

export const MountSchema = z.object({
  /** Zone name the mount is addressed by. */
  name: z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'mount names are lower-case letters, digits, _ and -'),
  /** Host folder. */
  path: z.string().min(1),
  readonly: z.boolean().default(true),
  allowedExtensions: z.array(z.string()).nullable().optional(),
  blockedPatterns: z.array(z.string()).optional(),
  followSymlinks: z.boolean().optional(),
  maxFileSize: z.number().int().positive().optional(),
}).strict();

export const QuotasSchema = z.object({
  userMb: z.number().positive().default(1000),
  groupMb: z.number().positive().default(2000),
  sessionMb: z.number().positive().default(100),
  /**
   * Files and folders per quota (each user, group, session). Absent: 100 per MB of the
   * quota, at least 1000 (100 000 for the default user quota of 1000 MB): empty files and
   * folders cost no bytes, but a byte quota alone let a caller plant millions of them.
   */
  maxFiles: z.number().int().positive().optional(),
}).strict();

export const ZonePoliciesSchema = z.object({
  uploads: PolicySchema.optional(),
  storage: PolicySchema.optional(),
  documents: PolicySchema.optional(),
  output: PolicySchema.optional(),
  share: PolicySchema.optional(),
  group: PolicySchema.optional(),
  session: PolicySchema.optional(),
}).strict();

export const ConfigSchema = z.object({
  /** The storage folder holding users/, groups/, share/, sessions/ (default $NOSH_HOME or ~/.nosh). */
  base: z.string().optional(),
  /** One-mount shortcut: this host folder is the zone 'root' and the default zone. */
  root: z.string().optional(),
  /** Policy of the 'root' zone. */
  policy: PolicySchema.default({}),
  /** Policy overrides per zone kind. */
  zones: ZonePoliciesSchema.default({}),
  mounts: z.array(MountSchema).default([]),
  limits: LimitsSchema.default(LimitsSchema.parse({})),
  quotas: QuotasSchema.default(QuotasSchema.parse({})),
  /** Group id -> member user ids (the default membership provider). */
  groups: z.record(z.string(), z.array(z.string())).default({}),
  /** Seconds after its last use when maintenance removes a session zone. */
  sessionTtlSeconds: z.number().int().positive().default(24 * 3600),
  /** User for calls without a context (single-user setups and the CLI). */
  defaultUser: z.string().default('default'),
  /** Worker threads (default: cores). */
  threads: z.number().int().min(1).max(256).optional(),
}).strict();

export type NoshConfig = z.input<typeof ConfigSchema>;
export type ResolvedConfig = z.output<typeof ConfigSchema>;
export type LimitsConfig = z.output<typeof LimitsSchema>;

/** The file and folder limit of a quota of `mb` megabytes (see QuotasSchema.maxFiles). */
export function maxFilesFor(quotas: { maxFiles?: number }, mb: number): number {
  return quotas.maxFiles ?? Math.max(1000, Math.round(mb * 100));
}

/**
 * Validate a configuration; a bad one is refused at start with the offending key named
 * (e.g. "config: quotas.userMb: Invalid input: expected number, received string").
 */
export function parseConfig(raw: unknown): ResolvedConfig {
  const parsed = ConfigSchema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const i = parsed.error.issues[0]!;
  const key = [...i.path, ...((i as { keys?: string[] }).keys ?? [])].join('.');
  throw new NoshError('INVALID_ARGUMENT', `config: ${key || '(root)'}: ${i.message}`, 'Fix the configuration key named here.',
    { issues: parsed.error.issues.map((x) => ({ path: x.path.join('.'), message: x.message })) });
}

/** The folder used when nothing is configured: $NOSH_HOME or ~/.nosh. */
export function defaultHome(): string {
  return process.env.NOSH_HOME || join(homedir(), '.nosh');
}
