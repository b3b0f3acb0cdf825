/**
 * git blame (git 2.39's default output): each line of a file with the commit that last
 * changed it, found by walking first parents and diffing the file's versions (a line that a
 * commit's diff inserted is that commit's; the others pass to the parent). A file added by a
 * rename is followed to its old name, as git does by default. Lines are matched with GNU
 * diff's matcher (src/gnulib/diffseq); git's xdiff may pair lines differently where a
 * change is ambiguous (README: deviations).
 */
import type { RepoAccess, RepoCommit } from '../../src/command/index.js';
import { diffLines } from '../../src/gnulib/diffseq.js';
import { formatDate } from './format.js';
import { renameSource } from './rename.js';
import { GitError, L, refuseDashRef } from './util.js';
import { parts } from './log.js';

interface Options {
  rev?: string;
  path?: string;
  range?: [number, number | undefined];
  long: boolean;
  suppress: boolean;
  email: boolean;
  showName: boolean;
  showNumber: boolean;
}

/** One line's answer: the commit, its path there and its line number there (origin 1). */
interface Origin { commit: RepoCommit; path: string; line: number; boundary: boolean }

function parseArgs(args: string[], cwd: string): Options {
  const o: Options = { long: false, suppress: false, email: false, showName: false, showNumber: false };
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') { operands.push(...args.slice(i + 1).map((p) => '\0' + p)); break; }
    if (a === '-l') o.long = true;
    else if (a === '-s') o.suppress = true;
    else if (a === '-e' || a === '--show-email') o.email = true;
    else if (a === '-f' || a === '--show-name') o.showName = true;
    else if (a === '-n' || a === '--show-number') o.showNumber = true;
    else if (a === '-L' || a.startsWith('-L')) {
      const v = a === '-L' ? args[++i] : a.slice(2);
      if (v === undefined) throw new GitError("switch `L' requires a value", 129, 'error');
      o.range = parseRange(v);
    } else if (a.startsWith('-')) {
      throw new GitError(`unknown option '${a.replace(/^-+/, '')}' (nosh's git blame takes -L N,M, -l, -s, -e, -f, -n)`, 129, 'error');
    } else operands.push(a);
  }
  const paths = operands.filter((x) => x.startsWith('\0')).map((x) => x.slice(1));
  const plain = operands.filter((x) => !x.startsWith('\0'));
  if (paths.length > 0) {
    if (plain.length > 1 || paths.length > 1) throw new GitError('usage: git blame [<options>] [<rev>] [--] <file>', 129, 'usage');
    o.rev = plain[0];
    o.path = paths[0];
  } else if (plain.length === 1) o.path = plain[0];
  else if (plain.length === 2) { o.rev = plain[0]; o.path = plain[1]; }
  else throw new GitError('usage: git blame [<options>] [<rev>] [--] <file>', 129, 'usage');
  o.path = parts(cwd + '/' + o.path).join('/');
  return o;
}

function parseRange(v: string): [number, number | undefined] {
  const m = /^(\d*)(?:,(\+?)(\d*))?$/.exec(v);
  if (!m || (m[1] === '' && (m[3] ?? '') === '')) throw new GitError(`invalid -L argument '${v}' (nosh takes N,M, N, ,M and N,+K)`, 128);
  const start = m[1] === '' ? 1 : Number(m[1]);
  if (m[3] === undefined || m[3] === '') return [start, undefined];
  const end = m[2] ? start + Number(m[3]) - 1 : Number(m[3]);
  return start <= end ? [start, end] : [end, start];
}

const lines = (b: Uint8Array): string[] => {
  const s = Buffer.from(b).toString('latin1');
  const out = s.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
};

