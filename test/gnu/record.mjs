#!/usr/bin/env node
// Re-records expected outputs from the real GNU tools: node test/gnu/record.mjs [name...]
// For each cases/NAME.json it builds the tree in a temp folder, runs every case with bash
// under LC_ALL=C TZ=UTC, and writes expected/NAME.json (stdout, stderr, exit code, tree after).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTree, snapshotTree } from './tree.mjs';
import { recordHistory } from './git-history.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
for (const file of fs.readdirSync(path.join(here, 'cases')).sort()) {
  if (!file.endsWith('.json')) continue;
  const name = file.slice(0, -5);
  if (only.length && !only.includes(name)) continue;
  const suite = JSON.parse(fs.readFileSync(path.join(here, 'cases', file), 'utf8'));
  const results = [];
  for (const c of suite.cases) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-gnu-'));
    const root = path.join(tmp, 'root');
    const env = { PATH: process.env.PATH, LC_ALL: 'C', TZ: 'UTC', HOME: tmp };
    // a git suite: the history first (made by git), then the case's own files on top
    if (suite.git) recordHistory(root, suite.git.commits, env);
    if (suite.git) for (const t of suite.git.tags ?? []) spawnSync('git', ['tag', t.name, t.rev], { cwd: root, env });
    buildTree(root, { ...(suite.tree ?? {}), ...(c.tree ?? {}) });
    // disable_builtins: run the coreutils program, not bash's builtin of that name (printf, test, [).
    const prelude = suite.disable_builtins ? `enable -n ${suite.disable_builtins.join(' ')}; ` : '';
    const r = spawnSync('bash', ['-c', prelude + c.cmd], {
      cwd: path.join(root, c.cwd ?? ''),
      input: c.stdin !== undefined ? Buffer.from(c.stdin) : Buffer.alloc(0),
      env: suite.git ? { ...env, GIT_COMMITTER_NAME: 'nosh', GIT_COMMITTER_EMAIL: 'nosh@nosh', GIT_AUTHOR_NAME: 'nosh', GIT_AUTHOR_EMAIL: 'nosh@nosh', GIT_PAGER: 'cat', PAGER: 'cat' } : env,
      maxBuffer: 64 * 1024 * 1024,
    });
    const stdout = r.stdout;
    const rec = { cmd: c.cmd, exit: r.status };
    if (Buffer.from(stdout.toString('utf8')).equals(stdout)) rec.stdout = stdout.toString('utf8');
    else rec.stdout_base64 = stdout.toString('base64');
    rec.stderr = r.stderr.toString('utf8');
    // stderr_rewrite: {text: replacement}, e.g. a reference binary's install path where the tool prints its argv[0]
    for (const [from, to] of Object.entries(suite.stderr_rewrite ?? {})) rec.stderr = rec.stderr.split(from).join(to);
    if (c.tree_after || suite.tree_after) rec.tree_after = snapshotTree(root);
    results.push(rec);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  fs.writeFileSync(path.join(here, 'expected', `${name}.json`), JSON.stringify(results, null, 1) + '\n');
  console.log(`${name}: ${results.length} cases recorded`);
}
