// numfmt (GNU coreutils 9.1): numbers to and from human-readable strings.
import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { NoshError } from '../../src/errors.js';
import { OptionError } from '../../src/command/options/errors.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { formatFloat } from '../../src/gnulib/cformat.js';
import { OutBuffer } from '../../src/gnulib/text-lines.js';
import { parseFieldList, unitToUmax, parseFormat, type Format } from './parse.js';

/**
 * GNU numfmt 9.1 in the C locale (no thousands separator: --grouping changes nothing). The
 * arithmetic is a double where GNU has an x87 long double: integers are carried exactly
 * (they print as GNU prints them up to its 10^19 limit), but a fraction or a scaled value
 * with more than ~16 significant digits may round differently in its last digit (documented
 * deviation). Input is read line by line (a line is held whole, up to limits.maxBufferBytes).
 */

type Scale = 'none' | 'auto' | 'si' | 'iec' | 'iec-i';
type Round = 'up' | 'down' | 'from-zero' | 'towards-zero' | 'nearest';
type Invalid = 'abort' | 'fail' | 'warn' | 'ignore';

const SUFFIXES = 'KMGTPEZY';
const MAX_UNSCALED_DIGITS = 18;
const MAX_ACCEPTABLE_DIGITS = 27;
const INTMAX_MAX = 9223372036854775807;

/** error(conv_exit_code, ...) in abort mode: the run ends with status 2. */
class Abort extends Error {}

interface Settings {
  from: Scale;
  to: Scale;
  round: Round;
  invalid: Invalid;
  fromUnit: bigint;
  toUnit: bigint;
  suffix?: string;
  padding: number;
  alignLeft: boolean;
  autoPadding: boolean;
  zeroPadding: number;
  userPrecision: number; // -1: none
  format?: Format;
  fields?: { lo: number; hi: number }[];
  delimiter?: string; // undefined: blanks
  debug: boolean;
}

class Numfmt {
  valid = true;
  /** The output buffer asks for a flush (done between lines). */
  full = false;
  /** Output text not yet in `out` (latin1): one Buffer per 64 KiB, not one per field. */
  private text = '';
  constructor(readonly ctx: CommandContext, readonly s: Settings, readonly out: OutBuffer) {}

  async err(msg: string): Promise<void> {
    if (this.s.invalid === 'ignore') return;
    this.spill();
    await this.out.flush();
    await this.ctx.warn(msg);
    if (this.s.invalid === 'abort') throw new Abort();
  }

  add(t: string): void {
    this.text += t;
    if (this.text.length >= 65536) this.spill();
  }

  /** The text gathered so far into the output buffer (before any flush of it). */
  spill(): void {
    if (this.text && this.out.add(Buffer.from(this.text, 'latin1'))) this.full = true;
    this.text = '';
  }

  includeField(field: number): boolean {
    if (!this.s.fields) return field === 1;
    return this.s.fields.some((r) => r.lo <= field && field <= r.hi);
  }

  /** process_line: a line (latin1 text, no terminator). */
  async line(line: string, newline: boolean, delim: string): Promise<void> {
    const nul = line.indexOf('\0');
    if (nul >= 0) line = line.slice(0, nul); // a C string ends there
    let pos = 0;
    for (let field = 1; ; field++) {
      const start = pos;
      let end = start;
      if (this.s.delimiter !== undefined) {
        if (line[start] !== this.s.delimiter) while (end < line.length && line[end] !== this.s.delimiter) end++;
      } else {
        while (end < line.length && isSep(line[end]!)) end++;
        while (end < line.length && !isSep(line[end]!)) end++;
      }
      if (this.includeField(field)) await this.field(line.slice(start, end), field);
      else this.add(line.slice(start, end));
      if (end < line.length) {
        this.add(this.s.delimiter ?? ' ');
        pos = end + 1;
      } else break;
    }
    if (newline) this.add(delim);
  }

