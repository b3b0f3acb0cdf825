import type { Stats } from 'node:fs';
import { defineCommand, helpText, versionText, ParsedOptions, type CommandContext, type CommandDef } from '../../src/command/index.js';
import { compareNames, groupName, joinPath, modeString, typeIndicator, userName } from '../../src/gnulib/format.js';
import { linkTargetStat, linkText } from '../../src/gnulib/listing.js';
import { escapeName, patmatch, strverscmp, timefmtProblem, treeDate, treeSize } from './format.js';
import { VfsError, type DirEntry, type DirHandle } from '../../src/vfs/index.js';
import { walk } from '../../src/vfs/walk.js';

/** Refusals that only nosh makes: tree prints its usual marker, and the reason on stderr. */
const NOSH_ERRNOS = new Set(['EBLOCKED', 'ESYMLINK', 'EESCAPE', 'ESPECIAL', 'EEXT']);

/** Letters tree 2.1 has that nosh refuses by name (the rest of tree's letters are "Invalid argument"). */
const REFUSED: Record<string, string> = {
  C: '-C (colour) is not supported by nosh; use -n',
};

/** tree's line drawing (linedraw->vert, vert_left, corner, each followed by a space). */
interface Lines { vert: string; tee: string; corner: string }
const ASCII: Lines = { vert: '|   ', tee: '|-- ', corner: '`-- ' };
// Kept as latin1 strings of the UTF-8 bytes, as everything emitted is. tree pads │ with NBSPs.
const latin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
const UTF8: Lines = { vert: latin1('\u2502\u00a0\u00a0 '), tee: latin1('\u251c\u2500\u2500 '), corner: latin1('\u2514\u2500\u2500 ') };

/** 'none': -U, the order the Vfs lists a directory in (by name; tree 2.1 uses readdir order). */
type SortKey = 'name' | 'version' | 'size' | 'mtime' | 'ctime' | 'none';
const SORTS: SortKey[] = ['name', 'version', 'size', 'mtime', 'ctime']; // --sort's words (not 'none')

interface Options {
  all: boolean;
  dirsOnly: boolean;
  fullPath: boolean;
  classify: boolean;
  maxDepth: number;
  ignore: Uint8Array[];
  include: Uint8Array[];
  matchDirs: boolean;
  ignoreCase: boolean;
  prune: boolean;
  noIndent: boolean;
  lines: Lines;
  /** 0: no limit. */
  fileLimit: number;
  sort: SortKey;
  reverse: boolean;
  top: 'dirsfirst' | 'filesfirst' | undefined;
  inodes: boolean;
  device: boolean;
  perms: boolean;
  user: boolean;
  group: boolean;
  size: boolean;
  human: boolean;
  si: boolean;
  date: boolean;
  /** -c: -D shows the ctime. */
  ctime: boolean;
  timefmt: string | undefined;
}

interface Node {
  name: string;
  path: string;
  st: Stats;
  /** For symlinks: target text and what it points to. */
  link?: string | null;
  target?: Stats | null;
  isDir: boolean;
  /** Read ahead (--prune, --matchdirs): what is listed under this directory (sub; kids once pruned), or why not. */
  sub?: Node[];
  kids?: Node[];
  err?: string;
}

/** A directory being walked: its listing, how far it is printed, its path as shown and the indentation under it. */
interface Frame { nodes: Node[]; i: number; shownPath: string; indent: string }

/** A -P or -I pattern with thousands of '*' overflows patmatch's recursion. */
class PatternTooComplex extends Error {
  constructor(readonly letter: string) {
    super(`-${letter} pattern too complex`);
  }
}

