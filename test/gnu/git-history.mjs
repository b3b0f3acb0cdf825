// The history of a git suite (cases/git.json "git.commits"), made by the real git for recording.
// Each commit: { files: {path: content}, delete?: [path], message, author, email, date (unix seconds) }.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const COMMITTER = { name: 'nosh', email: 'nosh@nosh' };

/** Apply one commit's files to the folder. */
export function applyFiles(root, c) {
  for (const [name, content] of Object.entries(c.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  for (const name of c.delete ?? []) fs.rmSync(path.join(root, name), { force: true });
}

export function gitEnv(c, base) {
  return {
    ...base,
    GIT_AUTHOR_NAME: c.author, GIT_AUTHOR_EMAIL: c.email, GIT_AUTHOR_DATE: `@${c.date} +0000`,
    GIT_COMMITTER_NAME: COMMITTER.name, GIT_COMMITTER_EMAIL: COMMITTER.email, GIT_COMMITTER_DATE: `@${c.date} +0000`,
  };
}

/** Build the history with the real git in `root` (.git inside it). */
export function recordHistory(root, commits, env) {
  fs.mkdirSync(root, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root, env });
  for (const c of commits) {
    applyFiles(root, c);
    execFileSync('git', ['add', '-A'], { cwd: root, env });
    execFileSync('git', ['commit', '-q', '--allow-empty-message', '-m', c.message], { cwd: root, env: gitEnv(c, env) });
  }
}
