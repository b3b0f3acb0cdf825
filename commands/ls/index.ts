import type { Stats } from 'node:fs';
import { defineCommand, type CommandContext, type CommandDef } from '../../src/command/index.js';
import { OptionError, UsageError } from '../../src/command/options.js';
import type { FlagSpec } from '../../src/command/types.js';
import { argmatch } from '../../src/gnulib/text-lines.js';
import { quoteAlways } from '../../src/gnulib/fileops.js';
import { filevercmp } from '../../src/gnulib/filevercmp.js';
import {
  cmpTime, compareNames, fullTime, typeIndicator, groupName, humanSize, joinPath, lookupGroup, lookupUser, lsTime, modeString, nowSpec, timeOf, timeOfNs, userName, type TimeSpec,
} from '../../src/gnulib/format.js';
import { columnsLayout, commasLayout, linkTargetStat, linkText, type Cell } from '../../src/gnulib/listing.js';
import { QUOTING_STYLES, quoteBytesStyled, type QuotingStyle } from '../../src/gnulib/quote.js';
import { FNM_PERIOD, fnmatch } from '../../src/gnulib/fnmatch.js';
import { VfsError, type DirHandle } from '../../src/vfs/index.js';
import { walk } from '../../src/vfs/walk.js';

interface Entry {
  /** Name as displayed (operand as given, or the entry name inside a directory). */
  name: string;
  /** Path to reach it, relative to ctx.cwd. */
  path: string;
  st: Stats;
  /** For symlinks in long format: target text and the target's stat (null when dangling). */
  link?: string | null;
  linkSt?: Stats | null;
  /** The time shown and sorted on (-c, -u, --time; else mtime), exact to the nanosecond where it matters. */
  time: TimeSpec;
  /**
   * GNU's f->quoted == 0: with aligned quoting, a name gathered while none before it needed
   * quotes and needing none itself has its symlink target printed unquoted too.
   */
  plainTarget?: boolean;
}

type SortKey = 'name' | 'size' | 'time' | 'ext' | 'version' | 'width' | 'none';
type Format = 'long' | 'one' | 'many' | 'horizontal' | 'commas';
type Indicator = 'none' | 'slash' | 'classify';
type TimeField = 'mtime' | 'atime' | 'ctime';
type NameTest = (name: string) => boolean;

interface Config {
  long: boolean;
  format: Format;
  /** -w / --width (80 without: nosh has no terminal and no environment); 0: no limit. */
  lineLength: number;
  tabsize: number;
  quoting: QuotingStyle;
  /** -q: nongraphic bytes as '?' (literal and shell styles). */
  qmark: boolean;
  /** GNU align_variable_outer_quotes: a space before names that need no quotes when some do. */
  align: boolean;
  /** Bytes the name quoting quotes too: ' ' for escape, '=>@|' with -F. */
  quoteThese: string;
  blocks: boolean;
  context: boolean;
  fullTime: boolean;
  human: boolean;
  hidden: 'default' | 'almost' | 'all';
  immediateDirs: boolean;
  recursive: boolean;
  sort: SortKey;
  reverse: boolean;
  indicator: Indicator;
  derefCmdlineDirs: boolean;
  timeField: TimeField;
  dirsFirst: boolean;
  inode: boolean;
  owner: boolean;
  group: boolean;
  numeric: boolean;
  /** -I/--ignore (always) and --hide (only without -a/-A): entries read from a directory. */
  ignore: NameTest[];
  hide: NameTest[];
}

/**
 * GNU's argmatch tables for the option values ls checks while parsing (word, meaning).
 * auto/tty/if-tty mean 'never' here (nosh output is never a terminal) but stay a group of
 * their own, as GNU lists and matches them.
 */
