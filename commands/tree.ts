import type { Stats } from 'node:fs';
import { defineCommand, helpText, ParsedOptions, type CommandContext, type CommandDef } from '../src/command/index.js';
import { compareNames, joinPath, typeIndicator } from '../src/command/format.js';
import { linkTargetStat, linkText } from '../src/command/listing.js';
import { VfsError, listedOrClosed, type DirEntry, type DirHandle } from '../src/vfs/index.js';

/** Refusals that only nosh makes: tree prints its usual marker, and the reason on stderr. */
const NOSH_ERRNOS = new Set(['EBLOCKED', 'ESYMLINK', 'EESCAPE', 'ESPECIAL', 'EEXT']);

interface Options {
  all: boolean;
  dirsOnly: boolean;
  fullPath: boolean;
  classify: boolean;
  dirsFirst: boolean;
  maxDepth: number;
  ignore: Uint8Array[];
}

interface Node {
  name: string;
  path: string;
  st: Stats;
  /** For symlinks: target text and what it points to. */
  link?: string | null;
  target?: Stats | null;
  isDir: boolean;
}

const def: CommandDef = defineCommand({
  name: 'tree',
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
    { key: 'F', short: 'F', help: "Appends '/', '=', '*', '@', '|' or '>' as per ls -F." },
    { key: 'L', short: 'L', kind: 'string', arg: 'level', help: 'Descend only level directories deep.' },
    { key: 'I', short: 'I', kind: 'string', arg: 'pattern', help: "Do not list files that match the given pattern (* ? [...] [^...]; '|' separates alternatives)." },
    { key: 'noreport', long: 'noreport', help: 'Turn off file/directory count at end of tree listing.' },
    { key: 'dirsfirst', long: 'dirsfirst', help: 'List directories before files.' },
  ],
  notes: 'As tree 2.x parses them: -L and -I take the next word (write -L 2, not -L2), letters bundle (-aL 2), long options are whole words.',
  async run(ctx) {
    const parsed = parseTreeArgs(ctx.args);
    if ('help' in parsed) {
      await ctx.stdout.write(helpText(def));
      return 0;
    }
    if ('error' in parsed) {
      const usage = parsed.usage ? "Try 'tree --help' for more information.\n" : '';
      await ctx.stderr.write(Buffer.from(`tree: ${parsed.error}\n${usage}`, 'latin1'));
      return 1;
    }
    const { opts: o, operands, maxDepth } = parsed;
    const opts: Options = {
      all: o.has('a'),
      dirsOnly: o.has('d'),
      fullPath: o.has('f'),
      classify: o.has('F'),
      dirsFirst: o.has('dirsfirst'),
      maxDepth,
      ignore: [],
    };
    opts.ignore = o.all('I').map((p) => Buffer.from(p, 'utf8'));
    const t = new TreeWalker(ctx, opts);
    const roots = operands.length > 0 ? operands : ['.'];
    try {
      for (const r of roots) await t.root(r);
    } catch (e) {
      // patmatch recurses once per '*': a pattern with thousands of them overflows the stack.
      if (!(e instanceof RangeError) || !/call stack/.test(e.message)) throw e;
      await t.flush();
      await ctx.stderr.write('tree: -I pattern too complex (too many *); use a shorter pattern.\n');
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

type TreeArgs = { opts: ParsedOptions; operands: string[]; maxDepth: number } | { help: true } | { error: string; usage: boolean };

/**
 * tree 2.x's own argv walk: options anywhere until `--`; letters bundle, and -L / -I take the
 * NEXT word whatever it is (-L2 is -L then the letter 2); long options match whole words only.
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
      else {
        const f = def.flags.find((x) => x.long !== undefined && a === `--${x.long}`);
        if (!f) return { error: `Invalid argument \`${Buffer.from(a, 'utf8').toString('latin1')}'.`, usage: true };
        opts.order.push({ key: f.key, value: 'true', flag: a });
      }
      continue;
    }
    for (const byte of Buffer.from(a.slice(1), 'utf8')) {
      const ch = String.fromCharCode(byte);
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

/**
 * tree 2.x's patmatch() for -I, on the name's bytes: 1 match, 0 none, -1 a syntax error
 * (a lone '|' at either end, an unclosed '['), which tree also takes as "ignore". Only '^'
 * negates a class; '*' does not cross '/'. Memoised on (name position, pattern position).
 */
function patmatch(buf: Uint8Array, pat: Uint8Array, isdir: boolean): number {
  const bar = pat.indexOf(0x7c);
  if (bar >= 0) {
    if (bar === 0 || bar === pat.length - 1) return -1;
    const m = patmatch(buf, pat.subarray(0, bar), isdir);
    return m !== 0 ? m : patmatch(buf, pat.subarray(bar + 1), isdir);
  }
  const B = (i: number) => buf[i] ?? 0;
  const P = (i: number) => pat[i] ?? 0;
  const memo = new Map<number, number>();
  const sub = (b: number, p: number): number => {
    const key = b * (pat.length + 2) + p;
    let r = memo.get(key);
    if (r === undefined) memo.set(key, (r = from(b, p)));
    return r;
  };
  function from(b: number, p: number): number {
    let match = 1;
    let pprev = 0;
    while (P(p) && match) {
      const c = P(p);
      if (c === 0x5b) { // [
        p++;
        let n = 0;
        if (P(p) !== 0x5e) {
          n = 1;
          match = 0;
        } else p++;
        while (P(p) !== 0x5d) {
          if (P(p) === 0x5c) p++;
          if (!P(p)) return -1;
          if (P(p + 1) === 0x2d) {
            const m = P(p);
            p += 2;
            if (P(p) === 0x5c) p++;
            if (B(b) >= m && B(b) <= P(p)) match = n;
            if (!P(p)) p--;
          } else if (B(b) === P(p)) match = n;
          p++;
        }
        b++;
      } else if (c === 0x2a) { // *
        p++;
        if (!P(p)) return buf.indexOf(0x2f, b) < 0 ? 1 : 0;
        match = 0;
        if (P(p) === 0x2a) {
          p++;
          if (!P(p)) return 1;
          while (B(b) && !(match = sub(b, p))) {
            if (pprev === 0x2f && P(p) === 0x2f && P(p + 1) && (match = sub(b, p + 1))) return match;
            b++;
            while (B(b) && B(b) !== 0x2f) b++;
          }
        } else {
          while (B(b) && !(match = sub(b++, p))) if (B(b) === 0x2f) break;
        }
        if (!match && (!B(b) || B(b) === 0x2f)) match = sub(b, p);
        return match;
      } else if (c === 0x3f) { // ?
        if (!B(b)) return 0;
        b++;
      } else if (c === 0x2f && !P(p + 1) && !B(b)) {
        return isdir ? 1 : 0;
      } else {
        // A backslash quotes the next byte; tree reads past a trailing one (nothing matches).
        if (c === 0x5c && !P(++p)) return 0;
        match = B(b++) === P(p) ? 1 : 0;
      }
      pprev = P(p++);
      if (match < 1) return match;
    }
    return B(b) ? 0 : match;
  }
  return sub(0, 0);
}

/** tree's printit() without a UTF-8 locale: \ escapes for controls, backslash and space; octal for the rest. */
function escapeName(name: string): string {
  let out = '';
  for (const c of Buffer.from(name, 'utf8')) {
    if (c >= 7 && c <= 13) out += '\\' + 'abtnvfr'[c - 7];
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x20) out += '\\ ';
    else if (c > 0x20 && c < 0x7f) out += String.fromCharCode(c);
    else out += '\\' + c.toString(8).padStart(3, '0');
  }
  return out;
}

class TreeWalker {
  dirs = 0;
  files = 0;
  status = 0;
  private out: string[] = [];
  private outLen = 0;

  constructor(private readonly ctx: CommandContext, private readonly o: Options) {}

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
    const shown = escapeName(name) + this.indicator(st.mode);
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
    this.emit(shown + '\n');
    const listed = this.list(() => ctx.fs.openListed(name, ctx.cwd), name);
    if (listed === null) {
      this.emit(failed);
      this.status = 2;
      return;
    }
    try {
      // tree 2.x counts the starting directory only when something is listed under it.
      if (listed.nodes.length > 0) this.dirs++;
      await this.walk(listed.nodes, listed.dir, name, 1, '');
    } finally {
      listed.dir.close();
    }
  }

  /** tree's Ftype() with -F: '/' (not with -d, where everything is a directory), '=', '|', '@', '*'. */
  private indicator(mode: number): string {
    if (!this.o.classify) return '';
    const c = typeIndicator(mode, 'classify');
    return c === '/' && this.o.dirsOnly ? '' : c;
  }

  /**
   * The entries of a directory `open` opens (and lists), sorted; null when it cannot be read.
   * The caller closes `dir` once its subdirectories, opened through it, are done.
   */
  private list(open: () => { dir: DirHandle; entries: DirEntry[] }, path: string): { nodes: Node[]; dir: DirHandle } | null {
    const { o } = this;
    let dir: DirHandle;
    let entries;
    try {
      ({ dir, entries } = open());
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      return null;
    }
    const nodes: Node[] = [];
    try {
      for (const d of entries) {
        const node = this.node(dir, d.name, path);
        if (node) nodes.push(node);
      }
    } catch (e) {
      dir.close();
      throw e;
    }
    nodes.sort((a, b) => (o.dirsFirst && a.isDir !== b.isDir ? (a.isDir ? -1 : 1) : compareNames(a.name, b.name)));
    return { nodes, dir };
  }

  /** One entry of an open directory (its lstat taken through the directory), or null when left out. */
  private node(dir: DirHandle, name: string, path: string): Node | null {
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
    if (o.dirsOnly && !node.isDir) return null;
    const bytes = Buffer.from(name, 'utf8');
    if (o.ignore.some((pat) => patmatch(bytes, pat, node.isDir) !== 0)) return null;
    return node;
  }

  private async walk(nodes: Node[], dir: DirHandle, shownPath: string, depth: number, indent: string): Promise<void> {
    const { ctx, o } = this;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      const last = i === nodes.length - 1;
      const shown = joinPath(shownPath, n.name);
      let line = indent + (last ? '`-- ' : '|-- ') + escapeName(o.fullPath ? shown : n.name);
      if (n.st.isSymbolicLink()) {
        line += ' -> ' + escapeName(n.link ?? '');
        if (n.target) line += this.indicator(n.target.mode);
      } else line += this.indicator(n.st.mode);
      if (n.isDir) this.dirs++;
      else this.files++;
      // A subdirectory is opened through this directory (a path costs a lookup per level).
      const children = n.isDir && !n.st.isSymbolicLink() && depth < o.maxDepth
        ? this.list(() => listedOrClosed(ctx.fs.openListedDirAt(dir, n.name)), n.path) : undefined;
      if (children === null) line += '  [error opening dir]';
      this.emit(line + '\n');
      if (!children) {
        if (this.outLen > 65536) await this.flush();
        continue;
      }
      try {
        if (this.outLen > 65536) await this.flush();
        if (children.nodes.length > 0) await this.walk(children.nodes, children.dir, shown, depth + 1, indent + (last ? '    ' : '|   '));
      } finally {
        children.dir.close();
      }
    }
  }
}
