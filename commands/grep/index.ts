/**
 * grep / egrep / fgrep, GNU grep 3.8 under LC_ALL=C.
 *
 * Search: each chunk of whole lines is decoded as latin1 (one char = one byte) and searched
 * with ONE global regex (the patterns joined as an alternation, ^/$ anchored at line ends);
 * line boundaries are located only around matches. Lines are counted only when -n needs it.
 * Memory is one chunk plus the partial last line. Slow paths, per line: -z (records end in
 * NUL), several patterns of which one has back-references (JS group numbers are per regex).
 *
 * Recursion (-r/-R) walks the zone through open directory handles (blocked entries never
 * appear) in C-locale name order (GNU uses readdir order; see the fixtures, recorded through
 * `sort`). Listed files are opened relative to their directory without a location check
 * each (Vfs.openListedFileAt): the directory's location is checked once its files were read
 * and before any output leaves (GrepRun.settle). Small files are read whole into one reused
 * buffer. Symlinks met while recursing are skipped; -R follows them only where the zone
 * policy follows symlinks (and only inside the zone).
 */
import { defineCommand, UsageError, type CommandContext, type FlagSpec } from '../../src/command/index.js';
import { argmatch } from '../../src/command/text-lines.js';
import { RegexSyntaxError, translateRegex, type RegexDialect } from '../../src/regex/index.js';
import { LiteralSet, literalOf } from '../../src/regex/aho-corasick.js';
import { VfsError, sortByName } from '../../src/vfs/index.js';
import type { DirHandle, WalkFile } from '../../src/vfs/vfs.js';
import { valueLimit, valueTooBig } from '../../src/pool/memory.js';
import { NoshError } from '../../src/errors.js';
import { fnmatch, fnmatchRegExp, type GlobMatcher } from '../../src/gnulib/fnmatch.js';

const WITH_ARG_SHORT = new Set(['e', 'f', 'm', 'A', 'B', 'C', 'd', 'D']);
const WITH_ARG_LONG = ['regexp', 'file', 'max-count', 'after-context', 'before-context', 'context', 'label', 'include',
  'exclude', 'exclude-dir', 'exclude-from', 'binary-files', 'group-separator', 'directories', 'devices'];

const FLAGS: FlagSpec[] = [
  { key: 'matcher', short: 'E', long: 'extended-regexp', value: 'E', help: 'PATTERNS are extended regular expressions' },
  { key: 'matcher', short: 'F', long: 'fixed-strings', value: 'F', help: 'PATTERNS are strings' },
  { key: 'matcher', short: 'G', long: 'basic-regexp', value: 'G', help: 'PATTERNS are basic regular expressions' },
  { key: 'matcher', short: 'P', long: 'perl-regexp', value: 'P', help: 'PATTERNS are Perl regular expressions (a subset of PCRE; nosh refuses the rest)' },
  { key: 'e', short: 'e', long: 'regexp', kind: 'string', arg: 'PATTERNS', help: 'use PATTERNS for matching' },
  { key: 'f', short: 'f', long: 'file', kind: 'string', arg: 'FILE', help: 'take PATTERNS from FILE' },
  { key: 'case', short: 'i', long: 'ignore-case', value: 'i', help: 'ignore case distinctions in patterns and data' },
  { key: 'case', short: 'y', value: 'i', help: 'obsolete synonym for -i' },
  { key: 'case', long: 'no-ignore-case', value: 'n', help: 'do not ignore case distinctions (default)' },
  { key: 'w', short: 'w', long: 'word-regexp', help: 'match only whole words' },
  { key: 'x', short: 'x', long: 'line-regexp', help: 'match only whole lines' },
  { key: 'z', short: 'z', long: 'null-data', help: 'a data line ends in 0 byte, not newline' },
  { key: 's', short: 's', long: 'no-messages', help: 'suppress error messages' },
  { key: 'v', short: 'v', long: 'invert-match', help: 'select non-matching lines' },
  { key: 'm', short: 'm', long: 'max-count', kind: 'string', arg: 'NUM', help: 'stop after NUM selected lines' },
  { key: 'b', short: 'b', long: 'byte-offset', help: 'print the byte offset with output lines' },
  { key: 'n', short: 'n', long: 'line-number', help: 'print line number with output lines' },
  { key: 'lb', long: 'line-buffered', help: 'flush output on every line' },
  { key: 'fname', short: 'H', long: 'with-filename', value: 'H', help: 'print file name with output lines' },
  { key: 'fname', short: 'h', long: 'no-filename', value: 'h', help: 'suppress the file name prefix on output' },
  { key: 'label', long: 'label', kind: 'string', arg: 'LABEL', help: 'use LABEL as the standard input file name prefix' },
  { key: 'o', short: 'o', long: 'only-matching', help: 'show only nonempty parts of lines that match' },
  { key: 'q', short: 'q', long: 'quiet', help: 'suppress all normal output' },
  { key: 'q', long: 'silent', help: 'same as --quiet' },
  { key: 'binary', long: 'binary-files', kind: 'string', arg: 'TYPE', help: "assume that binary files are TYPE; TYPE is 'binary', 'text', or 'without-match'" },
  { key: 'binary', short: 'a', long: 'text', value: 'text', help: 'equivalent to --binary-files=text' },
  { key: 'binary', short: 'I', value: 'without-match', help: 'equivalent to --binary-files=without-match' },
  { key: 'recurse', short: 'r', long: 'recursive', value: 'r', help: 'search directories recursively' },
  { key: 'recurse', short: 'R', long: 'dereference-recursive', value: 'R', help: 'likewise, but follow symlinks (where the zone allows)' },
  { key: 'directories', short: 'd', long: 'directories', kind: 'string', arg: 'ACTION', help: "how to handle directories; ACTION is 'read', 'recurse', or 'skip'" },
  { key: 'include', long: 'include', kind: 'string', arg: 'GLOB', help: 'search only files that match GLOB (a file pattern)' },
  { key: 'exclude', long: 'exclude', kind: 'string', arg: 'GLOB', help: 'skip files that match GLOB' },
  { key: 'exclude-from', long: 'exclude-from', kind: 'string', arg: 'FILE', help: 'skip files that match any file pattern from FILE' },
  { key: 'exclude-dir', long: 'exclude-dir', kind: 'string', arg: 'GLOB', help: 'skip directories that match GLOB' },
  { key: 'devices', short: 'D', long: 'devices', kind: 'string', arg: 'ACTION', help: "how to handle devices, FIFOs and sockets; ACTION is 'read' or 'skip' (nosh never opens them: 'read' reports them as errors)" },
  { key: 'list', short: 'L', long: 'files-without-match', value: 'L', help: 'print only names of FILEs with no selected lines' },
  { key: 'list', short: 'l', long: 'files-with-matches', value: 'l', help: 'print only names of FILEs with selected lines' },
  { key: 'c', short: 'c', long: 'count', help: 'print only a count of selected lines per FILE' },
  { key: 'T', short: 'T', long: 'initial-tab', help: 'make tabs line up (if needed)' },
  { key: 'Z', short: 'Z', long: 'null', help: 'print 0 byte after FILE name' },
  { key: 'A', short: 'A', long: 'after-context', kind: 'string', arg: 'NUM', help: 'print NUM lines of trailing context' },
  { key: 'B', short: 'B', long: 'before-context', kind: 'string', arg: 'NUM', help: 'print NUM lines of leading context' },
  { key: 'C', short: 'C', long: 'context', kind: 'string', arg: 'NUM', help: 'print NUM lines of output context (-NUM is the same)' },
  { key: 'sep', long: 'group-separator', kind: 'string', arg: 'SEP', help: 'print SEP on line between matches with context' },
  { key: 'sep', long: 'no-group-separator', value: '\0none', help: 'do not print separator for matches with context' },
  { key: 'color', long: 'color', kind: 'optional', arg: 'WHEN', help: "WHEN is 'always', 'never' or 'auto' (auto: never, nosh output is not a terminal); GNU's default GREP_COLORS" },
  { key: 'color', long: 'colour', kind: 'optional', arg: 'WHEN', help: 'same as --color' },
  { key: 'U', short: 'U', long: 'binary', help: 'do not strip CR characters at EOL (no effect, as on GNU/Linux)' },
  { key: 'u', short: 'u', long: 'unix-byte-offsets', help: 'obsolete: no effect but a warning (as GNU grep 3.8)' },
];

