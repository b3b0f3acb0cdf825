// fuzz-diff generator for tac, rev, nl, fold, expand and unexpand (one picked per case):
//   node test/gnu/fuzz-diff.mjs lines [seed] [cases]
// Small inputs with tabs, backspaces, CRs, runs of blanks, NULs, high bytes, no final
// newline, section delimiters for nl; a file larger than tac's read window. Left out: the
// obsolete digit options (fold -80, expand -4: refused, README), tac -r (not offered).
export default function linesSpec({ rnd, pick }) {
  const words = ['a', 'bb', '', ' ', '  x', '\tt', 'a\tb', 'x\by', 'r\rs', '        8', '    4  ', 'w o r d s here', '\\:', '\\:\\:',
    '\\:\\:\\:', 'long'.repeat(30), '\xff', 'q\0r', 'é', ' \t \t'];
  const text = (eol = '\n') => {
    let s = '';
    for (let i = 0, n = rnd(8); i < n; i++) s += pick(words) + (i < n - 1 || rnd(3) ? eol : '');
    return s;
  };
  const big = Array.from({ length: 40000 }, (_, i) => `line ${i}`).join('\n') + '\nend';
  const files = Object.fromEntries(Object.entries({ f1: text(), f2: text(), f3: text(), e: '', z: text('\0'), big, d: null })
    .map(([k, v]) => [k, v === null ? null : Buffer.from(v, 'latin1')]));
  const ops = () => {
    const o = [];
    for (let i = rnd(3); i > 0; i--) o.push(pick(['f1', 'f2', 'f3', 'e', 'z', '-', 'nosuch', 'd', 'f1', 'big']));
    return o;
  };
  const num = () => pick(['1', '2', '3', '4', '5', '8', '10', '0', 'x', '-1', '+2', ' 3']);
  const gens = {
    tac: () => {
      const a = [];
      for (let i = rnd(3); i > 0; i--) a.push(...pick([['-b'], ['-s', pick(['\n', 'a', 'aa', '', ' ', 'line', '\t'])], ['--before'], ['--separator=x']]));
      return a;
    },
    rev: () => (rnd(6) ? [] : [pick(['-x', '--', '-h'])]).filter((x) => x !== '-h'),
    nl: () => {
      const a = [];
      for (let i = rnd(4); i > 0; i--) {
        a.push(...pick([['-b', pick(['a', 't', 'n', 'pa', 'p^ ', 'p[', 'x'])], ['-h', pick(['a', 'n'])], ['-f', pick(['a', 't'])], ['-v', num()],
          ['-i', num()], ['-l', num()], ['-w', num()], ['-n', pick(['ln', 'rn', 'rz', 'zz'])], ['-s', pick(['', ':', '\t', ' | '])],
          ['-d', pick(['', '@', '\\:', 'ab', 'abc'])], ['-p']]));
      }
      return a;
    },
    fold: () => {
      const a = [];
      for (let i = rnd(3); i > 0; i--) a.push(...pick([['-b'], ['-s'], ['-w', num()], ['--width=' + num()]]));
      return a;
    },
    expand: () => {
      const a = [];
      for (let i = rnd(3); i > 0; i--) a.push(...pick([['-i'], ['-t', pick(['1', '3', '4', '2,5', '3,/4', '2,+3', '/3', '+4', '0', '4,2', 'x', '3,,6'])]]));
      return a;
    },
    unexpand: () => {
      const a = [];
      for (let i = rnd(3); i > 0; i--) a.push(...pick([['-a'], ['--first-only'], ['-t', pick(['1', '2', '3', '4', '2,5', '3,/4', '2,+3', '/3', '0'])]]));
      return a;
    },
  };
  return {
    files,
    setup() {},
    gen() {
      const name = pick(Object.keys(gens));
      const argv = [name, ...gens[name](), ...ops()];
      return { argv, stdin: text(argv.includes('-s') && name === 'tac' && rnd(2) ? '\0' : '\n') };
    },
  };
}
