/**
 * Versioned zones (issue #19): a one-file write that nosh commits, against spawning
 * `git add` + `git commit` on a repository of the same 1000 files; the same write in storage
 * (no commit), to show what the commit costs; and `git log -n 20` on a 10 000-commit history,
 * nosh's git command against spawning git on the same repository (made once by git
 * fast-import, and used by nosh as the zone's history).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createNosh, type Nosh } from '../../src/index.js';
import { measureInterleaved } from '../measure.js';
import type { Cell, Ctx, Scenario, ScenarioResult } from './common.js';

const FILES = 1000;
const COMMITS = 10_000;
const ctxUser = { user: 'bench' };

interface Fixture { base: string; nosh: Nosh; docs: string; gitRepo: string; logRepo: string }
let fixture: Promise<Fixture> | undefined;

function git(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', args, {
    cwd, input, encoding: 'utf8', maxBuffer: 1 << 28,
    env: { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@nosh', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@nosh' },
  });
}

/** A fast-import stream: `n` commits, each changing one of FILES files (the first adds them all). */
function history(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push('commit refs/heads/main', `mark :${i + 1}`, `committer bench <bench@nosh> ${1767225600 + i} +0000`);
    const msg = `change ${i}`;
    out.push(`data ${msg.length}`, msg);
    if (i > 0) out.push(`from :${i}`);
    const files = i === 0 ? Array.from({ length: FILES }, (_, k) => k) : [i % FILES];
    for (const k of files) {
      const body = `file ${k} version ${i}\n`;
      out.push(`M 100644 inline f${k}.txt`, `data ${Buffer.byteLength(body)}`, body.slice(0, -1));
    }
  }
  return out.join('\n') + '\n';
}

async function setup(ctx: Ctx): Promise<Fixture> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-bench-ver-'));
  ctx.progress('versioning: a 1000-file documents zone and a git repository of the same files');
  const nosh = await createNosh({ base, threads: 2 });
  const docs = path.join(base, 'users', 'bench', 'Documents');
  // The zone's first commit holds the 1000 files (one call: cp -r of a folder made in storage).
  const storage = path.join(base, 'users', 'bench', 'Storage');
  await nosh.call('list', { zone: 'storage', context: ctxUser, path: '.' });
  await nosh.call('list', { zone: 'documents', context: ctxUser, path: '.' });
  fs.mkdirSync(path.join(storage, 'tree'), { recursive: true });
  for (let k = 0; k < FILES; k++) fs.writeFileSync(path.join(storage, 'tree', `f${k}.txt`), `file ${k}\n`);
  const t = await nosh.call('transfer', { context: ctxUser, from: 'storage', to: 'documents', path: 'tree' });
  if (!t.success) throw new Error(`versioning bench: cannot fill the documents zone: ${JSON.stringify(t.error)}`);
  const gitRepo = path.join(base, 'git-work');
  fs.mkdirSync(gitRepo);
  git(gitRepo, ['init', '-q', '-b', 'main']);
  for (let k = 0; k < FILES; k++) fs.writeFileSync(path.join(gitRepo, `f${k}.txt`), `file ${k}\n`);
  git(gitRepo, ['add', '-A']);
  git(gitRepo, ['commit', '-q', '-m', 'start']);
  // The 10 000-commit history: made by git, read by git (logRepo) and by nosh (a documents zone's gitdir).
  ctx.progress(`versioning: a ${COMMITS}-commit history (git fast-import)`);
  const logRepo = path.join(base, 'versions', 'users', 'logger', 'Documents.git');
  fs.mkdirSync(logRepo, { recursive: true });
  git(logRepo, ['init', '-q', '--bare', '-b', 'main']);
  git(logRepo, ['fast-import', '--quiet'], history(COMMITS));
  return { base, nosh, docs, gitRepo, logRepo };
}

function cell(system: string, label: string, stats: Cell['stats']): Cell {
  return { system, label, status: 'ok', stats };
}

let n = 0;

export const versioningScenarios: Scenario[] = [
  {
    id: 'versioning/write-commit',
    group: 'versioning',
    title: 'one-file write + commit (1000-file zone) vs git add + git commit spawned',
    async run(ctx): Promise<ScenarioResult> {
      const f = await (fixture ??= setup(ctx));
      const o = ctx.profile.spawn;
      const write = async (zone: string) => {
        const r = await f.nosh.call('write', { zone, context: ctxUser, path: 'tree/f1.txt', content: `change ${n++}\n` });
        if (!r.success) throw new Error(`write in ${zone}: ${JSON.stringify(r.error)}`);
      };
      const spawnGit = async () => {
        fs.writeFileSync(path.join(f.gitRepo, 'f1.txt'), `change ${n++}\n`);
        for (const args of [['add', 'f1.txt'], ['commit', '-q', '-m', 'change']]) {
          const r = spawnSync('git', args, { cwd: f.gitRepo, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
          if (r.status !== 0) throw new Error(`git ${args[0]}: exit ${r.status}`);
        }
      };
      const [docs, storage, g] = await measureInterleaved([() => write('documents'), () => write('storage'), spawnGit], [o, o, o]);
      const commitCost = docs!.median - storage!.median;
      return {
        id: this.id, group: this.group, title: this.title, better: 'lower',
        cells: [cell('nosh', 'nosh documents', docs), cell('gnu', 'git add + commit', g)],
        note: `the same write in storage (no commit): ${(storage!.median / 1e3).toFixed(0)} µs; the commit adds ${(commitCost / 1e3).toFixed(0)} µs`,
      };
    },
  },
  {
    id: 'versioning/log-20',
    group: 'versioning',
    title: `git log -n 20 --oneline on a ${COMMITS}-commit history`,
    async run(ctx): Promise<ScenarioResult> {
      const f = await (fixture ??= setup(ctx));
      const o = ctx.profile.spawn;
      const ours = async () => {
        const r = await f.nosh.exec({ zone: 'documents', context: { user: 'logger' }, command: 'git log -n 20 --oneline' });
        if (!r.success || r.data.exit_code !== 0 || r.data.stdout.split('\n').length !== 21) throw new Error('nosh git log: wrong answer');
      };
      const theirs = async () => {
        const r = spawnSync('git', ['--git-dir', f.logRepo, 'log', '-n', '20', '--oneline'], { encoding: 'utf8' });
        if (r.status !== 0 || r.stdout.split('\n').length !== 21) throw new Error('git log: wrong answer');
      };
      const [a, b] = await measureInterleaved([ours, theirs], [o, o]);
      return { id: this.id, group: this.group, title: this.title, better: 'lower', cells: [cell('nosh', 'nosh', a), cell('gnu', 'git spawned', b)] };
    },
  },
];
