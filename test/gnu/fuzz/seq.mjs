// fuzz-diff generator for seq (coreutils 9.1):  node test/gnu/fuzz-diff.mjs seq [seed] [cases]
// One to three operands (integers, decimals, exponents, hex, signs, blanks, inf/nan, huge and
// tiny values), -w, -s, -f with every floating directive and its flags; sequences are kept
// short (a few thousand lines at most) so that both sides finish.
export default ({ rnd, pick }) => {
  const small = () => String(rnd(40) - 10);
  const num = () => pick([
    small, small, small,
    () => `${rnd(20) - 5}.${rnd(100)}`,
    () => `${rnd(9)}e${rnd(3)}`,
    () => `${rnd(9)}.${rnd(9)}e-${rnd(3)}`,
    () => `0x${rnd(64).toString(16)}`,
    () => `+${rnd(20)}`,
    () => ` ${rnd(20)}`,
    () => `-0`,
    () => `0.${'0'.repeat(rnd(4))}${rnd(9) + 1}`,
    () => pick(['inf', '-inf', 'nan', 'x', '', '1e', '1..2', '--1', '0x', '1e400', '9223372036854775807', '18446744073709551616']),
    () => `${10n ** BigInt(15 + rnd(6)) + BigInt(rnd(5))}`,
    () => `${rnd(3)}.${'0'.repeat(rnd(3))}`,
  ])();
  const fmt = () => {
    const flags = [...new Set(Array.from({ length: rnd(3) }, () => pick(['-', '+', ' ', '0', '#', "'"])))].join('');
    const width = rnd(3) ? '' : String(rnd(12));
    const prec = rnd(2) ? '' : '.' + String(rnd(6));
    const conv = pick(['f', 'g', 'e', 'G', 'E', 'a', 'A', 'F', 'd', 'x', 's']);
    return pick(['', 'n=', '%%']) + '%' + flags + width + prec + conv + pick(['', '\\n', ' x', '%%', '%g']);
  };
  return {
    files: {},
    setup() {},
    gen() {
      const args = [];
      for (let i = rnd(3); i > 0; i--) {
        args.push(...pick([['-w'], ['--equal-width'], ['-s', pick([',', '', ' : ', '\\n', '\n'])], ['--separator=-'], ['-f', fmt()], [`--format=${fmt()}`], ['-x']]));
      }
      let ops;
      for (;;) {
        ops = Array.from({ length: 1 + rnd(3) }, num);
        const v = ops.map(Number);
        // keep it short: GNU and nosh both print everything
        const [first, step, last] = v.length === 1 ? [1, 1, v[0]] : v.length === 2 ? [v[0], 1, v[1]] : v;
        if (![first, step, last].every(Number.isFinite)) {
          if (ops.some((o) => /inf/.test(o)) && !ops.some((o) => /nan|x|e$|\.\.|--|^$/.test(o))) continue; // endless
          break;
        }
        if (step !== 0 && Math.abs((last - first) / step) < 3000) break;
        if (step === 0 && first > last) break;
      }
      if (rnd(4) === 0) args.push('--');
      return { argv: ['seq', ...args, ...ops] };
    },
  };
};
