import { describe, expect, it } from 'vitest';
import {
  compileRegex,
  REGEX_ERROR_MESSAGES,
  RegexSyntaxError,
  translateRegex,
  type RegexOptions,
} from '../../src/regex/index.js';

const B: RegexOptions = { dialect: 'basic' };
const E: RegexOptions = { dialect: 'extended' };
const SED_B: RegexOptions = { dialect: 'basic', flavor: 'sed' };
const SED_E: RegexOptions = { dialect: 'extended', flavor: 'sed' };

function err(pattern: string, opts: RegexOptions): string | undefined {
  try {
    translateRegex(pattern, opts);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(RegexSyntaxError);
    expect(e).toBeInstanceOf(Error);
    return (e as Error).message;
  }
}

const first = (pattern: string, opts: RegexOptions, text: string) => compileRegex(pattern, opts).exec(text)?.[0];

describe('error messages (GNU grep 3.8 / sed 4.9 text)', () => {
  const cases: Array<[string, RegexOptions, string]> = [
    ['[a', B, 'Unmatched [, [^, [:, [., or [='],
    ['a[', B, 'Invalid regular expression'],
    ['[^', E, 'Invalid regular expression'],
    ['[[:alpha:]', B, 'Unmatched [, [^, [:, [., or [='],
    ['\\(a', B, 'Unmatched ( or \\('],
    ['(a', E, 'Unmatched ( or \\('],
    ['a\\)', B, 'Unmatched ) or \\)'],
    ['\\(a\\)\\2', B, 'Invalid back reference'],
    ['(a)|\\1', E, 'Invalid back reference'],
    ['a\\{x\\}', B, 'Invalid content of \\{\\}'],
    ['a{2,1}', E, 'Invalid content of \\{\\}'],
    ['a\\{1', B, 'Unmatched \\{'],
    ['[z-a]', B, 'Invalid range end'],
    ['[[:nope:]]', B, 'Invalid character class name'],
    ['[[.xy.]]', B, 'Invalid collation character'],
    ['ab\\', B, 'Trailing backslash'],
    ['ab\\', E, 'Trailing backslash'],
    ['[:space:]', B, 'character class syntax is [[:space:]], not [:space:]'],
    ['a{32768}', E, 'Regular expression too big'],
    // sed's syntax (RE_SYNTAX_POSIX_BASIC / _EXTENDED), checked against GNU sed 4.9
    ['a**', SED_B, 'Invalid preceding regular expression'],
    ['\\{1\\}a', SED_B, 'Invalid preceding regular expression'],
    ['*a', SED_E, 'Invalid preceding regular expression'],
    ['a|*b', SED_E, 'Invalid preceding regular expression'],
    ['a{', SED_E, 'Unmatched \\{'],
    ['a{1', SED_E, 'Unmatched \\{'],
    ['a)', SED_E, 'Unmatched ) or \\)'],
  ];
  for (const [p, o, msg] of cases) {
    it(`${o.flavor ?? 'grep'} ${o.dialect} ${JSON.stringify(p)}`, () => {
      expect(err(p, o)).toBe(msg);
    });
  }
  it('exports the message table', () => {
    expect(REGEX_ERROR_MESSAGES.BADRPT).toBe('Invalid preceding regular expression');
  });
  it('compileRegex rethrows (cached) errors', () => {
    expect(() => compileRegex('[a', B)).toThrow(RegexSyntaxError);
    expect(() => compileRegex('[a', B)).toThrow('Unmatched [, [^, [:, [., or [=');
  });
});

describe('sed flavour', () => {
  it('accepts what sed accepts', () => {
    expect(first('*a', SED_B, 'x*a')).toBe('*a');
    expect(first('()', SED_E, 'a')).toBe('');
    expect(first('a{,2}', SED_E, 'aaa')).toBe('aa');
    expect(first('a**', SED_E, 'aa')).toBe('aa');
  });
  it('sed escapes', () => {
    const o: RegexOptions = { dialect: 'basic', flavor: 'sed', sedEscapes: true, newline: 'any' };
    expect(first('a\\nb', o, 'xa\nb')).toBe('a\nb');
    expect(first('[\\n]', o, 'n\\\n')).toBe('\n');
    expect(first('[\\t]x', o, 'tx\tx')).toBe('\tx');
    expect(first('\\x41\\o102\\d067', o, 'ABC')).toBe('ABC');
    expect(first('\\cA', o, '\x01')).toBe('\x01');
    // without sedEscapes, \n is n (grep)
    expect(first('a\\nb', B, 'anb')).toBe('anb');
  });
});

describe('API', () => {
  it('reports group count, flags, warnings', () => {
    const t = translateRegex('\\(a\\)\\(b\\(c\\)\\)\\1', B);
    expect(t.groupCount).toBe(3);
    expect(t.hasBackrefs).toBe(true);
    expect(t.flags).toBe('');
    expect(translateRegex('*a', E).warnings).toEqual(['warning: * at start of expression']);
    expect(translateRegex('*a', B).warnings).toEqual([]);
    expect(translateRegex('a', { dialect: 'fixed' }).groupCount).toBe(0);
  });
  it('keeps the user group numbering', () => {
    const m = compileRegex('\\(x\\)\\(a\\|ab\\)\\(c*\\)', B).exec('xabcc')!;
    expect([...m]).toEqual(['xabcc', 'x', 'ab', 'cc']);
    const m2 = compileRegex('(a)|(ab)', E).exec('ab')!;
    expect(m2[1]).toBe('a');
    expect(m2[2]).toBeUndefined();
    const m3 = compileRegex('((a)|ab)c', E).exec('abc')!;
    expect([...m3]).toEqual(['abc', 'ab', undefined]);
  });
  it('returns fresh RegExp objects and adds extra flags', () => {
    const a = compileRegex('a', B, 'g');
    const b = compileRegex('a', B, 'g');
    expect(a).not.toBe(b);
    expect(a.flags).toBe('g');
    expect(compileRegex('\\(a\\)\\1', { dialect: 'basic', ignoreCase: true }, 'gy').flags).toBe('giy');
  });
  it('never uses the u flag; only uses i for -i with back-references', () => {
    expect(translateRegex('abc', { dialect: 'basic', ignoreCase: true }).flags).toBe('');
    expect(translateRegex('\\(a\\)\\1', { dialect: 'basic', ignoreCase: true }).flags).toBe('i');
  });
  it('empty pattern matches everywhere', () => {
    for (const d of ['basic', 'extended', 'fixed'] as const) {
      expect(compileRegex('', { dialect: d }).test('')).toBe(true);
    }
  });
});

