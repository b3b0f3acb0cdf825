// fuzz-diff generator for strings (GNU binutils 2.40):  node test/gnu/fuzz-diff.mjs strings [seed] [cases]
// Random and text-like binaries (one of 700 KB, so that runs cross the 256 KB read chunks),
// UTF-16/32 text at odd alignments; -n and -NUM, -t/-o, -e every encoding, -w, -s, -f, stdin,
// errors. Left out: -U other than default (refused), -h/-v (nosh's own text), @FILE.
export default ({ rnd, pick }) => {
  const mix = (n) => {
    let s = '';
    while (s.length < n) {
      const k = rnd(4);
      if (k === 0) for (let i = rnd(300); i > 0; i--) s += String.fromCharCode(32 + rnd(95));
      else if (k === 1) for (let i = rnd(20); i > 0; i--) s += String.fromCharCode(rnd(256));
      else if (k === 2) for (let i = rnd(30); i > 0; i--) s += pick(['a', 'b', ' ', '\t', '\n', '\r', '\x0b', '\x0c', '\x00', '\xe9', '\x7f']);
      else for (let i = rnd(40); i > 0; i--) s += pick(['x', 'y', '\x00', '\x00', '\x01', 'Z']);
    }
    return s.slice(0, n);
  };
  const wide = (txt, w, little) => {
    let s = '';
    for (const ch of txt) {
      const c = ch.charCodeAt(0);
      const bytes = w === 2 ? [c >> 8, c & 255] : [0, 0, c >> 8, c & 255];
      if (little) bytes.reverse();
      s += String.fromCharCode(...bytes);
    }
    return s;
  };
  const files = {
    big: mix(700 * 1024),
    small: mix(500),
    le: '\x00' + wide('Hello wide world\x00ok\x00' + mix(60), 2, true) + 'z',
    be: wide('Big endian text\u0141more' + mix(40), 2, false) + '\x01',
    l32: wide('thirty two\x00abc' + mix(20), 4, true),
    b32: '\x00\x00' + wide('THIRTY TWO BE\u00e9xyz', 4, false),
    empty: '',
    d: null,
  };
  return {
    files,
    setup() {},
    gen() {
      const args = [];
      for (let i = rnd(4); i > 0; i--) {
        args.push(...pick([['-n', pick(['1', '2', '3', '5', '8', '20', '0', 'x', '0x6', '-1'])], ['-n6'], ['--bytes=7'], ['-' + pick(['3', '6', '10', '1'])],
          ['-t', pick(['o', 'd', 'x', 'q'])], ['-tx'], ['-o'], ['--radix=d'], ['-e', pick(['s', 'S', 'b', 'l', 'B', 'L', 'q'])], ['-el'], ['-eS'],
          ['-w'], ['-f'], ['-a'], ['-d'], ['-s', pick([':', '', '\n--\n'])], ['--output-separator=|'], ['-U', 'd'], ['-z']]));
      }
      const ops = [];
      for (let i = rnd(3); i > 0; i--) ops.push(pick(['big', 'small', 'le', 'be', 'l32', 'b32', 'empty', 'd', 'nosuch', '-']));
      return { argv: ['strings', ...args, ...ops], stdin: rnd(2) ? mix(rnd(2000)) : '' };
    },
  };
};
