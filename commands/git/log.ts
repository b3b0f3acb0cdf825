/** git log and git show. */
import type { RepoAccess, RepoCommit, RepoFileChange } from '../../src/command/index.js';
import { formatDate, loadDiffs, patch, stat, type DateMode } from './format.js';
import { renameSource, withRenames } from './rename.js';
import { GitError, L, refuseDashRef } from './util.js';

export interface LogOptions {
  max?: number;
  format?: string;
  oneline?: boolean;
  stat?: boolean;
  nameOnly?: boolean;
  nameStatus?: boolean;
  patch?: boolean;
  /** -p given (show: a listing option drops the default patch unless -p is given too). */
  explicitPatch?: boolean;
  date: DateMode;
  author?: RegExp;
  grep?: RegExp;
  since?: number;
  paths: string[][];
  context: number;
  /** --follow: one file's history across renames. */
  follow?: boolean;
}

/** Parse log/show options; returns the options and the revisions named. */
export function parseLogArgs(args: string[], show: boolean): { o: LogOptions; revs: string[] } {
  const o: LogOptions = { date: 'default', paths: [], context: 3, patch: show };
  const revs: string[] = [];
  let i = 0;
  const value = (a: string, name: string) => {
    const eq = a.indexOf('=');
    if (eq >= 0) return a.slice(eq + 1);
    if (i + 1 >= args.length) throw new GitError(`option '${name}' requires a value`, 128);
    return args[++i]!;
  };
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') { o.paths = args.slice(i + 1).map(parts); break; }
    if (/^-\d+$/.test(a)) o.max = Number(a.slice(1));
    else if (a === '-n' || a.startsWith('--max-count')) o.max = Number(value(a, '--max-count'));
    else if (/^-n\d+$/.test(a)) o.max = Number(a.slice(2));
    else if (a === '--oneline') o.oneline = true;
    else if (a === '--stat') o.stat = true;
    else if (a === '--name-only') o.nameOnly = true;
    else if (a === '--name-status') o.nameStatus = true;
    else if (a === '-p' || a === '-u' || a === '--patch') o.patch = o.explicitPatch = true;
    else if (a === '-s' || a === '--no-patch') o.patch = false;
    else if (/^-U\d+$/.test(a)) { o.context = Number(a.slice(2)); o.patch = true; }
    else if (a.startsWith('--format') || a.startsWith('--pretty')) o.format = prettyFormat(value(a, '--format'));
    else if (a.startsWith('--date')) o.date = dateMode(value(a, '--date'));
    else if (a.startsWith('--author')) o.author = new RegExp(value(a, '--author'));
    else if (a.startsWith('--grep')) o.grep = new RegExp(value(a, '--grep'));
    else if (a.startsWith('--since') || a.startsWith('--after')) o.since = Date.parse(value(a, '--since')) / 1000;
    else if (a === '--follow') o.follow = true;
    else if (a.startsWith('-')) throw new GitError(`unrecognized argument: ${a}`, 128);
    else revs.push(a);
  }
  if (o.max !== undefined && !Number.isInteger(o.max)) throw new GitError(`'${args.join(' ')}': not an integer`, 128);
  return { o, revs };
}

export function parts(p: string): string[] {
  return p.split('/').filter((x) => x !== '' && x !== '.');
}

function dateMode(v: string): DateMode {
  if (['default', 'iso', 'iso8601', 'iso-strict', 'iso8601-strict', 'short', 'raw', 'unix', 'relative'].includes(v)) {
    return v.replace('iso8601', 'iso') as DateMode;
  }
  throw new GitError(`unknown date format ${v}`, 128);
}

function prettyFormat(v: string): string {
  if (v.startsWith('format:')) return '\x01' + v.slice(7);
  if (v.startsWith('tformat:')) return v.slice(8);
  if (v === 'oneline') return '%H %s';
  if (v === 'short' || v === 'medium' || v === 'full') return `\0${v}`;
  return v;
}

