// fuzz-diff generator for sort: random global flags, -t, several -k with per-key flags,
// files and stdin, on small inputs of tricky lines (numbers of every kind, months, versions,
// blanks, control and high bytes, duplicates, a missing last newline).
// Obsolete +POS1 [-POS2] keys, -S/--buffer-size, -T, --parallel, --batch-size (values up to
// 1021: GNU's maximum follows the host's open-file limit), and -R with --random-source (a
// reproducible order). Left out: -R without a source (random order), --files0-from, -o
// (writes a file: covered by the recorded cases).
export default function sortSpec({ rnd, pick }) {
  const tokens = ['1', '-2', '10', '02', '1.5', '-0', '0', '+3', '.5', '-.5', '1e3', '0x1A', '1,000', '2K', '1M', '-1G', '3k', '0.5M',
    'inf', '-inf', 'a', 'B', 'b', 'abc', 'ABC', 'Abc', 'Jan', 'feb', 'DEC', ' mar', 'x1.2', 'file10', 'file9', 'v1.2.3', 'v1.10',
    'a-b', '_z', '[x]', '\x01', '\xff', '\x80', '\x801', '\xe9', 'a\x7fb', '~', '', '1a', '9Z', '1.2.3', '-', '.'];
  const seps = [' ', ' ', '  ', '\t', ':', ',', ' \t'];
  const line = () => {
    let s = pick(['', '', '', ' ', '  ', '\t']);
    for (let i = 0, n = 1 + rnd(4); i < n; i++) s += (i ? pick(seps) : '') + pick(tokens);
    return s;
  };
  const text = (eol = '\n') => {
    const lines = [];
    for (let i = 0, n = rnd(3) ? rnd(7) : rnd(40); i < n; i++) lines.push(rnd(5) === 0 && lines.length ? pick(lines) : line());
    return lines.map((l, i) => l + (i < lines.length - 1 || rnd(5) ? eol : '')).join('');
  };
  // GNU -g orders two NaNs of the same sign by the bytes of two x87 long doubles, whose
  // padding is stack garbage: equal NaN keys come out in an order that changes with the call
  // site (and -u may keep both). So NaNs are only in stdin, at most one 'nan' and one '-nan'.
  const withNans = (t) => {
    const seen = new Set();
    return t.replace(/^/gm, () => (rnd(8) ? '' : pick(['nan ', '-nan:', ' nan\t']))).replace(/-?nan/g, (m) => (seen.has(m) ? 'x' : (seen.add(m), m)));
  };
  const sorted = () => ['', ' 1', '1', '10', '2', 'A', 'B', 'a', 'b', 'b', 'c', 'c 1', 'c 2'].filter(() => rnd(2)).join('\n') + '\n';
  const files = Object.fromEntries(Object.entries({ f1: text(), f2: text(), s1: sorted(), s2: sorted(), e: '', nl: 'b\na', z: text('\0'), rs: Array.from({ length: 16 + rnd(8) }, () => String.fromCharCode(rnd(256))).join(''), rs5: 'short' })
    .map(([k, v]) => [k, Buffer.from(v, 'latin1')]));

  // Mostly one ordering type per key (two are an error GNU reports; kept, rarer).
  const type = () => pick(['', '', '', 'g', 'h', 'M', 'n', 'n', 'V', 'R', rnd(4) ? '' : pick(['gn', 'Mi', 'dV', 'Rn', 'Rf', 'Rd'])]);
  const mods = () => { let o = ''; for (let i = rnd(3); i > 0; i--) o += pick(['b', 'd', 'f', 'i', 'r']); return o; };
  const keyOpts = () => (rnd(2) ? '' : mods() + type());
  const pos = (start) => String(1 + rnd(4)) + (rnd(3) === 0 ? '.' + String(rnd(start ? 12 : 4) === 0 ? 0 : 1 + rnd(3)) : '');
  const keydef = () => pos(true) + keyOpts() + (rnd(3) ? ',' + pos(false) + keyOpts() : '');
  // +POS1 [-POS2], origin 0; now and then a word that is not a key (a file) or a bad POS2.
  const obsolete = () => {
    const p1 = '+' + rnd(4) + (rnd(3) === 0 ? '.' + rnd(3) : '') + (rnd(2) ? '' : mods() + type());
    if (rnd(8) === 0) return [pick(['+a', '+1.', '+1.2.3', '+-1'])];
    if (rnd(3) === 0) return [p1];
    const p2 = '-' + rnd(5) + (rnd(3) === 0 ? '.' + rnd(3) : '') + (rnd(2) ? '' : mods() + type()) + (rnd(12) ? '' : pick(['x', '.', ',1']));
    return [p1, p2];
  };
  const size = () => pick(['10', '1K', '10%', '1b', '5M', '2G', '15E', 'K', '+5', '10X', '', 'b', '1Y', '-1', '10kb', '99999999999999999999']);
  const count = () => pick(['1', '2', '8', '1021', '0', 'x', '2x', '', '-1', '+3']);
  const resource = () => pick([['-S', size()], ['-S' + size()], ['--buffer-size=' + size()], ['--buf', size()], ['--parallel=' + count()],
    ['--batch-size=' + count()], ['--batch', count()], ['-T', pick(['/tmp', 'nosuch', ''])], ['--temporary-directory=.']]);
  return {
    files,
    setup() {},
    gen() {
      const flags = []; // groups (an option with its argument), shuffled below
      const t = type();
      if (t) flags.push([rnd(6) ? `-${t}` : `--sort=${{ g: 'general-numeric', h: 'human-numeric', M: 'month', n: 'numeric', V: 'version', R: 'random' }[t[0]]}`]);
      for (let i = rnd(4) ? 0 : 1 + rnd(2); i > 0; i--) flags.push(obsolete());
      for (let i = rnd(3) ? 0 : 1 + rnd(2); i > 0; i--) flags.push(resource());
      for (let i = rnd(5); i > 0; i--) {
        flags.push(pick([['-b'], ['-d'], ['-f'], ['-i'], ['-r'], ['-s'], ['-u'], ['-z'], ['-m'], ['-fu'], ['-rs'], ['-su'],
          ['-t', pick([':', ' ', '\t', ',', '\\0', 'a', 'x'])], ['--field-separator=:'], ['-k', keydef()], ['-k', keydef()], ['-k' + keydef()],
          ['--key=' + keydef()], [pick(['--rev', '--st', '--un', '--ig', '--ignore-c', '--dict', '--zero', '--version-s', '--mer', '--mo', '--nu'])],
          rnd(8) ? ['-k', keydef()] : pick([['-t', ''], ['-t', 'ab'], ['-t:', '-t,'], ['-k', '0'], ['-k', '1,2x'], ['-k', '1.'], ['-k', '1,0']])]));
      }
      if (rnd(6) === 0) flags.push(pick([['-c'], ['-C'], ['-cu'], ['--check=quiet'], ['--check=diagnose-first'], ['--check=silent'], ['--check'], ['-c', '-C']]));
      for (let i = flags.length - 1; i > 0; i--) { const j = rnd(i + 1); [flags[i], flags[j]] = [flags[j], flags[i]]; }
      const operands = pick([[], [], ['f1'], ['f2'], ['f1', 'f2'], ['-'], ['f1', '-'], ['s1', 's2'], ['s1', 's2', 'f1'], ['s2', '-', 's1'], ['-', '-'], ['e'], ['nl', 'f1'], ['z'], ['nosuch'], ['s1']]);
      // -R anywhere (-R, a key's R, --sort=random): a source makes its order reproducible.
      if (flags.some((f) => f.some((w) => /R|--sort=random/.test(w)))) {
        flags.push([pick(['--random-source=rs', '--random-source=rs', '--random-source=rs', '--random-source=rs5', '--random-source=nosuch'])]);
      }
      const z = flags.some((f) => f[0] === '-z');
      return { argv: ['sort', ...flags.flat(), ...operands], stdin: withNans(z && rnd(2) ? text('\0') : text()) };
    },
  };
}
