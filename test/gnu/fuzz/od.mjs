// fuzz-diff generator for od (coreutils 9.1):  node test/gnu/fuzz-diff.mjs od [seed] [cases]
// Binary files and stdin; every -t type and size, traditional options, -A -j -N -S -v -w,
// --endian, old offset operands. Left out: getopt errors after a bad -t (GNU reports both,
// nosh's parser stops at the usage error); --help/--version (nosh's own text).
export default ({ rnd, pick }) => {
  const bytes = (n, alphabet) => {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet ? pick(alphabet) : String.fromCharCode(rnd(256));
    return s;
  };
  const files = {
    bin: bytes(77),
    text: 'hello world\nthe quick brown fox\x00jumps\x00\x01over\tthe lazy dog\x00',
    zeros: '\x00'.repeat(100),
    rep: 'abcdefghijklmnop'.repeat(5) + 'xyz',
    floats: Buffer.from(new Float64Array([1, -0.1, 3.14159, 1e300, 5e-324, NaN, -Infinity, 0, 2.5]).buffer).toString('latin1'),
    f32: Buffer.from(new Float32Array([1, -0.1, 3.14159, 1e30, 1e-45, NaN, Infinity, -0, 16777216]).buffer).toString('latin1'),
    empty: '',
    one: 'A',
    d: null,
  };
  const TYPES = ['a', 'c', 'd', 'd1', 'd2', 'd4', 'd8', 'dC', 'dS', 'dI', 'dL', 'o', 'o1', 'o2', 'o4', 'o8', 'oC', 'oS', 'u', 'u1', 'u2', 'u4', 'u8', 'uL',
    'x', 'x1', 'x2', 'x4', 'x8', 'xC', 'xS', 'xI', 'xL', 'f', 'f4', 'f8', 'fF', 'fD', 'fL', 'f16', 'x1z', 'cz', 'd2z', 'ax1', 'x1c', 'q', 'x3', 'f2', 'd16'];
  return {
    files,
    setup() {},
    gen() {
      const args = [];
      const t = rnd(4);
      for (let i = 0; i < t; i++) args.push(rnd(3) ? '-t' + pick(TYPES) : pick(['-t', '--format=']) + pick(TYPES));
      for (let i = rnd(3); i > 0; i--) args.push(pick(['-a', '-b', '-c', '-d', '-f', '-i', '-l', '-o', '-s', '-x', '-B', '-D', '-e', '-F', '-H', '-X', '-I', '-L', '-O', '-h', '-bc', '-cx']));
      if (rnd(3) === 0) args.push('-A' + pick(['d', 'o', 'x', 'n', 'z']));
      if (rnd(3) === 0) args.push('-j', pick(['0', '1', '3', '7', '16', '0x10', '010', '1b', '100', '1k', 'x', '-1', '5x']));
      if (rnd(3) === 0) args.push('-N', pick(['0', '1', '5', '16', '17', '33', '0x20', '200', 'z']));
      if (rnd(4) === 0) args.push(pick(['-w', '-w8', '-w1', '-w3', '-w5', '-w32', '-w0', '--width=12', '-wx']));
      if (rnd(5) === 0) args.push('-v');
      if (rnd(12) === 0) args.push(pick(['-S3', '-S1', '--strings', '-S 5', '--strings=4']).split(' ')[0]);
      if (rnd(10) === 0) args.push(pick(['--endian=big', '--endian=little', '--endian=b', '--endian=x']));
      if (rnd(15) === 0) args.push('--traditional');
      const ops = [];
      for (let i = rnd(3); i > 0; i--) ops.push(pick(['bin', 'text', 'zeros', 'rep', 'floats', 'f32', 'empty', 'one', '-', 'nosuch', 'd']));
      if (rnd(8) === 0) ops.push(pick(['+1', '+10', '10', '0x4', '+2b', '1.']));
      const stdin = rnd(2) ? bytes(rnd(40)) : bytes(rnd(40), ['a', 'a', '\x00', 'b', '\n']);
      return { argv: ['od', ...args, ...ops], stdin };
    },
  };
};
