// Every case recorded from the real GNU tools (test/gnu/record.mjs) must give the same
// stdout bytes, exit code and (unless the case says otherwise) stderr under nosh.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTree, run, snapshotTree, tempDir } from '../helpers.js';
import { noshHistory, type HistoryCommit } from './git-history-nosh.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const scratch = tempDir('nosh-gnu-');
// (thousands of case folders: removing them may take a while on a loaded machine)
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }), 180_000);

interface Case {
  cmd: string; nosh?: string; stdin?: string; cwd?: string; tree?: Record<string, unknown>; ignore_stderr?: boolean; deviation?: string;
  /** Compare stdout as a sorted list of lines (output order follows readdir order on the recording machine). */
  sort_lines?: boolean;
  /** A regex (flags gm) whose matches become '#' on both sides before comparing (inode numbers). */
  mask?: string;
}

function normalize(s: string, c: Case): string {
  if (c.mask !== undefined) s = s.replace(new RegExp(c.mask, 'gm'), '#');
  if (c.sort_lines) {
    const parts = s.split('\n');
    const last = parts.pop()!;
    s = [...parts.sort(), last].join('\n');
  }
  return s;
}
interface Expected { cmd: string; exit: number; stdout?: string; stdout_base64?: string; stderr: string; tree_after?: string[] }

let n = 0;
for (const file of fs.readdirSync(path.join(here, 'cases')).filter((f) => f.endsWith('.json')).sort()) {
  const name = file.slice(0, -5);
  const suite = JSON.parse(fs.readFileSync(path.join(here, 'cases', file), 'utf8')) as { tree?: Record<string, unknown>; cases: Case[]; ignore_stderr?: boolean;
    /** A git suite: every case runs in a versioned zone with this history (made by git when recording). */
    git?: { commits: HistoryCommit[]; tags?: { name: string; rev: string }[] } };
  const expectedFile = path.join(here, 'expected', file);
  if (!fs.existsSync(expectedFile)) continue;
  const expected = JSON.parse(fs.readFileSync(expectedFile, 'utf8')) as Expected[];
  describe(`GNU ${name}`, () => {
    suite.cases.forEach((c, i) => {
      const exp = expected[i]!;
      it(`${c.cmd}`, async () => {
        expect(exp.cmd).toBe(c.cmd);
        const root = path.join(scratch, `${name}-${i}-${n++}`);
        const gitdir = `${root}.git`;
        if (suite.git) await noshHistory(root, gitdir, suite.git.commits, suite.git.tags);
        buildTree(root, { ...(suite.tree ?? {}), ...(c.tree ?? {}) });
        const out = await run(root, c.nosh ?? c.cmd, { cwd: '/' + (c.cwd ?? ''), stdin: c.stdin ?? '', git: suite.git ? { gitdir, user: 'nosh' } : undefined,
          policy: suite.git ? { blockedPatterns: ['.git'] } : undefined });
        expect(out.error).toBeUndefined();
        const want = exp.stdout_base64 !== undefined ? Buffer.from(exp.stdout_base64, 'base64') : Buffer.from(exp.stdout ?? '');
        expect(normalize(out.stdout.toString('latin1'), c)).toBe(normalize(want.toString('latin1'), c));
        expect(out.exitCode).toBe(exp.exit);
        if (!c.ignore_stderr && !suite.ignore_stderr) expect(out.stderr).toBe(exp.stderr.replace(/^bash: line \d+: /gm, 'nosh: '));
        if (exp.tree_after) expect(snapshotTree(root)).toEqual(exp.tree_after);
      });
    });
  });
}