const def: CommandDef = defineCommand({
  name: 'tree',
  reference: 'tree 2.1.0',
  summary: 'List contents of directories in a tree-like format (tree 2.x, ASCII lines as under LC_ALL=C).',
  usage: '[directory ...]',
  mutates: false,
  usageStatus: 1,
  // tree 2.x walks argv itself, not with getopt (see parseTreeArgs).
  parse: 'raw',
  flags: [
    { key: 'a', short: 'a', help: 'All files are listed.' },
    { key: 'd', short: 'd', help: 'List directories only.' },
    { key: 'f', short: 'f', help: 'Print the full path prefix for each file.' },
    { key: 'L', short: 'L', kind: 'string', arg: 'level', help: 'Descend only level directories deep.' },
    { key: 'P', short: 'P', kind: 'string', arg: 'pattern', help: 'List only those files that match the pattern given (directories are still listed).' },
    { key: 'I', short: 'I', kind: 'string', arg: 'pattern', help: "Do not list files that match the given pattern (* ? [...] [^...]; '|' separates alternatives)." },
    { key: 'ignorecase', long: 'ignore-case', help: 'Ignore case when pattern matching.' },
    { key: 'matchdirs', long: 'matchdirs', help: 'Include directory names in -P pattern matching.' },
    { key: 'prune', long: 'prune', help: 'Prune empty directories from the output.' },
    { key: 'noreport', long: 'noreport', help: 'Turn off file/directory count at end of tree listing.' },
    { key: 'charset', long: 'charset', kind: 'string', arg: 'X', help: 'Use charset X for indentation lines: ascii (the default) or utf-8.' },
    { key: 'filelimit', long: 'filelimit', kind: 'string', arg: '#', help: 'Do not descend dirs with more than # files in them.' },
    { key: 'p', short: 'p', help: 'Print the protections for each file.' },
    { key: 'u', short: 'u', help: 'Displays file owner or UID number.' },
    { key: 'g', short: 'g', help: 'Displays file group owner or GID number.' },
    { key: 's', short: 's', help: 'Print the size in bytes of each file.' },
    { key: 'h', short: 'h', help: 'Print the size in a more human readable way.' },
    { key: 'si', long: 'si', help: 'Like -h, but use in SI units (powers of 1000).' },
    { key: 'D', short: 'D', help: 'Print the date of last modification or (-c) status change.' },
    { key: 'timefmt', long: 'timefmt', kind: 'string', arg: 'fmt', help: 'Print and format time according to the strftime format fmt (implies -D).' },
    { key: 'F', short: 'F', help: "Appends '/', '=', '*', '@', '|' or '>' as per ls -F." },
    { key: 'inodes', long: 'inodes', help: 'Print inode number of each file.' },
    { key: 'device', long: 'device', help: 'Print device ID number to which each file belongs.' },
    { key: 'v', short: 'v', help: 'Sort files alphanumerically by version.' },
    { key: 't', short: 't', help: 'Sort files by last modification time.' },
    { key: 'c', short: 'c', help: 'Sort files by last status change time.' },
    { key: 'U', short: 'U', help: 'Leave files unsorted (the order nosh lists a directory in: by name).' },
    { key: 'r', short: 'r', help: 'Reverse the order of the sort.' },
    { key: 'dirsfirst', long: 'dirsfirst', help: 'List directories before files.' },
    { key: 'filesfirst', long: 'filesfirst', help: 'List files before directories.' },
    { key: 'sort', long: 'sort', kind: 'string', arg: 'X', help: 'Select sort: name,version,size,mtime,ctime.' },
    { key: 'i', short: 'i', help: "Don't print indentation lines." },
    { key: 'n', short: 'n', help: 'Turn colorization off (nosh never colours).' },
  ],
  notes: 'As tree 2.x parses them: -L, -P and -I take the next word (write -L 2, not -L2), letters bundle (-aL 2), ' +
    'long options are whole words, but --sort, --filelimit, --charset and --timefmt take =X or the next word. ' +
    'Not supported: -C (colour). -U keeps the order nosh lists a directory in (by name), not readdir order.',
  async run(ctx) {
    const parsed = parseTreeArgs(ctx.args);
    if ('help' in parsed || 'version' in parsed) {
      await ctx.stdout.write('help' in parsed ? helpText(def) : versionText(def));
      return 0;
    }
    if ('error' in parsed) {
      const usage = parsed.usage ? "Try 'tree --help' for more information.\n" : '';
      await ctx.stderr.write(Buffer.from(`tree: ${parsed.error}${parsed.stdout !== undefined ? '' : '\n'}${usage}`, 'latin1'));
      if (parsed.stdout !== undefined) await ctx.stdout.write(parsed.stdout);
      return 1;
    }
    const { opts: o, operands, maxDepth } = parsed;
    const charset = o.get('charset');
    const lines = charset === undefined || /^(us-)?ascii$/i.test(charset) ? ASCII : /^utf-?8$/i.test(charset) ? UTF8 : null;
    const timefmt = o.get('timefmt');
    const problem = !lines ? `--charset ${charset} is not supported by nosh (use ascii or utf-8)`
      : timefmt !== undefined ? timefmtProblem(timefmt) : null;
    if (problem) {
      await ctx.stderr.write(`tree: ${problem}.\nTry 'tree --help' for more information.\n`);
      return 1;
    }
    const last = o.lastOf('t', 'c', 'v', 'sort', 'U');
    const human = o.has('h') || o.has('si');
    const opts: Options = {
      all: o.has('a'),
      dirsOnly: o.has('d'),
      fullPath: o.has('f'),
      classify: o.has('F'),
      maxDepth,
      ignore: o.all('I').map((p) => Buffer.from(p, 'utf8')),
      include: o.all('P').map((p) => Buffer.from(p, 'utf8')),
      matchDirs: o.has('matchdirs'),
      ignoreCase: o.has('ignorecase'),
      // tree drops --prune under -d ("you'll just get nothing otherwise").
      prune: o.has('prune') && !o.has('d'),
      noIndent: o.has('i'),
      lines: lines!,
      fileLimit: atoi(o.get('filelimit') ?? '0'),
      sort: last === 't' ? 'mtime' : last === 'c' ? 'ctime' : last === 'v' ? 'version' : last === 'U' ? 'none'
        : last === 'sort' ? (asciiLower(o.get('sort')!) as SortKey) : 'name',
      reverse: o.has('r'),
      top: o.lastOf('dirsfirst', 'filesfirst') as Options['top'],
      inodes: o.has('inodes'),
      device: o.has('device'),
      perms: o.has('p'),
      user: o.has('u'),
      group: o.has('g'),
      size: o.has('s') || human,
      human,
      si: o.has('si'),
      date: o.has('D') || timefmt !== undefined,
      ctime: o.has('c'),
      timefmt,
    };
    const t = new TreeWalker(ctx, opts);
    const roots = operands.length > 0 ? operands : ['.'];
    try {
      for (const r of roots) await t.root(r);
    } catch (e) {
      if (!(e instanceof PatternTooComplex)) throw e;
      await t.flush();
      await ctx.stderr.write(`tree: ${e.message} (too many *); use a shorter pattern.\n`);
      return 1;
    }
    if (!o.has('noreport')) {
      const d = `${t.dirs} director${t.dirs === 1 ? 'y' : 'ies'}`;
      t.emit(opts.dirsOnly ? `\n${d}\n` : `\n${d}, ${t.files} file${t.files === 1 ? '' : 's'}\n`);
    }
    await t.flush();
    return t.status;
  },
});

