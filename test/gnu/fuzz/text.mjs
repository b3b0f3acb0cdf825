// fuzz-diff generator for the text filters cut, tr, head, tail and wc (one picked per case):
//   node test/gnu/fuzz-diff.mjs text [seed] [cases]
// Inputs are small and tricky: no final newline, empty, NUL and \xff bytes, CRLF, tabs, a
// line longer than a read chunk. Left out, as nosh refuses them on purpose (README, "Known
// deviations"): tail -f/-F/--follow (refused with exit 1, where GNU would wait forever).
// Not generated either: --help (nosh's text is its own) and --version (nosh prints its own text), nor
// their abbreviations (`--ver` is --verbose, README). Only in messages (stderr, not compared):
// an invalid short option that is a non-ASCII letter is named whole, and file names read
// by wc --files0-from that are not UTF-8 lose their raw bytes.

const long = 'L'.repeat(70_000);
const contents = {
  a: 'a:b:c\none:two\tthree\nx\n:\n',
  noeol: 'abc:def\tg\nlast:line',
  empty: '',
  nul: 'a\0b:c\0\nd\0e\n\0',
  ff: '\xff\xfe:\x80\n\xe9t\xe9 w\xa0x\n',
  crlf: 'one\r\ntwo words\r\n\r\nthree',
  tabs: '\ta\tbb\n12345678\tx\n \t \n\v\f word\rback\n',
  lines: Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
  long: `${long}:tail\nshort\n${long}`,
  z: 'one\0two:2\0three\nx\0last',
  names0: 'a\0noeol\0nosuch\0lines\0',
  names0bad: 'a\0\0empty',
  'sp ace': 'space name\n',
  many: Array.from({ length: 20_000 }, (_, i) => `${i % 7 ? 'n' : ''}${i}${i % 5 ? '' : '\t:w'}`).join('\n'),
  exact: 'e'.repeat(65_535) + '\n' + 'f'.repeat(65_535) + '\n',
  dir: null,
};
// Bytes as written (latin1: one byte per char, \xff stays one byte).
const files = Object.fromEntries(Object.entries(contents).map(([k, v]) => [k, v === null ? null : Buffer.from(v, 'latin1')]));