const WHEN = ['always', 'yes', 'force', 'never', 'no', 'none', 'auto', 'tty', 'if-tty'];
const WHEN_VALUES = ['always', 'always', 'always', 'never', 'never', 'never', 'auto', 'auto', 'auto'];
const ARG_TABLES: Record<string, { option: string; words: string[]; values?: string[] }> = {
  F: { option: '--classify', words: WHEN, values: WHEN_VALUES },
  color: { option: '--color', words: WHEN, values: WHEN_VALUES },
  // coreutils 9.1 has no 'name' (nor 'mtime' for --time): GNU rejects them too.
  sort: { option: '--sort', words: ['none', 'time', 'size', 'extension', 'version', 'width'] },
  time: {
    option: '--time',
    words: ['atime', 'access', 'use', 'ctime', 'status', 'birth', 'creation'],
    values: ['atime', 'atime', 'atime', 'ctime', 'ctime', 'birth', 'birth'],
  },
  format: {
    option: '--format',
    words: ['verbose', 'long', 'commas', 'horizontal', 'across', 'vertical', 'single-column'],
    values: ['long', 'long', 'commas', 'horizontal', 'horizontal', 'many', 'one'],
  },
  'quoting-style': { option: '--quoting-style', words: QUOTING_STYLES.slice(0, 6).concat('c-maybe', ...QUOTING_STYLES.slice(6)) },
};
const SORT_OF: Record<string, SortKey> = { S: 'size', t: 'time', X: 'ext', v: 'version', U: 'none', none: 'none', time: 'time', size: 'size', extension: 'ext', version: 'version', width: 'width' };
const LONG_KEYS = new Set(['l', 'n', 'g', 'o', 'fulltime']);

