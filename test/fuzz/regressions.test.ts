// Cases the fuzz suite (commands.fuzz.test.ts) found, pinned so they stay fixed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runArgv, tempDir } from '../helpers.js';

const root = tempDir('nosh-fuzz-reg-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
for (const f of ['a', 'b', 'c', 'z', '-']) fs.writeFileSync(path.join(root, `${f}.t`), 'foo\n');

describe('grep --include/--exclude globs with odd bracket ranges (was INTERNAL_ERROR: invalid JS regex)', () => {
  // Expected lists recorded with GNU grep 3.8.
  const cases: [string, string][] = [
    ['[z-a].t', ''],
    ['[!z-a].t', '-.t a.t b.t c.t z.t'],
    ['[a-c].t', 'a.t b.t c.t'],
    ['[[:alpha:]-z].t', '-.t a.t b.t c.t z.t'],
    ['[a-].t', '-.t a.t'],
    ['[-a].t', '-.t a.t'],
    ['[a-c-z].t', '-.t a.t b.t c.t z.t'],
  ];
  for (const [glob, want] of cases) {
    test(glob, async () => {
      const r = await runArgv(root, ['grep', '-rl', '--include', glob, 'foo', '.']);
      expect(r.error).toBeUndefined();
      expect(r.stdout.toString().split('\n').filter(Boolean).map((l) => l.replace('./', '')).sort().join(' ')).toBe(want);
      const x = await runArgv(root, ['grep', '-rl', '--exclude', glob, 'foo', '.']);
      expect(x.error).toBeUndefined();
    });
  }
});

describe('tree -I with a reversed bracket range (was INTERNAL_ERROR: invalid JS regex)', () => {
  for (const pat of ['[z-a].t', '[!z-a]*', 'b|[z-a]*', '[a-c-].t', '[\\]-a]']) {
    test(pat, async () => {
      const r = await runArgv(root, ['tree', '-I', pat, '.']);
      expect(r.error).toBeUndefined();
      expect(r.exitCode).toBe(0);
    });
  }
  test('[z-a].t ignores nothing (tree 2.x)', async () => {
    const r = await runArgv(root, ['tree', '-I', '[z-a].t', '.']);
    expect(r.stdout.toString()).toContain('z.t');
  });
});

describe('grep with patterns V8 cannot compile (was INTERNAL_ERROR "Regular expression too large")', () => {
  test('one huge pattern: a grep diagnostic, exit 2', async () => {
    const r = await runArgv(root, ['grep', '-f', '-', 'a.t'], { stdin: 'y'.repeat(70000) });
    expect(r.error).toBeUndefined();
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^grep: regular expression too large/);
  });
  test('many patterns too large once joined still match, one by one', async () => {
    const pats = Array.from({ length: 3000 }, (_, i) => `p${i}${'q'.repeat(20)}`);
    const r = await runArgv(root, ['grep', '-c', '-f', '-', 'a.t'], { stdin: [...pats, 'foo'].join('\n') });
    expect(r.error).toBeUndefined();
    expect(r.stdout.toString()).toBe('1\n');
  });
});

describe('regexes V8 refuses to compile are diagnostics, not INTERNAL_ERROR', () => {
  const H = 'y'.repeat(70000);
  const cases: [string[], number, RegExp][] = [
    [['grep', '-r', '--include', H, 'foo', '.'], 2, /^grep: glob pattern too large/],
    [['find', '.', '-regex', H], 1, /^find: failed to compile regular expression '/],
    [['sed', `s/${H}/x/`, 'a.t'], 1, /^sed: -e expression #1, char \d+: regular expression too large/],
  ];
  for (const [argv, code, msg] of cases) {
    test(`${argv[0]} ${argv.map((a) => (a.length > 40 ? '<70000 chars>' : a)).slice(1).join(' ')}`, async () => {
      const r = await runArgv(root, argv);
      expect(r.error).toBeUndefined();
      expect(r.exitCode).toBe(code);
      expect(r.stderr.replace(/y{100,}/g, 'Y')).toMatch(msg);
    });
  }
});
