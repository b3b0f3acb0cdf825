import type { Stats } from 'node:fs';
import type { DirEntry } from '../../src/vfs/index.js';
import type { DirHandle } from '../../src/vfs/vfs.js';

/** One file met by the walk. */
export interface Entry {
  /** Path as printed and as given to the Vfs (relative to the cwd): './a/b', 'd//x', '/x'. */
  path: string;
  /** The path as a byte string (latin1), for matching and output. */
  bytes: string;
  /** The starting point it was found under (byte string), for %H and %P. */
  root: string;
  depth: number;
  /** Type from readdir or lstat; null when unknown yet. */
  type: DirEntry['type'] | null;
  /** lstat (or stat under -L), fetched lazily; null when it failed. */
  st?: Stats | null;
  /** Nanosecond times, fetched with the first %T-like directive (or before -delete empties a directory). */
  ns?: { atime: bigint; mtime: bigint; ctime: bigint } | null;
  /** The open directory it was listed in (while that is being walked) and its name there. */
  dir?: DirHandle;
  name?: string;
  /** That name as a byte string (what -name matches). */
  nameBytes?: string;
  /** Under -L: a link in a loop of links (reported; not evaluated). */
  loop?: boolean;
  /** A directory the walk met in a file system loop (reported; not evaluated, not read). */
  skipped?: boolean;
}

/** What predicates may ask of the walker. All synchronous. */
export interface EvalContext {
  stat(e: Entry): Stats | null;
  /** Exact nanosecond times (-printf %T@ and friends), null when unreadable. */
  times(e: Entry): { atime: bigint; mtime: bigint; ctime: bigint } | null;
  /** Type of the entry: file, dir, symlink or other (stat only when readdir did not say). */
  typeOf(e: Entry): string | null;
  /** Append output bytes (byte string). */
  out(bytes: string): void;
  /** A diagnostic after "find: " (sets exit status 1 when `fail`). */
  warn(msg: string, fail?: boolean): void;
  prune(): void;
  isEmpty(e: Entry): boolean;
  remove(e: Entry): boolean;
  linkTarget(e: Entry): string | null;
  /** Stat of what a symlink points to (inside the zone), null when it cannot be followed, 'ELOOP' in a loop of links. */
  followStat(e: Entry): Stats | null | 'ELOOP';
  lsLine(e: Entry): string | null;
  /** Start of the run, seconds (float) */
  readonly now: number;
}

export class Quit extends Error {}

export type PredFn = (e: Entry, ctx: EvalContext) => boolean;

export type Node =
  | { kind: 'and' | 'or' | 'comma'; left: Node; right: Node }
  | { kind: 'not'; expr: Node }
  | { kind: 'pred'; name: string; fn: PredFn };

/** A command-line error: printed as "find: message", exit `status`. */
export class FindError extends Error {
  /** Warnings issued while parsing before the error (GNU prints them first). */
  warnings: string[] = [];
  constructor(message: string, readonly status = 1) {
    super(message);
  }
}