export default def;

type TreeArgs =
  | { opts: ParsedOptions; operands: string[]; maxDepth: number }
  | { help: true }
  | { version: true }
  /** `stdout`: the part of the message tree prints there (its --sort list). */
  | { error: string; usage: boolean; stdout?: string };

const latin1Arg = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

/**
 * tree 2.x's own argv walk: options anywhere until `--`; letters bundle, and -L / -P / -I take
 * the NEXT word whatever it is (-L2 is -L then the letter 2); long options match whole words,
 * except that those with a value (--sort...) match as prefixes and take `=X` or the next word.
 * The first problem in argv order ends it, as tree exits there.
 */
function parseTreeArgs(args: string[]): TreeArgs {
  const opts = new ParsedOptions();
  const operands: string[] = [];
  let maxDepth = Infinity;
  let optf = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!optf || a[0] !== '-' || a.length < 2) {
      operands.push(a);
      continue;
    }
    if (a[1] === '-') {
      if (a === '--') optf = false;
      else if (a === '--help') return { help: true };
      else if (a === '--version') return { version: true };
      else {
        let f = def.flags.find((x) => x.long !== undefined && x.kind !== 'string' && a === `--${x.long}`);
        let value = 'true';
        if (!f) {
          // tree's long_arg(): "--sortx name" is --sort name.
          f = def.flags.find((x) => x.long !== undefined && x.kind === 'string' && a.startsWith(`--${x.long}`));
          if (!f) return { error: `Invalid argument \`${latin1Arg(a)}'.`, usage: true };
          const prefix = `--${f.long}`;
          if (a[prefix.length] === '=') {
            value = a.slice(prefix.length + 1);
            if (value === '') return { error: `Missing argument to ${prefix}=`, usage: false };
          } else if (i + 1 < args.length) value = args[++i]!;
          else return { error: `Missing argument to ${prefix}`, usage: false };
          if (f.key === 'sort' && !SORTS.includes(asciiLower(value) as SortKey)) {
            return { error: `Sort type '${latin1Arg(value)}' not valid, should be one of: `, usage: false, stdout: `${SORTS.join(',')}\n` };
          }
        }
        opts.order.push({ key: f.key, value, flag: a });
      }
      continue;
    }
    for (const byte of Buffer.from(a.slice(1), 'utf8')) {
      const ch = String.fromCharCode(byte);
      if (REFUSED[ch]) return { error: `${REFUSED[ch]}.`, usage: true };
      const f = def.flags.find((x) => x.short === ch);
      // tree names the byte (the first of a UTF-8 letter); nosh's unsupported letters land here too.
      if (!f) return { error: `Invalid argument -\`${ch}'.`, usage: true };
      let value = 'true';
      if (f.kind === 'string') {
        if (i + 1 >= args.length) return { error: `Missing argument to -${ch} option.`, usage: false };
        value = args[++i]!;
      }
      if (ch === 'L') {
        maxDepth = treeLevel(value);
        if (maxDepth < 1) return { error: 'Invalid level, must be greater than 0.', usage: false };
      }
      opts.order.push({ key: f.key, value, flag: `-${ch}` });
    }
  }
  return { opts, operands, maxDepth };
}

