// The host process sets this flag early; do the same before any regex is compiled.
import v8 from 'node:v8';
v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

import { describe, expect, it } from 'vitest';
import { compileRegex, translateRegex, type RegexOptions } from '../../src/regex/index.js';

function timed(pattern: string, opts: RegexOptions, text: string): { result: boolean; ms: number } {
  const re = compileRegex(pattern, opts, 'g');
  const t0 = performance.now();
  const result = re.test(text);
  return { result, ms: performance.now() - t0 };
}

describe('catastrophic patterns do not hang (V8 linear-time fallback stays usable)', () => {
  const text = 'a'.repeat(30);
  const cases: Array<[string, RegexOptions]> = [
    ['\\(a*\\)*b', { dialect: 'basic' }],
    ['(a|aa)*c', { dialect: 'extended' }],
    ['(a*)*b', { dialect: 'extended' }],
    ['\\(a\\|a\\)*b', { dialect: 'basic' }],
    ['(x+x+)+y', { dialect: 'extended' }],
    ['^(\\w+\\s?)*$', { dialect: 'extended' }],
    ['\\<a\\(a*\\)*b\\>', { dialect: 'basic' }],
    ['(a*)*b', { dialect: 'extended', newline: 'any' }],
  ];
  for (const [p, o] of cases) {
    it(`${o.dialect} ${p}`, () => {
      const t = translateRegex(p, o);
      expect(t.hasBackrefs || t.usesLookaround).toBe(false);
      const subject = p.includes('\\w') ? 'a'.repeat(30) + '!' : text;
      const { result, ms } = timed(p, o, subject);
      expect(result).toBe(false);
      // Only a hang fails this: the linear engine takes about 2 ms here, a backtracking one
      // minutes (2.4 s at 24 a's, doubling with each a).
      expect(ms).toBeLessThan(10_000);
    });
  }
});