/** -NUM (context) as GNU's digit options: rewrite to --context=NUM, leaving option values alone. */
function preprocess(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (a.startsWith('--')) {
      out.push(a);
      const name = a.slice(2);
      if (!name.includes('=') && name !== '' && WITH_ARG_LONG.some((l) => l.startsWith(name))
        && !FLAGS.some((f) => f.long?.startsWith(name) && (f.kind ?? 'boolean') === 'boolean') && i + 1 < args.length) {
        out.push(args[++i]!);
      }
      continue;
    }
    if (!a.startsWith('-') || a.length < 2) {
      out.push(a);
      continue;
    }
    let digits = '';
    let rest = '';
    let takesNext = false;
    for (let j = 1; j < a.length; j++) {
      const ch = a[j]!;
      if (ch >= '0' && ch <= '9') {
        digits += ch;
        continue;
      }
      if (WITH_ARG_SHORT.has(ch)) {
        rest += a.slice(j);
        takesNext = j === a.length - 1;
        break;
      }
      rest += ch;
    }
    if (digits === '') out.push(a);
    else {
      // The context first: the value of a trailing -e/-d... is the next argument (-2e PATTERN).
      out.push('--context=' + digits);
      if (rest !== '') out.push('-' + rest);
    }
    if (takesNext && i + 1 < args.length) out.push(args[++i]!);
  }
  // Keep digit contexts from turning into values of a preceding '-e' etc.: handled above.
  return out;
}

/** An error that ends grep: its message (if any), then the usage lines if `usage`. */
class Fatal extends Error {
  constructor(message: string, readonly usage = false, readonly status = 2) {
    super(message);
  }
}

const USAGE = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n";

/** Byte string (latin1) of an argv string (UTF-8 text). */
const bytesOf = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

function parseContext(v: string): number {
  if (!/^[ \t]*\+?[0-9]+$/.test(v)) throw new Fatal(`${v}: invalid context length argument`);
  return Math.min(Number(v.trim()), Number.MAX_SAFE_INTEGER);
}

// ---- file name globs (fnmatch without FNM_PATHNAME / FNM_PERIOD) ----------------------

function globMatcher(glob: string): GlobMatcher {
  const re = fnmatchRegExp(bytesOf(glob), 0);
  if (re !== null && !compiles(re)) throw new Fatal('glob pattern too large (the JavaScript regex engine refuses it); use a shorter --include/--exclude pattern');
  return fnmatch(glob, 0);
}

interface FilterRule {
  include: boolean;
  re: GlobMatcher;
}

/** gnulib exclude.c: anchored (basename) or any '/'-suffix (command-line names). */
function globMatches(re: GlobMatcher, name: string, anchored: boolean): boolean {
  if (re.test(name)) return true;
  if (anchored) return false;
  for (let i = 0; i < name.length; i++) if (name[i] === '/' && name[i + 1] !== '/' && i + 1 < name.length && re.test(name.slice(i + 1))) return true;
  return false;
}

/** Last matching --include/--exclude wins; none matching: excluded iff the first one was --include. */
function excludedBy(rules: FilterRule[], name: string, anchored: boolean): boolean {
  if (rules.length === 0) return false;
  for (let i = rules.length - 1; i >= 0; i--) if (globMatches(rules[i]!.re, name, anchored)) return !rules[i]!.include;
  return rules[0]!.include;
}

// ---- the matcher -------------------------------------------------------------------

interface Matcher {
  /** Global regex over a chunk of whole lines; null: test line by line. */
  bufRe: RegExp | null;
  /** Does this line (no terminator) match? */
  test(line: string): boolean;
  /** The leftmost-longest non-empty match in the line at or after `pos`, as [start, end); null if none. */
  match(line: string, pos: number): [number, number] | null;
  none: boolean;
  /** Many literal patterns (see literalMatcher): the next matching line of a chunk, instead of bufRe. */
  lineIn?(s: string, pos: number, eol: string): [number, number] | null;
}

/** From this many patterns on, literal ones are searched with one automaton (see literalMatcher). */
const AUTOMATON_MIN = 16;

/**
 * Many patterns that are all literal (-F, or BRE/ERE without a special character): one
 * Aho-Corasick automaton (src/regex/aho-corasick.ts says why not one alternation regex),
 * built once. null when they are not all literal or it would be too large.
 */
function literalMatcher(patterns: string[], dialect: RegexDialect, o: { i: boolean; w: boolean; x: boolean; z: boolean }): Matcher | null {
  if (patterns.length < AUTOMATON_MIN || dialect === 'perl') return null;
  const eol = o.z ? '\0' : '\n';
  const strings: string[] = [];
  let empty = false;
  for (const p of patterns) {
    const lit = literalOf(p, dialect);
    if (lit === null) return null;
    if (lit === '') empty = true;
    // A string holding the line terminator never matches inside a line.
    else if (!lit.includes(eol)) strings.push(lit);
  }
  // The empty string with -w: its matches depend on the bytes around every position; the regexes say it.
  if (empty && o.w) return null;
  if (empty && o.x) strings.push('');
  const set = LiteralSet.build(strings, { ignoreCase: o.i, word: o.w, line: o.x });
  if (!set) return null;
  if (empty && !o.x) {
    // The empty string matches every line; -o prints only the non-empty matches.
    return {
      bufRe: null, none: false, test: () => true, match: (line, from) => set.match(line, from),
      lineIn: (s, pos, eolChar) => {
        if (pos >= s.length) return null;
        const le = s.indexOf(eolChar, pos);
        return [pos, le < 0 ? s.length : le];
      },
    };
  }
  return { bufRe: null, none: false, test: (line) => set.test(line), match: (line, from) => set.match(line, from), lineIn: (s, pos, eolChar) => set.lineIn(s, pos, eolChar) };
}

/** Read size: V8 decodes 64 KiB latin1 strings much faster per byte than 256 KiB ones. */
const CHUNK = 64 * 1024;

const WORD = '[0-9A-Za-z_]';

/**
 * V8 compiles a regex on its first exec and refuses one whose code is too large ("Regular
 * expression too large", a SyntaxError thrown by exec): try it once on an empty string.
 */
function compiles(re: RegExp): boolean {
  try {
    re.lastIndex = 0;
    re.exec('');
    return true;
  } catch (e) {
    if (e instanceof SyntaxError) return false;
    throw e;
  } finally {
    re.lastIndex = 0;
  }
}