/** strcasecmp's folding: ASCII letters only. */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** C atoi() (strtol into an int): leading blanks and a sign, digits, saturating then truncated. */
function atoi(s: string): number {
  const m = /^[ \t\n\v\f\r]*([+-]?[0-9]+)/.exec(s);
  if (!m) return 0;
  let v = BigInt(m[1]!);
  const max = (1n << 63n) - 1n;
  if (v > max) v = max;
  else if (v < -max - 1n) v = -max - 1n;
  return Number(BigInt.asIntN(32, v));
}
/** tree's `Level = strtoul(s, NULL, 0) - 1` into an int, plus one: below 1 when invalid. */
function treeLevel(s: string): number {
  const m = /^\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(s);
  if (!m) return 0;
  const body = m[2]!;
  let v = /^0[xX]/.test(body) ? BigInt(body) : body.length > 1 && body.startsWith('0') ? BigInt('0o' + body.slice(1)) : BigInt(body);
  const max = (1n << 64n) - 1n;
  if (v > max) v = max; // strtoul saturates, sign or not
  else if (m[1] === '-') v = (-v) & max;
  return Number(BigInt.asIntN(32, v - 1n)) + 1;
}

class TreeWalker {
  dirs = 0;
  files = 0;
  status = 0;
  private out: string[] = [];
  private outLen = 0;
  /** --prune and --matchdirs need a directory's whole subtree before printing it, as tree's getfulltree(). */
  private readonly full: boolean;
  private readonly now = Math.floor(Date.now() / 1000);

  constructor(private readonly ctx: CommandContext, private readonly o: Options) {
    this.full = o.prune || o.matchDirs;
  }

  emit(s: string): void {
    this.out.push(s);
    this.outLen += s.length;
  }

  async flush(): Promise<void> {
    if (this.out.length === 0) return;
    const text = this.out.join('');
    this.out = [];
    this.outLen = 0;
    await this.ctx.stdout.write(Buffer.from(text, 'latin1'));
  }

