// quoteName / quoteNameColon / quoteAlways against outputs recorded from GNU coreutils 9.1
// under LC_ALL=C: `ls -d --quoting-style=shell-escape NAME` (quotearg shell-escape, no colon),
// `cat NAME` (quotef: shell-escape, ':' quoted too) and `head NAME` ("cannot open %s for
// reading", quoteaf: shell-escape-always). null: ls could not create a file of that name.
import { describe, expect, it } from 'vitest';
import { quoteAlways, quoteName, quoteNameColon, quoteStyled } from '../../src/gnulib/quote.js';

const GNU: [name: string, shellEscape: string | null, quotef: string, quoteaf: string][] = [
  ["abc", "abc", "abc", "'abc'"],
  ["a-b_c.d/e", null, "a-b_c.d/e", "'a-b_c.d/e'"],
  ["%+,@]", "%+,@]", "%+,@]", "'%+,@]'"],
  ["a:b", "a:b", "'a:b'", "'a:b'"],
  ["a=b", "'a=b'", "'a=b'", "'a=b'"],
  ["=b", "'=b'", "'=b'", "'=b'"],
  ["^x", "'^x'", "'^x'", "'^x'"],
  ["x^", "'x^'", "'x^'", "'x^'"],
  ["~x", "'~x'", "'~x'", "'~x'"],
  ["x~", "x~", "x~", "'x~'"],
  ["#x", "'#x'", "'#x'", "'#x'"],
  ["x#", "x#", "x#", "'x#'"],
  ["{", "'{'", "'{'", "'{'"],
  ["}", "'}'", "'}'", "'}'"],
  ["{x", "{x", "{x", "'{x'"],
  ["x}", "x}", "x}", "'x}'"],
  ["a b", "'a b'", "'a b'", "'a b'"],
  ["!x", "'!x'", "'!x'", "'!x'"],
  ["*", "'*'", "'*'", "'*'"],
  ["?", "'?'", "'?'", "'?'"],
  ["[a", "'[a'", "'[a'", "'[a'"],
  ["a]", "a]", "a]", "'a]'"],
  ["$x", "'$x'", "'$x'", "'$x'"],
  ["a\\b", "'a\\b'", "'a\\b'", "'a\\b'"],
  ["", null, "''", "''"],
  ["a'b", "\"a'b\"", "\"a'b\"", "\"a'b\""],
  ["#a'b", "\"#a'b\"", "\"#a'b\"", "\"#a'b\""],
  ["a'b c", "\"a'b c\"", "\"a'b c\"", "\"a'b c\""],
  ["a'b:", "\"a'b:\"", "\"a'b:\"", "\"a'b:\""],
  ["a'b*", "'a'\\''b*'", "'a'\\''b*'", "'a'\\''b*'"],
  ["a'b#", "'a'\\''b#'", "'a'\\''b#'", "'a'\\''b#'"],
  ["a'b?", "'a'\\''b?'", "'a'\\''b?'", "'a'\\''b?'"],
  ["\nx", "''$'\\n''x'", "''$'\\n''x'", "''$'\\n''x'"],
  ["a\f\nb", "'a'$'\\f\\n''b'", "'a'$'\\f\\n''b'", "'a'$'\\f\\n''b'"],
  ["a\n", "'a'$'\\n'", "'a'$'\\n'", "'a'$'\\n'"],
  ["\u0001\u007f", "''$'\\001\\177'", "''$'\\001\\177'", "''$'\\001\\177'"],
  ["\ta\tb", "''$'\\t''a'$'\\t''b'", "''$'\\t''a'$'\\t''b'", "''$'\\t''a'$'\\t''b'"],
  ["caf\u00e9", "'caf'$'\\303\\251'", "'caf'$'\\303\\251'", "'caf'$'\\303\\251'"],
  ["\u20ac", "''$'\\342\\202\\254'", "''$'\\342\\202\\254'", "''$'\\342\\202\\254'"],
  ["a'\n", "'''a'\\'''$'\\n'", "'''a'\\'''$'\\n'", "'''a'\\'''$'\\n'"],
  ["'a'b\n", "''\\''a'\\''b'$'\\n'", "''\\''a'\\''b'$'\\n'", "''\\''a'\\''b'$'\\n'"],
  ["\n'", "''$'\\n'\\'''", "''$'\\n'\\'''", "''$'\\n'\\'''"],
  ["a'\u00e9", "'''a'\\'''$'\\303\\251'", "'''a'\\'''$'\\303\\251'", "'''a'\\'''$'\\303\\251'"],
  ["'\u007f", "''\\'''$'\\177'", "''\\'''$'\\177'", "''\\'''$'\\177'"],
  ["x'\ny'", "'x'\\'''$'\\n''y'\\'''", "'x'\\'''$'\\n''y'\\'''", "'x'\\'''$'\\n''y'\\'''"],
  ["x\ud83d\ude00", "'x'$'\\360\\237\\230\\200'", "'x'$'\\360\\237\\230\\200'", "'x'$'\\360\\237\\230\\200'"],
];

describe('quoteName (GNU shell-escape quoting, C locale)', () => {
  for (const [name, ls, cat, head] of GNU) {
    it(JSON.stringify(name), () => {
      if (ls !== null) expect(quoteName(name)).toBe(ls);
      expect(quoteNameColon(name)).toBe(cat);
      expect(quoteAlways(name)).toBe(head);
    });
  }
});

// `LC_ALL=C ls -d --quoting-style=STYLE NAME` (GNU coreutils 9.1; escape: ls adds ' ' to the quoted bytes).
const STYLED: [name: string, style: Parameters<typeof quoteStyled>[1], gnu: string][] = [
  ["it's", 'shell', `"it's"`],
  ["it's", 'locale', `'it\\'s'`],
  ["it's", 'c', `"it's"`],
  ['nl\nx', 'shell', "'nl\nx'"],
  ['nl\nx', 'shell-escape', "'nl'$'\\n''x'"],
  ['nl\nx', 'escape', 'nl\\nx'],
  ['c\x01d', 'shell', 'c\x01d'],
  ['c\x01d', 'shell-always', "'c\x01d'"],
  ['c\x01d', 'c', '"c\\001d"'],
  ['hi\u00e9', 'shell-escape', "'hi'$'\\303\\251'"],
  ['hi\u00e9', 'locale', "'hi\\303\\251'"],
  ['hi\u00e9', 'shell', 'hi\u00e9'],
  ['b\\s', 'shell', "'b\\s'"],
  ['b\\s', 'escape', 'b\\\\s'],
  ['x"y', 'c', '"x\\"y"'],
  ['x"y', 'clocale', '"x\\"y"'],
  ["dq'$", 'shell-escape-always', `'dq'\\''$'`],
  ['\x7f', 'shell-escape', "''$'\\177'"],
  ['{', 'shell', "'{'"],
  ['a{', 'shell', 'a{'],
  ['a:b', 'literal', 'a:b'],
];

describe('quoteStyled (gnulib quotearg styles, C locale)', () => {
  for (const [name, style, gnu] of STYLED) {
    it(`${style} ${JSON.stringify(name)}`, () => {
      expect(quoteStyled(name, style, style === 'escape' ? ' ' : null)).toBe(gnu);
    });
  }
  it('escape style quotes the bytes ls adds (space; =>@| with -F)', () => {
    expect(quoteStyled('a b@', 'escape', ' =>@|')).toBe('a\\ b\\@');
    expect(quoteStyled('a@', 'shell', '=>@|')).toBe("'a@'");
  });
});