function buildMatcher(patterns: string[], dialect: RegexDialect, o: { i: boolean; w: boolean; x: boolean; z: boolean }, warn: (m: string) => void): Matcher {
  if (patterns.length === 0) {
    return { bufRe: null, test: () => false, match: () => null, none: true };
  }
  const literal = literalMatcher(patterns, dialect, o);
  if (literal) return literal;
  const wrapBuf = (src: string) => (o.x ? `(?<![^\\n])(?:${src})(?![^\\n])` : o.w ? `(?<!${WORD})(?:${src})(?!${WORD})` : src);
  const wrapLine = (src: string) => (o.x ? `^(?:${src})$` : o.w ? `(?<!${WORD})(?:${src})(?!${WORD})` : src);
  const lineRes: RegExp[] = [];
  const bufSrc: string[] = [];
  let flags = '';
  let backrefs = false;
  const seen = new Set<string>();
  for (const p of patterns) {
    const t = translateRegex(p, { dialect, ignoreCase: o.i, newline: o.z ? 'any' : 'line' });
    for (const w of t.warnings) if (!seen.has(w)) {
      seen.add(w);
      warn(w);
    }
    // Compiled (by V8, on first use) only where needed: one combined regex tests lines; the
    // per-pattern ones serve -o (longest across patterns) and back-references.
    lineRes.push(new RegExp(wrapLine(t.source), t.flags + 'g'));
    if (t.hasBackrefs) backrefs = true;
    flags = t.flags;
    if (!o.z) {
      const b = translateRegex(p, { dialect, ignoreCase: o.i, newline: 'line', multiline: true });
      bufSrc.push(b.source);
    }
  }
  const single = lineRes.length === 1;
  let combinedLine = single ? lineRes[0]! : backrefs ? null : new RegExp(lineRes.map((r) => `(?:${r.source})`).join('|'), 'g');
  // Too large once joined: test the patterns one by one, line by line.
  if (combinedLine && !single && !compiles(combinedLine)) combinedLine = null;
  if (!combinedLine || single) {
    for (const r of lineRes) if (!compiles(r)) throw new Fatal('regular expression too large (the JavaScript regex engine refuses it); use shorter patterns');
  }
  let bufRe: RegExp | null = null;
  if (!o.z && (single || !backrefs)) {
    const joined = single ? bufSrc[0]! : bufSrc.map((s) => `(?:${s})`).join('|');
    bufRe = new RegExp(wrapBuf(joined), flags + 'g');
    if (!compiles(bufRe)) bufRe = null;
  }
  const test = (line: string): boolean => {
    if (combinedLine) {
      combinedLine.lastIndex = 0;
      return combinedLine.test(line);
    }
    for (const r of lineRes) {
      r.lastIndex = 0;
      if (r.test(line)) return true;
    }
    return false;
  };
  // One match at a time: a long line can hold millions (an array of them all once took the
  // worker's heap, and V8's out-of-memory then aborted the whole process).
  const match = (line: string, from: number): [number, number] | null => {
    let pos = from;
    while (pos <= line.length) {
      let bs = -1;
      let be = -1;
      for (const r of lineRes) {
        r.lastIndex = pos;
        const m = r.exec(line);
        if (!m) continue;
        const e = m.index + m[0].length;
        if (bs < 0 || m.index < bs || (m.index === bs && e > be)) {
          bs = m.index;
          be = e;
        }
      }
      if (bs < 0) return null;
      if (be > bs) return [bs, be];
      pos = bs + 1;
    }
    return null;
  };
  return { bufRe, test, match, none: false };
}

// ---- options -----------------------------------------------------------------------

interface Opts {
  invert: boolean;
  count: boolean;
  list: '' | 'l' | 'L';
  quiet: boolean;
  only: boolean;
  lineNo: boolean;
  byteOff: boolean;
  tab: boolean;
  nullName: boolean;
  /** --color=always: GNU's SGR sequences with the default GREP_COLORS. */
  color: boolean;
  z: boolean;
  before: number;
  after: number;
  maxCount: number;
  binary: 'binary' | 'text' | 'without-match';
  noMessages: boolean;
  recurse: '' | 'r' | 'R';
  /** -d skip: directory operands are passed over in silence. */
  skipDirs: boolean;
  /** -D skip: FIFOs, sockets and devices named on the command line are passed over in silence. */
  skipDevices: boolean;
  groupSep: string | null;
  label: string;
  fileRules: FilterRule[];
  dirRules: GlobMatcher[];
}

/**
 * --color=always: GNU's sgr_start/sgr_end around a piece, with the default GREP_COLORS
 * (ms=mc=01;31 matches, fn=35 file names, ln=32 line numbers, bn=32 byte offsets, se=36
 * separators; sl and cx empty: lines themselves are not coloured).
 */
const SGR = { match: '01;31', file: '35', line: '32', byte: '32', sep: '36' } as const;
function sgr(color: string, text: string): string {
  return `\x1b[${color}m\x1b[K${text}\x1b[m\x1b[K`;
}

/** Output is sent on once this much is pending. */
const FLUSH_AT = 64 * 1024;
/** Whole-file reads of the walk go into one reused buffer (output copies what it keeps). */
const SMALL_FILE = 64 * 1024;
let scratch: Buffer | null = null;

/**
 * Pending output: small pieces are copied into one block (a file's bytes may be in the reused
 * read buffer); a big piece gets its own copy instead of growing the block.
 */
class OutBuffer {
  private parts: Buffer[] = [];
  private block = Buffer.allocUnsafe(FLUSH_AT);
  private used = 0;
  size = 0;

  push(b: Buffer | string): void {
    const n = b.length; // a string here is a byte string (latin1): one char per byte
    if (n > 4096) {
      this.seal();
      this.parts.push(typeof b === 'string' ? Buffer.from(b, 'latin1') : Buffer.from(b));
    } else {
      if (this.used + n > this.block.length) {
        this.seal();
        this.block = Buffer.allocUnsafe(FLUSH_AT);
      }
      if (typeof b === 'string') this.block.write(b, this.used, 'latin1');
      else b.copy(this.block, this.used);
      this.used += n;
    }
    this.size += n;
  }

  /** Everything pending, handed over (the buffer starts empty again). */
  take(): Buffer {
    this.seal();
    const data = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    return data;
  }

  /** Drop what was pushed after the first `size` bytes. */
  truncate(size: number): void {
    if (size >= this.size) return;
    const keep = Buffer.from(this.take().subarray(0, size));
    if (keep.length > 0) this.parts.push(keep);
    this.size = keep.length;
  }

  private seal(): void {
    if (this.used === 0) return;
    this.parts.push(this.block.subarray(0, this.used));
    this.block = this.block.subarray(this.used);
    this.used = 0;
  }
}

class GrepRun {
  private readonly out = new OutBuffer();
  /** Some group was printed (GNU's static `used`): group separators from then on. */
  used = false;
  errorSeen = false;
  anySelected = false;
  exitNow = false;
  /** A directory read through left the zone: what its files said (even -q's match) is void. */
  escaped = false;
  outFile: boolean | 'auto';
  readonly eol: number;
  readonly eolChar: string;
  readonly ctxOn: boolean;
  /** Matching lines are not printed (-c -l -L -q). */
  readonly quietOut: boolean;
  readonly visited = new Set<string>();
  /**
   * Directories files were read through (Vfs.openListedFileAt) since their location was last
   * checked, with the output size before the first such file and the name to report.
   */
  private readonly unverified = new Map<DirHandle, { mark: number; display: string; escaped: boolean }>();

  constructor(readonly ctx: CommandContext, readonly o: Opts, readonly m: Matcher, operandCount: number) {
    this.eol = o.z ? 0 : 10;
    this.eolChar = o.z ? '\0' : '\n';
    this.ctxOn = o.before >= 0 || o.after >= 0;
    this.quietOut = o.count || o.list !== '' || o.quiet;
    const fname = ctx.opts.get('fname');
    this.outFile = fname === 'H' ? true : fname === 'h' ? false : operandCount > 1 ? true : o.recurse ? 'auto' : false;
  }

  push(b: Buffer | string): void {
    this.out.push(b);
  }

