// fuzz-diff generator for comm: node test/gnu/fuzz-diff.mjs comm [seed] [cases]
// Mostly sorted inputs (so that the merge itself is exercised) with some out of order,
// duplicates, empty lines, no final newline, NUL and high bytes; -123 combinations,
// --check-order/--nocheck-order, --output-delimiter (empty, several), --total, -z.
export default function commSpec({ rnd, pick }) {
  const words = ['a', 'b', 'c', 'ab', 'B', '', ' a', 'a ', '\xff', 'z', 'a\tb', '1', '10', '2', 'x\0y'];
  const text = (sorted, eol = '\n') => {
    const lines = [];
    for (let i = rnd(8); i > 0; i--) lines.push(pick(words));
    if (sorted) lines.sort((x, y) => Buffer.compare(Buffer.from(x, 'latin1'), Buffer.from(y, 'latin1')));
    return lines.map((l, i) => l + (i < lines.length - 1 || rnd(4) ? eol : '')).join('');
  };
  const files = Object.fromEntries(Object.entries({
    s1: text(true), s2: text(true), s3: text(true), u1: text(false), u2: text(false), e: '', z1: text(true, '\0'), z2: text(true, '\0'), d: null,
  }).map(([k, v]) => [k, v === null ? null : Buffer.from(v, 'latin1')]));
  return {
    files,
    setup() {},
    gen() {
      const argv = ['comm'];
      for (let i = rnd(4); i > 0; i--) {
        argv.push(pick(['-1', '-2', '-3', '-12', '-13', '-23', '-123', '--check-order', '--nocheck-order', '--total', '-z',
          `--output-delimiter=${pick(['', ':', '::', '\t', 'é'])}`, '--output-delimiter=,']));
      }
      const n = pick([2, 2, 2, 2, 2, 1, 0, 3]);
      for (let i = 0; i < n; i++) argv.push(pick(['s1', 's2', 's3', 's1', 's2', 'u1', 'u2', 'e', 'z1', 'z2', '-', 'nosuch', 'd']));
      return { argv, stdin: text(rnd(3) > 0) };
    },
  };
}
