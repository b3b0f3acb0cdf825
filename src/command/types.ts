import type { Vfs } from '../vfs/index.js';

/** How a flag takes its value. */
export type FlagKind =
  | 'boolean'   // -a, --all
  | 'string'    // -n 5, -n5, --lines=5, --lines 5
  | 'optional'; // value only when attached: -i.bak, --color=never

/** Where a value parser runs: the option as GNU names it in messages ('--lines', or '-n' for a short-only flag). */
export interface ValueContext {
  /** As given: '-n', '--lines'. */
  flag: string;
  /** The long name when the flag has one ('--lines'), else the short ('-n'): argmatch's name. */
  option: string;
}

/**
 * One flag, declared once: drives parsing, value checks, --help and the JSON schema.
 * `T` is the type of its parsed value (what `ctx.values[key]` holds).
 */
export interface FlagSpec<T = unknown> {
  /** Property name in the parsed options. Several flags may share a key (e.g. -r and -R): the last given wins. */
  key: string;
  short?: string;
  long?: string;
  kind?: FlagKind;
  /** Name of the value in --help, e.g. 'NUM'. */
  arg?: string;
  help: string;
  /** Value stored for a boolean flag when it is given (for flags that set a shared key), or for a bare optional one. */
  value?: string;
  /**
   * Checks and converts the value while getopt walks argv (GNU reports the first bad value in
   * argv order): throw OptionError with GNU's exact message. Its result is `ctx.values[key]`.
   */
  parse?: (value: string, at: ValueContext) => T;
  /**
   * argmatch choices: an exact word or unambiguous prefix; otherwise GNU's "invalid argument
   * ... Valid arguments are:" usage error. `values` maps each word to what it means (synonyms
   * share one); the mapped value goes to `parse` if there is one, else is the parsed value.
   */
  choices?: { words: readonly string[]; values?: readonly string[] };
  /** Every value is kept: `ctx.values[key]` is the array in argv order (grep -e, sort -k). */
  repeat?: boolean;
}

/** A GNU usage error found at a given place in argv: a conflict, a bad value, an extra operand. */
export interface ConflictSpec {
  /** At most one occurrence among these keys (a key given twice counts). */
  keys: readonly string[];
  message: string;
}

/** Option items an obsolete form stands for ('head -5c' is -c 5): `flag` names a declared short flag ('-c'). */
export interface ObsoleteItem {
  flag: string;
  value?: string;
}

/** An obsolete form recognised in argv: the items it stands for and the words it took. `stop`: GNU dies there, nothing after is looked at. */
export interface ObsoleteMatch {
  items: ObsoleteItem[];
  words: number;
  stop?: boolean;
}

/**
 * The typed view of parsed options: `ctx.values`, one property per flag key, its type
 * inferred from the declaration (a parser's result, a boolean flag's `value` or `true`, a
 * string for a value flag; an array for a `repeat` flag).
 */
type One<S> = S extends { parse: (...a: never[]) => infer T }
  ? T
  : S extends { kind: 'string' | 'optional' }
    ? string
    : S extends { value: infer V extends string }
      ? V
      : true;

type ValueOf<S> = S extends { repeat: true } ? One<S>[] : One<S>;

/** `{ [key]?: value }` for a command's flags. */
export type Values<F extends readonly FlagSpec[]> = readonly FlagSpec[] extends F ? Record<string, unknown> : {
  -readonly [K in F[number]['key']]?: ValueOf<Extract<F[number], { key: K }>>;
};

/** One flag as getopt met it, in argv order. */
export interface OptionItem {
  key: string;
  /** The raw value: the argument, or a boolean flag's `value` ('true' if none). */
  value: string;
  /** As given: '-n', '--lines'. */
  flag: string;
  /** The parsed value (the raw one when the flag declares no parser). */
  parsed?: unknown;
  /** The declaration it came from. */
  spec?: FlagSpec;
  /** Operands met before it in argv (ParsedOptions.inOrder puts them back in their places). */
  operandsBefore?: number;
}

/** Parsed flags by string key, in the order given (ParsedOptions): for commands not yet reading `values`. */
export interface OptionsView {
  readonly order: readonly OptionItem[];
  has(key: string): boolean;
  get(key: string): string | undefined;
  all(key: string): string[];
  count(key: string): number;
  lastOf(...keys: string[]): string | undefined;
  values(): Record<string, unknown>;
  inOrder(operands: readonly string[]): Generator<OptionItem | { operand: string; afterDashDash: boolean }>;
}

/** Bytes in, streamed: an async iterable of chunks. */
export interface Input extends AsyncIterable<Uint8Array> {
  /** Read everything (bounded by the caller's limits). */
  readAll(): Promise<Buffer>;
}