  /** A file name (for -c, -l, -L), in the file-name colour with --color=always. */
  private pushName(name: string): void {
    const bytes = Buffer.from(name, 'utf8');
    this.push(this.o.color ? sgr(SGR.file, bytes.toString('latin1')) : bytes);
  }

  get pending(): number {
    return this.out.size;
  }

  /**
   * Output is held until the next flush (between chunks). Past what the final output can
   * still take it would only be cut: grep stops there (exitNow), and the flush truncates.
   * `bounded` (-o, whose output can be many times its line): held output past a quarter of
   * the memory budget is MEMORY_LIMIT, where a pipe or a file would take it all.
   */
  heldTooMuch(bounded: boolean): boolean {
    const n = this.out.size;
    if (n <= FLUSH_AT) return false;
    if (n > (this.ctx.stdout.room?.() ?? Infinity)) {
      this.exitNow = true;
      return true;
    }
    if (bounded && n > valueLimit()) throw valueTooBig("grep -o's output of one chunk");
    return false;
  }

  async flush(force = false): Promise<void> {
    if (!force && this.out.size < FLUSH_AT) return;
    // Nothing read through a directory leaves before the directory is known to be inside.
    if (this.unverified.size > 0) await this.settle();
    if (this.out.size === 0) return;
    const data = this.out.take();
    for (const v of this.unverified.values()) v.mark = 0; // escaped ones: drop from here on
    await this.ctx.stdout.write(data);
  }

  /**
   * Check where the directories read through are now (one readlink each). One that left the
   * zone since its listing: its files may not be the zone's, so the output from its first
   * file on is dropped and the directory reported. It stays listed (escaped) until the walk
   * leaves it, so whatever is still read through it is dropped too. False if one escaped.
   */
  private async settle(only?: DirHandle): Promise<boolean> {
    let cut = Infinity;
    const bad: string[] = [];
    for (const [h, v] of this.unverified) {
      if (only && h !== only) continue;
      if (!v.escaped) {
        try {
          this.ctx.fs.verifyDir(h);
          this.unverified.delete(h);
          continue;
        } catch (e) {
          if (!(e instanceof VfsError)) throw e;
          v.escaped = true;
          bad.push(`${v.display || '.'}: ${e.reason}`);
        }
      }
      cut = Math.min(cut, v.mark);
    }
    if (cut === Infinity) return true;
    this.out.truncate(cut);
    for (const v of this.unverified.values()) v.mark = Math.min(v.mark, this.out.size);
    this.escaped = true;
    this.errorSeen = true;
    if (!this.o.noMessages) for (const m of bad) await this.ctx.stderr.write(`grep: ${m}\n`);
    return false;
  }

  async message(msg: string): Promise<void> {
    await this.flush(true);
    await this.ctx.stderr.write(`grep: ${msg}\n`);
  }

  async fileError(name: string, e: unknown): Promise<void> {
    if (!(e instanceof VfsError)) throw e;
    this.errorSeen = true;
    if (!this.o.noMessages) await this.message(`${name}: ${e.reason}`);
  }

  async operand(op: string, omitDotSlash: boolean): Promise<void> {
    if (op === '-') {
      await this.scan(this.ctx.stdin, this.o.label, 19);
      return;
    }
    const fs = this.ctx.fs;
    let st;
    try {
      st = fs.stat(op, this.ctx.cwd);
    } catch (e) {
      await this.fileError(op, e);
      return;
    }
    if (st.isDirectory()) {
      if (!omitDotSlash && this.o.dirRules.some((r) => globMatches(r, op, false))) return;
      if (this.o.skipDirs) return;
      if (!this.o.recurse) {
        // GNU reads it and fails (EISDIR): then its count (0) or -L name as for an empty file.
        await this.fileError(op, new VfsError('EISDIR', op));
        const wait = this.report(new Scan(this, op, 0), op);
        if (wait) await wait;
        return;
      }
      if (this.outFile === 'auto') this.outFile = true;
      await this.walk(op, omitDotSlash ? '' : op, null);
      return;
    }
    if (excludedBy(this.o.fileRules, op, false)) return;
    if (this.o.skipDevices && !st.isFile()) return;
    await this.file(op, op);
  }

  /**
   * Walk a directory: opened once (Vfs.openDir, or openListedDirAt from its already listed
   * parent), its children opened relative to it, so a file costs one open + fstat instead of
   * a resolution from the root. Directories being walked (ancestors) are remembered by
   * dev:ino: -R must not loop through a link to one of them.
   */
  private async walk(dir: string, display: string, parent: { dir: DirHandle; name: string } | null): Promise<void> {
    const fs = this.ctx.fs;
    let h: DirHandle;
    try {
      h = parent ? fs.openListedDirAt(parent.dir, parent.name) : fs.openDir(dir, this.ctx.cwd);
    } catch (e) {
      await this.fileError(display || '.', e);
      return;
    }
    const key = `${h.stat.dev}:${h.stat.ino}`;
    try {
      if (this.visited.has(key)) {
        // -R through a link to an ancestor (GNU's fts FTS_DC): a warning, not an error.
        if (!this.o.noMessages) await this.message(`${display || '.'}: warning: recursive directory loop`);
        return;
      }
      this.visited.add(key);
      await this.walkEntries(h, dir, display);
      if (this.unverified.has(h)) await this.settle(h);
    } finally {
      this.unverified.delete(h);
      this.visited.delete(key);
      h.close();
    }
  }

  private async walkEntries(h: DirHandle, dir: string, display: string): Promise<void> {
    const fs = this.ctx.fs;
    let entries;
    try {
      entries = h.entries();
    } catch (e) {
      await this.fileError(display || '.', e);
      return;
    }
    sortByName(entries);
    const prefix = (base: string) => (base === '' ? '' : /^\/+$/.test(base) ? '/' : base.replace(/\/+$/, '') + '/');
    const pathPrefix = prefix(dir);
    const dispPrefix = prefix(display);
    for (const ent of entries) {
      if (this.exitNow) return;
      if (ent.type === 'file') {
        if (excludedBy(this.o.fileRules, ent.name, true)) continue;
        const wait = this.listedFile(h, ent.name, dispPrefix + ent.name);
        if (wait) await wait;
      } else if (ent.type === 'dir') {
        if (this.o.dirRules.some((r) => r.test(ent.name))) continue;
        await this.walk(pathPrefix + ent.name, dispPrefix + ent.name, { dir: h, name: ent.name });
      } else if (ent.type === 'symlink') {
        if (this.o.recurse !== 'R' || !fs.policy.followSymlinks) continue;
        const path = pathPrefix + ent.name;
        let st;
        try {
          st = fs.stat(path, this.ctx.cwd);
        } catch (e) {
          // Dangling (or a link loop): an error, as GNU's. Outside the zone: not followed, not listed.
          if (e instanceof VfsError && (e.errno === 'ENOENT' || e.errno === 'ELOOP') && !excludedBy(this.o.fileRules, ent.name, true)) {
            await this.fileError(dispPrefix + ent.name, e);
          }
          continue;
        }
        if (st.isDirectory()) {
          if (this.o.dirRules.some((r) => r.test(ent.name))) continue;
          await this.walk(path, dispPrefix + ent.name, null);
        } else if (st.isFile()) {
          if (excludedBy(this.o.fileRules, ent.name, true)) continue;
          await this.file(path, dispPrefix + ent.name);
        }
      }
    }
  }

  /** -T's width of numbers: the digits of the largest offset, or line number with -n (size + 1). */
  private tabWidth(size: number): number {
    return String(size + (this.o.lineNo ? 1 : 0)).length;
  }

