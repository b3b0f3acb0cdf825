// The history of a git suite made by nosh's repository code (isomorphic-git), the same
// commits as test/gnu/git-history.mjs makes with the real git: the ids must agree.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Repo, type TreeItem } from '../../src/versioning/repo.js';
// @ts-expect-error: a .mjs helper shared with the recorder
import { applyFiles, COMMITTER } from './git-history.mjs';

export interface HistoryCommit { files?: Record<string, string>; delete?: string[]; message: string; author: string; email: string; date: number }

async function treeOf(repo: Repo, dir: string): Promise<string | undefined> {
  const items: TreeItem[] = [];
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = fs.lstatSync(p);
    if (st.isDirectory()) {
      const oid = await treeOf(repo, p);
      if (oid) items.push({ mode: '040000', path: name, oid, type: 'tree' });
    } else if (st.isFile()) items.push({ mode: st.mode & 0o111 ? '100755' : '100644', path: name, oid: await repo.writeBlob(fs.readFileSync(p)), type: 'blob' });
  }
  return items.length === 0 ? undefined : repo.writeTree(items);
}

export async function noshHistory(root: string, gitdir: string, commits: HistoryCommit[], tags: { name: string; rev: string }[] = []): Promise<void> {
  fs.mkdirSync(root, { recursive: true });
  const repo = new Repo(gitdir);
  await repo.init();
  let parent: string | undefined;
  const ids: string[] = [];
  for (const c of commits) {
    applyFiles(root, c);
    const tree = (await treeOf(repo, root)) ?? await repo.writeTree([]);
    const who = (name: string, email: string) => ({ name, email, timestamp: c.date, timezoneOffset: 0 });
    parent = await repo.writeCommit({ message: c.message + '\n', tree, parent: parent ? [parent] : [], author: who(c.author, c.email), committer: who(COMMITTER.name, COMMITTER.email) });
    ids.push(parent);
    await repo.setHead(parent);
  }
  for (const t of tags) {
    const m = /^HEAD~(\d+)$/.exec(t.rev);
    await repo.writeLightTag(t.name, m ? ids[ids.length - 1 - Number(m[1])]! : t.rev === 'HEAD' ? ids[ids.length - 1]! : t.rev);
  }
}