const subject = (c: RepoCommit) => c.message.split('\n\n')[0]!.replace(/\n/g, ' ').trim();
const body = (c: RepoCommit) => {
  const i = c.message.indexOf('\n\n');
  return i < 0 ? '' : c.message.slice(i + 2).replace(/\n*$/, '\n').replace(/^\n+/, '');
};

/** One --format string expanded for a commit. */
export function expand(fmt: string, c: RepoCommit, date: DateMode): string {
  return fmt.replace(/%(?:([HhTtPpsbBn%])|a([nNeEdDrtis])|c([nNeEdDrtis])|x([0-9a-fA-F]{2}))/g, (m, one: string, a: string, cm: string, hex: string) => {
    if (hex) return String.fromCharCode(parseInt(hex, 16));
    if (one) {
      switch (one) {
        case 'H': return c.oid;
        case 'h': return c.oid.slice(0, 7);
        case 'T': return c.tree;
        case 't': return c.tree.slice(0, 7);
        case 'P': return c.parent.join(' ');
        case 'p': return c.parent.map((x) => x.slice(0, 7)).join(' ');
        case 's': return L(subject(c));
        case 'b': return L(body(c));
        case 'B': return L(c.message.replace(/\n*$/, '\n'));
        case 'n': return '\n';
        case '%': return '%';
        default: return m;
      }
    }
    const who = a ? c.author : c.committer;
    switch (a ?? cm) {
      case 'n': case 'N': return L(who.name);
      case 'e': case 'E': return L(who.email);
      case 'd': return formatDate(who, date);
      case 'D': return formatDate(who, 'default').replace(/^(\w+) (\w+) (\d+) (\S+) (\d+) (\S+)$/, '$1, $3 $2 $5 $4 $6');
      case 'r': return formatDate(who, 'relative');
      case 't': return String(who.timestamp);
      case 'i': return formatDate(who, 'iso');
      case 's': return formatDate(who, 'short');
      default: return m;
    }
  });
}

function medium(c: RepoCommit, date: DateMode): string {
  const msg = c.message.replace(/\n+$/, '').split('\n').map((l) => '    ' + L(l)).join('\n');
  return `commit ${c.oid}\nAuthor: ${L(c.author.name)} <${L(c.author.email)}>\nDate:   ${formatDate(c.author, date)}\n\n${msg}\n`;
}

/** A change of a commit as log lists it; `from` when --follow found the file's old name. */
export type LoggedChange = RepoFileChange & { from?: { path: string; score: number } };

/** The text of one commit as log prints it (header, then the change listing asked for). */
export async function showCommit(repo: RepoAccess, c: RepoCommit, o: LogOptions, changes: LoggedChange[]): Promise<string> {
  let head: string;
  const listing = o.stat || o.nameOnly || o.nameStatus || o.patch;
  if (o.format !== undefined && o.format.startsWith('\x01')) head = expand(o.format.slice(1), c, o.date);
  else if (o.format !== undefined && !o.format.startsWith('\0')) head = expand(o.format, c, o.date) + '\n';
  else if (o.oneline) head = `${c.oid.slice(0, 7)} ${L(subject(c))}\n`;
  else head = medium(c, o.date);
  if (!listing) return head;
  changes = await withRenames(repo, changes);
  let text = o.oneline && o.format === undefined ? head : head + '\n';
  if (o.nameOnly) return text + changes.map((x) => L(x.path) + '\n').join('');
  if (o.nameStatus) {
    return text + changes.map((x) => (x.from ? `R${String(x.from.score).padStart(3, '0')}\t${L(x.from.path)}\t${L(x.path)}\n` : `${x.status}\t${L(x.path)}\n`)).join('');
  }
  const diffs = (await loadDiffs(repo, changes)).map((d) => ({ ...d, path: L(d.path), ...(d.from ? { from: { path: L(d.from.path), score: d.from.score } } : {}) }));
  if (o.stat) text += stat(diffs);
  if (o.patch) {
    if (o.stat && diffs.length > 0) text += '\n';
    text += diffs.map((d) => patch(d, o.context)).join('');
  }
  return text;
}

