// fuzz-diff generator for awk: random programs (patterns and ranges, print/printf, fields and NF
// assignment, arithmetic and string functions, strnum comparisons, uninitialised values, arrays
// read in a fixed order, getline < file, -F and -v) on small inputs full of numbers that are and
// are not numbers, for (k in a) in gawk's hash order. Left out on purpose (README, "Known
// deviations"): rand(), srand(), systime(), output redirections (only stdout and the exit code
// are compared).
export default function awkSpec({ rnd, pick }) {
  const words = ['a', 'b', 'abc', 'Abc', '10', '9', '3.5', '-2', '0', ' 12 ', '1e2', '0x1A', '+5', '.5', '5.', 'x1', 'nan', '+inf', '', 'foo bar', 'a,b', 'a:b:c', '007', '1e', '-0'];
  const line = () => {
    const parts = [];
    for (let i = 0, n = rnd(6); i < n; i++) parts.push(pick(words));
    return parts.join(pick([' ', ' ', '  ', '\t', ',', ':']));
  };
  const text = () => {
    const lines = [];
    for (let i = 0, n = rnd(8); i < n; i++) lines.push(line());
    return lines.map((l, i) => l + (i < lines.length - 1 || rnd(5) ? '\n' : '')).join('');
  };
  const files = { f1: text(), f2: text(), e: '', p: 'para one\nline two\n\n\nsecond para\n\nthird\n' };
  const str = () => JSON.stringify(pick(words));
  const re = () => '/' + pick(['a', '^a', 'b$', '[0-9]+', '^[0-9.]+$', 'x|y', '(ab)+', '[[:alpha:]]', '\\.', 'o{2}', '^$', '[^a-z]', 'a*']) + '/';
  const lv = () => pick(['x', 'y', 'z', 'n', '$1', '$2', '$' + rnd(5), 'a[' + rnd(4) + ']', 'a["k"]', '$NF']);
  let depth = 0;
  const expr = () => {
    if (++depth > 4) { depth--; return pick(['x', '1', '$1', 'NR', str()]); }
    const e = pick([
      () => String(rnd(20)), () => pick(['0.5', '1e3', '3.14159', '100000', '1e6', '0.1', '-3']), str, lv, lv,
      () => pick(['NF', 'NR', 'FNR', '$0', 'length', 'length($1)']),
      () => `(${expr()} ${pick(['+', '-', '*', '/', '%', '^'])} ${pick(['1', '2', '3', '7', '0.5'])})`,
      () => `(${expr()} ${expr()})`,
      () => `(${expr()} ${pick(['<', '<=', '==', '!=', '>', '>='])} ${expr()})`,
      () => `(${expr()} ${pick(['&&', '||'])} ${expr()})`,
      () => `(${expr()} ~ ${pick([re(), str()])})`, () => `(!${expr()})`, () => `(-${expr()})`,
      () => `(${expr()} ? ${expr()} : ${expr()})`,
      () => `substr(${expr()}, ${rnd(4)}${rnd(2) ? ', ' + rnd(4) : ''})`, () => `index(${expr()}, ${str()})`, () => `length(${expr()})`,
      () => `toupper(${expr()})`, () => `tolower(${expr()})`, () => `int(${expr()})`, () => `sprintf(${pick(['"%d"', '"%s|%s"', '"%5.2f"', '"%x"', '"%c"', '"%e"', '"%g"', '"%-4s."'])}, ${expr()}, ${expr()})`,
      () => `match(${expr()}, ${re()})`, () => `(${lv()} ${pick(['=', '+=', '-=', '*='])} ${expr()})`, () => `(${pick(['x', 'n', 'a[1]'])}${pick(['++', '--'])})`,
      () => `(${pick(['++', '--'])}${pick(['x', 'n'])})`, () => `split(${expr()}, s${pick(['', ', ":"', ', /[ ,]/', ', ""'])})`,
      () => `(1 in a)`, () => `gensub(${re()}, "<&>", ${pick(['"g"', '1', '2'])}, ${pick(['$1', '$0', 'x', 'y', str()])})`,
    ])();
    depth--;
    return e;
  };
  const stmt = () => pick([
    () => `print ${expr()}`, () => `print ${expr()}, ${expr()}`, () => 'print', () => `print ${expr()} ${expr()}`,
    () => `printf ${pick(['"%s\\n"', '"%d %s\\n"', '"[%5s]\\n"', '"%.3g|%i\\n"', '"%o %X\\n"'])}, ${expr()}, ${expr()}`,
    () => `${lv()} = ${expr()}`, () => `${lv()} ${pick(['+=', '-='])} ${expr()}`, () => `n++`, () => `NF = ${rnd(5)}`, () => `$${rnd(6)} = ${expr()}`,
    () => `if (${expr()}) print "T:" ${expr()}; else print "F"`, () => `${pick(['sub', 'gsub'])}(${re()}, ${pick(['"X"', '"[&]"', '"\\\\&"', '""'])}${rnd(2) ? ', ' + pick(['x', '$1', '$0', 'y']) : ''})`,
    () => `a[${expr()}] = ${expr()}`, () => `for (i = 1; i <= ${rnd(4)}; i++) printf "%s;", ${expr()}`, () => `while (j < ${rnd(3)}) j++`,
    () => `delete a[${rnd(4)}]`, () => `if ((getline l < "f2") > 0) print "L:" l`, () => `x = x ${expr()}`,
  ])();
  const action = () => {
    const list = [];
    for (let i = 0, n = 1 + rnd(3); i < n; i++) list.push(stmt());
    return '{ ' + list.join('; ') + ' }';
  };
  const pattern = () => pick(['', '', '', 'NR > 1 ', re() + ' ', '$1 ~ ' + re() + ' ', 'NF > 2 ', 'NR == 2, NR == 3 ', `$1 == ${str()} `, `${expr()} `, '!/a/ ', 'END ', 'BEGIN ']);
  return {
    files,
    setup() {},
    gen() {
      const rules = [];
      for (let i = 0, n = 1 + rnd(3); i < n; i++) {
        const p = pattern();
        rules.push(p + (p === 'END ' || p === 'BEGIN ' || rnd(4) ? action() : ''));
      }
      if (rnd(2)) rules.push(pick(['END { print x, y, z, n, NR; PROCINFO["sorted_in"] = "@ind_str_asc"; for (k in a) print k, a[k] }',
        'END { for (k in a) print k, a[k]; for (k in s) printf "%s=%s;", k, s[k]; print "" }']));
      const opts = [];
      if (rnd(3) === 0) opts.push(pick(['-F,', '-F:', '-F', '-F\\t', '-F[:,]', '-F ']).trim());
      if (opts[0] === '-F') opts.push(pick([',', ' ', 'a', '\\|']));
      if (rnd(4) === 0) opts.push('-v', pick(['x=3', 'x=abc', 'OFS=-', 'y= 12 ', 'CONVFMT=%.2g', 'OFMT=%.2f', 'RS=']));
      const operands = pick([[], ['f1'], ['f1'], ['f1', 'f2'], ['p'], ['e', 'f1'], ['x=1', 'f1'], ['-']]);
      return { argv: ['awk', ...opts, rules.join(rnd(2) ? '\n' : ' '), ...operands], stdin: text() };
    },
  };
}
