import { describe, expect, it } from 'vitest';
import { NoshError } from '../../src/errors.js';
import { parseCommandLine } from '../../src/parse/index.js';

function args(line: string, maxWords?: number): string[] {
  return parseCommandLine('cmd ' + line, { maxWords }).stages[0].slice(1).map((w) => w.value);
}

function fail(line: string, maxWords?: number): NoshError {
  try {
    parseCommandLine(line, { maxWords });
  } catch (e) {
    expect(e).toBeInstanceOf(NoshError);
    return e as NoshError;
  }
  throw new Error(`expected ${JSON.stringify(line)} to be rejected`);
}

// Expected values were produced by `LC_ALL=C bash -c 'set -f; for a in S <case>; do printf "%s\0" "$a"; done'`.
const BASH_BRACES: [string, string[]][] = [
  ["{a,b}", ["a", "b"]],
  ["x{a,b}y", ["xay", "xby"]],
  ["{a,{b,c}}", ["a", "b", "c"]],
  ["{{a,b}}", ["{a}", "{b}"]],
  ["{a,b}{1,2}", ["a1", "a2", "b1", "b2"]],
  ["{,}", []],
  ["x{,}y", ["xy", "xy"]],
  ["''{,}", ["", ""]],
  ["{a,}", ["a"]],
  ["{,a}", ["a"]],
  ["{,''}", [""]],
  ["{}", ["{}"]],
  ["{a}", ["{a}"]],
  ["{}{}", ["{}{}"]],
  ["x{}y{a,b}", ["x{}ya", "x{}yb"]],
  ["{a,b}{}", ["a{}", "b{}"]],
  ["{{}a,b}", ["{}a", "b"]],
  ["{a,{}}", ["a", "{}"]],
  ["{},a}", ["{},a}"]],
  ["{a}b,c}", ["a}b", "c"]],
  ["a{b{c,d}", ["a{bc", "a{bd"]],
  ["{a,b}}", ["a}", "b}"]],
  ["{{a,b}", ["{a", "{b"]],
  ["{a..e}", ["a", "b", "c", "d", "e"]],
  ["{e..a}", ["e", "d", "c", "b", "a"]],
  ["{a..e..2}", ["a", "c", "e"]],
  ["{!..%}", ["{!..%}"]],
  ["{1..5}", ["1", "2", "3", "4", "5"]],
  ["{5..1}", ["5", "4", "3", "2", "1"]],
  ["{01..10}", ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10"]],
  ["{1..10..3}", ["1", "4", "7", "10"]],
  ["{1..10..-3}", ["1", "4", "7", "10"]],
  ["{10..1..3}", ["10", "7", "4", "1"]],
  ["{1..5..0}", ["1", "2", "3", "4", "5"]],
  ["{-05..3}", ["-05", "-04", "-03", "-02", "-01", "000", "001", "002", "003"]],
  ["{1..010}", ["001", "002", "003", "004", "005", "006", "007", "008", "009", "010"]],
  ["{-1..02}", ["-1", "00", "01", "02"]],
  ["{+1..3}", ["1", "2", "3"]],
  ["{0..3}", ["0", "1", "2", "3"]],
  ["{00..3}", ["00", "01", "02", "03"]],
  ["{-3..3..2}", ["-3", "-1", "1", "3"]],
  ["{3..-3}", ["3", "2", "1", "0", "-1", "-2", "-3"]],
  ["{1..99999999999999999999}", ["{1..99999999999999999999}"]],
  ["{a..9}", ["{a..9}"]],
  ["{1..b}", ["{1..b}"]],
  ["{aa..b}", ["{aa..b}"]],
  ["{\"1\"..3}", ["{1..3}"]],
  ["{1...3}", ["{1...3}"]],
  ["{1..3..}", ["{1..3..}"]],
  ["{..3}", ["{..3}"]],
  ["{1..}", ["{1..}"]],
  ["{a..a}", ["a"]],
  ["{5..5}", ["5"]],
  ["{1..3}x{a,b}", ["1xa", "1xb", "2xa", "2xb", "3xa", "3xb"]],
  ["{a,b}\"{c,d}\"", ["a{c,d}", "b{c,d}"]],
  ["{a,'b,c'}", ["a", "b,c"]],
  ["{a\\,b,c}", ["a,b", "c"]],
  ["{a,b}\\{c,d\\}", ["a{c,d}", "b{c,d}"]],
  ["\\{a,b}", ["{a,b}"]],
  ["{a..c','}", ["a..c,"]],
  ["'{a,b}'", ["{a,b}"]],
  ["\"{a,b}\"", ["{a,b}"]],
  ["{a,b", ["{a,b"]],
  ["a,b}", ["a,b}"]],
  ["{x{1..2},y}", ["x1", "x2", "y"]],
  ["{1..2}{", ["1{", "2{"]],
  ["{a,b}{c..e}", ["ac", "ad", "ae", "bc", "bd", "be"]],
  ["a{1..3}b{x,y}c", ["a1bxc", "a1byc", "a2bxc", "a2byc", "a3bxc", "a3byc"]],
  ["{a\\}b,c}", ["a}b", "c"]],
  ["{a'}'b,c}", ["a}b", "c"]],
  ["{$,a}", ["$", "a"]],
  ["{a,b}=x", ["a=x", "b=x"]],
  ["--{a,b}=1", ["--a=1", "--b=1"]],
  ["{1..3..2}{a,b}", ["1a", "1b", "3a", "3b"]],
  ["{-1..-5..2}", ["-1", "-3", "-5"]],
  ["{a..e..-2}", ["a", "c", "e"]],
  ["{A..z..10}", ["A", "K", "U", "_", "i", "s"]],
  ["{1,2}{3..4}{a,b}", ["13a", "13b", "14a", "14b", "23a", "23b", "24a", "24b"]],
];

describe('brace expansion (as bash)', () => {
  it.each(BASH_BRACES)('%s', (line, expected) => {
    expect(args(line)).toEqual(expected);
  });

  it('expands each word separately, in order', () => {
    expect(args('{a,b} x {1..2}')).toEqual(['a', 'b', 'x', '1', '2']);
  });

  it("keeps find's {} and a lone brace", () => {
    expect(args('-exec rm {} + { } {a}')).toEqual(['-exec', 'rm', '{}', '+', '{', '}', '{a}']);
  });

  it('does not mark brace results as globs unless they contain glob chars', () => {
    const words = parseCommandLine('cmd {a,b*}.ts').stages[0].slice(1);
    expect(words).toEqual([{ value: 'a.ts' }, { value: 'b*.ts', glob: 'b*.ts' }]);
  });
});

// The time bounds below catch a blow-up (expanding 10^8 words first would take far longer or
// run out of memory); they are not speed claims, hence their width.
describe('brace expansion bounds', () => {
  it('fails fast on a huge sequence, before allocating it', () => {
    const t = Date.now();
    const e = fail('echo {1..100000000}');
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.message).toContain('10000');
    expect(Date.now() - t).toBeLessThan(5000);
  });

  it('fails fast on a huge cartesian product', () => {
    const t = Date.now();
    expect(fail('echo ' + '{a,b,c,d}'.repeat(30)).code).toBe('INVALID_ARGUMENT');
    expect(fail('echo ' + '{0..9}'.repeat(8)).code).toBe('INVALID_ARGUMENT');
    expect(Date.now() - t).toBeLessThan(5000);
  });

  it('honours maxWords over the whole line', () => {
    expect(args('{1..5}', 6)).toHaveLength(5);
    expect(fail('cmd {1..5}', 5).code).toBe('INVALID_ARGUMENT');
    expect(fail('cmd {1..3} {1..3}', 6).code).toBe('INVALID_ARGUMENT');
    expect(fail('a b c', 2).code).toBe('INVALID_ARGUMENT');
    expect(args('{1..9999}')).toHaveLength(9999);
  });

  it('bounds the size of the expanded text', () => {
    const long = 'x'.repeat(1_000_000);
    expect(fail(`echo {a,b,c,d,e,f,g,h,i}${long}`).code).toBe('INVALID_ARGUMENT');
    expect(args(`{a,b}${long}`).map((s) => s.length)).toEqual([1_000_001, 1_000_001]);
  });

  it('leaves sequences that overflow bash integers unexpanded, as bash', () => {
    expect(args('{1..99999999999999999999}')).toEqual(['{1..99999999999999999999}']);
    // bash refuses sequences of more than INT_MAX elements and leaves them as they are
    expect(args('{1..9999999999}')).toEqual(['{1..9999999999}']);
  });
});