/**
 * Index of the first operand that names a file or folder of HEAD and no revision (-1: none);
 * every operand after it must be a path too, as git requires.
 */
async function firstPathOperand(repo: RepoAccess, head: string, revs: string[]): Promise<number> {
  const tree = (await repo.readCommit(head)).tree;
  const isPath = async (p: string) => (await repo.entryAt(tree, parts(p).join('/'))) !== undefined;
  for (let i = 0; i < revs.length; i++) {
    if (await repo.resolve(revs[i]!) !== undefined || !await isPath(revs[i]!)) continue;
    for (const p of revs.slice(i + 1)) {
      if (!await isPath(p)) throw new GitError(`${L(p)}: no such path in the working tree.\nUse 'git <command> -- <path>...' to specify paths that do not exist locally.`, 128);
    }
    return i;
  }
  return -1;
}

/** The changes of one followed file in a commit: an added file whose rename source is found becomes a rename. */
async function followed(repo: RepoAccess, parentTree: string | undefined, tree: string, path: string[]): Promise<LoggedChange[]> {
  const changes: LoggedChange[] = await repo.diffTrees(parentTree, tree, path);
  if (parentTree === undefined) return changes;
  const name = path.join('/');
  const added = changes.find((x) => x.status === 'A' && x.path === name);
  if (!added) return changes;
  const src = await renameSource(repo, parentTree, tree, added.newOid!);
  if (!src) return changes;
  return changes.map((x) => (x === added ? { ...x, status: 'M', oldOid: src.oid, oldMode: src.mode, from: { path: src.path, score: src.score } } : x));
}

/** git log: commits from the revision (HEAD) along first parents, filtered, newest first. */
export async function log(repo: RepoAccess, args: string[], write: (s: string) => Promise<void>): Promise<number> {
  const { o, revs } = parseLogArgs(args, false);
  for (const r of revs) refuseDashRef(r);
  const head = await repo.head();
  if (head === undefined) throw new GitError("your current branch 'main' does not have any commits yet", 128);
  // As git: operands before '--' that are not revisions but files of HEAD are paths.
  const firstPath = await firstPathOperand(repo, head, revs);
  if (firstPath >= 0) o.paths = [...revs.splice(firstPath).map(parts), ...o.paths];
  if (o.follow && o.paths.length !== 1) throw new GitError('--follow requires exactly one pathspec', 128);
  const startRev = revs[0] ?? 'HEAD';
  const start = await repo.resolve(startRev);
  if (start === undefined) throw new GitError(`ambiguous argument '${startRev}': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'`, 128);
  let oid: string | undefined = start;
  let shown = 0;
  let first = true;
  const sep = o.format?.startsWith('\x01') ? '\n' : o.oneline || (o.format !== undefined && !o.format.startsWith('\0')) ? '' : '\n';
  while (oid !== undefined && (o.max === undefined || shown < o.max)) {
    const c = await repo.readCommit(oid);
    oid = c.parent[0];
    if (o.since !== undefined && c.committer.timestamp < o.since) break;
    if (o.author && !o.author.test(`${c.author.name} <${c.author.email}>`)) continue;
    if (o.grep && !o.grep.test(c.message)) continue;
    const parentTree = c.parent[0] ? (await repo.readCommit(c.parent[0])).tree : undefined;
    let changes: LoggedChange[] = [];
    if (o.follow) {
      changes = await followed(repo, parentTree, c.tree, o.paths[0]!);
      if (changes.length === 0) continue;
      const r = changes.find((x) => x.from);
      if (r) o.paths = [parts(r.from!.path)];
    } else if (o.paths.length > 0) {
      for (const p of o.paths) changes.push(...await repo.diffTrees(parentTree, c.tree, p));
      if (changes.length === 0) continue;
      changes.sort((x, y) => (x.path < y.path ? -1 : 1));
    } else if (o.stat || o.nameOnly || o.nameStatus || o.patch) changes = await repo.diffTrees(parentTree, c.tree);
    await write((first ? '' : sep) + await showCommit(repo, c, o, changes));
    first = false;
    shown++;
  }
  return 0;
}
