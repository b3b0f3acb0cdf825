/** The configuration's zod schemas and their full check (src/config.ts: the types, and the fast path that needs no zod). */
import { z } from 'zod';
import { NoshError } from './errors.js';
import { LIMITS } from './limits.js';

/**
 * Numeric limits are validated as the code uses them: whole numbers (byte counts, counts,
 * milliseconds, seconds) between 1 and a maximum. Quotas are the one exception: MB may be
 * fractional and are converted once to whole bytes where the counters are made (QuotaLedger.handle).
 */
const MB = 1024 * 1024;
/** Largest file size (bytes) a zone may allow: 1 TiB. */
export const MAX_FILE_SIZE_LIMIT = LIMITS.maxFileSize.max;
/** Largest in-memory buffer of one command (bytes): 2 GiB (V8 strings and Buffers stop near there). */
export const MAX_BUFFER_LIMIT = LIMITS.maxBufferBytes.max;
/** Largest quota (MB): 2^33 MB = 2^53 bytes, the last whole number a double holds exactly. */
export const MAX_QUOTA_MB = 2 ** 33;

const count = (max: number) => z.number().int().positive().max(max);
const fileSize = () => count(MAX_FILE_SIZE_LIMIT);
/** MB as a positive finite number of at most MAX_QUOTA_MB, at least one byte once converted. */
const quotaMb = () => z.number().positive().max(MAX_QUOTA_MB)
  .refine((mb) => Math.floor(mb * MB) >= 1, { message: 'Too small: a quota must be at least one byte (1/1048576 MB)' });

/** Limits of DESIGN.md, all configurable (src/limits.ts: defaults and maxima); the maxima bound what a caller may ask for. */
export const LimitsSchema = z.object({
  timeoutMs: count(LIMITS.timeoutMs.max).default(LIMITS.timeoutMs.default),
  memoryMb: z.number().int().min(LIMITS.memoryMb.min).max(LIMITS.memoryMb.max).default(LIMITS.memoryMb.default),
  maxOutputBytes: count(LIMITS.maxOutputBytes.max).default(LIMITS.maxOutputBytes.default),
  maxResults: count(LIMITS.maxResults.max).default(LIMITS.maxResults.default),
  maxFileSize: fileSize().default(LIMITS.maxFileSize.default),
  maxBufferBytes: count(MAX_BUFFER_LIMIT).default(LIMITS.maxBufferBytes.default),
  archiveEntries: count(LIMITS.archiveEntries.max).default(LIMITS.archiveEntries.default),
  archiveRatio: count(LIMITS.archiveRatio.max).default(LIMITS.archiveRatio.default),
  archiveBytes: count(LIMITS.archiveBytes.max).default(LIMITS.archiveBytes.default),
  /** Largest SQLite database (MB) sqlite3 and the sqlite tool open: sql.js holds the whole file in memory. */
  maxDatabaseMb: count(LIMITS.maxDatabaseMb.max).default(LIMITS.maxDatabaseMb.default),
  /** Open every SQLite database read-only (sqlite3 and the sqlite tool): any write statement fails. */
  sqliteReadonly: z.boolean().default(false),
  /** Per-worker cache of read-only query results on unchanged database files, MB; 0: off. At most a quarter of memoryMb is used. */
  sqliteResultCacheMb: z.number().int().min(0).max(LIMITS.sqliteResultCacheMb.max).default(LIMITS.sqliteResultCacheMb.default),
  /** Per-worker cache of small files' content, MB (grep -r over an unchanged tree reads each file once); 0: off. At most a quarter of memoryMb is used. */
  contentCacheMb: z.number().int().min(0).max(LIMITS.contentCacheMb.max).default(LIMITS.contentCacheMb.default),
  /** Resident memory budget of the whole process, MB (default: threads x memoryMb x 2 + 512; 0: not watched). See src/pool/pool.ts watchRss. */
  rssMb: z.number().int().min(0).max(LIMITS.rssMb.max).optional(),
}).strict();

export const PolicySchema = z.object({
  readonly: z.boolean().optional(),
  allowDelete: z.boolean().optional(),
  allowedCommands: z.array(z.string()).nullable().optional(),
  allowedExtensions: z.array(z.string()).nullable().optional(),
  blockedPatterns: z.array(z.string()).optional(),
  /** true: blockedPatterns replace DEFAULT_BLOCKED_PATTERNS instead of adding to them. */
  replaceDefaultBlocked: z.boolean().optional(),
  followSymlinks: z.boolean().optional(),
  maxFileSize: fileSize().optional(),
  pipes: z.boolean().optional(),
  /** Every change is a git commit (default: true for documents and group zones, false elsewhere; not for uploads and output). */
  versioned: z.boolean().optional(),
}).strict();

export const MountSchema = z.object({
  /** Zone name the mount is addressed by. */
  name: z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'mount names are lower-case letters, digits, _ and -'),
  /** Host folder. */
  path: z.string().min(1),
  readonly: z.boolean().default(true),
  allowedExtensions: z.array(z.string()).nullable().optional(),
  blockedPatterns: z.array(z.string()).optional(),
  /** true: blockedPatterns replace DEFAULT_BLOCKED_PATTERNS instead of adding to them. */
  replaceDefaultBlocked: z.boolean().optional(),
  followSymlinks: z.boolean().optional(),
  maxFileSize: fileSize().optional(),
  /** Every change is a git commit (default false). */
  versioned: z.boolean().optional(),
}).strict();