const def: CommandDef = defineCommand({
  name: 'ls',
  summary: 'List information about the FILEs (the current directory by default). Entries are sorted alphabetically (C locale) unless -S, -t, -v, -X or --sort is given.',
  usage: '[FILE]...',
  mutates: false,
  flags: withValueChecks([
    { key: 'hidden', short: 'a', long: 'all', value: 'all', help: 'do not ignore entries starting with .' },
    { key: 'b', short: 'b', long: 'escape', help: 'print C-style escapes for nongraphic characters' },
    { key: 'C', short: 'C', help: 'list entries by columns (80 wide unless -w)' },
    { key: 'format', long: 'format', kind: 'string', arg: 'WORD', help: 'across -x, commas -m, horizontal -x, long -l, single-column -1, verbose -l, vertical -C' },
    { key: 'k', short: 'k', long: 'kibibytes', help: 'default to 1024-byte blocks for file system usage (the default here)' },
    { key: 'm', short: 'm', help: 'fill width with a comma separated list of entries' },
    { key: 'N', short: 'N', long: 'literal', help: 'print entry names without quoting' },
    { key: 'q', short: 'q', long: 'hide-control-chars', help: 'print ? instead of nongraphic characters' },
    { key: 'Q', short: 'Q', long: 'quote-name', help: 'enclose entry names in double quotes' },
    { key: 'quoting-style', long: 'quoting-style', kind: 'string', arg: 'WORD', help: 'use quoting style WORD for entry names: literal (the default), locale, shell, shell-always, shell-escape, shell-escape-always, c, escape' },
    { key: 's', short: 's', long: 'size', help: 'print the allocated size of each file, in blocks' },
    { key: 'showcc', long: 'show-control-chars', help: 'show nongraphic characters as-is (the default)' },
    { key: 'T', short: 'T', long: 'tabsize', kind: 'string', arg: 'COLS', help: 'assume tab stops at each COLS instead of 8 (0: spaces only)' },
    { key: 'U', short: 'U', help: 'do not sort; list entries in directory order (nosh: the order the workspace returns, by name, with . and .. first)' },
    { key: 'w', short: 'w', long: 'width', kind: 'string', arg: 'COLS', help: 'set output width to COLS (default 80); 0 means no limit' },
    { key: 'x', short: 'x', help: 'list entries by lines instead of by columns' },
    { key: 'Z', short: 'Z', long: 'context', help: 'print any security context of each file (nosh has none: ?)' },
    { key: 'hidden', short: 'A', long: 'almost-all', value: 'almost', help: 'do not list implied . and ..' },
    { key: 'c', short: 'c', help: 'with -lt: sort by, and show, ctime (time of last change of file status information); with -l: show ctime and sort by name; otherwise: sort by ctime, newest first' },
    { key: 'color', long: 'color', kind: 'optional', arg: 'WHEN', value: 'always', help: "WHEN is 'never' or 'auto' (nosh output is never colored); --color alone means always, which is refused" },
    { key: 'F', short: 'F', help: 'append indicator (one of */=@|) to entries' },
    { key: 'F', long: 'classify', kind: 'optional', arg: 'WHEN', value: 'always', help: 'append indicator (one of */=@|) to entries WHEN (always, never, auto); never and auto leave an earlier -F or -p in force' },
    { key: 'd', short: 'd', long: 'directory', help: 'list directories themselves, not their contents' },
    { key: 'fulltime', long: 'full-time', help: 'like -l --time-style=full-iso' },
    { key: 'g', short: 'g', help: 'like -l, but do not list owner' },
    { key: 'gdf', long: 'group-directories-first', help: 'group directories (and symlinks to them) before files; each group is sorted as asked' },
    { key: 'G', short: 'G', long: 'no-group', help: 'in a long listing, do not print group names' },
    { key: 'h', short: 'h', long: 'human-readable', help: 'with -l, print sizes like 1K 234M 2G etc.' },
    { key: 'hide', long: 'hide', kind: 'string', repeat: true, arg: 'PATTERN', help: 'do not list implied entries matching shell PATTERN (overridden by -a or -A)' },
    { key: 'i', short: 'i', long: 'inode', help: 'print the index number of each file' },
    { key: 'I', short: 'I', long: 'ignore', kind: 'string', repeat: true, arg: 'PATTERN', help: 'do not list implied entries matching shell PATTERN (repeatable)' },
    { key: 'l', short: 'l', help: 'use a long listing format' },
    { key: 'n', short: 'n', long: 'numeric-uid-gid', help: 'like -l, but list numeric user and group IDs' },
    { key: 'o', short: 'o', help: 'like -l, but do not list group information' },
    { key: 'p', short: 'p', help: 'append / indicator to directories' },
    { key: 'r', short: 'r', long: 'reverse', help: 'reverse order while sorting' },
    { key: 'R', short: 'R', long: 'recursive', help: 'list subdirectories recursively' },
    { key: 'S', short: 'S', help: 'sort by file size, largest first' },
    { key: 'sort', long: 'sort', kind: 'string', arg: 'WORD', help: 'sort by WORD instead of name: none (-U), size (-S), time (-t), version (-v), extension (-X), width' },
    { key: 't', short: 't', help: 'sort by time (modification time unless -c, -u or --time), newest first' },
    { key: 'time', long: 'time', kind: 'string', arg: 'WORD', help: 'show (with -l) and sort by (with -t, or without -l) WORD: atime, access, use (-u); ctime, status (-c); birth is not offered' },
    { key: 'u', short: 'u', help: 'with -lt: sort by, and show, access time; with -l: show access time and sort by name; otherwise: sort by access time, newest first' },
    { key: 'v', short: 'v', help: 'natural sort of (version) numbers within text' },
    { key: 'X', short: 'X', help: 'sort alphabetically by entry extension' },
    { key: '1', short: '1', help: 'list one file per line' },
  ]),

  gnuLongOptions: (
    'all escape directory dired full-time group-directories-first human-readable inode kibibytes numeric-uid-gid no-group ' +
    'hide-control-chars reverse size width almost-all ignore-backups classify file-type si dereference-command-line ' +
    'dereference-command-line-symlink-to-dir hide ignore indicator-style dereference literal quote-name quoting-style recursive ' +
    'format show-control-chars sort tabsize time time-style zero color hyperlink block-size context author help version'
  ).split(' '),
  async run(ctx) {
    const o = ctx.opts;
    const v = ctx.values;
    // GNU: -p sets '/', -F and --classify=always set classify; --classify=never/auto change nothing.
    let indicator: Indicator = 'none';
    let timeField: TimeField = 'mtime';
    let explicitTime = false;
    let sortOpt: SortKey | undefined;
    let format: Format = 'one';
    let quoting: QuotingStyle = 'literal';
    let qmark = false;
    let lineLength = 80;
    let tabsize = 8;
    for (const { key, value, flag } of o.order) {
      if (LONG_KEYS.has(key)) format = 'long';
      else if (key === 'C') format = 'many';
      else if (key === 'x') format = 'horizontal';
      else if (key === 'm') format = 'commas';
      else if (key === '1' && format !== 'long') format = 'one';
      else if (key === 'format') format = argWord(key, value) as Format;
      else if (key === 'b') quoting = 'escape';
      else if (key === 'N') quoting = 'literal';
      else if (key === 'Q') quoting = 'c';
      else if (key === 'quoting-style') quoting = argWord(key, value) as QuotingStyle;
      else if (key === 'q') qmark = true;
      else if (key === 'showcc') qmark = false;
      else if (key === 'w') lineLength = lineWidth(value)!;
      else if (key === 'T') tabsize = lineWidth(value)!;
      const word = hasWord(key, flag) ? argWord(key, value) : value;
      const given = `--${key}=${value}${word === value ? '' : ` (${word})`}`;
      if (key === 'p') indicator = 'slash';
      else if (key === 'F' && (flag === '-F' || word === 'always')) indicator = 'classify';
      else if (key === 'color' && word === 'always') {
        throw new UsageError(`${given} is not supported: nosh never colors its output; use --color=never`);
      } else if (key === 'c' || key === 'u' || key === 'time') {
        if (word === 'birth') throw new UsageError(`${given} is not supported: nosh does not show birth (creation) times; use --time=ctime or --time=atime`);
        timeField = key === 'c' ? 'ctime' : key === 'u' ? 'atime' : (word as TimeField);
        explicitTime = true;
      } else if (key === 'S' || key === 't' || key === 'X' || key === 'v' || key === 'U' || key === 'sort') sortOpt = SORT_OF[key === 'sort' ? word : key];
    }
    // -n, -g and -o imply -l; -C, -x, -m and --format override an earlier one, -1 never does.
    const long = format === 'long';
    const columns = format === 'many' || format === 'horizontal';
    const cfg: Config = {
      long,
      format,
      lineLength,
      tabsize,
      quoting,
      qmark: qmark && (quoting === 'literal' || quoting === 'shell' || quoting === 'shell-always'),
      align: (long || (columns && lineLength !== 0)) && (quoting === 'shell' || quoting === 'shell-escape' || quoting === 'c-maybe'),
      quoteThese: (quoting === 'escape' ? ' ' : '') + (indicator === 'classify' ? '=>@|' : ''),
      blocks: v.s === true,
      context: v.Z === true,
      fullTime: v.fulltime === true,
      human: v.h === true,
      hidden: v.hidden ?? 'default',
      immediateDirs: v.d === true,
      recursive: v.R === true && !v.d,
      // GNU: -c, -u or --time without -l (and without a sort option) sort by that time.
      sort: sortOpt ?? (!long && explicitTime ? 'time' : 'name'),
      reverse: v.r === true,
      indicator,
      derefCmdlineDirs: !(v.d || long || indicator === 'classify'),
      timeField,
      dirsFirst: v.gdf === true,
      inode: v.i === true,
      owner: !v.g,
      group: !(v.o || v.G),
      numeric: v.n === true,
      ignore: (v.I ?? []).map(periodGlob),
      hide: (v.hide ?? []).map(periodGlob),
    };
    return new Lister(ctx, cfg).run();
  },
});
export default def;