  /** A file named on the command line or reached through a followed link: full resolution. */
  private async file(path: string, display: string): Promise<void> {
    let reader;
    try {
      reader = this.ctx.fs.openRandom(path, this.ctx.cwd);
    } catch (e) {
      await this.fileError(display, e);
      return;
    }
    try {
      const s = new Scan(this, display, this.o.tab ? this.tabWidth(reader.size) : 0);
      let pos = 0;
      await s.runReads((into, offset, length) => {
        const n = reader.readAt(into.subarray(offset), pos, length);
        pos += n;
        return n;
      }, reader.size);
      const wait = this.report(s, display);
      if (wait) await wait;
    } catch (e) {
      await this.fileError(display, e);
    } finally {
      reader.close();
    }
  }

  /**
   * A file the walk listed in `h`: a small one is read whole into the shared buffer and
   * searched synchronously; a promise comes back only when there is something to wait for
   * (output to send, a message, a bigger file).
   */
  private listedFile(h: DirHandle, name: string, display: string): Promise<void> | undefined {
    const v = this.unverified.get(h);
    if (v?.escaped) return undefined; // reported once, when it was found outside
    let f: WalkFile;
    try {
      f = this.ctx.fs.openListedFileAt(h, name);
    } catch (e) {
      return this.fileError(display, e);
    }
    if (!v) this.unverified.set(h, { mark: this.out.size, display: dirOf(display), escaped: false });
    if (f.size >= SMALL_FILE) return this.streamFile(f, h, display, null);
    let s: Scan;
    try {
      const buf = (scratch ??= Buffer.allocUnsafe(SMALL_FILE + 1));
      const n = f.read(buf, 0, f.size + 1);
      // It grew since its fstat: read on.
      if (n > f.size) return this.streamFile(f, h, display, Buffer.from(buf.subarray(0, n)));
      // Shorter than asked: that is the whole (regular) file.
      s = new Scan(this, display, this.o.tab ? this.tabWidth(f.size) : 0);
      s.whole(buf.subarray(0, n));
    } catch (e) {
      f.close();
      return this.fileError(display, e);
    }
    f.close();
    return this.report(s, display, h);
  }

  /** A walked file read chunk by chunk (after `first`, what was read already); closes it. */
  private async streamFile(f: WalkFile, h: DirHandle, display: string, first: Buffer | null): Promise<void> {
    try {
      const s = new Scan(this, display, this.o.tab ? this.tabWidth(f.size) : 0);
      await s.runReads((into, offset, length) => f.read(into, offset, length), f.size, first);
      const wait = this.report(s, display, h);
      if (wait) await wait;
    } catch (e) {
      await this.fileError(display, e);
    } finally {
      f.close();
    }
  }

  /** Search one input; prints lines, counts, names. */
  private async scan(src: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, name: string, width: number): Promise<void> {
    const s = new Scan(this, name, this.o.tab ? width : 0);
    await s.run(src);
    const wait = this.report(s, name);
    if (wait) await wait;
  }

  /** After a file: its count or name; a promise only when something must be sent now. */
  private report(s: Scan, name: string, dir?: DirHandle): Promise<void> | undefined {
    const o = this.o;
    const nlines = s.nlines;
    if (nlines > 0) this.anySelected = true;
    const showName = this.outFile === true;
    if (o.count && o.list === '' && !o.quiet) {
      if (showName) {
        this.pushName(name);
        this.push(o.nullName ? '\0' : o.color ? sgr(SGR.sep, ':') : ':');
      }
      this.push(nlines + '\n');
    }
    if (!o.quiet && ((o.list === 'l' && nlines > 0) || (o.list === 'L' && nlines === 0))) {
      this.pushName(name);
      this.push(o.nullName ? '\0' : '\n');
    }
    if (s.binaryMatched) return this.binaryMatches(name, dir);
    if (this.out.size >= FLUSH_AT) return this.flush();
    return undefined;
  }

  /** "binary file matches" says something of the file: only once its directory is checked. */
  private async binaryMatches(name: string, dir?: DirHandle): Promise<void> {
    if (dir && this.unverified.has(dir) && !(await this.settle(dir))) return;
    await this.message(`${name}: binary file matches`);
  }
}

/** The directory part of a display name ('' for a bare name). */
function dirOf(display: string): string {
  const i = display.lastIndexOf('/');
  return i < 0 ? '' : i === 0 ? '/' : display.slice(0, i);
}


/** One input being searched: GNU grep()'s state. */
class Scan {
  nlines = 0;
  binaryMatched = false;
  private outleft: number;
  private pending = 0;
  private done = false;
  private binary = false;
  private firstNull = -1;
  private quiet: boolean;
  private doneOnMatch: boolean;
  private nameHead: string | null = null;
  private readonly showName: boolean;
  // positions
  private bufStart = 0;
  private lastOut = -1;
  private buf: Buffer = Buffer.alloc(0);
  private s = '';
  private nlCount = 0;
  private nlPos = 0;
  private ring: { abs: number; bytes: Buffer; lineNo: number }[] = [];

  constructor(private readonly g: GrepRun, private readonly name: string, private readonly width: number) {
    const o = g.o;
    this.outleft = o.maxCount;
    this.quiet = g.quietOut;
    this.doneOnMatch = o.list !== '' || o.quiet;
    this.showName = g.outFile === true;

  }

  async run(src: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    const eol = this.g.eol;
    // The start of a line that goes on in later chunks, in pieces: joined once the line ends
    // (a concat per chunk would copy a long line again for every chunk).
    const carry: Buffer[] = [];
    let carried = 0;
    const cap = this.lineCap();
    const hold = (b: Buffer) => {
      carried += b.length;
      if (carried > cap) throw this.lineTooLong(cap);
      carry.push(Buffer.from(b));
    };
    for await (const chunk of src as AsyncIterable<Uint8Array>) {
      let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (carry.length > 0 && buf.indexOf(eol) < 0) {
        hold(buf);
        continue;
      }
      if (carry.length > 0) {
        carry.push(buf);
        buf = Buffer.concat(carry);
        carry.length = 0;
        carried = 0;
      }
      const last = buf.lastIndexOf(eol);
      if (last < 0) {
        hold(buf);
        continue;
      }
      if (last + 1 < buf.length) hold(buf.subarray(last + 1));
      this.chunk(buf.subarray(0, last + 1), buf);
      await this.g.flush();
      if (this.done || this.g.exitNow) return this.finish();
    }
    const rest = Buffer.concat(carry);
    if (rest.length > 0) this.chunk(rest);
    this.finish();
  }

  /**
   * A regular file, read by `read(into, offset, length)` (the count; short at its end) into
   * one buffer that is kept: the partial last line moves to its front after each chunk, so
   * no chunk is allocated, concatenated or copied (fresh buffers cost a big file page faults
   * and garbage collections). `size`: the file's size when opened; `first`: what was read of
   * it already. Nothing keeps a view of the buffer past a chunk: output, the before-context
   * ring and the carried line are copies.
   */
  async runReads(read: (into: Buffer, offset: number, length: number) => number, size: number, first: Buffer | null = null): Promise<void> {
    const eol = this.g.eol;
    let kept = first ? first.length : 0; // bytes of a partial last line at buf's start
    // A small file gets a buffer of its size + 1: one read sees its end.
    let buf = Buffer.allocUnsafe(kept + Math.min(2 * CHUNK, Math.max(size - kept, 0) + 1));
    if (first) first.copy(buf);
    const cap = this.lineCap();
    for (;;) {
      if (buf.length - kept < Math.min(CHUNK, buf.length >> 1)) {
        if (kept >= cap) throw this.lineTooLong(cap);
        const bigger = Buffer.allocUnsafe(Math.min(Math.max(2 * buf.length, kept + CHUNK), cap + CHUNK));
        buf.copy(bigger, 0, 0, kept);
        buf = bigger;
      }
      const want = buf.length - kept;
      const n = read(buf, kept, want);
      const end = kept + n;
      const last = n === 0 ? -1 : buf.lastIndexOf(eol, end - 1);
      if (last >= 0) {
        this.chunk(buf.subarray(0, last + 1), buf.subarray(0, end));
        await this.g.flush();
        if (this.done || this.g.exitNow) return this.finish();
        buf.copyWithin(0, last + 1, end);
        kept = end - last - 1;
      } else kept = end;
      if (n < want) break; // a regular file read short is at its end
    }
    if (kept > 0) this.chunk(buf.subarray(0, kept));
    this.finish();
  }