  async field(text: string, field: number): Promise<void> {
    if (!this.includeField(field)) {
      this.add(text);
      return;
    }
    const s = this.s;
    const suf = s.suffix;
    if (suf !== undefined && text.length > suf.length && text.endsWith(suf)) text = text.slice(0, -suf.length);
    let p = 0;
    while (p < text.length && (text[p] === ' ' || text[p] === '\t')) p++;
    if (s.autoPadding) s.padding = p > 0 || field > 1 ? text.length : 0;
    let printed: string | undefined;
    const n = await this.parse(text.slice(p));
    if (n) {
      if (s.fromUnit !== 1n || s.toUnit !== 1n) {
        n.value = (n.value * Number(s.fromUnit)) / Number(s.toUnit);
        n.exact = n.exact !== undefined && s.toUnit === 1n ? n.exact * s.fromUnit : undefined;
      }
      printed = await this.prepare(n.value, n.exact, n.precision);
    }
    if (printed === undefined) {
      this.valid = false;
      this.add(text);
    } else this.add((s.format?.prefix ?? '') + printed + (s.format?.suffix ?? ''));
  }

  /** parse_human_number: the value, an exact integer when the input is one, the input's precision. */
  async parse(str: string): Promise<{ value: number; exact?: bigint; precision: number } | undefined> {
    const r = strtodHuman(str, this.s.from);
    if (typeof r === 'string') {
      const msgs: Record<string, string> = {
        overflow: 'value too large to be converted: %s',
        invalid: 'invalid number: %s',
        forbidden: 'rejecting suffix in input: %s (consider using --from)',
        suffix: 'invalid suffix in input: %s',
        missing_i: "missing 'i' suffix in input: %s (e.g Ki/Mi/Gi)",
      };
      await this.err(msgs[r]!.replace('%s', gnuQuote(latinToText(str))));
      return undefined;
    }
    if (r.end < str.length) {
      await this.err(`invalid suffix in input ${gnuQuote(latinToText(str))}: ${gnuQuote(latinToText(str.slice(r.end)))}`);
      return undefined;
    }
    if (r.loss && this.s.debug) await this.ctx.warn(`large input value ${gnuQuote(latinToText(str))}: possible precision loss`);
    return r;
  }

  /** prepare_padded_number: the field's text, or undefined (reported) when it cannot be printed. */
  async prepare(val: number, exact: bigint | undefined, precision: number): Promise<string | undefined> {
    const s = this.s;
    const prec = s.userPrecision === -1 ? precision : s.userPrecision;
    const x = expld(val, 10).power;
    if (s.to === 'none' && x + prec > MAX_UNSCALED_DIGITS) {
      if (prec) await this.err(`value/precision too large to be printed: '${lg(val)}/${prec}' (consider using --to)`);
      else await this.err(`value too large to be printed: '${lg(val)}' (consider using --to)`);
      return undefined;
    }
    if (x > MAX_ACCEPTABLE_DIGITS - 1) {
      await this.err(`value too large to be printed: '${lg(val)}' (cannot handle values > 999Y)`);
      return undefined;
    }
    let buf = this.human(val, exact, prec);
    if (s.suffix !== undefined) buf += s.suffix;
    if (s.padding && buf.length < s.padding) buf = s.alignLeft ? buf.padEnd(s.padding) : buf.padStart(s.padding);
    return buf;
  }

  /** double_to_human. */
  human(val: number, exact: bigint | undefined, precision: number): string {
    const s = this.s;
    const spec = { flags: s.zeroPadding ? '0' : '', width: s.zeroPadding || undefined, precision };
    if (s.to === 'none') {
      if (exact !== undefined) {
        // An integer: long double holds it exactly, and rounding does not change it.
        const neg = exact < 0n || (exact === 0n && val < 0);
        const body = (neg ? -exact : exact).toString() + (precision > 0 ? '.' + '0'.repeat(precision) : '');
        const w = s.zeroPadding;
        const sign = neg ? '-' : '';
        return sign.length + body.length >= w ? sign + body : sign + '0'.repeat(w - sign.length - body.length) + body;
      }
      const p = 10 ** precision;
      val = simpleRound(val * p, s.round) / p;
      return formatFloat('f', spec, val);
    }
    const base = s.to === 'si' ? 1000 : 1024;
    let { value: v, power } = expld(val, base);
    let adjust = 0;
    if (s.userPrecision !== -1) adjust = Math.min(power * 3, s.userPrecision);
    else if (Math.abs(v) < 10) adjust = 1;
    const p = 10 ** adjust;
    v = simpleRound(v * p, s.round) / p;
    if (Math.abs(v) >= base) {
      v /= base;
      power++;
    }
    const show = v !== 0 && Math.abs(v) < 10 && power > 0;
    const prec = s.userPrecision === -1 ? (show ? 1 : 0) : s.userPrecision;
    let out = formatFloat('f', { ...spec, precision: prec }, v) + (power > 0 ? SUFFIXES[power - 1]! : '');
    if (s.to === 'iec-i' && power > 0) out += 'i';
    return out;
  }
}

