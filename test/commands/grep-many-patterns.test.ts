// grep with many literal patterns (one Aho-Corasick automaton, commands/grep.ts literalMatcher)
// gives what the regex path gives: the same patterns plus one never-matching non-literal
// pattern (which keeps grep on its regexes) are the reference.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LiteralSet } from '../../src/regex/aho-corasick.js';
import { run, tempDir } from '../helpers.js';

const root = tempDir('nosh-grep-many-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

let seed = 7;
const rnd = (n: number) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
// A small alphabet so that patterns overlap, share prefixes and suffixes, and hit often.
const ALPHA = 'abAB_ -.x';
const word = (min: number, max: number) => {
  let w = '';
  const n = min + rnd(max - min + 1);
  for (let i = 0; i < n; i++) w += ALPHA[rnd(ALPHA.length)];
  return w;
};

const patterns: string[] = [];
for (let i = 0; i < 60; i++) patterns.push(word(1, 5));
const lines: string[] = [];
for (let i = 0; i < 400; i++) lines.push(i % 17 === 0 ? patterns[i % 60]! : word(0, 14));
fs.writeFileSync(path.join(root, 'text.txt'), lines.join('\n') + '\nno newline at the end a');
const esc = (p: string) => p.replace(/\./g, '\\.');
fs.writeFileSync(path.join(root, 'pats.txt'), patterns.join('\n') + '\n');
// The same strings as BRE regexes: '.' escaped (so not literal: the regex path).
fs.writeFileSync(path.join(root, 'pats-esc.txt'), patterns.map(esc).join('\n') + '\n');
fs.writeFileSync(path.join(root, 'pats-lit.txt'), patterns.filter((p) => !p.includes('.')).join('\n') + '\n');
fs.writeFileSync(path.join(root, 'pats-empty.txt'), patterns.join('\n') + '\n\n');
fs.writeFileSync(path.join(root, 'pats-esc-empty.txt'), patterns.map(esc).join('\n') + '\n\n');
// Never matches (no 'Q' in the text) and is not literal: keeps grep on its regexes.
fs.writeFileSync(path.join(root, 'regex.txt'), 'Q[Q]QQ\n');

describe('grep: many literal patterns (one automaton) match as the regex path does', () => {
  expect(patterns.some((p) => p.includes('.'))).toBe(true);
  const cases: [string, string][] = [];
  for (const f of ['-c', '-n', '-o -b', '-w -n', '-w -o', '-x -n', '-x -o', '-i -c', '-i -o', '-i -w -o', '-v -c', '-v -x -c', '-c -z', '-o -z', '-l', '-L']) {
    cases.push([`grep -F ${f} -f pats.txt text.txt`, `grep ${f} -f pats-esc.txt text.txt`]);
    cases.push([`grep ${f} -f pats-lit.txt text.txt`, `grep ${f} -f pats-lit.txt -f regex.txt text.txt`]);
    cases.push([`grep -E ${f} -f pats-lit.txt text.txt`, `grep -E ${f} -f pats-lit.txt -f regex.txt text.txt`]);
  }
  for (const f of ['-c', '-o', '-x -c', '-x -n', '-v -c', '-w -c', '-n']) {
    cases.push([`grep -F ${f} -f pats-empty.txt text.txt`, `grep ${f} -f pats-esc-empty.txt text.txt`]);
  }
  it.each(cases)('%s', async (fast, reference) => {
    const want = await run(root, reference);
    const got = await run(root, fast);
    expect(got.stderr).toBe(want.stderr);
    expect(got.exitCode).toBe(want.exitCode);
    expect(got.stdout.toString('latin1')).toBe(want.stdout.toString('latin1'));
  });
});

describe('LiteralSet', () => {
  // Brute force: every occurrence of every string, the leftmost then longest with -w's boundaries.
  const isWord = (c: string | undefined) => c !== undefined && /[0-9A-Za-z_]/.test(c);
  function brute(strs: string[], line: string, from: number, w: boolean, i: boolean): [number, number] | null {
    const f = (s: string) => (i ? s.replace(/[A-Z]/g, (c) => c.toLowerCase()) : s);
    const l = f(line);
    let best: [number, number] | null = null;
    for (const s of strs.map(f)) {
      for (let at = l.indexOf(s, from); at >= 0; at = l.indexOf(s, at + 1)) {
        if (w && (isWord(line[at - 1]) || isWord(line[at + s.length]))) continue;
        if (!best || at < best[0] || (at === best[0] && at + s.length > best[1])) best = [at, at + s.length];
      }
    }
    return best;
  }
  it('finds the leftmost-longest occurrence as brute force does (random strings and lines, -w, -i)', () => {
    for (let round = 0; round < 300; round++) {
      const strs: string[] = [];
      for (let k = 0; k < 1 + rnd(30); k++) strs.push(word(1, 6));
      const line = word(0, 40);
      const w = rnd(2) === 1;
      const i = rnd(2) === 1;
      const set = LiteralSet.build(strs, { ignoreCase: i, word: w, line: false })!;
      for (let from = 0; from <= line.length; from += 1 + rnd(5)) {
        expect(set.match(line, from), JSON.stringify({ strs, line, from, w, i })).toEqual(brute(strs, line, from, w, i));
      }
      expect(set.test(line)).toBe(brute(strs, line, 0, w, i) !== null);
    }
  });
});