  async root(operand: string): Promise<void> {
    const { ctx, o } = this;
    // With -f tree drops the operand's trailing slashes before it looks at it.
    const name = o.fullPath && operand.length > 1 ? operand.replace(/\/+$/, '') || '/' : operand;
    const failed = `${escapeName(name)}  [error opening dir]\n`;
    let st: Stats;
    try {
      st = ctx.fs.lstat(name, ctx.cwd);
      // lstat("x/") resolves x as a directory: a link is followed, anything else is ENOTDIR.
      if (name.endsWith('/') && st.isSymbolicLink()) {
        if (!ctx.fs.policy.followSymlinks) throw new VfsError('ESYMLINK', name);
        st = ctx.fs.stat(name, ctx.cwd);
      }
      if (name.endsWith('/') && !st.isDirectory()) throw new VfsError('ENOTDIR', name);
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      this.emit(failed);
      if (NOSH_ERRNOS.has(e.errno)) {
        await this.flush();
        await ctx.warn(`${name}: ${e.reason}`);
      }
      this.status = 2;
      return;
    }
    // The operand is shown with the indicator of what lstat found (a link to a directory: '@').
    const shown = this.info(st) + escapeName(name) + this.indicator(st.mode);
    const target = st.isSymbolicLink() ? linkTargetStat(ctx.fs, name, ctx.cwd) : st;
    if (!target?.isDirectory()) {
      // Not a directory (a file, a fifo, a link to one, a dangling link): a file that cannot be opened.
      this.emit(`${shown}  [error opening dir]\n`);
      this.files++;
      return;
    }
    if (st.isSymbolicLink() && !ctx.fs.policy.followSymlinks) {
      this.emit(`${shown}  [error opening dir]\n`);
      await this.flush();
      await ctx.warn(`${name}: ${new VfsError('ESYMLINK', name).reason}`);
      this.files++;
      return;
    }
    await this.walkTree(name, shown, failed);
  }

  /**
   * The directory `name` (shown as `shown`), opened and walked: each directory is listed
   * (its entries lstat'ed through it, left out, sorted) before its line is printed (it may say
   * why it was not opened), then its children in that order. --prune and --matchdirs read the
   * whole tree first (tree's getfulltree()) and print it from memory.
   */
  private async walkTree(name: string, shown: string, failed: string): Promise<void> {
    const { ctx, o } = this;
    // frames[d]: the listing of the directory being walked at depth d.
    const frames: Frame[] = [];
    let top: Node[] = [];
    // A subdirectory met, not listed yet.
    let cur: { node: Node; line: string; shown: string; indent: string } | undefined;
    for (const ev of walk(ctx.fs, name, ctx.cwd, { order: 'directory', listEvents: true })) {
      if (ev.kind === 'error') {
        if (!(ev.error instanceof VfsError)) throw ev.error;
        if (ev.depth === 0) {
          this.emit(shown + '\n' + failed);
          this.status = 2;
        } else if (this.full) cur!.node.err = 'error opening dir';
        else await this.line(cur!.line + '  [error opening dir]');
        continue;
      }
      if (ev.kind === 'list') {
        const d = ev.depth;
        // --matchdirs: a directory whose path (from the operand) matches -P lists all it holds.
        const include = d === 0 || !(o.matchDirs && o.include.length > 0 && this.matches(o.include, Buffer.from(ev.rel, 'utf8'), true, 'P'));
        const nodes = this.list(ev.handle!, ev.entries!, d === 0 ? name : cur!.node.path, include);
        ev.entries = [];
        const n = nodes.length;
        if (o.fileLimit > 0 && n > o.fileLimit) {
          if (d > 0) {
            const why = `${n} entries exceeds filelimit, not opening dir`;
            if (this.full) cur!.node.err = why;
            else {
              await this.line(`${cur!.line}  [${why}]`);
              this.status = 2;
            }
          } else if (this.full) {
            // Read ahead, tree takes the limit as a failure to open; otherwise it counts the directory.
            this.emit(`${shown}  [error opening dir]\n`);
            this.files++;
          } else {
            this.emit(`${shown}  [${n} entries exceeds filelimit, not opening dir]\n`);
            this.dirs++;
          }
          continue;
        }
        if (d === 0) {
          this.emit(shown + '\n');
          top = nodes;
          // tree 2.x counts the starting directory only when something is listed under it.
          if (!this.full && n > 0) this.dirs++;
        } else if (this.full) cur!.node.sub = nodes;
        else await this.line(cur!.line);
        frames[d] = { nodes, i: 0, shownPath: d === 0 ? name : cur!.shown, indent: d === 0 ? '' : cur!.indent };
        ev.entries = nodes.map((x) => ({ name: x.name, type: this.opens(x, d + 1) ? 'dir' as const : 'file' as const }));
        continue;
      }
      if (ev.kind !== 'pre' && ev.kind !== 'file') continue;
      if (ev.depth === 0) continue;
      const frame = frames[ev.depth - 1]!;
      const node = frame.nodes[frame.i++]!;
      if (this.full) {
        if (ev.kind === 'pre') cur = { node, line: '', shown: '', indent: '' };
        continue;
      }
      const row = this.row(node, frame.shownPath, frame.indent, frame.i === frame.nodes.length);
      if (ev.kind === 'file') await this.line(row.line);
      else cur = { node, ...row };
    }
    if (!this.full) return;
    const nodes = this.pruned(top);
    if (nodes.length > 0) this.dirs++;
    await this.print(nodes, name, '');
  }

