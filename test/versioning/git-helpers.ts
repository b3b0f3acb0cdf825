import * as fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tempDir } from '../helpers.js';

/** Real git on a copy of the git directory nosh wrote (never on nosh's own). */
export function realGit(gitdir: string, ...args: string[]): string {
  const copy = tempDir('nosh-gitcopy-');
  fs.cpSync(gitdir, copy, { recursive: true });
  try {
    return execFileSync('git', ['--git-dir', copy, ...args], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' }, stdio: ['ignore', 'pipe', 'pipe'] });
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