/** git blame [REV] [--] FILE */
export async function blame(repo: RepoAccess, args: string[], cwd: string, out: (s: string) => Promise<void>): Promise<number> {
  const o = parseArgs(args, cwd);
  if (o.rev !== undefined) refuseDashRef(o.rev);
  const rev = o.rev ?? 'HEAD';
  const start = await repo.resolve(rev);
  if (start === undefined) {
    if (o.rev === undefined) throw new GitError("your current branch 'main' does not have any commits yet", 128);
    throw new GitError(`bad revision '${L(rev)}'`, 128);
  }
  const top = await repo.readCommit(start);
  const entry = await repo.entryAt(top.tree, o.path!);
  if (!entry || entry.type !== 'blob') throw new GitError(o.rev === undefined ? `no such path '${L(o.path!)}' in HEAD` : `no such path ${L(o.path!)} in ${L(rev)}`, 128);
  const final = lines(await repo.readBlob(entry.oid));
  const [from, to] = o.range ?? [1, undefined];
  const last = to ?? final.length;
  if (final.length > 0 || o.range) {
    if (from < 1 || from > Math.max(final.length, 0)) throw new GitError(`file ${L(o.path!)} has only ${final.length} line${final.length === 1 ? '' : 's'}`, 128);
  }
  const end = Math.min(last, final.length);
  const origins = await attribute(repo, top, o.path!, entry.oid, final.length);
  const shown = origins.slice(from - 1, end);
  const renamed = o.showName || shown.some((x) => x.path !== o.path);
  const who = (c: RepoCommit) => (o.email ? `<${L(c.author.email)}>` : L(c.author.name));
  const authorW = Math.max(0, ...shown.map((x) => who(x.commit).length));
  const pathW = Math.max(0, ...shown.map((x) => L(x.path).length));
  const lineW = String(end).length;
  const origW = Math.max(0, ...shown.map((x) => String(x.line).length));
  const hashLen = o.long ? 40 : 8;
  let text = '';
  for (let i = 0; i < shown.length; i++) {
    const x = shown[i]!;
    const hash = x.boundary ? '^' + x.commit.oid.slice(0, hashLen - 1) : x.commit.oid.slice(0, hashLen);
    let row = hash;
    if (renamed) row += ' ' + L(x.path).padEnd(pathW);
    if (o.showNumber) row += ' ' + String(x.line).padStart(origW);
    row += o.suppress ? ' ' : ` (${who(x.commit).padEnd(authorW)} ${formatDate(x.commit.author, 'iso')} `;
    row += `${String(from + i).padStart(lineW)}) ${final[from - 1 + i]!}\n`;
    text += row;
    if (text.length >= 65536) { await out(text); text = ''; }
  }
  await out(text);
  return 0;
}

/** The origin of each line of `path` at `top` (whose blob is `oid`, `count` lines). */
async function attribute(repo: RepoAccess, top: RepoCommit, path: string, oid: string, count: number): Promise<Origin[]> {
  const result: Origin[] = new Array(count);
  // The lines still looked for: index in the final file -> line index in the current version.
  let pending = new Map<number, number>();
  for (let i = 0; i < count; i++) pending.set(i, i);
  let commit = top;
  let curPath = path;
  let curOid = oid;
  let curLines: string[] | undefined;
  while (pending.size > 0) {
    const parentId = commit.parent[0];
    const parent = parentId !== undefined ? await repo.readCommit(parentId) : undefined;
    let prevPath = curPath;
    let prev = parent ? await repo.entryAt(parent.tree, curPath) : undefined;
    if (parent && (!prev || prev.type !== 'blob')) {
      const src = await renameSource(repo, parent.tree, commit.tree, curOid);
      if (src) { prevPath = src.path; prev = { mode: src.mode, path: src.path, oid: src.oid, type: 'blob' }; }
      else prev = undefined;
    }
    if (!parent || !prev) {
      for (const [fin, cur] of pending) result[fin] = { commit, path: curPath, line: cur + 1, boundary: !parent };
      break;
    }
    if (prev.oid !== curOid) {
      curLines ??= lines(await repo.readBlob(curOid));
      const prevLines = lines(await repo.readBlob(prev.oid));
      // Map each current line to its line in the parent, or -1 when this commit made it.
      const map = new Int32Array(curLines.length).fill(-1);
      let i0 = 0, i1 = 0;
      for (const ch of diffLines(prevLines, curLines, prevLines, curLines)) {
        while (i1 < ch.line1) map[i1++] = i0++;
        i0 += ch.deleted;
        i1 += ch.inserted;
      }
      while (i1 < curLines.length) map[i1++] = i0++;
      const next = new Map<number, number>();
      for (const [fin, cur] of pending) {
        if (map[cur]! < 0) result[fin] = { commit, path: curPath, line: cur + 1, boundary: false };
        else next.set(fin, map[cur]!);
      }
      pending = next;
      curLines = prevLines;
    }
    commit = parent;
    curPath = prevPath;
    curOid = prev.oid;
  }
  return result;
}
