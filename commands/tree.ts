import type { Stats } from 'node:fs';
import { defineCommand, type CommandContext } from '../src/command/index.js';
import { compareNames, joinPath, typeIndicator } from '../src/command/format.js';
import { linkTargetStat, linkText } from '../src/command/listing.js';
import { VfsError, type DirHandle } from '../src/vfs/index.js';

/** Refusals that only nosh makes: tree prints its usual marker, and the reason on stderr. */
const NOSH_ERRNOS = new Set(['EBLOCKED', 'ESYMLINK', 'EESCAPE', 'ESPECIAL', 'EEXT']);

interface Options {
  all: boolean;
  dirsOnly: boolean;
  fullPath: boolean;
  classify: boolean;
  dirsFirst: boolean;
  maxDepth: number;
  ignore: RegExp[];
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

export default defineCommand({
  name: 'tree',
  summary: 'List contents of directories in a tree-like format (tree 2.x, ASCII lines as under LC_ALL=C).',
  usage: '[directory ...]',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', help: 'All files are listed.' },
    { key: 'd', short: 'd', help: 'List directories only.' },
    { key: 'f', short: 'f', help: 'Print the full path prefix for each file.' },
    { key: 'F', short: 'F', help: "Appends '/', '=', '*', '@', '|' or '>' as per ls -F." },
    { key: 'L', short: 'L', kind: 'string', arg: 'level', help: 'Descend only level directories deep.' },
    { key: 'I', short: 'I', kind: 'string', arg: 'pattern', help: 'Do not list files that match the given pattern.' },
    { key: 'noreport', long: 'noreport', help: 'Turn off file/directory count at end of tree listing.' },
    { key: 'dirsfirst', long: 'dirsfirst', help: 'List directories before files.' },
  ],
  async run(ctx) {
    const o = ctx.opts;
    let maxDepth = Infinity;
    if (o.has('L')) {
      const level = strtoul(o.get('L')!);
      if (level < 1) {
        await ctx.stderr.write('tree: Invalid level, must be greater than 0.\n');
        return 1;
      }
      maxDepth = level;
    }
    const opts: Options = {
      all: o.has('a'),
      dirsOnly: o.has('d'),
      fullPath: o.has('f'),
      // tree -dF shows no indicators (every entry is a directory).
      classify: o.has('F') && !o.has('d'),
      dirsFirst: o.has('dirsfirst'),
      maxDepth,
      ignore: [],
    };
    for (const p of o.all('I')) {
      const re = patternRegex(p);
      if (!re) {
        await ctx.stderr.write('tree: -I pattern too large (the JavaScript regex engine refuses it); use a shorter pattern.\n');
        return 1;
      }
      opts.ignore.push(re);
    }
    const t = new TreeWalker(ctx, opts);
    const roots = ctx.operands.length > 0 ? ctx.operands : ['.'];
    for (const r of roots) await t.root(r);
    if (!o.has('noreport')) {
      const d = `${t.dirs} director${t.dirs === 1 ? 'y' : 'ies'}`;
      t.emit(opts.dirsOnly ? `\n${d}\n` : `\n${d}, ${t.files} file${t.files === 1 ? '' : 's'}\n`);
    }
    await t.flush();
    return t.status;
  },
});

/** strtoul(s, NULL, 0): leading blanks, optional sign, 0x hex, 0 octal, else decimal; 0 when none. */
function strtoul(s: string): number {
  const m = /^\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(s);
  if (!m) return 0;
  const body = m[2]!;
  const v = /^0[xX]/.test(body) ? parseInt(body.slice(2), 16) : body.length > 1 && body.startsWith('0') ? parseInt(body, 8) : parseInt(body, 10);
  return m[1] === '-' ? -v : v;
}

/** A bracket expression's members as a JS class body; a reversed range (z-a) matches nothing (JS would refuse to compile it). */
function classBody(body: string): string {
  const esc = (c: string) => c.replace(/[\\\]\[^-]/g, '\\$&');
  let out = '';
  for (let k = 0; k < body.length; k++) {
    const a = body[k]!;
    if (body[k + 1] === '-' && k + 2 < body.length) {
      const b = body[k + 2]!;
      if (a <= b) out += `${esc(a)}-${esc(b)}`;
      k += 2;
    } else out += esc(a);
  }
  return out;
}