describe('text model', () => {
  it('. and [^x] and \\W do not match newline in line mode, do in any mode', () => {
    expect(compileRegex('a.b', B).test('a\nb')).toBe(false);
    expect(compileRegex('a.b', { dialect: 'basic', newline: 'any' }).test('a\nb')).toBe(true);
    expect(compileRegex('a[^x]b', B).test('a\nb')).toBe(false);
    expect(compileRegex('a[^x]b', { dialect: 'basic', newline: 'any' }).test('a\nb')).toBe(true);
    expect(compileRegex('a\\Wb', B).test('a\nb')).toBe(false);
    expect(compileRegex('a\\Wb', { dialect: 'basic', newline: 'any' }).test('a\nb')).toBe(true);
    expect(compileRegex('a.b', B).test('a\xffb')).toBe(true);
  });
  it('multiline: ^ and $ at \\n only (not \\r)', () => {
    const o: RegexOptions = { dialect: 'basic', multiline: true, newline: 'any' };
    expect(compileRegex('^b', o).test('a\nb')).toBe(true);
    expect(compileRegex('a$', o).test('a\nb')).toBe(true);
    expect(compileRegex('^b', o).test('a\rb')).toBe(false);
    expect(compileRegex('a$', o).test('a\rb')).toBe(false);
    expect(compileRegex('\\`b', o).test('a\nb')).toBe(false);
    expect(compileRegex("a\\'", o).test('a\nb')).toBe(false);
    expect(compileRegex('^b', { dialect: 'basic', newline: 'any' }).test('a\nb')).toBe(false);
  });
  it('case folding is ASCII only (C locale)', () => {
    const o: RegexOptions = { dialect: 'basic', ignoreCase: true };
    expect(compileRegex('\xe9', o).test('\xc9')).toBe(false);
    expect(compileRegex('[\xe9]', o).test('\xc9')).toBe(false);
    expect(compileRegex('[^\xe9]', o).test('\xc9')).toBe(true);
    expect(compileRegex('\xe9', { dialect: 'fixed', ignoreCase: true }).test('\xc9')).toBe(false);
    expect(compileRegex('K', o).test('\u212a')).toBe(false);
  });
  it('\\s is the C-locale space class (no NBSP)', () => {
    expect(compileRegex('\\s', B).test('\xa0')).toBe(false);
    expect(compileRegex('[[:space:]]', B).test('\xa0')).toBe(false);
    expect(compileRegex('\\s', B).test('\x0b')).toBe(true);
  });
  it('fixed strings escape everything', () => {
    const specials = '\\^$.|?*+()[]{}/-';
    expect(compileRegex(specials, { dialect: 'fixed' }).exec('x' + specials + 'y')?.[0]).toBe(specials);
  });
});

describe('word anchors', () => {
  it('\\<word\\> compiles without lookarounds', () => {
    const t = translateRegex('\\<foo\\>', B);
    expect(t.usesLookaround).toBe(false);
    expect(t.source).toBe('\\bfoo\\b');
    expect(translateRegex('\\<\\w\\+\\>', B).usesLookaround).toBe(false);
  });
  it('falls back to lookarounds otherwise, with GNU semantics', () => {
    const t = translateRegex('\\<', B);
    expect(t.usesLookaround).toBe(true);
    expect(compileRegex('\\<.', B).exec('  ab')?.index).toBe(2);
    expect(compileRegex('.\\>', B).exec('ab  ')?.[0]).toBe('b');
    expect(compileRegex('\\<-', B).test('a -')).toBe(false);
  });
});

describe("grep's dfa.c reading of odd corners", () => {
  it('ERE { that is not an interval is literal; a valid interval at the start is dropped', () => {
    expect(first('{x', E, 'a{x')).toBe('{x');
    expect(compileRegex('{x', E).test('x')).toBe(false);
    const t = translateRegex('{1}a', E);
    expect(t.warnings).toEqual(['warning: {...} at start of expression']);
    expect(first('{1}a', E, 'ba')).toBe('a');
  });
  it('a repetition operator after an anchor repeats the anchor', () => {
    expect(first('x\\<*', B, 'x*')).toBe('x');
    expect(first('^*a', E, '*a')).toBe('a');
    expect(first('^*a', B, '*a')).toBe('*a');
  });
  it('sed (glibc only) reads them the POSIX way', () => {
    expect(first('x\\<*', SED_B, 'x* x')).toBeUndefined();
    expect(first('x\\<*', SED_B, 'x*')).toBeUndefined();
  });
});

describe('leftmost-longest for alternations', () => {
  it('prefers the longest alternative', () => {
    expect(first('a|ab|abc', E, 'abcd')).toBe('abc');
    expect(first('\\(if\\|ifdef\\)x*', B, 'ifdefx')).toBe('ifdefx');
    expect(first('foo|foobar', E, 'foobar')).toBe('foobar');
  });
});
