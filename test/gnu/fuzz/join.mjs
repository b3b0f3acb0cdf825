// fuzz-diff generator for join: node test/gnu/fuzz-diff.mjs join [seed] [cases]
// Inputs sorted on their first field (blank- or comma-separated) with duplicate keys, empty
// fields, leading blanks, case variants, lines without the join field; some unsorted.
// Options: -1 -2 -j -a -v -e -o (lists and auto) -i -t --header --check-order -z.
// Left out: `-j1`/`-j2` followed by an operand GNU may read as their argument (README).
export default function joinSpec({ rnd, pick }) {
  const keys = ['a', 'b', 'B', 'c', '', '1', '10', '2', 'x y'];
  const vals = ['p', 'q', '', 'r s', '\xff', 'Z'];
  const text = (sep, sorted, eol = '\n') => {
    const lines = [];
    for (let i = rnd(7); i > 0; i--) {
      const f = [pick(keys)];
      for (let j = rnd(4); j > 0; j--) f.push(pick(vals));
      lines.push((rnd(8) === 0 ? '  ' : '') + f.join(sep));
    }
    if (sorted) lines.sort((x, y) => Buffer.compare(Buffer.from(x.trimStart().split(sep)[0], 'latin1'), Buffer.from(y.trimStart().split(sep)[0], 'latin1')));
    return lines.map((l, i) => l + (i < lines.length - 1 || rnd(4) ? eol : '')).join('');
  };
  const files = Object.fromEntries(Object.entries({
    s1: text(' ', true), s2: text(' ', true), s3: text(' ', true), c1: text(',', true), c2: text(',', true), u1: text(' ', false),
    e: '', z1: text(' ', true, '\0'), z2: text(' ', true, '\0'), d: null,
  }).map(([k, v]) => [k, v === null ? null : Buffer.from(v, 'latin1')]));
  return {
    files,
    setup() {},
    gen() {
      const argv = ['join'];
      for (let i = rnd(5); i > 0; i--) {
        argv.push(...pick([['-a1'], ['-a', '2'], ['-v1'], ['-v', '2'], ['-a', '3'], ['-i'], ['--ignore-case'], ['--header'], ['--check-order'],
          ['--nocheck-order'], ['-z'], ['-t,'], ['-t', ' '], ['-t', ''], ['-t', 'ab'], ['-e', pick(['X', '', '-'])], ['-o', 'auto'],
          ['-o', pick(['0', '1.1', '2.2', '0,1.2,2.2', '1.3 2.1', '1.5', '2.0', '3.1', '0.1', '1.1,,2.2'])], ['-1', pick(['1', '2', '0', 'x'])],
          ['-2', pick(['1', '2', '3'])], ['-j', pick(['1', '2'])]]));
      }
      const n = pick([2, 2, 2, 2, 2, 1, 3]);
      for (let i = 0; i < n; i++) argv.push(pick(['s1', 's2', 's3', 'c1', 'c2', 'u1', 'e', 'z1', 'z2', '-', 'nosuch', 'd']));
      return { argv, stdin: text(' ', rnd(3) > 0) };
    },
  };
}
