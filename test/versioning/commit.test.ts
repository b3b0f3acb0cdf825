import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { realGit } from './git-helpers.js';

const base = tempDir('nosh-ver-');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const docsGit = (b: string, user: string) => path.join(b, 'versions', 'users', user, 'Documents.git');

describe('versioned zones: one commit per call', () => {
  it('writes, edits, exec and deletes in documents are commits with the user as author; real git fsck and log agree', async () => {
    const nosh = await createNosh({ base, threads: 1 });
    const ctx = { user: 'alice' };
    expect((await nosh.call('write', { zone: 'documents', context: ctx, path: 'notes.md', content: 'a\nb\n' })).success).toBe(true);
    expect((await nosh.call('write', { zone: 'documents', context: ctx, path: 'dir/x.txt', content: 'x\n', create_dirs: true, message: 'add x' })).success).toBe(true);
    const r = await nosh.exec({ zone: 'documents', context: ctx, command: 'sed -i s/a/b/ notes.md' });
    expect(r.success && r.data.exit_code).toBe(0);
    // a call that changed nothing makes no commit
    await nosh.exec({ zone: 'documents', context: ctx, command: 'cat notes.md' });
    await nosh.exec({ zone: 'documents', context: ctx, command: 'mkdir empty' });
    await nosh.exec({ zone: 'documents', context: ctx, command: 'rm -r dir' });
    await nosh.close();
    const gitdir = docsGit(base, 'alice');
    expect(realGit(gitdir, 'fsck', '--strict', '--no-dangling')).toBe('');
    const log = realGit(gitdir, 'log', '--format=%an <%ae>|%cn|%s', '--name-status');
    expect(log).toBe([
      'alice <alice@nosh>|nosh|exec: rm -r dir (1 file)', '', 'D\tdir/x.txt',
      'alice <alice@nosh>|nosh|exec: sed -i s/a/b/ notes.md (1 file)', '', 'M\tnotes.md',
      'alice <alice@nosh>|nosh|add x', '', 'A\tdir/x.txt',
      'alice <alice@nosh>|nosh|write: notes.md (1 file)', '', 'A\tnotes.md', '',
    ].join('\n'));
    expect(realGit(gitdir, 'show', 'HEAD~1:notes.md')).toBe('b\nb\n');
    // the git directory is outside the zone, and .git is a blocked name in it
    const n2 = await createNosh({ base, threads: 1 });
    const ls = await n2.exec({ zone: 'documents', context: ctx, command: 'ls -a' });
    expect(ls.success && ls.data.stdout).toBe('.\n..\nempty\nnotes.md\n');
    const w = await n2.call('write', { zone: 'documents', context: ctx, path: '.git/config', content: 'x', create_dirs: true });
    expect(!w.success && w.error.code).toBe('BLOCKED_PATH');
    await n2.close();
  });

  it('an existing folder\'s files become the first commit; storage is not versioned unless configured', async () => {
    const b = tempDir('nosh-ver-first-');
    fs.mkdirSync(path.join(b, 'users', 'carol', 'Documents'), { recursive: true });
    fs.writeFileSync(path.join(b, 'users', 'carol', 'Documents', 'old.txt'), 'old\n');
    fs.writeFileSync(path.join(b, 'users', 'carol', 'Documents', '.env'), 'SECRET=1\n');
    const nosh = await createNosh({ base: b, threads: 1 });
    await nosh.call('write', { zone: 'documents', context: { user: 'carol' }, path: 'new.txt', content: 'new\n' });
    await nosh.call('write', { zone: 'storage', context: { user: 'carol' }, path: 's.txt', content: 's\n' });
    await nosh.close();
    const gitdir = docsGit(b, 'carol');
    expect(realGit(gitdir, 'log', '--format=%s', '--name-only')).toBe(
      'write: new.txt (1 file)\n\nnew.txt\nnosh: the zone\'s files as they were when versioning began\n\nold.txt\n');
    expect(fs.existsSync(path.join(b, 'versions', 'users', 'carol', 'Storage.git'))).toBe(false);
    fs.rmSync(b, { recursive: true, force: true });
  });

  it('200 writes from 8 concurrent callers give 200 commits in one line, each with its own change', async () => {
    const b = tempDir('nosh-ver-conc-');
    const nosh = await createNosh({ base: b, threads: 2 });
    const ctx = { user: 'dave' };
    await Promise.all(Array.from({ length: 8 }, async (_, caller) => {
      for (let i = 0; i < 25; i++) {
        const r = caller % 2 === 0
          ? await nosh.call('write', { zone: 'documents', context: ctx, path: `c${caller}/f${i}.txt`, content: `${caller} ${i}\n`, create_dirs: true })
          : await nosh.exec({ zone: 'documents', context: ctx, command: `tee -a log${caller}.txt` }, { stdin: `${i}\n` });
        expect(r.success).toBe(true);
      }
    }));
    await nosh.close();
    const gitdir = docsGit(b, 'dave');
    const parents = realGit(gitdir, 'log', '--format=%P').split('\n').slice(0, -1);
    expect(parents).toHaveLength(200);
    expect(parents.filter((p) => p.includes(' '))).toEqual([]); // no merges: linear
    expect(parents.at(-1)).toBe('');
    const counts = realGit(gitdir, 'log', '--format=', '--name-only').trim().split('\n');
    expect(counts).toHaveLength(200); // each commit one file
    expect(realGit(gitdir, 'fsck', '--strict')).toBe('');
    expect(realGit(gitdir, 'show', 'HEAD:log1.txt').split('\n').length).toBe(26);
    fs.rmSync(b, { recursive: true, force: true });
  });

  it('a failed commit is an error envelope saying the change was made; the next commit picks it up', async () => {
    const b = tempDir('nosh-ver-fail-');
    const nosh = await createNosh({ base: b, threads: 1 });
    const ctx = { user: 'erin' };
    await nosh.call('write', { zone: 'documents', context: ctx, path: 'a.txt', content: '1\n' });
    const objects = path.join(docsGit(b, 'erin'), 'objects');
    fs.renameSync(objects, objects + '.away');
    fs.writeFileSync(objects, 'not a folder');
    const r = await nosh.call('write', { zone: 'documents', context: ctx, path: 'b.txt', content: '2\n' });
    expect(!r.success && r.error.message).toMatch(/change was made, but it was not versioned/);
    expect(fs.readFileSync(path.join(b, 'users', 'erin', 'Documents', 'b.txt'), 'utf8')).toBe('2\n');
    fs.rmSync(objects);
    fs.renameSync(objects + '.away', objects);
    expect((await nosh.call('write', { zone: 'documents', context: ctx, path: 'c.txt', content: '3\n' })).success).toBe(true);
    await nosh.close();
    expect(realGit(docsGit(b, 'erin'), 'show', '--format=%s', '--name-only', 'HEAD')).toBe('write: c.txt (1 file)\n\nb.txt\nc.txt\n');
    fs.rmSync(b, { recursive: true, force: true });
  });

  it('a change a stopped process left uncommitted (the dirty marker) is committed by the next start', async () => {
    const b = tempDir('nosh-ver-crash-');
    const n1 = await createNosh({ base: b, threads: 1 });
    await n1.call('write', { zone: 'documents', context: { user: 'fay' }, path: 'a.txt', content: '1\n' });
    await n1.close();
    // what a kill -9 between the write and its commit leaves: the file changed, the marker set
    fs.writeFileSync(path.join(b, 'users', 'fay', 'Documents', 'a.txt'), 'changed\n');
    fs.writeFileSync(path.join(docsGit(b, 'fay'), 'nosh-dirty'), '');
    const n2 = await createNosh({ base: b, threads: 1 });
    await n2.call('write', { zone: 'documents', context: { user: 'fay' }, path: 'b.txt', content: '2\n' });
    await n2.close();
    expect(realGit(docsGit(b, 'fay'), 'show', 'HEAD:a.txt')).toBe('changed\n');
    expect(realGit(docsGit(b, 'fay'), 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('a.txt\nb.txt\n');
    expect(realGit(docsGit(b, 'fay'), 'log', '--format=%s')).toBe(
      'write: b.txt (1 file)\nnosh: changes left uncommitted by an interrupted call\nwrite: a.txt (1 file)\n');
    expect(fs.existsSync(path.join(docsGit(b, 'fay'), 'nosh-dirty'))).toBe(false);
    fs.rmSync(b, { recursive: true, force: true });
  });

  it('the versioned policy: storage can be versioned, documents turned off', async () => {
    const b = tempDir('nosh-ver-pol-');
    const nosh = await createNosh({ base: b, threads: 1, zones: { storage: { versioned: true }, documents: { versioned: false } } });
    await nosh.call('write', { zone: 'storage', context: { user: 'gus' }, path: 'a.txt', content: '1\n' });
    await nosh.call('write', { zone: 'documents', context: { user: 'gus' }, path: 'a.txt', content: '1\n' });
    await nosh.close();
    expect(realGit(path.join(b, 'versions', 'users', 'gus', 'Storage.git'), 'log', '--format=%s', '--name-only')).toBe(
      'write: a.txt (1 file)\n\na.txt\nnosh: the zone\'s files as they were when versioning began\n\nREADME.txt\n');
    expect(fs.existsSync(docsGit(b, 'gus'))).toBe(false);
    fs.rmSync(b, { recursive: true, force: true });
  });
});
