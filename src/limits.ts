/**
 * The one table of limits: each limit's default and the maximum a caller or a configuration may
 * ask for. Every schema that takes a limit (the config's `limits`, exec's `timeout_ms` and
 * `max_output_bytes`, every method's `timeout_ms`, the tools' byte caps) and every hint that names
 * a maximum derives it from here. No imports: the bottom layer (the CLI loads it before zod).
 */
const MiB = 1024 * 1024;

export const LIMITS = {
  /** Time limit of one call, ms. */
  timeoutMs: { default: 30_000, max: 300_000 },
  /** Heap of one worker, MB. */
  memoryMb: { default: 512, min: 16, max: 16_384 },
  /** Bytes of output a call returns (stdout of exec, text of read...). */
  maxOutputBytes: { default: 50_000, max: 5_000_000 },
  /** Results of a listing or search. */
  maxResults: { default: 1000, max: 10_000_000 },
  /** Largest file size (bytes) a zone may allow: up to 1 TiB. */
  maxFileSize: { default: 300 * MiB, max: 2 ** 40 },
  /** Largest in-memory buffer of one command (bytes): up to 2 GiB (V8 strings and Buffers stop near there). */
  maxBufferBytes: { default: 256 * MiB, max: 2 ** 31 },
  /** Entries one archive may hold (zip bombs: a directory of millions of entries). */
  archiveEntries: { default: 100_000, max: 10_000_000 },
  /** Uncompressed:compressed ratio one archive entry of 1 MiB or more may have. */
  archiveRatio: { default: 200, max: 1_000_000 },
  /** Uncompressed bytes one extraction may declare in all. */
  archiveBytes: { default: 8 * 1024 * MiB, max: 2 ** 50 },
  /** Largest SQLite database sqlite3 and the sqlite tool load (sql.js keeps it in memory), MB. */
  maxDatabaseMb: { default: 256, max: 16_384 },
  /** Per-worker cache of results of read-only SQLite queries on unchanged files, MB; 0: off (src/gnulib/sqlite/result-cache.ts). */
  sqliteResultCacheMb: { default: 64, max: 4096 },
  /** Per-worker cache of small files' content for repeated searches (grep -r), MB; 0: off (src/vfs/content-cache.ts). */
  contentCacheMb: { default: 0, max: 4096 },
  /** Resident memory budget of the whole process, MB (0: not watched). */
  rssMb: { max: 16_384 * 256 },
} as const;

export type LimitName = keyof typeof LIMITS;