export default function text({ rnd, pick }) {
  const some = (n, f) => Array.from({ length: n }, f);
  const operands = (max = 3) => some(rnd(max + 1), () => pick(['a', 'noeol', 'empty', 'nul', 'ff', 'crlf', 'tabs', 'lines', 'long', 'z', '-', 'nosuch', 'dir', 'sp ace', 'many', 'exact']));
  const stdin = () => {
    const words = ['a', 'b:c', 'x\ty', '', '\0', '\xff', 'A-Z', 'aa  bb', '\r', 'one:two:three', 'zz', '\\', 'é', '\v', '12', 'L'.repeat(90),
      '\f', '\x80\x7f', 'a\0:b\0', '\t\t\tx', rnd(8) === 0 ? long : 'l'];
    let s = '';
    for (let i = 0, n = rnd(6); i < n; i++) s += pick(words) + (i < n - 1 || rnd(3) ? pick(['\n', '\n', '\0', ':', '\t']) : '');
    return s;
  };

  function cut() {
    const item = () => pick(['1', '2', '3', '1-2', '2-', '-2', '3-1', '0', '1-0', '-', '2-3', '10', '1,3', '1-2,2-3', '4-', '1-1', 'a', '1-2-3',
      '', ',', '1,,2', '18446744073709551616', '2 3', '0-2', '-0', '5-6', '1-3,2', '3,1', '2-4,1-2', '70001-', '65535-65537', '2-2',
      '1-', '9999999999', '-1', '2,4-', '1-2,4-5', '4294967297', '2147483648-']);
    const list = some(1 + rnd(3), item).join(pick([',', ',', ' ']));
    const argv = ['cut'];
    const mode = rnd(10);
    if (mode < 3) argv.push(pick(['-b', '--bytes']), list);
    else if (mode < 5) argv.push(pick(['-c', '-c']), list);
    else if (mode < 9) argv.push(pick(['-f', '--fields']), list);
    else if (rnd(2)) argv.push('-b1', '-f2'); // two lists
    for (let i = rnd(4); i > 0; i--) {
      const f = pick(['-d', '-d', '-s', '--complement', '--output-delimiter', '-z', '-n', '--only-delimited']);
      if (f === '-d') argv.push(pick(['-d', '--delimiter']), pick([':', ':', '\t', ' ', 'a', '', '::', '\n', 'é']));
      else if (f === '--output-delimiter') argv.push(`--output-delimiter=${pick(['', '|', '--', '\n', ':'])}`);
      else argv.push(f);
    }
    return { argv: [...argv, ...operands()], stdin: stdin() };
  }

  function tr() {
    const atom = () => pick(['a', 'b', 'x', 'a-z', 'A-Z', 'z-a', '0-9', 'a-c', '[:alpha:]', '[:digit:]', '[:upper:]', '[:lower:]', '[:space:]',
      '[:punct:]', '[:alnum:]', '[:blank:]', '[:cntrl:]', '[:graph:]', '[:print:]', '[:xdigit:]', '[:foo:]', '[=a=]', '[=ab=]', '[x*3]', '[x*]',
      '[y*010]', '[a*09]', '[z*0]', '\\n', '\\t', '\\\\', '\\101', '\\0', '\\377', '\\400', '\\', '-', '\\-', ':', '[', ']', 'xyz', '\\q',
      '[a-c]', '\\r', '\\v', 'A', '[:upper:][:lower:]', '\xff', '\x80-\xff', 'b-a', '[=', '[:', '[::]', 'a-', '-z',
      '\\000-\\377', '\\0-\\10', '[a*]', '[\\n*2]', '[:*4]', '[*3]', '[=*=]', '[==]', '[=[=]', 'a\\-z', '\\a\\b\\f', '\\1234', '\\8',
      '[:upper:]-z', 'a-[:lower:]', '[[:digit:]]', '[x*18446744073709551616]', '[x*0x3]', '[x*3a]', '\\\\-a', '\\x41']);
    const set = (n) => some(n, atom).join('');
    const argv = ['tr'];
    for (let i = rnd(3); i > 0; i--) argv.push(pick(['-d', '-s', '-c', '-C', '-t', '-ds', '-cd', '-cs', '--delete', '--squeeze-repeats', '--complement', '--truncate-set1', '-A']));
    const n = pick([1, 1, 2, 2, 2, 2, 0, 3]);
    const sets = [set(1 + rnd(3)), set(1 + rnd(3)), 'abc'].slice(0, n);
    if (rnd(2) === 0 && n > 0) { // mostly valid pairs, to reach the translation itself
      sets[0] = pick(['a-z', '[:lower:]', '[:upper:]', 'abc', '\\n', '[:space:]', '[:digit:]', '\\000-\\037', '[=a=]', 'x-z', '[:alpha:]',
        'a-zA-Z', '[:punct:][:space:]', '\\200-\\377', 'aab', 'b-a'.slice(rnd(2) * 3)]);
      if (n > 1) sets[1] = pick(['A-Z', '[:upper:]', '[:lower:]', 'xyz', '[x*]', '[y*3]z', '-', 'ab', '\\t', 'z', 'A-Z[x*]', '[:lower:][:upper:]', '\\377', '[\\n*]']);
    }
    return { argv: [...argv, ...sets], stdin: stdin() };
  }

  const count = (plus) => pick(['0', '1', '2', '3', '5', '10', plus, `${plus}0`, `${plus}1`, `${plus}2`, `${plus}3`, '-0', '-1', '-2', '-5',
    '1k', '1K', '2b', '1kB', '1KiB', '1M', '1MB', '1G', '1x', 'k', '', ' 2', '99999999999999999999', `${plus}99999999999999999999`,
    '1e', '0x3', `${plus}3k`, '1Y', '1R', '010', '-1b', '100000',
    '10000', `${plus}10000`, '-10000', '19999', '65536', '-65536', `${plus}65537`, '131072', '2']);
  const headTailFlags = (argv) => {
    for (let i = rnd(3); i > 0; i--) argv.push(pick(['-q', '-v', '-z', '--quiet', '--silent', '--verbose', '-qv', '-vq']));
  };

  function head() {
    const argv = ['head'];
    if (rnd(6) === 0) argv.push(pick(['-3', '-3c', '-2l', '-1k', '-2b', '-5v', '-3q', '-2z', '-0', '-3x', '-12cv', '-1m']));
    for (let i = rnd(3); i > 0; i--) {
      const c = count('-');
      const r = rnd(3);
      if (r === 0) argv.push(pick(['-n', '-c']), c);
      else if (r === 1) argv.push(pick(['--lines=', '--bytes=']) + c);
      else if (/^[0-9]/.test(c)) argv.push(pick(['-n', '-c']) + c);
      else argv.push('-n', c);
    }
    headTailFlags(argv);
    return { argv: [...argv, ...operands()], stdin: stdin() };
  }

  function tail() {
    const argv = ['tail'];
    if (rnd(5) === 0) argv.push(pick(['-3', '+2', '-3c', '+3c', '-2l', '+0', '-2b', '+1b', '-c', '-l', '+', '-0', '-5x', '+2l']));
    for (let i = rnd(3); i > 0; i--) {
      const c = count('+');
      const r = rnd(3);
      if (r === 0) argv.push(pick(['-n', '-c']), c);
      else if (r === 1) argv.push(pick(['--lines=', '--bytes=']) + c);
      else if (/^[0-9+]/.test(c)) argv.push(pick(['-n', '-c']) + c);
      else argv.push('-c', c);
    }
    headTailFlags(argv);
    if (rnd(12) === 0) argv.push(...pick([['--retry'], ['-s', '1'], ['--pid=1'], ['--max-unchanged-stats=3'], ['-s', 'x']]));
    return { argv: [...argv, ...operands()], stdin: stdin() };
  }

  function wc() {
    const argv = ['wc'];
    for (let i = rnd(4); i > 0; i--) argv.push(pick(['-l', '-w', '-c', '-m', '-L', '-lw', '-cL', '--lines', '--words', '--bytes', '--chars', '--max-line-length', '-lwcmL']));
    if (rnd(6) === 0) {
      argv.push(`--files0-from=${pick(['names0', 'names0bad', '-', 'nosuch', 'dir', 'empty'])}`);
      if (rnd(4) === 0) argv.push('a');
      return { argv, stdin: pick(['a\0lines\0', 'noeol\0-\0', '', 'a\0nosuch', 'a']) };
    }
    return { argv: [...argv, ...operands(4)], stdin: stdin() };
  }

  return {
    files,
    setup() {},
    gen: () => pick([cut, tr, head, tail, wc])(),
    normalize: (out) => out,
  };
}