export const QuotasSchema = z.object({
  userMb: quotaMb().default(1000),
  groupMb: quotaMb().default(2000),
  sessionMb: quotaMb().default(100),
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

/** The audit log (src/audit): refusals and changes, one JSON line each. */
export const AuditSchema = z.object({
  /** File relative to the base (default audit.log; none for a root-only setup); false or "off": no file. */
  file: z.union([z.string().min(1), z.literal(false)]).optional(),
  /** Rotate when the file would pass this size (bytes). */
  maxBytes: z.number().int().min(1024).max(1024 ** 4).default(10 * 1024 * 1024),
  /** Rotated files kept: file.1 (newest) .. file.N. */
  keep: z.number().int().min(0).max(1000).default(5),
}).strict();

/** Shareable links (src/links) and `nosh http`. */
export const LinksSchema = z.object({
  /** HMAC secret (at least 32 characters); absent: one is made once and kept in the base (mode 0600). */
  secret: z.string().min(32).optional(),
  /** The address links are given out with (what `nosh http` is reached at); default http://127.0.0.1:8080. */
  publicUrl: z.string().regex(/^https?:\/\/[^\s?#]+$/, 'an http(s) URL without query or fragment').optional(),
  defaultExpiresSeconds: count(7 * 24 * 3600).default(24 * 3600),
  maxExpiresSeconds: count(7 * 24 * 3600).default(7 * 24 * 3600),
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
  /** Where ownership and locks are kept: the embedded store in the base (default), or PostgreSQL at `url` (several servers). */
  metadata: z.object({ url: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL').optional() }).strict().default({}),
  /** The write_access a new file of a group zone gets when the call names none (Fileshed's modes). */
  groupDefaultMode: z.enum(['owner', 'group', 'owner_ro']).default('group'),
  /** Hours a locked edit holds its file before maintenance may remove it. */
  lockMaxAgeHours: z.number().positive().max(24 * 365).default(24),
  /** Seconds after its last use when maintenance removes a session zone. */
  sessionTtlSeconds: count(10 * 365 * 24 * 3600).default(24 * 3600),
  /**
   * How often `nosh serve`, `nosh mcp` and `nosh http` run the upkeep of maintenance on a timer
   * (expired sessions, stale temp files), in seconds; 0: never (only the maintenance method).
   */
  sessionSweepSeconds: z.number().int().min(0).max(7 * 24 * 3600).default(600),
  /** User for calls without a context (single-user setups and the CLI). */
  defaultUser: z.string().default('default'),
  /**
   * HomeClaw's companion scope: when set, a call that names no user runs as this identity (over
   * defaultUser), and its zones live under companion/ in the base instead of users/{id}/:
   * storage companion/Storage, output companion/Storage/output, documents companion/Documents.
   */
  companion: z.object({ user: z.string().default('companion') }).strict().optional(),
  /** Worker threads (default: cores). */
  threads: z.number().int().min(1).max(256).optional(),
  audit: AuditSchema.default(AuditSchema.parse({})),
  /**
   * Downloads with curl (Fileshed's network_mode): "disabled" (default), or "safe" with the
   * hosts (name, IP, host:port) it may reach; see src/net/policy.ts. A string is the mode alone.
   */
  network: z.union([z.enum(['disabled', 'safe']).transform((mode) => ({ mode })), z.object({
    mode: z.enum(['disabled', 'safe']).default('disabled'),
    allow: z.array(z.string().min(1).max(300)).max(10_000).default([]),
    /** Fixed DNS answers, name -> IP (pinned names; tests). */
    hosts: z.record(z.string(), z.string()).default({}),
    maxBytes: z.number().int().positive().max(MAX_FILE_SIZE_LIMIT).optional(),
    timeoutMs: z.number().int().positive().max(300_000).default(30_000),
    maxRedirects: z.number().int().min(0).max(50).default(5),
  }).strict()]).default({ mode: 'disabled' }),
  links: LinksSchema.default(LinksSchema.parse({})),
  /** Largest report save_result_page writes, KB. */
  resultPageMaxKb: count(100 * 1024).default(500),
}).strict();

/**
 * Validate a configuration; a bad one is refused at start with the offending key named
 * (e.g. "config: quotas.userMb: Invalid input: expected number, received string").
 */
export function parseConfig(raw: unknown): z.output<typeof ConfigSchema> {
  const parsed = ConfigSchema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const i = parsed.error.issues[0]!;
  const key = [...i.path, ...((i as { keys?: string[] }).keys ?? [])].join('.');
  throw new NoshError('INVALID_ARGUMENT', `config: ${key || '(root)'}: ${i.message}`, 'Fix the configuration key named here.',
    { issues: parsed.error.issues.map((x) => ({ path: x.path.join('.'), message: x.message })) });
}