/** The meaning of an option value in ARG_TABLES (GNU argmatch: a word or an unambiguous prefix). */
function argWord(key: string, value: string): string {
  const t = ARG_TABLES[key]!;
  return argmatch(value, t.words, t.option, t.values);
}

/** Whether the option takes a word from ARG_TABLES (-F is --classify without one). */
function hasWord(key: string, flag: string): boolean {
  return ARG_TABLES[key] !== undefined && flag !== '-F';
}

/**
 * GNU decode_line_length / the -T value: xstrtoumax in base 0 (0x.. hex, 0.. octal), leading
 * blanks allowed, no sign; too large means 0 (no limit). Undefined when invalid.
 */
function lineWidth(spec: string): number | undefined {
  const m = /^[ \t\n\v\f\r]*(?:(0[xX][0-9a-fA-F]+)|(0[0-7]*)|([1-9][0-9]*))$/.exec(spec);
  if (!m) return undefined;
  const n = m[1] ? BigInt(m[1]) : m[2] ? BigInt('0o' + (m[2].slice(1) || '0')) : BigInt(m[3]!);
  return n > 0x7fffffffffffffffn ? 0 : Number(n);
}

/** GNU's message for a bad -w or -T value (exit 2, no usage line), else undefined. */
function numError({ key, value }: { key: string; value: string }): string | undefined {
  if (key !== 'w' && key !== 'T') return undefined;
  const n = lineWidth(value);
  // -T goes through xnumtoumax: a value too large is an error where -w takes it as no limit.
  if (key === 'T' && n === 0 && /[1-9a-fA-F]/.test(value)) return `invalid tab size: ${quoteLocale(value)}: Value too large for defined data type`;
  if (n !== undefined) return undefined;
  return `invalid ${key === 'w' ? 'line width' : 'tab size'}: ${quoteLocale(value)}`;
}

/** gnulib quote(): the locale style, 'like this' in the C locale. */
function quoteLocale(s: string): string {
  return Buffer.from(quoteBytesStyled(Buffer.from(s, 'utf8'), 'locale')).toString('utf8');
}