function isSep(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n';
}

function latinToText(s: string): string {
  return Buffer.from(s, 'latin1').toString('utf8');
}

function lg(v: number): string {
  return formatFloat('g', { flags: '' }, v);
}

function expld(val: number, base: number): { value: number; power: number } {
  let power = 0;
  if (Number.isFinite(val)) {
    while (Math.abs(val) >= base) {
      power++;
      val /= base;
    }
  }
  return { value: val, power };
}

function simpleRound(val: number, t: Round): number {
  const mul = Math.trunc(val / INTMAX_MAX);
  val -= INTMAX_MAX * mul;
  const ceil = (v: number) => {
    const i = Math.trunc(v);
    return i < v ? i + 1 : i;
  };
  const floor = (v: number) => {
    const i = Math.trunc(v);
    return i > v ? i - 1 : i;
  };
  let r: number;
  switch (t) {
    case 'up': r = ceil(val); break;
    case 'down': r = floor(val); break;
    case 'from-zero': r = val < 0 ? floor(val) : ceil(val); break;
    case 'towards-zero': r = Math.trunc(val); break;
    default: r = val < 0 ? ceil(val - 0.5) : floor(val + 0.5);
  }
  return INTMAX_MAX * mul + r;
}

type ParseError = 'overflow' | 'invalid' | 'forbidden' | 'suffix' | 'missing_i';

/** simple_strtod_int: digits with an optional leading '-'. */
function strtodInt(s: string, at: number): { value: number; exact: bigint; end: number; neg: boolean; loss: boolean } | ParseError {
  let i = at;
  const neg = s[i] === '-';
  if (neg) i++;
  let digits = 0;
  let loss = false;
  const start = i;
  while (i < s.length && s[i]! >= '0' && s[i]! <= '9') {
    if (digits || s[i] !== '0') digits++;
    if (digits > MAX_UNSCALED_DIGITS) loss = true;
    if (digits > MAX_ACCEPTABLE_DIGITS) return 'overflow';
    i++;
  }
  if (i === start && s[i] !== '.') return 'invalid';
  const exact = i > start ? BigInt(s.slice(start, i)) : 0n;
  const value = i > start ? Number(s.slice(start, i)) : 0;
  return { value: neg ? -value : value, exact: neg ? -exact : exact, end: i, neg, loss };
}

/** simple_strtod_human: a number, an optional fraction, blanks and a suffix the scale allows. */
export function strtodHuman(str: string, scale: Scale): { value: number; exact?: bigint; precision: number; end: number; loss: boolean } | ParseError {
  const a = strtodInt(str, 0);
  if (typeof a === 'string') return a;
  let value = a.value;
  let exact: bigint | undefined = a.exact;
  let precision = 0;
  let end = a.end;
  let loss = a.loss;
  let negZero = a.neg;
  if (str[end] === '.') {
    const f = strtodInt(str, end + 1);
    if (typeof f === 'string') return f;
    if (f.loss) loss = true;
    if (f.neg) return 'invalid';
    precision = f.end - end - 1;
    if (precision > 0) {
      const frac = Number(str.slice(end + 1, f.end)) / 10 ** precision;
      value = a.neg ? value - frac : value + frac;
      if (f.exact !== 0n) exact = undefined;
    }
    end = f.end;
  }
  let base = scale === 'iec' || scale === 'iec-i' ? 1024 : 1000;
  let power = 0;
  if (end < str.length) {
    while (str[end] === ' ' || str[end] === '\t') end++;
    const c = str[end];
    const k = c === undefined ? -1 : SUFFIXES.indexOf(c);
    if (k < 0) return 'suffix';
    if (scale === 'none') return 'forbidden';
    power = k + 1;
    end++;
    if (scale === 'auto' && str[end] === 'i') {
      base = 1024;
      end++;
    } else if (scale === 'iec-i') {
      if (str[end] === 'i') end++;
      else return 'missing_i';
    }
    precision = 0;
  }
  value *= base ** power;
  if (exact !== undefined) {
    exact *= BigInt(base) ** BigInt(power);
    // long double holds integers below 2^64 exactly; past that GNU refuses to print them anyway
    if (exact >= 1n << 64n || -exact >= 1n << 64n) exact = undefined;
  }
  if (exact === 0n && negZero && value === 0) value = -0;
  return { value, exact, precision, end, loss };
}