/** tree's patterns: '|' separates alternatives; * ? [..] as in shell globs. */
function patternRegex(p: string): RegExp | null {
  const alts = p.split('|').map((alt) => {
    let re = '';
    for (let i = 0; i < alt.length; i++) {
      const c = alt[i]!;
      if (c === '*') re += '.*';
      else if (c === '?') re += '.';
      else if (c === '[') {
        const end = alt.indexOf(']', i + 2);
        if (end < 0) re += '\\[';
        else {
          let body = alt.slice(i + 1, end);
          const neg = body.startsWith('!') || body.startsWith('^');
          if (neg) body = body.slice(1);
          re += `[${neg ? '^' : ''}${classBody(body)}]`;
          i = end;
        }
      } else if (c === '\\' && i + 1 < alt.length) re += alt[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
    return re;
  });
  const re = new RegExp(`^(?:${alts.join('|')})$`, 's');
  // V8 compiles on first exec and may refuse a huge pattern ("Regular expression too large").
  try {
    re.exec('');
  } catch (e) {
    if (e instanceof SyntaxError) return null;
    throw e;
  }
  return re;
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
    // With -f the children are joined to the root, so tree drops its trailing slashes.
    const shown = o.fullPath && operand.length > 1 ? operand.replace(/\/+$/, '') || '/' : operand;
    let st: Stats;
    try {
      st = ctx.fs.policy.followSymlinks ? ctx.fs.stat(operand, ctx.cwd) : ctx.fs.lstat(operand, ctx.cwd);
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      this.emit(`${escapeName(shown)}  [error opening dir]\n`);
      if (NOSH_ERRNOS.has(e.errno)) {
        await this.flush();
        await ctx.warn(`${operand}: ${e.reason}`);
      }
      this.status = 2;
      return;
    }
    if (!st.isDirectory()) {
      this.emit(`${escapeName(shown)}  [error opening dir]\n`);
      if (st.isSymbolicLink()) {
        await this.flush();
        await ctx.warn(`${operand}: ${new VfsError('ESYMLINK', operand).reason}`);
      }
      this.files++;
      return;
    }
    this.emit(escapeName(shown) + (o.classify ? '/' : '') + '\n');
    const nodes = this.list(operand);
    if (nodes === null) {
      this.emit(`${escapeName(shown)}  [error opening dir]\n`);
      this.status = 2;
      return;
    }
    // tree 2.x counts the starting directory only when something is listed under it.
    if (nodes.length > 0) this.dirs++;
    await this.walk(nodes, shown, 1, '');
  }

  private list(path: string): Node[] | null {
    const { ctx, o } = this;
    let dir: DirHandle;
    let entries;
    try {
      ({ dir, entries } = ctx.fs.openListed(path, ctx.cwd));
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
    } finally {
      dir.close();
    }
    nodes.sort((a, b) => (o.dirsFirst && a.isDir !== b.isDir ? (a.isDir ? -1 : 1) : compareNames(a.name, b.name)));
    return nodes;
  }

  /** One entry of an open directory (its lstat taken through the directory), or null when left out. */
  private node(dir: DirHandle, name: string, path: string): Node | null {
    const { ctx, o } = this;
    if (!o.all && name.startsWith('.')) return null;
    if (o.ignore.some((re) => re.test(name))) return null;
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
    return node;
  }

  private async walk(nodes: Node[], shownPath: string, depth: number, indent: string): Promise<void> {
    const { o } = this;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      const last = i === nodes.length - 1;
      const shown = joinPath(shownPath, n.name);
      let line = indent + (last ? '`-- ' : '|-- ') + escapeName(o.fullPath ? shown : n.name);
      if (n.st.isSymbolicLink()) {
        line += ' -> ' + escapeName(n.link ?? '');
        if (o.classify && n.target) line += typeIndicator(n.target.mode, 'classify').replace('@', '');
      } else if (o.classify) line += typeIndicator(n.st.mode, 'classify');
      if (n.isDir) this.dirs++;
      else this.files++;
      const children = n.isDir && !n.st.isSymbolicLink() && depth < o.maxDepth ? this.list(n.path) : [];
      if (children === null) line += '  [error opening dir]';
      this.emit(line + '\n');
      if (this.outLen > 65536) await this.flush();
      if (children && children.length > 0) await this.walk(children, shown, depth + 1, indent + (last ? '    ' : '|   '));
    }
  }
}
