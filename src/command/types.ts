import type { Vfs } from '../vfs/index.js';
import type { ParsedOptions } from './options.js';

/** How a flag takes its value. */
export type FlagKind =
  | 'boolean'   // -a, --all
  | 'string'    // -n 5, -n5, --lines=5, --lines 5
  | 'optional'; // value only when attached: -i.bak, --color=never

/** One flag, declared once: drives parsing, --help and the JSON schema. */
export interface FlagSpec {
  /** Property name in the parsed options. Several flags may share a key (e.g. -r and -R). */
  key: string;
  short?: string;
  long?: string;
  kind?: FlagKind;
  /** Name of the value in --help, e.g. 'NUM'. */
  arg?: string;
  help: string;
  /** Value stored for a boolean flag when it is given (for flags that set a shared key). */
  value?: string;
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
}

export interface Limits {
  /** Bytes of stdout returned to the caller before truncation. */
  maxOutputBytes: number;
  /** Cap on matches for search commands. */
  maxResults: number;
  /** Largest input a command may buffer whole (sort, tac...). */
  maxBufferBytes: number;
}

export interface CommandContext {
  /** The name the command was invoked as (egrep, fgrep...). */
  name: string;
  /** Raw arguments after the name (for commands with parse: 'raw'). */
  args: string[];
  opts: ParsedOptions;
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
}

export interface CommandDef {
  name: string;
  /** Other names that run this command (egrep for grep). */
  aliases?: string[];
  summary: string;
  /** Operand synopsis after the options, e.g. '[FILE]...'. */
  usage: string;
  flags: FlagSpec[];
  /**
   * Does it change files? Refused in read-only zones and roles. A function decides from the args
   * (sed -i) and the name it was invoked as (zcat is gzip's read-only alias).
   */
  mutates: boolean | ((args: string[], name?: string) => boolean);
  /** 'gnu' (default): getopt_long with permutation. 'raw': the command parses args itself. */
  parse?: 'gnu' | 'raw';
  /** Rewrite argv before parsing (e.g. head -5 to head -n 5). */
  preprocess?: (args: string[]) => string[];
  /** Exit status of a usage error (bad flag, missing operand): 2 by default; most coreutils use 1. */
  usageStatus?: number;
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
  run(ctx: CommandContext): Promise<number> | number;
}

export function defineCommand(def: CommandDef): CommandDef {
  return def;
}