  /**
   * The longest line held whole: a line grows in memory until its end is seen, so one past
   * the worker's budget (a quarter of it, see valueLimit) or limits.maxBufferBytes is
   * refused early with MEMORY_LIMIT (a 4 GB file without a newline once grew the process
   * to 4 GB: file reads grow a Buffer that the worker's heap limit does not see). GNU grep
   * would treat a binary file's NULs as line ends; cutting there keeps memory bounded but a
   * run of NULs then costs a line each (a 4 GB sparse file ran into the timeout), so nosh
   * refuses, quickly, instead.
   */
  private lineCap(): number {
    return Math.min(this.g.ctx.limits.maxBufferBytes, valueLimit());
  }

  private lineTooLong(cap: number): NoshError {
    const mb = Math.max(1, Math.round(cap / (1024 * 1024)));
    return new NoshError('MEMORY_LIMIT', `${this.name}: a line longer than ${mb} MB: grep holds each line whole, and this one passes what the worker may hold`,
      'Cut the input into lines first (tr, fold or cut), or search a part of it (head -c N FILE | grep ...).',
      { max_line_bytes: cap });
  }

  /** The whole input at once (a small file): as run, without awaiting. */
  whole(buf: Buffer): void {
    const last = buf.lastIndexOf(this.g.eol);
    if (buf.length === 0) { /* empty file: nothing to search */ }
    else if (last + 1 === buf.length || last < 0) this.chunk(buf);
    else {
      this.chunk(buf.subarray(0, last + 1), buf);
      if (!this.done && !this.g.exitNow) this.chunk(buf.subarray(last + 1));
    }
    this.finish();
  }

  private finish(): void {
    if (this.binary && !this.g.quietOut && this.nlines > this.firstNull) this.binaryMatched = true;
  }

  /** Search buf (whole lines but maybe the last); `read` (buf and its partial last line, as
   * GNU's buffer holds them) is what binary detection looks at. */
  private chunk(buf: Buffer, read = buf): void {
    const o = this.g.o;
    this.buf = buf;
    this.nlPos = 0;
    if (!this.binary && o.binary !== 'text' && !o.z && read.indexOf(0) >= 0) {
      if (o.binary === 'without-match') {
        this.nlines = 0;
        this.done = true;
        return;
      }
      this.binary = true;
      this.firstNull = this.nlines;
      this.quiet = true;
      if (!o.count) this.doneOnMatch = true;
    }
    let s = buf.toString('latin1');
    if (this.binary) s = s.replace(/\0/g, '\n');
    this.s = s;
    const len = s.length;
    if (this.outleft <= 0) {
      if (!this.quiet && this.pending > 0) this.gap(0, len);
      if (this.pending <= 0) this.done = true;
    } else if (o.invert) {
      let pos = 0;
      while (pos < len && !this.stopped()) {
        const m = this.next(pos);
        const end = m ? m[0] : len;
        while (pos < end && !this.stopped()) {
          let le = s.indexOf(this.g.eolChar, pos);
          if (le < 0) le = len;
          this.selected(pos, le);
          pos = le + 1;
        }
        if (this.stopped() || !m) break;
        this.gap(m[0], m[1] + 1);
        pos = m[1] + 1;
      }
      if (pos < len) this.gap(pos, len);
    } else {
      let pos = 0;
      while (pos < len && !this.stopped()) {
        const m = this.next(pos);
        if (!m) break;
        this.gap(pos, m[0]);
        this.selected(m[0], m[1]);
        pos = m[1] + 1;
      }
      if (pos < len) this.gap(pos, len);
    }
    if (this.outleft <= 0 && this.pending <= 0) this.done = true;
    this.endChunk();
    this.bufStart += buf.length;
  }

  private stopped(): boolean {
    return this.done || this.outleft <= 0 || this.g.exitNow;
  }

  /** Next selected-by-pattern line at or after pos (a line start): [start, end of line). */
  private next(pos: number): [number, number] | null {
    const s = this.s;
    const len = s.length;
    const eolChar = this.g.eolChar;
    const m = this.g.m;
    if (m.none) return null;
    if (m.lineIn) return m.lineIn(s, pos, eolChar);
    const re = m.bufRe;
    if (!re) {
      while (pos < len) {
        let le = s.indexOf(eolChar, pos);
        if (le < 0) le = len;
        if (m.test(s.slice(pos, le))) return [pos, le];
        pos = le + 1;
      }
      return null;
    }
    for (;;) {
      re.lastIndex = pos;
      const hit = re.exec(s);
      if (!hit) return null;
      const idx = hit.index;
      if (idx >= len && (len === 0 || s.charCodeAt(len - 1) === 10)) return null;
      const ls = idx === 0 ? 0 : s.lastIndexOf('\n', idx - 1) + 1;
      let le = s.indexOf('\n', idx);
      if (le < 0) le = len;
      if (re.lastIndex > le && !m.test(s.slice(ls, le))) {
        // The match ran across a line end (e.g. \s took the newline): not a match of this line.
        if (le >= len) return null;
        pos = le + 1;
        continue;
      }
      return [ls, le];
    }
  }

  private lineNoAt(i: number): number {
    const buf = this.buf;
    const eol = this.g.eol;
    let p = this.nlPos;
    let n = this.nlCount;
    while (p < i) {
      const j = buf.indexOf(eol, p);
      if (j < 0 || j >= i) break;
      n++;
      p = j + 1;
    }
    this.nlPos = p;
    this.nlCount = n;
    return n + 1;
  }

  private selected(ls: number, le: number): void {
    this.nlines++;
    this.outleft--;
    if (this.g.o.quiet) {
      this.g.exitNow = true;
      return;
    }
    if (this.quiet) {
      // GNU's prtext sets `used` even when it prints nothing (a binary file's match): the
      // next group printed, in a later file, gets a separator.
      this.g.used = true;
      if (this.doneOnMatch) this.done = true;
      return;
    }
    this.printBefore(ls);
    this.printLine(ls, le, ':');
    this.pending = Math.max(0, this.g.o.after);
    this.g.used = true;
  }

  /** Non-selected lines in [from, to): trailing context of the previous selected line. */
  private gap(from: number, to: number): void {
    if (this.quiet) return;
    const s = this.s;
    while (this.pending > 0 && from < to) {
      let le = s.indexOf(this.g.eolChar, from);
      if (le < 0) le = s.length;
      this.printLine(from, le, '-');
      this.pending--;
      from = le + 1;
    }
  }

