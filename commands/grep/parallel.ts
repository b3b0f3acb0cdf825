/**
 * grep -r on two threads: the walk's small files are split between the command's thread and
 * one helper thread of the worker (commands/grep/helper.ts, started on the first such search
 * and kept). Each thread opens, reads, searches and closes its own files (an fd opened in one
 * thread and closed in another cost 2.7x the CPU of the serial run in bench/probes), and
 * per-file results are put back in walk order, so the output is the serial run's.
 *
 * What stays on the command's thread: the walk, every name check (Vfs.listedFileTarget gives
 * the helper a path through the open, located directory only for a name that passed them),
 * the directory checks before output leaves (GrepRun.settle, after the helper's opens), every
 * message. The helper opens `/proc/self/fd/DIR/NAME` as Vfs.openListedFileAt does (O_NOFOLLOW,
 * O_NONBLOCK, fstat: a regular file within the zone's size limit, under SMALL_FILE) and hands
 * back anything else untouched: the command's thread then runs the serial path for that file,
 * which reports what is wrong.
 *
 * Used only where one file's output does not depend on the files before it (no context lines,
 * -q, -o) and the search needs no other state (no content cache, no symlink following).
 */
import * as fs from 'node:fs';
import { buildMatcher, type Matcher } from './matcher.js';
import { OutBuffer, Scan, SGR, sgr, type Opts, type ScanHost } from './scan.js';
import type { RegexDialect } from '../../src/regex/index.js';
import type { CommandContext } from '../../src/command/index.js';
import type { FileResult } from '../../src/gnulib/helper-thread.js';
export { Helper, helperOn, setHelper, type FileResult } from '../../src/gnulib/helper-thread.js';

/** What the helper needs to search as the command does. */
export interface SearchSpec {
  patterns: string[];
  dialect: RegexDialect;
  flags: { i: boolean; w: boolean; x: boolean; z: boolean };
  o: Omit<Opts, 'fileRules' | 'dirRules'>;
  showName: boolean;
  maxBufferBytes: number;
}

/** A file as the helper opens it. */
export interface RemoteFile {
  path: string;
  maxSize: number;
}

/** Searching whole small files into a buffer of their own (both threads use it). */
export class FileSearcher implements ScanHost {
  readonly ctx: CommandContext;
  readonly o: Opts;
  readonly m: Matcher;
  readonly eol: number;
  readonly eolChar: string;
  readonly quietOut: boolean;
  readonly ctxOn = false;
  outFile: boolean | 'auto';
  used = false;
  exitNow = false;
  private out = new OutBuffer();

  constructor(readonly spec: SearchSpec, m?: Matcher) {
    this.o = { ...spec.o, fileRules: [], dirRules: [] };
    this.m = m ?? buildMatcher(spec.patterns, spec.dialect, spec.flags, () => {});
    this.ctx = { limits: { maxBufferBytes: spec.maxBufferBytes } } as unknown as CommandContext;
    this.eol = spec.o.z ? 0 : 10;
    this.eolChar = spec.o.z ? '\0' : '\n';
    this.quietOut = spec.o.count || spec.o.list !== '' || spec.o.quiet;
    this.outFile = spec.showName;
  }

  push(b: Buffer | string): void {
    this.out.push(b);
  }
  heldTooMuch(): boolean {
    return false;
  }
  async flush(): Promise<void> { /* held until the result is taken */ }

  /** Search `data` (a whole file) as `display`; its output and counts. */
  search(data: Buffer, display: string, width: number): FileResult {
    const s = new Scan(this, display, width);
    s.whole(data);
    reportLines(this, this.o, s.nlines, display);
    return { out: this.out.size > 0 ? this.out.take() : null, nlines: s.nlines, binaryMatched: s.binaryMatched };
  }
}

/** After a file: its count (-c) or name (-l, -L), as GrepRun.report prints them. */
export function reportLines(host: { push(b: Buffer | string): void; outFile: boolean | 'auto' }, o: Opts, nlines: number, name: string): void {
  const showName = host.outFile === true;
  const pushName = () => {
    const bytes = Buffer.from(name, 'utf8');
    host.push(o.color ? sgr(SGR.file, bytes.toString('latin1')) : bytes);
  };
  if (o.count && o.list === '' && !o.quiet) {
    if (showName) {
      pushName();
      host.push(o.nullName ? '\0' : o.color ? sgr(SGR.sep, ':') : ':');
    }
    host.push(nlines + '\n');
  }
  if (!o.quiet && ((o.list === 'l' && nlines > 0) || (o.list === 'L' && nlines === 0))) {
    pushName();
    host.push(o.nullName ? '\0' : '\n');
  }
}

/** -T's width of numbers (GrepRun.tabWidth). */
export function tabWidth(o: Opts, size: number): number {
  return o.tab ? String(size + (o.lineNo ? 1 : 0)).length : 0;
}

// ---- the helper's side --------------------------------------------------------------

const O_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/**
 * Open, read and search one file the command's thread named (its checks passed); null when
 * it is not a small regular file within the size limit now (the serial path redoes it).
 */
export function searchRemote(s: FileSearcher, f: RemoteFile, display: string, buf: Buffer, small: number): FileResult | null {
  let fd: number;
  try {
    fd = fs.openSync(f.path, O_FLAGS);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > f.maxSize || st.size >= small) return null;
    const n = fs.readSync(fd, buf, 0, st.size + 1, null);
    if (n > st.size) return null;
    return s.search(buf.subarray(0, n), display, tabWidth(s.o, st.size));
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

export interface Batch {
  run: number;
  files: { f: RemoteFile; display: string }[];
}
