import { describe, expect, it } from 'vitest';
import { NoshError } from '../../src/errors.js';
import { expandGlob, parseCommandLine, type DirEntryLite } from '../../src/parse/index.js';

/** Parses and returns either the stage count or the NoshError code; anything else fails the test. */
function outcome(line: string): string {
  try {
    const r = parseCommandLine(line);
    return `ok:${r.stages.length}`;
  } catch (e) {
    if (!(e instanceof NoshError)) throw e;
    return e.code;
  }
}


const MB = 1024 * 1024;

/**
 * f's result, failing if it took over 10 s: only to tell a hang from a slow machine, for
 * matching that a backtracking glob would never finish (these take milliseconds).
 */
function endsWithin<T>(f: () => T, ms = 10_000): T {
  const t = performance.now();
  const r = f();
  expect(performance.now() - t).toBeLessThan(ms);
  return r;
}

describe('hostile input finishes fast and only throws NoshError', () => {
  it.each([
    ['one 1 MB word', 'echo ' + 'x'.repeat(MB), 'ok:1'],
    ['1 MB single-quoted', "echo '" + 'a;|&$`'.repeat(MB / 6) + "'", 'ok:1'],
    ['1 MB double-quoted', 'echo "' + 'a;|&'.repeat(MB / 4) + '"', 'ok:1'],
    ['1 MB of escapes', 'echo ' + '\\;'.repeat(MB / 2), 'ok:1'],
    ['10000 empty quote pairs', 'echo ' + "''".repeat(10_000), 'ok:1'],
    ['10000 quoted words', 'echo ' + "'a' ".repeat(9_000), 'ok:1'],
    ['10001 single quotes', 'echo ' + "'".repeat(10_001), 'INVALID_ARGUMENT'],
    ['10001 double quotes', 'echo ' + '"'.repeat(10_001), 'INVALID_ARGUMENT'],
    ['500000 words', 'a '.repeat(500_000), 'INVALID_ARGUMENT'],
    ['100000 pipes', 'a|'.repeat(100_000) + 'a', 'INVALID_ARGUMENT'],
    ['1 MB of $', 'echo ' + '$'.repeat(MB), 'METACHAR_REJECTED'],
    ['1 MB of [', 'echo ' + '['.repeat(MB), 'ok:1'],
    ['1 MB of {', 'echo ' + '{'.repeat(MB), 'ok:1'],
    ['1 MB of {,', 'echo ' + '{,'.repeat(MB / 2), 'ok:1'],
    ['1 MB of {, then }', 'echo ' + '{,'.repeat(MB / 2) + '}', 'INVALID_ARGUMENT'],
    ['1 MB of {a,b} in quotes', "echo '" + '{a,b}'.repeat(MB / 5) + "'", 'ok:1'],
    ['1 MB of {a}', 'echo ' + '{a}'.repeat(MB / 3), 'ok:1'],
    ['1 MB of {a},', 'echo ' + '{a},'.repeat(MB / 4), 'INVALID_ARGUMENT'],
    ['100000 brace pairs', 'echo ' + '{a,b}'.repeat(100_000), 'INVALID_ARGUMENT'],
    ['deeply nested braces', 'echo ' + '{'.repeat(100_000) + 'a,b' + '}'.repeat(100_000), 'INVALID_ARGUMENT'],
    ['deeply nested alternatives', 'echo ' + '{a,'.repeat(100_000) + '}'.repeat(100_000), 'INVALID_ARGUMENT'],
    ['nested 150 deep', 'echo ' + '{a,'.repeat(150) + 'b' + '}'.repeat(150), 'ok:1'],
    ['huge sequence', 'echo {1..100000000}', 'INVALID_ARGUMENT'],
    ['huge char sequences', 'echo ' + '{a..z}'.repeat(10), 'INVALID_ARGUMENT'],
    ['1 MB of newlines in quotes', "echo '" + '\n'.repeat(MB) + "'", 'ok:1'],
    ['1 MB of backslash-newlines', 'echo a' + '\\\n'.repeat(MB / 2) + 'b', 'ok:1'],
    // the brace scanning budget is the line's, not each word's
    ['2000 words of 2000 unmatched braces', 'echo ' + Array.from({ length: 2000 }, () => '}' + '{'.repeat(2000) + ',').join(' '), 'INVALID_ARGUMENT'],
    // the comment check read the last char of a growing string, flattening it each time
    ['500000 comments after a continuation', 'echo \\\n' + '#\n'.repeat(500_000), 'METACHAR_REJECTED'],
  ])('%s', (_name, line, expected) => {
    // No wall-clock bound (the host is shared and noisy): these take 1-110 ms; a parse
    // quadratic in 1 MB would take minutes and fail by the test timeout.
    expect(outcome(line)).toBe(expected);
  });

  // Big enough that a quadratic pass would take minutes (the test timeout fails it), too big
  // to hold to a wall-clock bound on a shared machine (0.5-0.9 s each, linear).
  it.each([
    ['14 MB after a continuation', 'echo \\\n' + '"a"'.repeat(1_500_000) + "'a'".repeat(1_500_000) + '\\a'.repeat(1_500_000), 'ok:1'],
    ['7 M escapes', 'echo ' + '\\a'.repeat(7_000_000), 'ok:1'],
    ['7 M words, refused before they are all held', 'a '.repeat(7_000_000), 'INVALID_ARGUMENT'],
  ])('%s', (_name, line, expected) => {
    expect(outcome(line)).toBe(expected);
  });

  it('keeps the metachar message short on a long line', () => {
    try {
      parseCommandLine('x'.repeat(MB) + ';' + 'y'.repeat(MB));
    } catch (e) {
      expect((e as NoshError).message.length).toBeLessThan(200);
    }
  });

  it('survives random garbage', () => {
    let seed = 42;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const alphabet = ` \t\n\r'"\\$\`{},.;&|<>()#*?[]!^-~=@%+:/0aZ_\u00e9\u{1F600}\0`;
    const chars = [...alphabet];
    for (let i = 0; i < 5000; i++) {
      let line = '';
      const len = rnd(40);
      for (let j = 0; j < len; j++) line += chars[rnd(chars.length)];
      outcome(line);
    }
  });

  it('expands a pathological glob pattern quickly', () => {
    const entries: DirEntryLite[] = Array.from({ length: 1000 }, (_, i) => ({ name: 'a'.repeat(200) + i, isDirectory: false }));
    const listDir = (): DirEntryLite[] => entries;
    const star = '*a'.repeat(5000) + 'b';
    expect(endsWithin(() => expandGlob({ value: star, glob: star }, '/', listDir))).toEqual([star]);
    const brackets = '[ab]'.repeat(2000);
    expect(endsWithin(() => expandGlob({ value: brackets, glob: brackets }, '/', listDir))).toEqual([brackets]);
  });
});
