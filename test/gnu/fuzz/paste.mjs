// fuzz-diff generator for paste: node test/gnu/fuzz-diff.mjs paste [seed] [cases]
// Parallel and serial merges of small inputs (no final newline, empty lines, NUL, \xff,
// CRLF, a line longer than a read chunk), delimiter lists with every escape, -z, stdin
// named once or several times, missing files and a directory among the operands.
export default function pasteSpec({ rnd, pick }) {
  const words = ['a', 'bb', '', ' x ', '1\t2', '\xff', 'c\r', 'é', 'L'.repeat(300), 'q\0r', 'last'];
  const text = (eol = '\n') => {
    const n = rnd(7);
    let s = '';
    for (let i = 0; i < n; i++) s += pick(words) + (i < n - 1 || rnd(3) ? eol : '');
    return s;
  };
  const files = Object.fromEntries(Object.entries({
    f1: text(), f2: text(), f3: text(), e: '', nl: '\n\n\n', z: text('\0'), long: 'x'.repeat(70000) + '\ny\n' + 'z'.repeat(100000),
    'sp ace': text(), d: null,
  }).map(([k, v]) => [k, v === null ? null : Buffer.from(v, 'latin1')]));
  return {
    files,
    setup() {},
    gen() {
      const argv = ['paste'];
      for (let i = rnd(4); i > 0; i--) {
        const f = pick(['-s', '-z', '-d', '-d', '--delimiters', '--serial', '-sd', '--zero-terminated']);
        if (f === '-d' || f === '--delimiters' || f === '-sd') {
          const list = pick([':', ',;', '', '\\0', '\\n', '\\t', '\\\\', '\\', 'a\\', '\\b\\f\\r\\v', '\\q', 'é', '\\0:', ':\\0,', 'xyz', ' ']);
          if (f === '--delimiters') argv.push(rnd(2) ? `--delimiters=${list}` : '--delimiters', ...(rnd(2) ? [] : [list]));
          else argv.push(f, list);
        } else argv.push(f);
      }
      const ops = [];
      for (let i = rnd(5); i > 0; i--) ops.push(pick(['f1', 'f2', 'f3', 'e', 'nl', 'z', '-', '-', 'long', 'sp ace', 'nosuch', 'd']));
      const z = argv.includes('-z') || argv.includes('--zero-terminated');
      return { argv: [...argv.filter((a, i) => !(a === '--delimiters' && argv[i + 1] === undefined)), ...ops], stdin: text(z && rnd(2) ? '\0' : '\n') };
    },
  };
}
