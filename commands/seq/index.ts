// seq (GNU coreutils 9.1): numbers from FIRST to LAST by INCREMENT.
import { defineCommand } from '../../src/command/index.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { formatFloat, strtold, type Spec } from '../../src/gnulib/cformat.js';

const TRY = "Try 'seq --help' for more information.\n";
const FLUSH = 64 * 1024;

class Fail extends Error {
  constructor(message: string, readonly usage: boolean) {
    super(message);
  }
}

interface Operand { value: number; width: number; precision: number }

/** seq's scan_arg: the value, and the width and precision its spelling asks for (Infinity: none). */
function scanArg(arg: string): Operand {
  const r = strtold(arg);
  if (r.end === 0 || r.end < arg.length || r.erange) throw new Fail(`invalid floating point argument: ${gnuQuote(arg)}`, true);
  if (Number.isNaN(r.value)) throw new Fail(`invalid 'not-a-number' argument: ${gnuQuote(arg)}`, true);
  const a = arg.replace(/^[ \t\n\v\f\r+]+/, '');
  let width = a.length;
  let precision = Infinity;
  if (!/[xX]/.test(a) && Number.isFinite(r.value)) {
    const dp = a.indexOf('.');
    if (dp < 0) precision = 0;
    else {
      const fraction = /^[^eE]*/.exec(a.slice(dp + 1))![0].length;
      precision = fraction;
      width += fraction === 0 ? -1 : dp === 0 || !/\d/.test(a[dp - 1]!) ? 1 : 0;
    }
    let e = a.indexOf('e');
    if (e < 0) e = a.indexOf('E');
    if (e >= 0) {
      let exponent = parseInt(a.slice(e + 1), 10) || 0;
      precision += exponent < 0 ? -exponent : -Math.min(precision, exponent);
      width -= a.length - e;
      if (exponent < 0) {
        if (dp >= 0) {
          if (e === dp + 1) width++;
        } else width++;
        exponent = -exponent;
      } else if (dp >= 0 && precision === 0 && exponent) width--;
      width += exponent;
    }
  }
  return { value: r.value, width, precision };
}

interface Layout { prefix: string; suffix: string; conv: string; spec: Spec }