/**
 * GNU checks the --classify, --color, --format, --quoting-style, --sort and --time words and
 * the -w/-T numbers when getopt reaches them: a bad word is argmatch_die, usage with
 * EXIT_FAILURE (1 where other usage errors give 2); a bad number is an error, exit 2, no usage.
 */
function withValueChecks<const F extends readonly FlagSpec[]>(flags: F): F {
  return flags.map((f): FlagSpec => {
    const t = ARG_TABLES[f.key];
    if (t && (f.kind ?? 'boolean') !== 'boolean') {
      return { ...f, choices: { words: t.words, values: t.values }, parse: (v: string) => v };
    }
    if (f.key === 'w' || f.key === 'T') {
      return {
        ...f, parse: (value: string) => {
          const bad = numError({ key: f.key, value });
          if (bad) throw new OptionError(bad, false, 2);
          return value;
        },
      };
    }
    return f;
  }) as readonly FlagSpec[] as F;
}

/**
 * fnmatch(PATTERN, name, FNM_PERIOD) as GNU ls -I/--hide call it: a leading '.' of the name
 * is matched only by a literal '.' (or '\.'), never by '*', '?' or a bracket expression.
 */
function periodGlob(pattern: string): NameTest {
  const m = fnmatch(pattern, FNM_PERIOD);
  return (name) => m.test(name);
}

class Lister {
  private status = 0;
  private out: string[] = [];
  private outLen = 0;
  private first = true;
  private now = nowSpec();

  constructor(private readonly ctx: CommandContext, private readonly cfg: Config) {}

  async run(): Promise<number> {
    const { ctx, cfg } = this;
    const operands = ctx.operands.length > 0 ? ctx.operands : ['.'];
    const files: Entry[] = [];
    const dirs: Entry[] = [];
    this.resetQuoting();
    for (const op of operands) {
      const e = await this.gobbleOperand(op);
      if (!e) continue;
      this.markQuoting(e);
      if (!cfg.immediateDirs && e.st.isDirectory()) dirs.push(e);
      else files.push(e);
    }
    this.sort(files);
    this.sort(dirs);
    let printDirName = true;
    if (files.length > 0) {
      // GNU sizes the columns while gathering the operands: directories count too.
      await this.printEntries(files, [...files, ...dirs]);
      if (dirs.length > 0) this.emit('\n');
    } else if (operands.length <= 1 && dirs.length === 1) printDirName = false;
    for (const d of dirs) {
      await this.listTree(d, printDirName);
      printDirName = true;
    }
    await this.flush();
    return this.status;
  }

  private fail(code: number): void {
    this.status = Math.max(this.status, code);
  }

  private async warn(msg: string): Promise<void> {
    await this.flush();
    await this.ctx.warn(msg);
  }

  /** lstat a command-line operand (following it when GNU would and the zone allows). */
  private async gobbleOperand(op: string): Promise<Entry | null> {
    const { ctx, cfg } = this;
    try {
      let st = ctx.fs.lstat(op, ctx.cwd);
      const lst = st;
      if (st.isSymbolicLink() && (op.endsWith('/') || cfg.derefCmdlineDirs)) {
        if (op.endsWith('/')) {
          if (!ctx.fs.policy.followSymlinks) throw new VfsError('ESYMLINK', op);
          st = ctx.fs.stat(op, ctx.cwd);
        } else if (ctx.fs.policy.followSymlinks) {
          try {
            const target = ctx.fs.stat(op, ctx.cwd);
            if (target.isDirectory()) st = target;
          } catch (e) {
            // GNU 9.1 lists a dangling link itself; any other failure (a loop...) is reported.
            if (!(e instanceof VfsError) || e.errno !== 'ENOENT') throw e;
          }
        }
      }
      if (op.endsWith('/') && !st.isDirectory()) throw new VfsError('ENOTDIR', op);
      return this.entry(op, op, st, st !== lst);
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      await this.warn(`cannot access ${quoteAlways(op)}: ${e.reason}`);
      this.fail(2);
      return null;
    }
  }

