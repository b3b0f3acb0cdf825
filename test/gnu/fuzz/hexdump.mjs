// fuzz-diff generator for hexdump/hd (util-linux 2.38.1):  node test/gnu/fuzz-diff.mjs hexdump [seed] [cases]
// Built-in displays, -n/-s, -v, several files, and random -e format strings (iterations, byte
// counts, every conversion, %_a/%_A, flags and widths). Left out: %s with a byte count and no
// precision (C reads past the block), -s on standard input (a pipe: both refuse it), colors.
export default ({ rnd, pick }) => {
  const bytes = (n, alphabet) => { let s = ''; for (let i = 0; i < n; i++) s += alphabet ? pick(alphabet) : String.fromCharCode(rnd(256)); return s; };
  const files = { bin: bytes(77), text: 'hello world\nthe quick brown fox\x00jumps\x00\x01over\tthe lazy dog\x00', zeros: '\x00'.repeat(100),
    rep: 'abcdefghijklmnop'.repeat(5) + 'xyz', empty: '', one: 'A', d: null };
  const conv = () => pick(['%02x', '%x', '%3d', '%-4u', '%o', '%#o', '%#x', '%X', '%+d', '% d', '%05d', '%c', '%_c', '%3_c', '%_p', '%_u', '%4_u', '%_ad', '%_ax', '%07.7_ax', '%.3d', '%e', '%g', '%8.3f']);
  const unit = () => {
    const c = conv();
    const dbl = /[efg]$/.test(c);
    const it = pick(['', '', '1', '2', '4', '8', '16']);
    const bc = dbl ? pick(['', '4', '8']) : /_|%c|%-?\d*c/.test(c) ? pick(['', '1']) : pick(['', '1', '2', '4', '8']);
    const head = it && bc ? `${it}/${bc} ` : it ? `${it} ` : bc ? `/${bc} ` : '';
    return `${head}"${c}${pick([' ', '', '|', '  ', ' \\n'])}"`;
  };
  const fmt = () => {
    const parts = [];
    if (rnd(2)) parts.push(pick(['"%07.7_ax "', '"%_ad: "', '"%08.8_Ax\\n"']));
    for (let i = 1 + rnd(3); i > 0; i--) parts.push(unit());
    if (rnd(2)) parts.push('"\\n"');
    return parts.join(' ');
  };
  return {
    files,
    setup() {},
    gen() {
      const args = [];
      for (let i = rnd(3); i > 0; i--) args.push(pick(['-b', '-c', '-C', '-d', '-o', '-x', '-v', '-bc']));
      if (rnd(2)) args.push('-e', fmt());
      if (rnd(4) === 0) args.push('-e', fmt());
      if (rnd(3) === 0) args.push('-n', pick(['0', '1', '5', '16', '17', '33', '0x20', '1K', 'x']));
      const ops = [];
      for (let i = rnd(3); i > 0; i--) ops.push(pick(['bin', 'text', 'zeros', 'rep', 'empty', 'one', 'nosuch', 'd']));
      if (ops.length && rnd(3) === 0) args.push('-s', pick(['0', '1', '3', '16', '0x10', '100', '1KiB']));
      return { argv: [rnd(4) ? 'hexdump' : 'hd', ...args, ...ops], stdin: bytes(rnd(40), rnd(2) ? undefined : ['a', '\x00', 'b']) };
    },
  };
};
