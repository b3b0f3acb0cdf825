// fuzz-diff generator for xxd (vim's xxd 2022-01-14):  node test/gnu/fuzz-diff.mjs xxd [seed] [cases]
// Dumps in every style with -c -g -s -l -o -d -u -a -C -n, and -r of hex text (to stdout).
// Left out: -E (EBCDIC, not offered), -v/-h (nosh's own text), color (-R).
export default ({ rnd, pick }) => {
  const bytes = (n) => { let s = ''; for (let i = 0; i < n; i++) s += String.fromCharCode(rnd(256)); return s; };
  const files = {
    bin: bytes(70), text: 'hello world, this is xxd!\n', zeros: '\x00'.repeat(100) + 'x', empty: '',
    'dump.hex': '00000000: 6865 6c6c 6f0a                           hello.\n00000010: 4142\n',
    'plain.hex': '68656c6c6f0a\n4142 43\n', 'back.hex': '00000010: 4142\n00000000: 4344\n', 'bits.txt': '00000000: 01000001 01000010  AB\n',
    '1name': 'ab',
  };
  return {
    files,
    setup() {},
    gen() {
      const args = [];
      for (let i = rnd(4); i > 0; i--) {
        args.push(...pick([['-c', pick(['1', '4', '5', '8', '16', '0', '300', '0x10'])], ['-c' + pick(['3', '7'])], ['-g', pick(['0', '1', '3', '4', '8', '20'])], ['-g3'],
          ['-s', pick(['0', '5', '+5', '-5', '100', '-100', '0x10'])], ['-s3'], ['-l', pick(['0', '3', '17', '-1'])], ['-l5'], ['-o', pick(['16', '-1', '+10', '0x100'])], ['-o5'],
          ['-d'], ['-u'], ['-a'], ['-C'], ['-n', pick(['foo', 'my var', '9x'])], ['-b'], ['-e'], ['-p'], ['-ps'], ['-i'], ['-x'], ['--cols', '6'], ['-autoskip'], ['-len', '4']]));
      }
      let ops = [];
      if (rnd(6) === 0) {
        args.push('-r');
        if (rnd(3) === 0) args.push(pick(['-p', '-b', '-c8']));
        ops.push(pick(['dump.hex', 'plain.hex', 'back.hex', 'bits.txt', 'text', '-']));
      } else if (rnd(4)) ops.push(pick(['bin', 'text', 'zeros', 'empty', '-', 'nosuch', '1name']));
      if (rnd(10) === 0) ops.unshift('--');
      const stdin = rnd(2) ? bytes(rnd(50)) : '00000000: 4142 4344  ABCD\n';
      return { argv: ['xxd', ...args, ...ops], stdin };
    },
  };
};
