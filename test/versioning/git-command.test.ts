import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { realGit } from './git-helpers.js';

const base = tempDir('nosh-gitcmd-');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('the git command in a versioned zone', () => {
  it('restore, checkout -- PATH and revert make new commits; log shows them; refusals and bad input', async () => {
    const nosh = await createNosh({ base, threads: 1 });
    const ctx = { user: 'zoe' };
    const ex = async (command: string) => {
      const r = await nosh.exec({ zone: 'documents', context: ctx, command });
      if (!r.success) return { code: r.error.code, message: r.error.message, hint: r.error.hint };
      return r.data;
    };
    await nosh.call('write', { zone: 'documents', context: ctx, path: 'a.txt', content: 'v1\n' });
    await nosh.call('write', { zone: 'documents', context: ctx, path: 'a.txt', content: 'v2\n' });
    await nosh.call('write', { zone: 'documents', context: ctx, path: 'b.txt', content: 'b\n' });
    expect(await ex('git log --format=%s%x09%an')).toMatchObject({ exit_code: 0, stdout: 'write: b.txt (1 file)\tzoe\nwrite: a.txt (1 file)\tzoe\nwrite: a.txt (1 file)\tzoe\n' });
    expect(await ex('git restore --source HEAD~2 a.txt')).toMatchObject({ exit_code: 0, stdout: '' });
    expect(fs.readFileSync(path.join(base, 'users', 'zoe', 'Documents', 'a.txt'), 'utf8')).toBe('v1\n');
    expect(await ex('git checkout HEAD~1 -- a.txt')).toMatchObject({ exit_code: 0 });
    expect(fs.readFileSync(path.join(base, 'users', 'zoe', 'Documents', 'a.txt'), 'utf8')).toBe('v2\n');
    const rev = await ex('git revert HEAD~2');
    expect(rev).toMatchObject({ exit_code: 0, stdout: '[main] Revert "write: b.txt (1 file)"\n 1 file changed, 1 deletion(-)\n' });
    expect(fs.existsSync(path.join(base, 'users', 'zoe', 'Documents', 'b.txt'))).toBe(false);
    expect(await ex('git status')).toMatchObject({ stdout: 'On branch main\nnothing to commit, working tree clean\n' });
    expect(await ex('git tag v1 HEAD~1')).toMatchObject({ exit_code: 0 });
    expect(await ex('git tag')).toMatchObject({ stdout: 'v1\n' });
    // refusals, by name, with what to do instead
    for (const [cmd, what] of [['git clone http://x/y', 'clone'], ['git push', 'push'], ['git -c core.pager=sh log', '-c'], ['git --git-dir=/etc log', '--git-dir'],
      ['git -C /tmp log', '-C'], ['git reset --hard HEAD~1', 'reset --hard'], ['git rebase -i HEAD~2', 'rebase'], ['git gc', 'gc'], ['git config user.name x', 'config'],
      ['git --work-tree=/ status', '--work-tree'], ['git --exec-path=/tmp log', '--exec-path'], ['git submodule add x', 'submodule'], ['git remote add o x', 'remote'],
      ['git fetch', 'fetch'], ['git pull', 'pull']]) {
      const r = await ex(cmd!) as { code: string; message: string; hint: string };
      expect(r.code, cmd).toBe('COMMAND_FORBIDDEN');
      expect(r.message).toBe(`git ${what} is not available in nosh`);
      expect(r.hint).not.toBe('');
    }
    for (const cmd of ['git log --output=/tmp/x', 'git show --output=x', 'git diff --no-index a b', 'git tag -- -x']) {
      const r = await ex(cmd) as { exit_code?: number; code?: string };
      expect(r.exit_code === undefined ? r.code : r.exit_code, cmd).not.toBe(0);
    }
    expect(await ex('git show --upload-pack=x')).not.toMatchObject({ exit_code: 0 });
    expect(await ex('git log -n 1 -- --output=x')).toMatchObject({ exit_code: 0, stdout: '' });
    const dash = await ex('git checkout --orphan x') as { exit_code: number };
    expect(dash.exit_code).not.toBe(0);
    const dashRef = await ex('git revert --exec=x') as { code: string };
    expect(dashRef.code).toBe('INVALID_ARGUMENT');
    const nv = await nosh.exec({ zone: 'storage', context: ctx, command: 'git log' });
    expect(!nv.success && [nv.error.message, nv.error.hint]).toEqual(['git: not a versioned zone', expect.stringContaining('documents')]);
    await nosh.close();
    const gitdir = path.join(base, 'versions', 'users', 'zoe', 'Documents.git');
    expect(realGit(gitdir, 'fsck', '--strict', '--no-dangling')).toBe('');
    expect(realGit(gitdir, 'log', '--format=%s|%an|%cn')).toBe([
      'Revert "write: b.txt (1 file)"|zoe|nosh', `checkout: a.txt as of ${realGit(gitdir, 'rev-parse', '--short=7', 'HEAD~3').trim()}|zoe|nosh`,
      `restore: a.txt as of ${realGit(gitdir, 'rev-parse', '--short=7', 'HEAD~5').trim()}|zoe|nosh`,
      'write: b.txt (1 file)|zoe|nosh', 'write: a.txt (1 file)|zoe|nosh', 'write: a.txt (1 file)|zoe|nosh', ''].join('\n'));
    expect(realGit(gitdir, 'tag')).toBe('v1\n');
  });
});