  /** Whether a listed node at `depth` is a directory to open (not a link to one; within -L). */
  private opens(n: Node, depth: number): boolean {
    return n.isDir && !n.st.isSymbolicLink() && depth < this.o.maxDepth;
  }

  private async line(text: string): Promise<void> {
    this.emit(text + '\n');
    if (this.outLen > 65536) await this.flush();
  }

  /** tree's Ftype() with -F: '/' (not with -d, where everything is a directory), '=', '|', '@', '*'. */
  private indicator(mode: number): string {
    if (!this.o.classify) return '';
    const c = typeIndicator(mode, 'classify');
    return c === '/' && this.o.dirsOnly ? '' : c;
  }

  /** tree's fillinfo(), from the lstat: "[inode dev perms user group size date]  ", or nothing. */
  private info(st: Stats): string {
    const { o } = this;
    let s = '';
    if (o.inodes) s += ' ' + String(st.ino).padStart(7);
    if (o.device) s += ' ' + String(Number(BigInt.asIntN(32, BigInt(st.dev)))).padStart(3);
    if (o.perms) s += ' ' + modeString(st.mode);
    if (o.user) s += ' ' + latin1(userName(st.uid).slice(0, 32)).padEnd(8);
    if (o.group) s += ' ' + latin1(groupName(st.gid).slice(0, 32)).padEnd(8);
    if (o.size) s += treeSize(st.size, o.human, o.si);
    if (o.date) s += ' ' + latin1(treeDate(Math.floor((o.ctime ? st.ctimeMs : st.mtimeMs) / 1000), o.timefmt, this.now));
    return s === '' ? '' : `[${s.slice(1)}]  `;
  }

  /** tree's sort: the base order (reversed by -r), under --dirsfirst / --filesfirst. */
  private compare(a: Node, b: Node): number {
    const { o } = this;
    // unsorted: the listing's order as it is (-r and --dirsfirst/--filesfirst do nothing, as in tree)
    if (o.sort === 'none') return 0;
    if (o.top && a.isDir !== b.isDir) return a.isDir === (o.top === 'dirsfirst') ? -1 : 1;
    let v = 0;
    if (o.sort === 'version') v = strverscmp(Buffer.from(a.name, 'utf8'), Buffer.from(b.name, 'utf8'));
    else if (o.sort === 'size') v = b.st.size - a.st.size;
    // Whole seconds (time_t), older first.
    else if (o.sort === 'mtime') v = Math.floor(a.st.mtimeMs / 1000) - Math.floor(b.st.mtimeMs / 1000);
    else if (o.sort === 'ctime') v = Math.floor(a.st.ctimeMs / 1000) - Math.floor(b.st.ctimeMs / 1000);
    if (v === 0 && o.sort !== 'version') v = compareNames(a.name, b.name);
    return o.reverse ? -v : v;
  }

