import { NoshError } from '../../src/errors.js';

/** A git failure: printed as git does ("fatal: ..." or "error: ..."), with its exit status. */
export class GitError extends Error {
  constructor(message: string, readonly status = 128, readonly prefix = 'fatal') {
    super(message);
  }
}

/** A JavaScript (UTF-16) string as the latin1 string of its UTF-8 bytes: the command's output is bytes. */
export function L(s: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(s) ? s : Buffer.from(s, 'utf8').toString('latin1');
}

/** A ref or revision beginning with '-' is refused (option injection: mcp-server-git's CVEs). */
export function refuseDashRef(rev: string): void {
  if (rev.startsWith('-')) {
    throw new NoshError('INVALID_ARGUMENT', `git: a revision or ref name may not begin with '-': ${rev.slice(0, 60)}`,
      'Give a commit id, HEAD~N or a tag name; options go before revisions, and paths after --.');
  }
}

/** What nosh's git refuses, and what to do instead. */
export const REFUSED: Record<string, string> = {
  clone: 'nosh has no network: copy files in with transfer or import.',
  fetch: 'nosh has no network and no remotes.',
  pull: 'nosh has no network and no remotes.',
  push: 'nosh has no network and no remotes.',
  remote: 'nosh has no network and no remotes.',
  submodule: 'nosh has no network and no submodules.',
  config: 'the repository is managed by nosh (author = your user): nothing to configure.',
  rebase: 'history is append-only: use git revert REV or git restore --source REV PATH.',
  gc: 'upkeep is the runtime\'s maintenance method.',
  prune: 'upkeep is the runtime\'s maintenance method.',
  reflog: 'history is one line: use git log.',
  filter_branch: 'history is append-only.',
  'filter-branch': 'history is append-only.',
  'update-ref': 'history is append-only: use git revert or git restore.',
  'hash-object': 'not offered.',
  daemon: 'nosh has no network.',
  'http-backend': 'nosh has no network.',
  'upload-pack': 'nosh has no network.',
  'receive-pack': 'nosh has no network.',
  archive: 'use tar or zip on the files.',
  bundle: 'nosh has no network.',
  worktree: 'the zone is the one work tree.',
  init: 'the repository of a versioned zone is made by nosh on first use.',
  add: 'every change is committed by nosh when the call that made it ends: there is nothing to add.',
  commit: 'every change is committed by nosh when the call that made it ends (pass message to name the commit).',
  merge: 'history is one line: use git restore --source REV PATH to take a version back.',
  'cherry-pick': 'use git restore --source REV PATH.',
  stash: 'every change is already committed: use git restore or git revert.',
  branch: 'a versioned zone has one branch, main: use tags to name versions.',
  switch: 'a versioned zone has one branch, main: use git restore --source REV PATH.',
  'reset --hard': 'history is append-only so nothing can lose a version: use git revert REV or git restore --source REV PATH.',
};

export const REFUSED_GLOBAL: Record<string, string> = {
  '-c': 'the repository is managed by nosh: no configuration may be passed.',
  '-C': 'git runs in the zone: give paths after --.',
  '--git-dir': 'the repository of the zone is the only one.',
  '--work-tree': 'the zone is the work tree.',
  '--exec-path': 'no programs are run.',
  '--namespace': 'not offered.',
  '--config-env': 'the repository is managed by nosh: no configuration may be passed.',
};

export function refused(what: string, hint: string): NoshError {
  return new NoshError('COMMAND_FORBIDDEN', `git ${what} is not available in nosh`, hint, { command: `git ${what}` });
}
