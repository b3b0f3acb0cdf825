// fuzz-diff generator for uniq: random -c -d -D -u -i -f -s -w -z, --all-repeated and --group
// (valid and invalid methods), obsolete -N and +N, INPUT and OUTPUT operands, on small inputs
// full of adjacent near-duplicates (case, leading blanks, fields, high and control bytes).
// An OUTPUT operand writes a file: only stdout and the exit code are compared.
export default function uniqSpec({ rnd, pick }) {
  const words = ['a', 'A', 'b', 'ab', 'aB', 'Ab', '', ' a', '  a', '\ta', 'a ', 'x a', 'y a', 'x  a', '1 2 a', '1 2 b', '\xff', '\xffa',
    '\x01', 'a\x00b', 'a\rb', 'caf\xe9', 'CAF\xc9', 'ab\tcd', 'ba', 'aa', 'aaa'];
  const text = (eol = '\n') => {
    const lines = [];
    for (let i = 0, n = rnd(10); i < n; i++) lines.push(rnd(2) && lines.length ? (rnd(3) ? lines[lines.length - 1] : pick(lines)) : pick(words));
    return lines.map((l, i) => l + (i < lines.length - 1 || rnd(4) ? eol : '')).join('');
  };
  const files = Object.fromEntries(Object.entries({ f1: text(), f2: text(), e: '', z: text('\0'), zn: 'a\nb\0a\nc\0b\0' })
    .map(([k, v]) => [k, Buffer.from(v, 'latin1')]));
  const num = () => pick(['0', '1', '1', '2', '3', '10', '+1', ' 2', '-1', 'x', '', '18446744073709551616']);
  return {
    files,
    setup() {},
    gen() {
      const flags = [];
      for (let i = rnd(5); i > 0; i--) {
        flags.push(...pick([['-c'], ['-d'], ['-D'], ['-u'], ['-i'], ['-z'], ['-cd'], ['-Di'], ['-ui'], ['-c', '-i'],
          ['-f', num()], ['-s', num()], ['-w', num()], ['-f' + String(rnd(3))], ['-s' + String(rnd(4))], ['-w' + String(rnd(4))],
          ['--skip-fields=' + String(rnd(3))], ['--skip-chars=' + String(rnd(3))], ['--check-chars=' + String(rnd(3))],
          ['--all-repeated'], ['--all-repeated=' + pick(['none', 'prepend', 'separate', 'sep', 'x', ''])],
          ['--group'], ['--group=' + pick(['separate', 'prepend', 'append', 'both', 'b', 'x'])],
          [pick(['--c', '--rep', '--all', '--gr', '--sk', '--skip-c=1', '--ch=2', '--i', '--u', '--z', '--co'])], ['--count'], ['--repeated'], ['--unique'], ['--ignore-case'], ['--zero-terminated'], [`-${1 + rnd(2)}`]]));
      }
      const operands = pick([[], [], [], ['f1'], ['f2'], ['-'], ['e'], ['z'], ['zn'], ['nosuch'], ['f1', '-'], ['-', '-'], ['f1', 'out'],
        ['f1', 'f2', 'f1'], [`+${rnd(3)}`], ['f1', '--', '-']]);
      const z = flags.some((f) => f === '-z' || f === '--zero-terminated');
      return { argv: ['uniq', ...flags, ...operands], stdin: z && rnd(3) ? text('\0') : text() };
    },
  };
}