  private printBefore(ls: number): void {
    const g = this.g;
    const B = g.o.before;
    const s = this.s;
    const eolChar = g.eolChar;
    const bound = this.lastOut >= this.bufStart ? this.lastOut - this.bufStart : 0;
    let p = ls;
    let k = 0;
    while (k < B && p > bound) {
      p = p - 1 === 0 ? 0 : s.lastIndexOf(eolChar, p - 2) + 1;
      k++;
    }
    let fromRing: { abs: number; bytes: Buffer; lineNo: number }[] = [];
    if (k < B && p === 0 && this.ring.length > 0) {
      fromRing = this.ring.filter((r) => r.abs >= this.lastOut).slice(-(B - k));
    }
    const groupStart = fromRing.length > 0 ? fromRing[0]!.abs : this.bufStart + p;
    if (g.ctxOn && g.used && groupStart !== this.lastOut && g.o.groupSep !== null) {
      g.push(g.o.color ? sgr(SGR.sep, g.o.groupSep) + '\n' : g.o.groupSep + '\n');
    }
    for (const r of fromRing) {
      if (!g.o.only) {
        g.push(this.head(r.abs, r.lineNo, '-', r.bytes.length > 1));
        if (g.o.color && g.o.invert) {
          const end = r.bytes.length > 0 && r.bytes[r.bytes.length - 1] === g.eol ? r.bytes.length - 1 : r.bytes.length;
          this.pushColored(r.bytes.toString('latin1', 0, end), r.bytes, 0);
          g.push(r.bytes.subarray(end));
        } else g.push(r.bytes);
      } else if (g.o.invert) {
        const end = r.bytes.length > 0 && r.bytes[r.bytes.length - 1] === g.eol ? r.bytes.length - 1 : r.bytes.length;
        this.printOnly(r.bytes.toString('latin1', 0, end), r.bytes, 0, r.abs, r.lineNo, '-');
      }
      this.lastOut = r.abs + r.bytes.length;
    }
    while (p < ls) {
      const le = s.indexOf(eolChar, p);
      this.printLine(p, le, '-');
      p = le + 1;
    }
  }

  private head(abs: number, lineNo: number, sep: string, nonEmpty: boolean): string {
    const o = this.g.o;
    let h = '';
    if (o.color) {
      const cs = sgr(SGR.sep, sep);
      if (this.showName) h += sgr(SGR.file, this.nameHead ??= Buffer.from(this.name, 'utf8').toString('latin1')) + (o.nullName ? '\0' : cs);
      if (o.lineNo) h += sgr(SGR.line, String(lineNo).padStart(this.width)) + cs;
      if (o.byteOff) h += sgr(SGR.byte, String(abs).padStart(this.width)) + cs;
    } else {
      if (this.showName) h += (this.nameHead ??= Buffer.from(this.name, 'utf8').toString('latin1')) + (o.nullName ? '\0' : sep);
      if (o.lineNo) h += String(lineNo).padStart(this.width) + sep;
      if (o.byteOff) h += String(abs).padStart(this.width) + sep;
    }
    if (o.tab && h !== '' && nonEmpty) h += '\t';
    return h;
  }

  private printLine(ls: number, le: number, sep: string): void {
    const g = this.g;
    const o = g.o;
    const buf = this.buf;
    const lineNo = o.lineNo ? this.lineNoAt(ls) : 0;
    const eol = g.eolChar;
    if (o.only) {
      // GNU prints the matches of the lines that match: selected ones, or context with -v.
      if ((sep === ':') !== o.invert) this.printOnly(this.s.slice(ls, le), buf, ls, this.bufStart + ls, lineNo, sep);
    } else {
      g.push(this.head(this.bufStart + ls, lineNo, sep, le > ls));
      // GNU colours the matches of matching lines: selected ones, or context with -v.
      if (o.color && (sep === ':') !== o.invert) this.pushColored(this.s.slice(ls, le), buf, ls);
      else g.push(buf.subarray(ls, le));
      g.push(eol);
      g.heldTooMuch(false);
    }
    this.lastOut = this.bufStart + Math.min(le + 1, buf.length);
  }

  /** A line (`line`, at `from` in `bytes`) with each non-empty match in the match colour. */
  private pushColored(line: string, bytes: Buffer, from: number): void {
    const g = this.g;
    let done = 0;
    for (let m = g.m.match(line, 0); m !== null; m = g.m.match(line, m[1])) {
      if (m[0] > done) g.push(bytes.subarray(from + done, from + m[0]));
      g.push(sgr(SGR.match, bytes.toString('latin1', from + m[0], from + m[1])));
      done = m[1];
    }
    if (done < line.length) g.push(bytes.subarray(from + done, from + line.length));
  }

  /** -o: each match of `line` (at `from` in `bytes`, at offset `abs` in the input) on its own line. */
  private printOnly(line: string, bytes: Buffer, from: number, abs: number, lineNo: number, sep: string): void {
    const g = this.g;
    for (let m = g.m.match(line, 0); m !== null; m = g.m.match(line, m[1])) {
      g.push(this.head(abs + m[0], lineNo, sep, true));
      if (g.o.color) g.push(sgr(SGR.match, bytes.toString('latin1', from + m[0], from + m[1])));
      else g.push(bytes.subarray(from + m[0], from + m[1]));
      g.push(g.eolChar);
      if (g.heldTooMuch(true)) return;
    }
  }

  private endChunk(): void {
    const o = this.g.o;
    if (o.lineNo) this.lineNoAt(this.buf.length);
    if (o.before <= 0 || this.quiet || this.done) return;
    // Keep the last B lines not yet printed for the next chunk's leading context.
    const s = this.s;
    const eolChar = this.g.eolChar;
    const bound = this.lastOut >= this.bufStart ? this.lastOut - this.bufStart : 0;
    const lines: { abs: number; bytes: Buffer; lineNo: number }[] = [];
    let end = s.length;
    let n = this.nlCount;
    // Gathered last first, then turned once (unshift per line was quadratic for a big -B).
    while (lines.length < o.before && end > bound) {
      const start = end - 1 === 0 ? 0 : s.lastIndexOf(eolChar, end - 2) + 1;
      lines.push({ abs: this.bufStart + start, bytes: Buffer.from(this.buf.subarray(start, end)), lineNo: n });
      n--;
      end = start;
    }
    lines.reverse();
    if (lines.length >= o.before) {
      this.ring = lines;
      return;
    }
    // Kept in place (a copy of the ring per chunk was quadratic for a big -B): lines already
    // printed are its start (it is in input order), and past B lines the oldest go.
    const ring = this.ring;
    let printed = 0;
    while (printed < ring.length && ring[printed]!.abs < this.lastOut) printed++;
    if (printed > 0) ring.splice(0, printed);
    for (const l of lines) ring.push(l);
    if (ring.length > o.before) ring.splice(0, ring.length - o.before);
  }
}

/** The bytes of -f / --exclude-from FILE ('-': standard input); a failure ends grep with its reason. */
async function readOptionFile(ctx: CommandContext, file: string): Promise<Buffer> {
  try {
    return file === '-' ? await ctx.stdin.readAll() : ctx.fs.readFile(file, ctx.cwd);
  } catch (e) {
    if (e instanceof VfsError) throw new Fatal(`${file}: ${e.reason}`);
    throw e;
  }
}

/** -f FILE: a pattern a line (an empty file: no pattern at all). */
async function readPatternFile(ctx: CommandContext, file: string): Promise<string[]> {
  let text = (await readOptionFile(ctx, file)).toString('latin1');
  if (text === '') return [];
  if (text.endsWith('\n')) text = text.slice(0, -1);
  return text.split('\n');
}

/** --exclude-from FILE: a glob a line, as gnulib's add_exclude_file reads it: trailing white space dropped, blank lines skipped. */
async function readGlobFile(ctx: CommandContext, file: string): Promise<string[]> {
  const text = (await readOptionFile(ctx, file)).toString('utf8');
  return text.split('\n').map((l) => l.replace(/[ \t\n\v\f\r]+$/, '')).filter((l) => l !== '');
}

