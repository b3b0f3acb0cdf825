/**
 * Reading a zone's history: revisions (HEAD, HEAD~2, main, a tag, an id or its prefix), the
 * files a commit changed, a walk along first parents that reads only the commits it needs
 * (`log -n 20` of a long history reads 20 commits). Shared by the typed tools (main thread)
 * and the git command (worker).
 */
import { NoshError } from '../errors.js';
import { BRANCH, type CommitInfo, type Repo, type TreeItem } from './repo.js';

export interface FileChange {
  /** A added, M modified, D deleted (git's letters). */
  status: 'A' | 'M' | 'D';
  path: string;
  oldOid?: string;
  newOid?: string;
  oldMode?: string;
  newMode?: string;
}

export function unknownRevision(rev: string): NoshError {
  return new NoshError('INVALID_ARGUMENT', `unknown revision '${rev.slice(0, 100)}'`,
    'Name a version as HEAD, HEAD~N, a commit id (at least 4 hex digits) or a tag; list them with history or git log --oneline.', { revision: rev.slice(0, 100) });
}

/** The commit a revision names, or undefined. Refs beginning with '-' are refused before this. */
export async function resolveRevision(repo: Repo, rev: string): Promise<string | undefined> {
  const m = /^(.*?)((?:[~^]\d*)*)$/.exec(rev)!;
  const baseName = m[1]!;
  let oid: string | undefined;
  if (baseName === 'HEAD' || baseName === '@' || baseName === BRANCH || baseName === `refs/heads/${BRANCH}`) oid = await repo.head();
  else if (/^[0-9a-f]{40}$/.test(baseName)) oid = baseName;
  else {
    const tag = await repo.resolveRef(`refs/tags/${baseName}`);
    if (tag) oid = await peel(repo, tag);
    else if (/^[0-9a-f]{4,39}$/.test(baseName)) oid = await repo.expandOid(baseName);
  }
  if (oid === undefined) return undefined;
  try {
    await repo.readCommit(oid);
  } catch {
    return undefined;
  }
  for (const step of m[2]!.match(/[~^]\d*/g) ?? []) {
    const n = step.length > 1 ? Number(step.slice(1)) : 1;
    if (step[0] === '~') {
      for (let i = 0; i < n; i++) {
        const c = await repo.readCommit(oid!);
        oid = c.parent[0];
        if (oid === undefined) return undefined;
      }
    } else {
      if (n === 0) continue;
      const c = await repo.readCommit(oid!);
      oid = c.parent[n - 1];
      if (oid === undefined) return undefined;
    }
  }
  return oid;
}

/** An annotated tag's commit. */
async function peel(repo: Repo, oid: string): Promise<string> {
  const tag = await repo.readTag(oid);
  return tag ? tag.object : oid;
}

export async function mustResolve(repo: Repo, rev: string): Promise<string> {
  const oid = await resolveRevision(repo, rev);
  if (oid === undefined) throw unknownRevision(rev);
  return oid;
}

/** The files that differ between two trees (either may be absent), in git's path order, limited to `under` when given. */
export async function diffTrees(repo: Repo, a: string | undefined, b: string | undefined, under?: string[]): Promise<FileChange[]> {
  const out: FileChange[] = [];
  await walkDiff(repo, a, b, '', under ?? [], out);
  return out;
}

async function walkDiff(repo: Repo, a: string | undefined, b: string | undefined, prefix: string, under: string[], out: FileChange[]): Promise<void> {
  if (a === b) return;
  const ea = new Map<string, TreeItem>((a ? await repo.readTree(a) : []).map((e) => [e.path, e]));
  const eb = new Map<string, TreeItem>((b ? await repo.readTree(b) : []).map((e) => [e.path, e]));
  const names = [...new Set([...ea.keys(), ...eb.keys()])].sort(gitOrder(ea, eb));
  for (const name of names) {
    if (under.length > 0 && name !== under[0]) continue;
    const x = ea.get(name);
    const y = eb.get(name);
    const p = prefix + name;
    const rest = under.slice(1);
    const xt = x?.type === 'tree' ? x.oid : undefined;
    const yt = y?.type === 'tree' ? y.oid : undefined;
    const xf = x && x.type !== 'tree' ? x : undefined;
    const yf = y && y.type !== 'tree' ? y : undefined;
    if (rest.length > 0 && !xt && !yt) {
      continue; // a path below a file: nothing there
    }
    if (xf && yf) {
      if (xf.oid !== yf.oid || xf.mode !== yf.mode) out.push({ status: 'M', path: p, oldOid: xf.oid, newOid: yf.oid, oldMode: xf.mode, newMode: yf.mode });
    } else if (xf && rest.length === 0) out.push({ status: 'D', path: p, oldOid: xf.oid, oldMode: xf.mode });
    if (xt || yt) await walkDiff(repo, xt, yt, p + '/', rest, out);
    if (!xf && yf && rest.length === 0) out.push({ status: 'A', path: p, newOid: yf.oid, newMode: yf.mode });
  }
  out.sort((l, r) => (l.path < r.path ? -1 : l.path > r.path ? 1 : 0));
}

/** git sorts tree entries as if a tree's name ended in '/'. */
function gitOrder(ea: Map<string, TreeItem>, eb: Map<string, TreeItem>) {
  const key = (n: string) => ((ea.get(n) ?? eb.get(n))!.type === 'tree' ? n + '/' : n);
  return (l: string, r: string) => (key(l) < key(r) ? -1 : key(l) > key(r) ? 1 : 0);
}

/** The files a commit changed against its first parent. */
export async function changesOf(repo: Repo, c: CommitInfo, under?: string[]): Promise<FileChange[]> {
  const parentTree = c.parent[0] ? (await repo.readCommit(c.parent[0])).tree : undefined;
  return diffTrees(repo, parentTree, c.tree, under);
}

/**
 * Commits from `start` along first parents, newest first, that touch `under` (all when
 * empty), until `limit` are found or `maxScan` commits were read. `next` is where to go on.
 */
export async function walkHistory(repo: Repo, start: string | undefined, o: { under?: string[]; limit: number; maxScan?: number; filter?: (c: CommitInfo) => boolean }):
  Promise<{ commits: { commit: CommitInfo; changes: FileChange[] }[]; next?: string }> {
  const commits: { commit: CommitInfo; changes: FileChange[] }[] = [];
  let oid = start;
  let scanned = 0;
  const maxScan = o.maxScan ?? 100_000;
  while (oid !== undefined && commits.length < o.limit && scanned < maxScan) {
    const c = await repo.readCommit(oid);
    scanned++;
    if (!o.filter || o.filter(c)) {
      const under = o.under ?? [];
      const changes = await changesOf(repo, c, under.length > 0 ? under : undefined);
      if (under.length === 0 || changes.length > 0) commits.push({ commit: c, changes });
    }
    oid = c.parent[0];
  }
  return { commits, next: oid };
}

/** A zone path ('/a/b', 'a/b') as tree components. */
export function pathParts(p: string): string[] {
  return p.split('/').filter((x) => x !== '' && x !== '.');
}