  private entry(name: string, path: string, st: Stats, followed = false): Entry {
    const { cfg } = this;
    const e: Entry = { name, path, st, time: this.exactTime(path, st, followed) };
    // GNU reads a symlink's target for -l, and for --group-directories-first (a link to a directory goes first).
    if (st.isSymbolicLink() && (cfg.long || cfg.dirsFirst)) {
      if (cfg.long) e.link = linkText(this.ctx.fs, path, this.ctx.cwd);
      e.linkSt = linkTargetStat(this.ctx.fs, path, this.ctx.cwd);
    }
    return e;
  }

  /** Read again with nanoseconds only where they show (--full-time) or order entries (-t). */
  private exactTime(path: string, st: Stats, followed: boolean): TimeSpec {
    const field = this.cfg.timeField;
    const ms = st[`${field}Ms`];
    if (this.cfg.fullTime || this.cfg.sort === 'time') {
      try {
        const ns = timeOfNs(this.ctx.fs.timesNs(path, this.ctx.cwd, followed)[field]);
        if (Math.abs(ns.sec * 1000 + ns.nsec / 1e6 - ms) < 1) return ns;
      } catch {
        /* gone or replaced meanwhile: the rounded time */
      }
    }
    return timeOf(ms);
  }

  private sort(list: Entry[]): void {
    const { sort, reverse, dirsFirst } = this.cfg;
    // GNU sort_files with sort_none: neither -r nor --group-directories-first.
    if (sort === 'none') return;
    const byName = (a: Entry, b: Entry) => compareNames(a.name, b.name);
    let cmp: (a: Entry, b: Entry) => number;
    if (sort === 'size') cmp = (a, b) => (b.st.size - a.st.size) || byName(a, b);
    else if (sort === 'time') cmp = (a, b) => cmpTime(b.time, a.time) || byName(a, b);
    else if (sort === 'ext') cmp = (a, b) => compareNames(extension(a.name), extension(b.name)) || byName(a, b);
    else if (sort === 'version') cmp = (a, b) => filevercmp(Buffer.from(a.name), Buffer.from(b.name)) || byName(a, b);
    else if (sort === 'width') {
      // GNU fileinfo_name_width: the name as printed (quoted, -q's '?', the alignment space).
      const widths = new Map(list.map((e) => [e, this.nameCell(e).width]));
      cmp = (a, b) => (widths.get(a)! - widths.get(b)!) || byName(a, b);
    }
    else cmp = byName;
    const ordered = reverse ? (a: Entry, b: Entry) => cmp(b, a) : cmp;
    // GNU's dirfirst_check: the directory test stays outside -r.
    list.sort(dirsFirst ? (a, b) => (Number(isLinkedDir(b)) - Number(isLinkedDir(a))) || ordered(a, b) : ordered);
  }

  /**
   * List a directory given on the command line, and with -R its subdirectories, each after
   * the listing it is in, in that listing's order (one walk: each subdirectory is opened
   * through the open directory it was listed in).
   */
  private async listTree(top: Entry, printName: boolean): Promise<void> {
    const at: Array<{ name: string; path: string }> = [];
    for (const ev of walk(this.ctx.fs, top.path, this.ctx.cwd, { order: 'directory', listEvents: true })) {
      if (ev.kind === 'pre') {
        const up = at[ev.depth - 1];
        at[ev.depth] = up ? { name: joinPath(up.name, ev.name), path: joinPath(up.path, ev.name) } : { name: top.name, path: top.path };
      } else if (ev.kind === 'error') {
        if (!(ev.error instanceof VfsError)) throw ev.error;
        await this.warn(`cannot open directory ${quoteAlways(at[ev.depth]!.name)}: ${ev.error.reason}`);
        this.fail(ev.depth === 0 ? 2 : 1);
      } else if (ev.kind === 'list') {
        const { name, path } = at[ev.depth]!;
        // -a's '..' is the directory it was found in.
        const up = ev.dir && this.cfg.hidden === 'all' ? ev.dir.stat : undefined;
        const subs = await this.printListed(ev.handle!, ev.entries!.map((e) => e.name), name, path, printName, up);
        printName = true;
        ev.entries = subs.map((n) => ({ name: n, type: 'dir' as const }));
      }
    }
  }