const SCALES = ['none', 'auto', 'si', 'iec', 'iec-i'] as const;

export default defineCommand({
  name: 'numfmt',
  summary: 'Reformat NUMBER(s), or the numbers from standard input if none are specified.',
  usage: '[NUMBER]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'debug', long: 'debug', help: 'print warnings about invalid input' },
    { key: 'd', short: 'd', long: 'delimiter', kind: 'string', arg: 'X', help: 'use X instead of whitespace for field delimiter' },
    { key: 'field', long: 'field', kind: 'string', arg: 'FIELDS', help: 'replace the numbers in these input fields (default=1)' },
    { key: 'format', long: 'format', kind: 'string', arg: 'FORMAT', help: "use printf style floating-point FORMAT (%[0]['][-][N][.][N]f)" },
    { key: 'from', long: 'from', kind: 'string', arg: 'UNIT', help: 'auto-scale input numbers to UNITs; default is \'none\'', choices: { words: SCALES } },
    { key: 'from_unit', long: 'from-unit', kind: 'string', arg: 'N', help: 'specify the input unit size (instead of the default 1)' },
    { key: 'grouping', long: 'grouping', help: "use locale-defined grouping of digits (none in nosh's C locale)" },
    { key: 'header', long: 'header', kind: 'optional', arg: 'N', value: '1', help: 'print (without converting) the first N header lines; N defaults to 1' },
    { key: 'invalid', long: 'invalid', kind: 'string', arg: 'MODE', help: 'failure mode for invalid numbers: abort (default), fail, warn, ignore', choices: { words: ['abort', 'fail', 'warn', 'ignore'] } },
    { key: 'padding', long: 'padding', kind: 'string', arg: 'N', help: 'pad the output to N characters; positive N right-aligns, negative left-aligns' },
    { key: 'round', long: 'round', kind: 'string', arg: 'METHOD', help: 'use METHOD for rounding when scaling: up, down, from-zero (default), towards-zero, nearest', choices: { words: ['up', 'down', 'from-zero', 'towards-zero', 'nearest'] } },
    { key: 'suffix', long: 'suffix', kind: 'string', arg: 'SUFFIX', help: 'add SUFFIX to output numbers, and accept optional SUFFIX in input numbers' },
    { key: 'to', long: 'to', kind: 'string', arg: 'UNIT', help: 'auto-scale output numbers to UNITs', choices: { words: ['none', 'si', 'iec', 'iec-i'] } },
    { key: 'to_unit', long: 'to-unit', kind: 'string', arg: 'N', help: 'the output unit size (instead of the default 1)' },
    { key: 'z', short: 'z', long: 'zero-terminated', help: 'line delimiter is NUL, not newline' },
  ],
  async run(ctx) {
    const s: Settings = { from: 'none', to: 'none', round: 'from-zero', invalid: 'abort', fromUnit: 1n, toUnit: 1n, padding: 0, alignLeft: false, autoPadding: false, zeroPadding: 0, userPrecision: -1, debug: false };
    let header = 0;
    let grouping = false;
    let formatStr: string | undefined;
    let fieldsGiven = false;
    let delim = '\n';
    for (const o of ctx.opts.order) {
      const v = o.parsed !== undefined ? String(o.parsed) : o.value;
      switch (o.key) {
        case 'from': s.from = v as Scale; break;
        case 'to': s.to = v as Scale; break;
        case 'round': s.round = v as Round; break;
        case 'invalid': s.invalid = v as Invalid; break;
        case 'from_unit': s.fromUnit = unitToUmax(o.value); break;
        case 'to_unit': s.toUnit = unitToUmax(o.value); break;
        case 'grouping': grouping = true; break;
        case 'padding': {
          const m = /^[ \t\n\v\f\r]*([+-]?)(\d+)$/.exec(o.value);
          const n = m ? Number(m[1] === '-' ? -BigInt(m[2]!) : BigInt(m[2]!)) : NaN;
          if (!m || n === 0 || Math.abs(n) > 2 ** 63) throw new OptionError(`invalid padding value ${gnuQuote(o.value)}`, false);
          s.alignLeft = n < 0;
          s.padding = Math.abs(n);
          break;
        }
        case 'field':
          if (fieldsGiven) throw new OptionError('multiple field specifications', false);
          fieldsGiven = true;
          s.fields = parseFieldList(o.value);
          break;
        case 'd': {
          const b = Buffer.from(o.value, 'utf8');
          if (b.length > 1) throw new OptionError('the delimiter must be a single character', false);
          s.delimiter = b.length ? b.toString('latin1') : '\0';
          break;
        }
        case 'z': delim = '\0'; break;
        case 'suffix': s.suffix = Buffer.from(o.value, 'utf8').toString('latin1'); break;
        case 'debug': s.debug = true; break;
        case 'header':
          {
            const m = /^[ \t\n\v\f\r]*\+?(\d+)$/.exec(o.value);
            if (!m || BigInt(m[1]!) === 0n || BigInt(m[1]!) >= 1n << 64n) throw new OptionError(`invalid header value ${gnuQuote(o.value)}`, false);
            header = Number(m[1]);
          }
          break;
        case 'format': formatStr = o.value; break;
      }
    }
    if (formatStr !== undefined && grouping) throw new OptionError('--grouping cannot be combined with --format', false);
    if (s.debug && s.from === 'none' && s.to === 'none' && !grouping && s.padding === 0 && formatStr === undefined) await ctx.warn('no conversion option specified');
    if (formatStr !== undefined) {
      const f = parseFormat(formatStr);
      if (f.grouping) grouping = true;
      if (f.pad !== 0) {
        if (s.debug && s.padding && !(f.zero && f.pad > 0)) await ctx.warn('--format padding overriding --padding');
        if (f.pad < 0) {
          s.alignLeft = true;
          s.padding = -f.pad;
        } else if (f.zero) s.zeroPadding = f.pad;
        else s.padding = f.pad;
      }
      s.userPrecision = f.precision;
      s.format = f;
    }
    if (grouping) {
      if (s.to !== 'none') throw new OptionError('grouping cannot be combined with --to', false);
      if (s.debug) await ctx.warn('grouping has no effect in this locale');
    }
    s.autoPadding = s.padding === 0 && s.delimiter === undefined;
    const out = new OutBuffer(ctx.stdout);
    const nf = new Numfmt(ctx, s, out);
    try {
      if (ctx.operands.length) {
        if (s.debug && header) await ctx.warn('--header ignored with command-line input');
        for (const a of ctx.operands) await nf.line(Buffer.from(a, 'utf8').toString('latin1'), true, delim);
      } else {
        const sep = delim.charCodeAt(0);
        for await (const batch of lines(ctx, sep)) {
          for (const { line, newline } of batch) {
            if (header > 0) {
              header--;
              nf.add(line + (newline ? delim : ''));
            } else await nf.line(line, newline, delim);
            if (nf.full) {
              nf.full = false;
              await out.flush();
            }
          }
        }
      }
    } catch (e) {
      if (!(e instanceof Abort)) throw e;
      nf.spill();
      await out.flush();
      return 2;
    }
    nf.spill();
    await out.flush();
    if (s.debug && !nf.valid) await ctx.warn('failed to convert some of the input numbers');
    return !nf.valid && (s.invalid === 'abort' || s.invalid === 'fail') ? 2 : 0;
  },
});