/** A byte sink. Await the result inside loops: a pipeline applies back-pressure there. */
export interface Output {
  write(data: Uint8Array | string): void | Promise<void>;
  /** Bytes accepted so far. */
  readonly bytes: number;
  /**
   * Bytes it still takes before it cuts the output and ends the pipeline (the returned
   * stdout at its cap). Absent: it never does (a pipe, a file).
   */
  room?(): number;
  /**
   * True when write() is done with the bytes once it returns (or its promise settles): they
   * were written out or copied, so the caller may fill the same buffer again (a file sink).
   * Absent: the output may keep what it is given (a pipe, the collected stdout).
   */
  readonly consumes?: boolean;
}

export interface Limits {
  /** Bytes of stdout returned to the caller before truncation. */
  maxOutputBytes: number;
  /** Cap on matches for search commands. */
  maxResults: number;
  /** Largest input a command may buffer whole (sort, tac...). */
  maxBufferBytes: number;
  /** What an archive may ask for (zip, unzip, zipinfo): the config's archiveEntries / archiveRatio / archiveBytes. */
  archive?: ArchiveLimits;
  /** Largest SQLite database sqlite3 / the sqlite tool load into memory (limits.maxDatabaseMb). */
  maxDatabaseBytes?: number;
  /** Open every SQLite database read-only (limits.sqliteReadonly). */
  sqliteReadonly?: boolean;
  /** Budget of the worker's cache of read-only query results (limits.sqliteResultCacheMb, src/gnulib/sqlite/result-cache.ts); absent or 0: off. */
  sqliteResultCacheBytes?: number;
  /** Downloads (curl): the config's network policy when it is "safe"; absent: no network. */
  network?: import('../net/policy.js').NetworkPolicy;
  /** Budget of the worker's content cache (limits.contentCacheMb, src/vfs/content-cache.ts); absent: off. */
  contentCacheBytes?: number;
}

export interface ArchiveLimits {
  maxEntries: number;
  /** Uncompressed:compressed ratio of one entry (entries under 1 MiB are not held to it). */
  maxRatio: number;
  /** Uncompressed bytes one extraction may declare in all. */
  maxTotalBytes: number;
}

export interface CommandContext<V = Record<string, unknown>> {
  /** The name the command was invoked as (egrep, fgrep...). */
  name: string;
  /** Raw arguments after the name (for commands with parse: 'raw'). */
  args: string[];
  /** Every flag as given, by key (the old accessors: has/get/all/lastOf). */
  opts: OptionsView;
  /** The parsed values, typed from the declaration: the last one given per key (an array for `repeat` flags). */
  values: V;
  operands: string[];
  fs: Vfs;
  /** Virtual working directory. */
  cwd: string;
  stdin: Input;
  stdout: Output;
  stderr: Output;
  signal: AbortSignal;
  limits: Limits;
  /** Print `name: message` on stderr (GNU diagnostic form). */
  warn(message: string): Promise<void>;
  /** Who runs the command (whoami, id): the context user, never a host identity. */
  user?: string;
  /** Does NAME run here (a nosh command this zone allows)? For which and type. */
  commandExists?(name: string): boolean;
  /**
   * Run another nosh command inside this task (xargs): looked up in the registry and checked
   * as a pipeline stage is (the zone's allowed commands, read-only zones), with this task's
   * limits and signal; it writes to this command's stdout and stderr and reads `stdin` (none
   * if not given). Resolves to its exit status: 127 when the command is unknown or not allowed
   * here, 126 when the zone refuses it (a mutating command in a read-only zone), with the
   * reason on stderr as `NAME: CMD: reason`. Absent where no runner is provided.
   */
  run?(argv: string[], stdin?: Input): Promise<number>;
  /** The zone's version history, in a versioned zone only (the git command): never a host path. */
  repo?: RepoAccess;
}