  /** The listing of an open directory: each entry's lstat taken through it (one step, not its whole path). */
  private async printListed(dir: DirHandle, names: string[], name: string, path: string, printName: boolean, up?: Stats): Promise<string[]> {
    const { ctx, cfg } = this;
    if (cfg.recursive || printName) {
      if (!this.first) this.emit('\n');
      this.first = false;
      this.emit(`${this.shown(name, ':').text}:\n`);
    }
    // -U: '.' and '..' first, as readdir gives them on Linux file systems; sorted listings place them anyway.
    if (cfg.hidden === 'all') names = ['.', '..', ...names];
    else if (cfg.hidden === 'default') names = names.filter((n) => !n.startsWith('.'));
    // GNU file_ignored: --hide only when neither -a nor -A is given; -I always (even '.' and '..').
    const hide = cfg.hidden === 'default' ? cfg.hide : [];
    if (cfg.ignore.length + hide.length > 0) names = names.filter((n) => !cfg.ignore.some((m) => m(n)) && !hide.some((m) => m(n)));
    const entries: Entry[] = [];
    this.resetQuoting();
    for (const n of names) {
      const p = joinPath(path, n);
      try {
        const st = n === '.' ? dir.stat : n === '..' ? up ?? ctx.fs.lstat(p, ctx.cwd) : ctx.fs.lstatAt(dir, n);
        if (!st) throw new VfsError('ENOENT', p);
        const e = this.entry(n, p, st);
        this.markQuoting(e);
        entries.push(e);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await this.warn(`cannot access ${quoteAlways(joinPath(name, n))}: ${e.reason}`);
        this.fail(1);
      }
    }
    this.sort(entries);
    if (cfg.long || cfg.blocks) {
      let blocks = 0;
      for (const e of entries) blocks += e.st.blocks;
      this.emit(`total ${cfg.human ? humanSize(blocks * 512) : String(Math.ceil(blocks / 2))}\n`);
    }
    await this.printEntries(entries);
    if (!cfg.recursive) return [];
    // Its subdirectories (with -R), in the listing's order.
    return entries.filter((e) => e.st.isDirectory() && e.name !== '.' && e.name !== '..').map((e) => e.name);
  }

  private someQuoted = false;

  /** A new batch of names (GNU clear_files): none quoted yet. */
  private resetQuoting(): void {
    this.someQuoted = false;
  }

  /** GNU gobble_file with aligned quoting: whether any name so far needs quotes, in the order they are gathered. */
  private markQuoting(e: Entry): void {
    if (!this.cfg.align || this.someQuoted) return;
    if (this.shown(e.name).quoted) this.someQuoted = true;
    else e.plainTarget = true;
  }

  /**
   * A name as ls prints it in the chosen quoting style (`quoteThese`: bytes quoted too; only ':'
   * for a directory header), with -q's '?', its width (printable bytes, C locale) and whether
   * quoting changed it (GNU quote_name_buf).
   */
  private shown(name: string, quoteThese = this.cfg.quoteThese, plain = false): { text: string; width: number; quoted: boolean } {
    const { cfg } = this;
    const src = Buffer.from(name, 'utf8');
    let bytes: Uint8Array = plain || cfg.quoting === 'literal' ? src : Uint8Array.from(quoteBytesStyled(src, cfg.quoting, quoteThese || null));
    const quoted = bytes.length !== src.length || (src.length > 0 && bytes[0] !== src[0]);
    if (cfg.qmark) bytes = bytes.map((b) => (b < 0x20 || b >= 0x7f ? 0x3f : b));
    let width = 0;
    for (const b of bytes) if (b >= 0x20 && b < 0x7f) width++;
    const text = bytes === src ? name : Buffer.from(bytes).toString('utf8');
    return { text, width, quoted };
  }

  /** The name as printed, with GNU's alignment space when others in the listing are quoted. */
  private nameCell(e: Entry): Cell {
    const s = this.shown(e.name);
    const pad = this.cfg.align && this.someQuoted && !s.quoted ? ' ' : '';
    return { text: pad + s.text, width: pad.length + s.width };
  }

