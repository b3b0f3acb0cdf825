import type { RepoAccess } from '../command/index.js';
import { Repo, loadGit } from '../versioning/repo.js';
import { diffTrees, resolveRevision } from '../versioning/history.js';

/**
 * The Repos of the worker's last few git directories, kept across tasks: a Repo's cache holds
 * the parsed index of each pack, and parsing it again for every `git log` of a packed
 * 10 000-commit history cost a second per call. Objects never change once written; packs
 * written later are found by the next read (isomorphic-git lists the pack folder).
 */
const recent = new Map<string, Repo>();
const RECENT_MAX = 8;

function repoOf(gitdir: string): Repo {
  let repo = recent.get(gitdir);
  if (repo) recent.delete(gitdir);
  else repo = new Repo(gitdir);
  recent.set(gitdir, repo);
  if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value!);
  return repo;
}

/** The RepoAccess of a versioned zone's task (src/command's capability), over its git directory. */
export function repoAccess(gitdir: string, user: string): RepoAccess & { commitMessage?: string } {
  const repo = repoOf(gitdir);
  const access: RepoAccess & { commitMessage?: string } = {
    user,
    head: () => repo.exists() ? repo.head() : Promise.resolve(undefined),
    resolve: (rev) => repo.exists() ? resolveRevision(repo, rev) : Promise.resolve(undefined),
    readCommit: (oid) => repo.readCommit(oid),
    readBlob: (oid) => repo.readBlob(oid),
    entryAt: (tree, p) => repo.entryAt(tree, p),
    files: (tree) => repo.flatten(tree),
    diffTrees: (a, b, under) => diffTrees(repo, a, b, under),
    async tags() {
      if (!repo.exists()) return [];
      const out = [];
      for (const name of await repo.tags()) {
        const target = (await repo.resolveRef(`refs/tags/${name}`))!;
        const tag = await repo.readTag(target);
        out.push(tag ? { name, target, commit: tag.object, annotated: { message: tag.message, tagger: tag.tagger } } : { name, target, commit: target });
      }
      return out;
    },
    async createTag(name, commit, annotated) {
      if (annotated) {
        await repo.writeAnnotatedTag(name, commit, { name: user, email: `${user}@nosh`, timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 }, annotated.message);
      } else await repo.writeLightTag(name, commit);
    },
    deleteTag: (name) => repo.deleteTag(name),
    async hashBlob(data) {
      return (await (await loadGit()).hashBlob({ object: data })).oid;
    },
    setCommitMessage(message) {
      access.commitMessage = message;
    },
  };
  return access;
}
