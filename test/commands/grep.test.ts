// grep behaviour the GNU fixtures cannot show: zone policy, regex safety, chunk boundaries.
import * as v8 from 'node:v8';
v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, runArgv, tempDir } from '../helpers.js';

const scratch = tempDir('nosh-grep-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let n = 0;
function zone(files: Record<string, string | Buffer>): string {
  const root = path.join(scratch, `z${n++}`);
  fs.mkdirSync(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    const p = path.join(root, name);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
  return root;
}

describe('grep: catastrophic regexes finish', () => {
  const line = 'a'.repeat(50_000) + '\n';
  it("grep -E '(a|aa)*c' on a long line of a's", async () => {
    const root = zone({ 'a.txt': line });
    const t = Date.now();
    const out = await run(root, "grep -E '(a|aa)*c' a.txt");
    expect(out.exitCode).toBe(1);
    expect(Date.now() - t).toBeLessThan(5000);
  });
  it("grep '\\(a*\\)*b' on a long line of a's", async () => {
    const root = zone({ 'a.txt': line });
    const t = Date.now();
    const out = await run(root, "grep -c '\\(a*\\)*b' a.txt");
    expect(out.stdout.toString()).toBe('0\n');
    expect(Date.now() - t).toBeLessThan(5000);
  });
});

describe('grep: zone policy', () => {
  function withLinks(): string {
    const base = path.join(scratch, `l${n++}`);
    fs.mkdirSync(path.join(base, 'outside'), { recursive: true });
    fs.writeFileSync(path.join(base, 'outside', 'secret.txt'), 'needle outside\n');
    fs.writeFileSync(path.join(base, 'secret.txt'), 'needle outside\n');
    const root = path.join(base, 'zone');
    fs.mkdirSync(path.join(root, 'd'), { recursive: true });
    fs.writeFileSync(path.join(root, 'in.txt'), 'needle inside\n');
    fs.writeFileSync(path.join(root, 'd', 'deep.txt'), 'needle deep\n');
    fs.symlinkSync('../outside', path.join(root, 'outdir'));
    fs.symlinkSync('../secret.txt', path.join(root, 'out.txt'));
    fs.symlinkSync(path.join(base, 'secret.txt'), path.join(root, 'abs.txt'));
    fs.symlinkSync('in.txt', path.join(root, 'inlink.txt'));
    fs.symlinkSync('d', path.join(root, 'dlink'));
    return root;
  }

  it('grep -r neither follows nor lists symlinks out of the zone', async () => {
    const root = withLinks();
    const out = await run(root, 'grep -r needle');
    expect(out.stdout.toString()).toBe('d/deep.txt:needle deep\nin.txt:needle inside\n');
    expect(out.stderr).toBe('');
    expect(out.exitCode).toBe(0);
  });

  it('grep -R follows only links that stay inside, and only when the policy follows symlinks', async () => {
    const root = withLinks();
    const plain = await run(root, 'grep -R needle');
    expect(plain.stdout.toString()).toBe('d/deep.txt:needle deep\nin.txt:needle inside\n');
    const follow = await run(root, 'grep -R needle', { policy: { followSymlinks: true } });
    expect(follow.stdout.toString()).toBe('d/deep.txt:needle deep\ndlink/deep.txt:needle deep\nin.txt:needle inside\ninlink.txt:needle inside\n');
    expect(follow.stdout.toString()).not.toContain('outside');
    expect(follow.stderr).toBe('');
  });

  it('a symlink operand pointing out of the zone is refused, never read', async () => {
    const root = withLinks();
    const out = await run(root, 'grep -r needle out.txt outdir abs.txt', { policy: { followSymlinks: true } });
    expect(out.stdout.toString()).toBe('');
    expect(out.exitCode).toBe(2);
    expect(out.stderr).not.toContain('needle');
    expect(out.stderr.split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('a blocked .env never appears in grep -r results and cannot be searched by name', async () => {
    const root = zone({ '.env': 'SECRET=1\n', 'a.txt': 'SECRET in a\n', 'sub/.env': 'SECRET=2\n' });
    const policy = { blockedPatterns: ['.env'] };
    const rec = await run(root, 'grep -r SECRET', { policy });
    expect(rec.stdout.toString()).toBe('a.txt:SECRET in a\n');
    expect(rec.exitCode).toBe(0);
    const listed = await run(root, 'grep -rL nothing', { policy });
    expect(listed.stdout.toString()).toBe('a.txt\n');
    const direct = await run(root, 'grep SECRET .env', { policy });
    expect(direct.stdout.toString()).toBe('');
    expect(direct.stderr).toBe('grep: .env: Permission denied (blocked by zone policy)\n');
    expect(direct.exitCode).toBe(2);
    const viaF = await run(root, 'grep -f .env a.txt', { policy });
    expect(viaF.exitCode).toBe(2);
    expect(viaF.stdout.toString()).toBe('');
  });
});

describe('grep: chunk boundaries (files larger than one 256 KiB chunk)', () => {
  // 120 000 lines of varying length, a match every 997 lines: matches and context fall on
  // chunk boundaries somewhere.
  const lines: string[] = [];
  for (let i = 1; i <= 120_000; i++) lines.push(i % 997 === 0 ? `hit ${i} ${'x'.repeat(i % 50)}` : `line ${i} ${'y'.repeat(i % 37)}`);
  const text = lines.join('\n') + '\n';
  const offsets: number[] = [];
  let off = 0;
  for (const l of lines) {
    offsets.push(off);
    off += l.length + 1;
  }
  const hits = lines.map((l, i) => (l.startsWith('hit') ? i : -1)).filter((i) => i >= 0);
  const root = zone({ 'big.txt': text });

  it('-c and -n count across chunks', async () => {
    expect((await run(root, 'grep -c hit big.txt')).stdout.toString()).toBe(`${hits.length}\n`);
    expect((await run(root, 'grep -vc hit big.txt')).stdout.toString()).toBe(`${lines.length - hits.length}\n`);
    const want = hits.map((i) => `${i + 1}:${offsets[i]}:${lines[i]}\n`).join('');
    expect((await run(root, 'grep -nb hit big.txt')).stdout.toString()).toBe(want);
    expect((await run(root, "grep -n '^line 120000 ' big.txt")).stdout.toString()).toBe(`120000:${lines[119_999]}\n`);
    // The same file met by a walk (read through its directory's handle).
    expect((await run(root, 'grep -rn hit')).stdout.toString()).toBe(hits.map((i) => `big.txt:${i + 1}:${lines[i]}\n`).join(''));
  });

  it('-C context and separators across chunks', async () => {
    const want: string[] = [];
    let last = -1;
    for (const h of hits) {
      const from = Math.max(h - 3, last + 1);
      if (last >= 0 && from > last + 1) want.push('--\n');
      for (let i = from; i <= Math.min(h + 3, lines.length - 1); i++) want.push(`${i + 1}${i === h ? ':' : '-'}${lines[i]}\n`);
      last = Math.min(h + 3, lines.length - 1);
    }
    expect((await run(root, 'grep -n -C3 hit big.txt')).stdout.toString()).toBe(want.join(''));
  });

  it('-m stops early; -o -b give match offsets', async () => {
    expect((await run(root, 'grep -m2 -n hit big.txt')).stdout.toString()).toBe(hits.slice(0, 2).map((i) => `${i + 1}:${lines[i]}\n`).join(''));
    const out = await runArgv(root, ['grep', '-ob', 'hit [0-9]*', 'big.txt']);
    expect(out.stdout.toString()).toBe(hits.map((i) => `${offsets[i]}:hit ${i + 1}\n`).join(''));
  });

  it('a very long line without a newline at the end', async () => {
    const r = zone({ 'long.txt': 'z'.repeat(700_000) + 'needle' + 'z'.repeat(10) });
    const out = await run(r, 'grep -c needle long.txt');
    expect(out.stdout.toString()).toBe('1\n');
    const o = await run(r, 'grep -ob needle long.txt');
    expect(o.stdout.toString()).toBe('700000:needle\n');
    // The same line from a pipe: its pieces are joined once, and the line after it still counts.
    const piped = await run(r, 'cat long.txt long.txt | grep -c needle');
    expect(piped.stdout.toString()).toBe('1\n');
  });
});

describe('grep: misc', () => {
  it('egrep and fgrep select their matcher from the invoked name', async () => {
    const root = zone({ 'a.txt': 'a|b\nab\nb\n' });
    expect((await run(root, "egrep 'a|b' a.txt")).stdout.toString()).toBe('a|b\nab\nb\n');
    expect((await run(root, "fgrep 'a|b' a.txt")).stdout.toString()).toBe('a|b\n');
  });

  it('--color=always colours the match with GNU\'s default SGR; --color=auto never colours', async () => {
    const root = zone({ 'a.txt': 'xay\n' });
    const out = await run(root, 'grep --color=always a a.txt');
    expect(out.exitCode).toBe(0);
    expect(out.stdout.toString()).toBe('x\x1b[01;31m\x1b[Ka\x1b[m\x1b[Ky\n');
    expect((await run(root, 'grep --color=auto a a.txt')).stdout.toString()).toBe('xay\n');
  });

  it('a match ending at a newline via \\s is not taken across lines', async () => {
    const root = zone({ 'a.txt': 'end\nstart\n' });
    const out = await run(root, "grep -c 'd\\s*s' a.txt");
    expect(out.stdout.toString()).toBe('0\n');
  });

  it('-D skip passes over a FIFO operand in silence; -D read reports it (nosh never opens one), as without -D', async () => {
    // GNU: -D skip opens it non-blocking and skips it (exit 1, no message); -D read would block on it.
    const root = zone({ 'a.txt': 'x\n' });
    execFileSync('mkfifo', [path.join(root, 'ff')]); // set-up only
    const skip = await run(root, 'grep -D skip -c x ff a.txt');
    expect([skip.exitCode, skip.stdout.toString(), skip.stderr]).toEqual([0, 'a.txt:1\n', '']);
    for (const line of ['grep -D read x ff a.txt', 'grep x ff a.txt']) {
      const read = await run(root, line);
      expect(read.exitCode, line).toBe(2);
      expect(read.stdout.toString()).toBe('a.txt:x\n');
      expect(read.stderr).toBe('grep: ff: Permission denied (special file not opened)\n');
    }
  });
});

describe('grep -P: PCRE constructs nosh refuses (GNU accepts them)', () => {
  // [pattern, -i, message]: exit 2, nothing on stdout, the message after "grep: "
  const table: Array<[string, boolean, string]> = [
    ["a++", false, "-P: nosh does not support the possessive quantifier '++'; use the greedy '+' (it may give back characters)"],
    ["a*+", false, "-P: nosh does not support the possessive quantifier '*+'; use the greedy '*' (it may give back characters)"],
    ["a{2}+", false, "-P: nosh does not support the possessive quantifier '{2}+'; use the greedy '{2}' (it may give back characters)"],
    ["(?>a|ab)c", false, "-P: nosh does not support atomic groups (?>...); use a non-capturing group (?:...) (it may backtrack)"],
    ["foo\\Kbar", false, "-P: nosh does not support \\K; use a lookbehind (?<=...) for the part before it"],
    ["x(?R)?y", false, "-P: nosh does not support recursion and subroutine calls ((?R), (?N), (?&name)); repeat the pattern explicitly"],
    ["(a)(?1)", false, "-P: nosh does not support recursion and subroutine calls ((?R), (?N), (?&name)); repeat the pattern explicitly"],
    ["(?<n>a)(?&n)", false, "-P: nosh does not support recursion and subroutine calls ((?R), (?N), (?&name)); repeat the pattern explicitly"],
    ["(a)?(?(1)b|c)", false, "-P: nosh does not support conditional groups (?(...)...); use alternation"],
    ["(?x) a", false, "-P: nosh does not support the inline option 'x' in '(?x...'; only (?i), (?s) and (?m) (and their - forms) are supported"],
    ["(?U)a*", false, "-P: nosh does not support the inline option 'U' in '(?U...'; only (?i), (?s) and (?m) (and their - forms) are supported"],
    ["\\p{L}", false, "-P: nosh does not support \\p{...} (Unicode properties); use a class such as [[:alpha:]] or [^[:alpha:]]"],
    ["\\X", false, "-P: nosh does not support \\X; use . (bytes: no Unicode clusters under LC_ALL=C)"],
    ["\\C", false, "-P: nosh does not support \\C; use ."],
    ["(*UCP)a", false, "-P: nosh does not support backtracking control verbs (*...); remove the verb"],
    ["\\Ga", false, "-P: nosh does not support \\G; anchor with ^ instead"],
    ["a{,3}", false, "-P: nosh does not support the '{,N}' quantifier; write '{0,N}' (or '\\{' for a literal brace)"],
    ["\\R", false, "-P: nosh does not support \\R; use (?:\\r\\n|[\\n\\v\\f\\r\\x85])"],
    ["(?=a)x*a", false, "-P: nosh does not support a leading lookahead on a literal character followed by a variable-length repeat (GNU grep 3.8 with PCRE2 10.42 misses some of its matches); rewrite the pattern without the leading lookahead"],
    ["(?|(a)|(b))", false, "-P: nosh does not support branch reset groups (?|...); use (?:...) and number the groups as written"],
    ["(?=a)*", false, "-P: nosh does not support a quantifier on a lookaround assertion; drop the quantifier or make the assertion optional with (?:...|)"],
    ["(a)?\\1", false, "-P: nosh does not support the back-reference \\1 where group 1 may be unset (PCRE then fails, JavaScript matches empty); make sure the group always matches before the reference"],
    ["(a)|\\1", false, "-P: nosh does not support the back-reference \\1 where group 1 may be unset (PCRE then fails, JavaScript matches empty); make sure the group always matches before the reference"],
    ["\\1(a)", false, "-P: nosh does not support the back-reference \\1 where group 1 may be unset (PCRE then fails, JavaScript matches empty); make sure the group always matches before the reference"],
    ["(a\\1)", false, "-P: nosh does not support the back-reference \\1 where group 1 may be unset (PCRE then fails, JavaScript matches empty); make sure the group always matches before the reference"],
    ["(.)\\1", true, "-P: nosh does not support a caseless back-reference to a group that can match bytes 0xC0-0xFE; drop -i/(?i) or write the case variants in the group explicitly"],
    ["\\x", false, "-P: nosh does not support '\\x' without hex digits; write \\x00 for a NUL byte"],
    ["\\12", false, "-P: nosh does not support the escape '\\12...'; write \\g{N} for a back-reference or \\xHH for a byte"],
    ["(?<=(a)\\1)b", false, "-P: nosh does not support back-references inside a lookbehind; move the reference out of the lookbehind"],
    ["[\\Qa\\E]", false, "-P: nosh does not support \\Q...\\E inside [...]; escape the characters one by one"],
    ["\\o{101}", false, "-P: nosh does not support \\o{...}; write the byte as \\xHH"],
    ["(?^)a", false, "-P: nosh does not support the inline option '^' in '(?^...'; only (?i), (?s) and (?m) (and their - forms) are supported"],
    ["\\g<1>(a)", false, "-P: nosh does not support subroutine calls \\g<...>; repeat the group's pattern, or use \\g{N} for a back-reference"],
  ];
  for (const [pattern, icase, message] of table) {
    it(`grep -P${icase ? 'i' : ''} '${pattern}'`, async () => {
      const root = zone({ 'a.txt': 'aab foo bar\n' });
      const out = await runArgv(root, ['grep', icase ? '-Pi' : '-P', '-e', pattern, 'a.txt']);
      expect([out.exitCode, out.stdout.toString(), out.stderr]).toEqual([2, '', `grep: ${message}\n`]);
    });
  }

  it('accepts a case-sensitive back-reference after (?-i), and a caseless one to an ASCII-only group', async () => {
    const root = zone({ 'a.txt': 'aA\naa\nxX\n' });
    const cs = await runArgv(root, ['grep', '-P', '(?i)(a)(?-i)\\1', 'a.txt']);
    expect([cs.exitCode, cs.stdout.toString()]).toEqual([0, 'aa\n']);
    const ci = await runArgv(root, ['grep', '-iP', '(\\w)\\1', 'a.txt']);
    expect([ci.exitCode, ci.stdout.toString()]).toEqual([0, 'aA\naa\nxX\n']);
  });
});