/** seq's long_double_format: exactly one floating point directive. */
function parseFormat(fmt: string): Layout {
  let i = 0;
  let prefix = '';
  for (; !(fmt[i] === '%' && fmt[i + 1] !== '%'); i += fmt[i] === '%' ? 2 : 1) {
    if (i >= fmt.length) throw new Fail(`format ${gnuQuote(fmt)} has no % directive`, false);
    prefix += fmt[i];
  }
  i++;
  const flags = /^[-+#0 ']*/.exec(fmt.slice(i))![0];
  i += flags.length;
  const width = /^\d*/.exec(fmt.slice(i))![0];
  i += width.length;
  let precision: string | undefined;
  if (fmt[i] === '.') {
    i++;
    precision = /^\d*/.exec(fmt.slice(i))![0];
    i += precision.length;
  }
  if (fmt[i] === 'L') i++;
  if (i >= fmt.length) throw new Fail(`format ${gnuQuote(fmt)} ends in %`, false);
  const conv = fmt[i]!;
  if (!'efgaEFGA'.includes(conv)) throw new Fail(`format ${gnuQuote(fmt)} has unknown %${conv} directive`, false);
  let suffix = '';
  for (i++; ; i += fmt[i] === '%' ? 2 : 1) {
    if (fmt[i] === '%' && fmt[i + 1] !== '%') throw new Fail(`format ${gnuQuote(fmt)} has too many % directives`, false);
    if (i >= fmt.length) break;
    suffix += fmt[i];
  }
  const spec: Spec = { flags: flags.replace(/'/g, '') };
  if (width) spec.width = Number(width);
  if (precision !== undefined) spec.precision = Number(precision || '0');
  return { prefix: prefix.replace(/%%/g, '%'), suffix: suffix.replace(/%%/g, '%'), conv, spec };
}

export default defineCommand({
  name: 'seq',
  summary: 'Print numbers from FIRST (default 1) to LAST, by INCREMENT (default 1). Operands may be negative (`seq -3 2`) or fractional (`seq 1 0.5 3`); the output precision follows the operands, as GNU does.',
  usage: 'LAST\n  or:  seq [OPTION]... FIRST LAST\n  or:  seq [OPTION]... FIRST INCREMENT LAST',
  mutates: false,
  usageStatus: 1,
  optionsEnd: 'first-operand',
  numericOperands: true,
  flags: [
    { key: 'format', short: 'f', long: 'format', kind: 'string', arg: 'FORMAT', help: 'use printf style floating-point FORMAT' },
    { key: 'separator', short: 's', long: 'separator', kind: 'string', arg: 'STRING', help: 'use STRING to separate numbers (default: \\n)' },
    { key: 'equalWidth', short: 'w', long: 'equal-width', help: 'equalize width by padding with leading zeroes' },
  ],
  notes: 'Numbers are doubles where GNU uses long double: digits beyond the 17th significant one may differ.',
  async run(ctx) {
    const ops = ctx.operands;
    const { format, separator = '\n', equalWidth } = ctx.values;
    try {
      if (ops.length < 1) throw new Fail('missing operand', true);
      if (ops.length > 3) throw new Fail(`extra operand ${gnuQuote(ops[3]!)}`, true);
      let layout = format !== undefined ? parseFormat(format) : undefined;
      if (layout && equalWidth) throw new Fail('format string may not be specified when printing equal width strings', true);
      // Non-negative integers counting up by 1..200 without options: exact, any size.
      if (ops.every((o) => /^\d+$/.test(o)) && (ops.length < 3 || (Number(ops[1]) > 0 && Number(ops[1]) <= 200)) && !equalWidth && !layout) {
        const first = ops.length === 1 ? 1n : BigInt(ops[0]!);
        const step = ops.length === 3 ? BigInt(ops[1]!) : 1n;
        const last = BigInt(ops[ops.length - 1]!);
        let buf = '';
        for (let x = first; x <= last; x += step) {
          buf += x.toString() + (x + step <= last ? separator : '\n');
          if (buf.length >= FLUSH) {
            await ctx.stdout.write(buf);
            buf = '';
          }
        }
        await ctx.stdout.write(buf);
        return 0;
      }
      let last = scanArg(ops[ops.length === 1 ? 0 : 0]!);
      let first: Operand = { value: 1, width: 1, precision: 0 };
      let step: Operand = { value: 1, width: 1, precision: 0 };
      if (ops.length > 1) {
        first = last;
        last = scanArg(ops[1]!);
        if (ops.length > 2) {
          step = last;
          if (step.value === 0) throw new Fail(`invalid Zero increment value: ${gnuQuote(ops[1]!)}`, true);
          last = scanArg(ops[2]!);
        }
      }
      if (!layout) {
        const prec = Math.max(first.precision, step.precision);
        if (prec !== Infinity && last.precision !== Infinity) {
          if (equalWidth) {
            const firstWidth = first.width + (prec - first.precision) + (first.precision === 0 && prec ? 1 : 0);
            let lastWidth = last.width + (prec - last.precision);
            if (last.precision && prec === 0) lastWidth--;
            if (last.precision === 0 && prec) lastWidth++;
            layout = { prefix: '', suffix: '', conv: 'f', spec: { flags: '0', width: Math.max(firstWidth, lastWidth), precision: prec } };
          } else layout = { prefix: '', suffix: '', conv: 'f', spec: { flags: '', precision: prec } };
        } else layout = { prefix: '', suffix: '', conv: 'g', spec: { flags: '' } };
      }
      const L = layout;
      const fmt = (x: number) => L.prefix + formatFloat(L.conv, L.spec, x) + L.suffix;
      const a = first.value;
      const d = step.value;
      const b = last.value;
      let out = d < 0 ? a < b : b < a;
      if (out) return 0;
      let buf = '';
      let x = a;
      for (let i = 1; ; i++) {
        const x0 = x;
        buf += fmt(x);
        if (out) break;
        x = a + i * d;
        out = d < 0 ? x < b : b < x;
        if (out) {
          const s = fmt(x);
          const back = strtold(s.slice(L.prefix.length));
          if (!(back.end > 0 && back.value === b && fmt(x0) !== s)) break;
        }
        buf += separator;
        if (buf.length >= FLUSH) {
          await ctx.stdout.write(Buffer.from(buf, 'utf8'));
          buf = '';
        }
      }
      await ctx.stdout.write(Buffer.from(buf + '\n', 'utf8'));
      return 0;
    } catch (e) {
      if (!(e instanceof Fail)) throw e;
      await ctx.stderr.write(`seq: ${e.message}\n${e.usage ? TRY : ''}`);
      return 1;
    }
  },
});