/** getdelim over stdin: each record as latin1 text, and whether its terminator was there; the records of a chunk together. */
async function* lines(ctx: CommandContext, sep: number): AsyncGenerator<{ line: string; newline: boolean }[]> {
  const cap = ctx.limits.maxBufferBytes;
  const carry: Buffer[] = [];
  let carried = 0;
  for await (const chunk of ctx.stdin) {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    const batch: { line: string; newline: boolean }[] = [];
    for (let i = buf.indexOf(sep); i >= 0; i = buf.indexOf(sep, start)) {
      let piece = buf.subarray(start, i);
      if (carried) {
        piece = Buffer.concat([...carry, piece]);
        carry.length = 0;
        carried = 0;
      }
      batch.push({ line: piece.toString('latin1'), newline: true });
      start = i + 1;
    }
    if (batch.length) yield batch;
    if (start < buf.length) {
      carry.push(Buffer.from(buf.subarray(start)));
      carried += buf.length - start;
      if (carried > cap) {
        throw new NoshError('MEMORY_LIMIT', `numfmt: a line of more than ${cap} bytes: numfmt holds a line whole`,
          'Split the input into lines first (fold, tr).', { max_buffer_bytes: cap });
      }
    }
  }
  if (carried) yield [{ line: Buffer.concat(carry).toString('latin1'), newline: false }];
}