export default defineCommand({
  name: 'grep',
  reference: 'GNU grep 3.8',
  aliases: ['egrep', 'fgrep'],
  summary: 'Search for PATTERNS in each FILE.',
  usage: 'PATTERNS [FILE]...',
  mutates: false,
  flags: FLAGS,
  preprocess,
  notes: "When FILE is '-', read standard input.  With no FILE, read '.' if\nrecursive, '-' otherwise.  With fewer than two FILEs, assume -h.\nExit status is 0 if any line is selected, 1 otherwise;\nif any error occurs and -q is not given, the exit status is 2.",
  async run(ctx) {
    try {
      return await grep(ctx);
    } catch (e) {
      if (e instanceof Fatal) {
        await ctx.stderr.write((e.message ? `grep: ${e.message}\n` : '') + (e.usage ? USAGE : ''));
        return e.status;
      }
      if (e instanceof RegexSyntaxError) {
        await ctx.stderr.write(`grep: ${e.message}\n`);
        return 2;
      }
      throw e;
    }
  },
});

async function grep(ctx: CommandContext): Promise<number> {
  const opts = ctx.opts;
  // Options in command-line order, as GNU checks them while parsing.
  let matcher = ctx.name === 'egrep' ? 'E' : ctx.name === 'fgrep' ? 'F' : '';
  let before = -1;
  let after = -1;
  let context = -1;
  let maxCount = Number.MAX_SAFE_INTEGER;
  let binary: Opts['binary'] = 'binary';
  const patterns: string[] = [];
  let patternGiven = false;
  const fileRules: FilterRule[] = [];
  const dirRules: GlobMatcher[] = [];
  // -d ACTION, -r and -R set one setting: the last one wins (-R's link following stays).
  let directories = 'read';
  let skipDevices = false;
  let color = false;
  for (const { key, value } of opts.order) {
    switch (key) {
      case 'recurse':
        directories = 'recurse';
        break;
      case 'directories':
        try {
          directories = argmatch(value, ['read', 'recurse', 'skip'], '--directories');
        } catch (e) {
          // GNU's argmatch_die: usage (EXIT_FAILURE), so 1 where grep's other errors give 2.
          if (e instanceof UsageError) throw new Fatal(e.message, true, 1);
          throw e;
        }
        break;
      case 'matcher':
        if (matcher !== '' && matcher !== value) throw new Fatal('conflicting matchers specified');
        matcher = value;
        break;
      case 'A':
        after = parseContext(value);
        break;
      case 'B':
        before = parseContext(value);
        break;
      case 'C':
        context = parseContext(value);
        break;
      case 'm': {
        if (!/^[ \t]*[+-]?[0-9]+$/.test(value)) throw new Fatal('invalid max count');
        const n = Number(value.trim());
        // GNU 3.8 keeps a negative count: no limit, but -v's prtext selects no line at all.
        maxCount = n < 0 ? -1 : n;
        break;
      }
      case 'binary':
        if (value !== 'binary' && value !== 'text' && value !== 'without-match') throw new Fatal('unknown binary-files type');
        binary = value;
        break;
      case 'e':
        patterns.push(...bytesOf(value).split('\n'));
        patternGiven = true;
        break;
      case 'f':
        patterns.push(...(await readPatternFile(ctx, value)));
        patternGiven = true;
        break;
      case 'include':
        fileRules.push({ include: true, re: globMatcher(value) });
        break;
      case 'exclude':
        fileRules.push({ include: false, re: globMatcher(value) });
        break;
      case 'exclude-from':
        for (const glob of await readGlobFile(ctx, value)) fileRules.push({ include: false, re: globMatcher(glob) });
        break;
      case 'devices':
        // Exact words only (GNU compares with STREQ, not argmatch).
        if (value !== 'read' && value !== 'skip') throw new Fatal('unknown devices method');
        skipDevices = value === 'skip';
        break;
      case 'u':
        await ctx.stderr.write('grep: warning: --unix-byte-offsets (-u) is obsolete\n');
        break;
      case 'exclude-dir':
        dirRules.push(globMatcher(value));
        break;
      case 'color':
        // 'auto' (and --color alone) colours a terminal only: nosh's output never is one.
        if (['always', 'yes', 'force'].includes(value.toLowerCase())) color = true;
        else if (['', 'never', 'no', 'none', 'auto', 'tty', 'if-tty'].includes(value.toLowerCase())) color = false;
        else throw new Fatal('', true);
        break;
    }
  }
  const operands = [...ctx.operands];
  if (!patternGiven) {
    if (operands.length === 0) throw new Fatal('', true);
    patterns.push(...bytesOf(operands.shift()!).split('\n'));
  }
  if (after < 0) after = context;
  if (before < 0) before = context;
  const listV = opts.get('list');
  const quiet = opts.has('q');
  const o: Opts = {
    invert: opts.has('v'),
    count: opts.has('c'),
    list: quiet ? '' : listV === 'l' ? 'l' : listV === 'L' ? 'L' : '',
    quiet,
    only: opts.has('o'),
    lineNo: opts.has('n'),
    byteOff: opts.has('b'),
    tab: opts.has('T'),
    nullName: opts.has('Z'),
    color,
    z: opts.has('z'),
    before,
    after,
    // (no pattern at all is GNU's empty pattern inverted: -v then selects every line)
    maxCount: maxCount < 0 ? (opts.has('v') !== (patterns.length === 0) ? 0 : Number.MAX_SAFE_INTEGER) : maxCount,
    binary,
    noMessages: opts.has('s'),
    // A later -r or -d recurse does not undo -R's following of links (GNU keeps FTS_LOGICAL).
    recurse: directories !== 'recurse' ? '' : opts.order.some((e) => e.key === 'recurse' && e.value === 'R') ? 'R' : 'r',
    skipDirs: directories === 'skip',
    skipDevices,
    groupSep: opts.get('sep') === '\0none' ? null : (opts.get('sep') ?? '--'),
    label: opts.get('label') ?? '(standard input)',
    fileRules,
    dirRules,
  };
  // GNU gives up before compiling when nothing can be selected: -m 0, or -v with only the
  // empty pattern (no -x/-w), or no pattern at all (-f /dev/null: the empty pattern inverted);
  // not with -L, which lists the files.
  const emptyKeys = patterns.every((p) => p === '');
  const invertKeys = patterns.length === 0 ? !o.invert : o.invert;
  const plainKeys = patterns.length === 0 || (!opts.has('x') && !opts.has('w'));
  if ((maxCount === 0 || (emptyKeys && invertKeys && plainKeys)) && o.list !== 'L') return 1;
  // GNU 3.8's pcresearch.c refuses a newline in the (joined) patterns
  if (matcher === 'P' && patterns.length > 1) throw new Fatal('the -P option only supports a single pattern');
  const dialect: RegexDialect = matcher === 'E' ? 'extended' : matcher === 'F' ? 'fixed' : matcher === 'P' ? 'perl' : 'basic';
  const warnings: string[] = [];
  const m = buildMatcher(patterns, dialect, { i: opts.get('case') === 'i', w: opts.has('w'), x: opts.has('x'), z: o.z }, (w) => warnings.push(w));
  for (const w of warnings) await ctx.stderr.write(`grep: ${w}\n`);
  const run = new GrepRun(ctx, o, m, operands.length);
  const omitDotSlash = operands.length === 0 && o.recurse !== '';
  const list = operands.length > 0 ? operands : [o.recurse ? '.' : '-'];
  for (const op of list) {
    await run.operand(op, omitDotSlash);
    if (run.exitNow) break;
  }
  await run.flush(true);
  if (run.exitNow) return run.escaped ? 2 : 0;
  if (run.errorSeen) return 2;
  return run.anySelected ? 0 : 1;
}