  private async printEntries(list: Entry[], sizedBy: Entry[] = list): Promise<void> {
    const { cfg } = this;
    const commas = cfg.format === 'commas';
    // -i and -s: right-aligned to the widest of the listing (GNU's "%*s "), not with -m.
    let inodeWidth = 0;
    let blockWidth = 0;
    const blocksOf = (e: Entry) => (cfg.human ? humanSize(e.st.blocks * 512) : String(Math.ceil(e.st.blocks / 2)));
    for (const e of sizedBy) {
      if (cfg.inode) inodeWidth = Math.max(inodeWidth, String(e.st.ino).length);
      if (cfg.blocks) blockWidth = Math.max(blockWidth, blocksOf(e).length);
    }
    const prefix = (e: Entry) =>
      (cfg.inode ? String(e.st.ino).padStart(commas ? 0 : inodeWidth) + ' ' : '') +
      (cfg.blocks ? blocksOf(e).padStart(commas ? 0 : blockWidth) + ' ' : '') +
      (cfg.context && !cfg.long ? '? ' : '');
    const name = (e: Entry) => this.nameCell(e);
    if (!cfg.long) {
      const cells: Cell[] = list.map((e) => {
        const p = prefix(e);
        const n = name(e);
        const ind = typeIndicator(e.st.mode, cfg.indicator);
        return { text: p + n.text + ind, width: p.length + n.width + ind.length };
      });
      if (cfg.format === 'one') for (const c of cells) this.emit(c.text + '\n');
      else if (commas) this.emit(commasLayout(cells, cfg.lineLength));
      else if (cfg.lineLength === 0) this.emit(commasLayout(cells, 0, ' '));
      else this.emit(columnsLayout(cells, cfg.format === 'many', cfg.lineLength, cfg.tabsize));
      if (this.outLen > 65536) await this.flush();
      return;
    }
    // -n: numbers, right-aligned as GNU prints an id it has no name for.
    const id = (n: number, lookup: (n: number) => string | undefined, name: (n: number) => string) =>
      cfg.numeric ? { text: String(n), name: undefined } : { text: name(n), name: lookup(n) };
    const row = (e: Entry) => ({
      e,
      nlink: String(e.st.nlink),
      owner: id(e.st.uid, lookupUser, userName),
      group: id(e.st.gid, lookupGroup, groupName),
      size: cfg.human ? humanSize(e.st.size) : String(e.st.size),
    });
    const rows = list.map(row);
    const w = { nlink: 0, owner: 0, group: 0, size: 0 };
    for (const r of sizedBy === list ? rows : sizedBy.map(row)) {
      w.nlink = Math.max(w.nlink, r.nlink.length);
      w.owner = Math.max(w.owner, r.owner.text.length);
      w.group = Math.max(w.group, r.group.text.length);
      w.size = Math.max(w.size, r.size.length);
    }
    for (const r of rows) {
      const { e } = r;
      const when = cfg.fullTime ? fullTime(e.time) : lsTime(e.time, this.clock(e.time));
      let line = `${prefix(e)}${modeString(e.st.mode)} ${r.nlink.padStart(w.nlink)} `;
      if (cfg.owner) line += idColumn(r.owner.text, r.owner.name, w.owner) + ' ';
      if (cfg.group) line += idColumn(r.group.text, r.group.name, w.group) + ' ';
      if (cfg.context) line += '? ';
      line += `${r.size.padStart(w.size)} ${when} ${name(e).text}`;
      if (e.st.isSymbolicLink()) {
        if (e.link != null) {
          line += ` -> ${this.shown(e.link, undefined, e.plainTarget).text}`;
          if (cfg.indicator === 'classify' && e.linkSt) line += typeIndicator(e.linkSt.mode, cfg.indicator);
        }
      } else line += typeIndicator(e.st.mode, cfg.indicator);
      this.emit(line + '\n');
      if (this.outLen > 65536) await this.flush();
    }
  }

  /**
   * GNU reads the clock again when a time looks to be in the future (a file changed since ls
   * started, as a ctime often is). Date.now() drops the microseconds: a time within the current
   * millisecond is already past.
   */
  private clock(t: TimeSpec): TimeSpec {
    if (cmpTime(this.now, t) < 0) this.now = timeOf(Date.now() + 0.999999);
    return this.now;
  }

  private emit(s: string): void {
    this.out.push(s);
    this.outLen += s.length;
  }

  private async flush(): Promise<void> {
    if (this.out.length === 0) return;
    const text = this.out.join('');
    this.out = [];
    this.outLen = 0;
    await this.ctx.stdout.write(text);
  }
}

/** GNU format_user_or_group: a name is left-aligned, a bare number (no name known) right-aligned. */
function idColumn(text: string, name: string | undefined, width: number): string {
  return name === undefined ? text.padStart(width) : text.padEnd(width);
}

function extension(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? '' : name.slice(i);
}

/** GNU --group-directories-first: a directory, or a symlink whose target is one. */
function isLinkedDir(e: Entry): boolean {
  return e.st.isDirectory() || (e.st.isSymbolicLink() && e.linkSt != null && e.linkSt.isDirectory());
}