  /**
   * The entries of an open directory as nodes, sorted (each lstat'ed through it; those left
   * out dropped). `include`: whether -P applies (--matchdirs lifts it in a directory whose path matches).
   */
  private list(dir: DirHandle, entries: DirEntry[], path: string, include: boolean): Node[] {
    const nodes: Node[] = [];
    for (const d of entries) {
      const node = this.node(dir, d.name, path, include);
      if (node) nodes.push(node);
    }
    return nodes.sort((a, b) => this.compare(a, b));
  }

  private matches(pats: Uint8Array[], name: Uint8Array, isDir: boolean, letter: string): boolean {
    try {
      return pats.some((pat) => patmatch(name, pat, isDir, this.o.ignoreCase) !== 0);
    } catch (e) {
      // patmatch recurses once per '*': a pattern with thousands of them overflows the stack.
      if (e instanceof RangeError && /call stack/.test(e.message)) throw new PatternTooComplex(letter);
      throw e;
    }
  }

  /** One entry of an open directory (its lstat taken through the directory), or null when left out. */
  private node(dir: DirHandle, name: string, path: string, include: boolean): Node | null {
    const { ctx, o } = this;
    if (!o.all && name.startsWith('.')) return null;
    const p = joinPath(path, name);
    let st: Stats | null;
    try {
      st = ctx.fs.lstatAt(dir, name);
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      return null;
    }
    if (!st) return null;
    const node: Node = { name, path: p, st, isDir: st.isDirectory() };
    if (st.isSymbolicLink()) {
      node.link = linkText(ctx.fs, p, ctx.cwd);
      node.target = linkTargetStat(ctx.fs, p, ctx.cwd);
      node.isDir = node.target?.isDirectory() ?? false;
    }
    const bytes = Buffer.from(name, 'utf8');
    // -P never hides a real directory, but does hide a link to one.
    if (include && o.include.length > 0 && !st.isDirectory() && !this.matches(o.include, bytes, node.isDir, 'P')) return null;
    if (o.ignore.length > 0 && this.matches(o.ignore, bytes, node.isDir, 'I')) return null;
    if (o.dirsOnly && !node.isDir) return null;
    return node;
  }

  /**
   * tree's getfulltree() for --prune / --matchdirs, once the tree is read (node.sub, node.err):
   * node.kids is what is listed under a directory; with --prune, directories with nothing
   * listed under them are dropped (unless --matchdirs -P matches their name).
   */
  private pruned(nodes: Node[]): Node[] {
    const { o } = this;
    const kept: Node[] = [];
    for (const n of nodes) {
      if (n.sub && n.sub.length > 0) {
        const kids = this.pruned(n.sub);
        if (kids.length > 0) n.kids = kids;
      }
      const keep = !o.prune || !n.isDir || n.kids !== undefined ||
        (o.matchDirs && o.include.length > 0 && this.matches(o.include, Buffer.from(n.name, 'utf8'), true, 'P'));
      if (keep) kept.push(n);
    }
    return kept;
  }

  /** A node's line, and the indentation under it. */
  private row(n: Node, shownPath: string, indent: string, last: boolean): { line: string; shown: string; indent: string } {
    const { o } = this;
    const shown = joinPath(shownPath, n.name);
    let line = (o.noIndent ? '' : indent + (last ? o.lines.corner : o.lines.tee)) + this.info(n.st) + escapeName(o.fullPath ? shown : n.name);
    if (n.st.isSymbolicLink()) {
      line += ' -> ' + escapeName(n.link ?? '');
      if (n.target) line += this.indicator(n.target.mode);
    } else line += this.indicator(n.st.mode);
    if (n.isDir) this.dirs++;
    else this.files++;
    return { line, shown, indent: o.noIndent ? '' : indent + (last ? '    ' : o.lines.vert) };
  }

  /** Prints nodes read ahead (node.kids, node.err). */
  private async print(nodes: Node[], shownPath: string, indent: string): Promise<void> {
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      const row = this.row(n, shownPath, indent, i === nodes.length - 1);
      await this.line(n.err ? `${row.line}  [${n.err}]` : row.line);
      if (n.kids) await this.print(n.kids, row.shown, row.indent);
    }
  }
}