export interface RepoPerson { name: string; email: string; timestamp: number; timezoneOffset: number }
export interface RepoCommit { oid: string; message: string; tree: string; parent: string[]; author: RepoPerson; committer: RepoPerson }
export interface RepoEntry { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' }
export interface RepoFileChange { status: 'A' | 'M' | 'D'; path: string; oldOid?: string; newOid?: string; oldMode?: string; newMode?: string }

/**
 * A narrow view of a versioned zone's repository, given to commands by src/exec: read
 * commits, trees and blobs, and tags; the command changes files through the Vfs as ever,
 * and the commit of its changes is made after it (setCommitMessage names it).
 */
export interface RepoAccess {
  /** The user the call runs as (an annotated tag's tagger). */
  readonly user: string;
  head(): Promise<string | undefined>;
  /** A revision (HEAD, HEAD~N, main, a tag, an id or prefix) to a commit id. */
  resolve(rev: string): Promise<string | undefined>;
  readCommit(oid: string): Promise<RepoCommit>;
  readBlob(oid: string): Promise<Uint8Array>;
  entryAt(tree: string, path: string): Promise<RepoEntry | undefined>;
  /** Every file of a tree: path -> entry. */
  files(tree: string): Promise<Map<string, RepoEntry>>;
  diffTrees(a: string | undefined, b: string | undefined, under?: string[]): Promise<RepoFileChange[]>;
  tags(): Promise<{ name: string; target: string; commit: string; annotated?: { message: string; tagger: RepoPerson } }[]>;
  createTag(name: string, commit: string, annotated?: { message: string }): Promise<void>;
  deleteTag(name: string): Promise<void>;
  /** The git id of a blob with these bytes. */
  hashBlob(data: Uint8Array): Promise<string>;
  /** The message of the commit that this call's changes will make. */
  setCommitMessage(message: string): void;
}

export interface CommandDef<F extends readonly FlagSpec[] = readonly FlagSpec[]> {
  name: string;
  /** Other names that run this command (egrep for grep): the registry lists each one. */
  aliases?: string[];
  summary: string;
  /** Operand synopsis after the options, e.g. '[FILE]...'. */
  usage: string;
  flags: F;
  /**
   * Does it change files? Refused in read-only zones and roles. A function decides from the args
   * (sed -i) and the name it was invoked as (zcat is gzip's read-only alias).
   */
  mutates: boolean | ((args: string[], name?: string) => boolean);
  /**
   * In a read-only zone or role it runs read-only (opens its files read-only; a write fails as
   * the real tool's does) instead of being refused: sqlite3, a writer that mostly reads.
   */
  readOnlyMode?: boolean;
  /**
   * A command that runs another (xargs): the argv it runs for these args, before the
   * arguments it adds (undefined if the args do not parse). Exec checks that command as a
   * stage of its own before anything runs (allowed here, read-only zones, writes).
   */
  runs?: (args: string[]) => string[] | undefined;
  /** 'gnu' (default): getopt_long with permutation. 'raw': the command parses args itself. */
  parse?: 'gnu' | 'raw';
  /** getopt's '+' (POSIXLY_CORRECT): options end at the first operand (basename, tr). */
  optionsEnd?: 'first-operand';
  /**
   * Digits as short options: `{ key }` gives the digits to that flag's value (`uniq -3` is
   * -f 3; 'word': digits accumulate within one argv word, as grep -NUM; 'run': until the flag
   * itself is given, as uniq); `{ reject }`: GNU's error for a digit met by getopt (head, tail).
   */
  digits?: { key: string; accumulate: 'word' | 'run' } | { reject: (digit: string) => Error };
  /** GNU's obsolete form of the first argument, tried before getopt (head -5c, tail +3f). */
  obsoleteLeading?: (args: readonly string[]) => ObsoleteMatch | null;
  /** An obsolete form where an operand stands, before '--' (uniq +N, sort +POS1 -POS2). */
  obsoleteOperand?: (args: readonly string[], at: number) => ObsoleteMatch | null;
  /** A word of '-' then a digit or '.' is an operand, not options, where an option could stand (seq -3 2). */
  numericOperands?: boolean;
  /** The most operands: one more is GNU's "extra operand" usage error, in argv order (uniq). */
  maxOperands?: number;
  /** Usage errors for flags that exclude each other, raised where the second one is met. */
  conflicts?: readonly ConflictSpec[];
  /** Exit status of a usage error (bad flag, bad value, missing operand): 2 by default; most coreutils use 1. */
  usageStatus?: number;
  /** The "Try --help" line of a usage error starts with the command's name, as diffutils print it. */
  tryHelpNamed?: boolean;
  /** Exit status when a file error escapes run() (GNU's EXIT_TROUBLE): 1 by default; grep and sed 2. */
  troubleStatus?: number;
  /** The tool nosh reproduces, named by --version (default: GNU coreutils 9.1). */
  reference?: string;
  /**
   * GNU's whole long-option table, in its order, when it has options nosh does not offer:
   * abbreviations resolve against it as getopt_long does (`ls --dir` is ambiguous with
   * --dired), and an option only GNU has is refused as unrecognized.
   */
  gnuLongOptions?: readonly string[];
  /** Extra text after the flag list in --help. */
  notes?: string;
  run(ctx: CommandContext<Values<F>>): Promise<number> | number;
}

/** Declares a command; `ctx.values` in run() is typed from `flags` (declare them inline or `as const`). */
export function defineCommand<const F extends readonly FlagSpec[]>(def: CommandDef<F>): CommandDef {
  return def as unknown as CommandDef;
}
