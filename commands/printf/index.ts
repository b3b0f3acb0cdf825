// printf (GNU coreutils 9.1 /usr/bin/printf): FORMAT applied to the ARGUMENTs, reused while any remain.
import { defineCommand, helpText, versionText } from '../../src/command/index.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { quoteBytesStyled } from '../../src/gnulib/quote.js';
import { formatFloat, formatInt, strtoint, strtold, type Spec } from '../../src/gnulib/cformat.js';

/** die(): GNU prints the message and exits 1 with what was printed so far. */
class Die extends Error {}
/** \c: no further output, exit status as it stands. */
class Stop extends Error {}

const latin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

const def = defineCommand({
  name: 'printf',
  summary: 'Print ARGUMENT(s) according to FORMAT (the coreutils program, not a shell builtin). FORMAT is reused while arguments remain. Conversions: %d %i %o %u %x %X (64-bit integers), %f %e %g %a (and upper case), %c, %s, %b (argument with backslash escapes), %q (shell-quoted), with flags, widths and precisions (* takes one from the arguments). A numeric argument may be \'c or "c (the character\'s code). A bad number is reported, counts as 0 and makes the exit status 1.',
  usage: 'FORMAT [ARGUMENT]...\n  or:  printf OPTION',
  mutates: false,
  parse: 'raw',
  usageStatus: 1,
  flags: [],
  notes: 'Floating point uses doubles where GNU uses long double: digits beyond the 17th significant one may differ.',
  async run(ctx) {
    let args = ctx.args;
    if (args.length === 1 && (args[0] === '--help' || args[0] === '--version')) {
      await ctx.stdout.write(args[0] === '--help' ? helpText(def) : versionText(def));
      return 0;
    }
    if (args[0] === '--') args = args.slice(1);
    if (args.length === 0) {
      await ctx.stderr.write(`printf: missing operand\nTry 'printf --help' for more information.\n`);
      return 1;
    }
    const p = new Printer(args[0]!, args.slice(1).map(latin1));
    let status = 0;
    try {
      p.run();
    } catch (e) {
      if (e instanceof Die) status = 1;
      else if (!(e instanceof Stop)) throw e;
    }
    await ctx.stdout.write(Buffer.from(p.out, 'latin1'));
    if (p.err) await ctx.stderr.write(p.err);
    return status || p.status;
  },
});
export default def;

const SIMPLE: Record<string, string> = { '"': '"', '\\': '\\', a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
const isOct = (c: string | undefined) => c !== undefined && c >= '0' && c <= '7';
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);

class Printer {
  out = '';
  err = '';
  status = 0;
  private readonly format: string;
  constructor(format: string, private readonly argv: string[]) {
    this.format = latin1(format);
  }

  private die(msg: string): never {
    this.err += `printf: ${msg}\n`;
    throw new Die();
  }
  private warn(msg: string): void {
    this.err += `printf: ${msg}\n`;
  }

  run(): void {
    let i = 0;
    for (;;) {
      const used = this.formatted(this.argv.slice(i));
      i += used;
      if (!(used > 0 && i < this.argv.length)) break;
    }
    if (i < this.argv.length) this.warn(`warning: ignoring excess arguments, starting with ${gnuQuote(this.argv[i]!)}`);
  }

  /** One escape at s[at] === '\\'; returns the characters taken after the backslash. */
  private esc(s: string, at: number, octal0: boolean): number {
    let p = at + 1;
    const c = s[p];
    if (c === 'x') {
      let v = 0;
      let n = 0;
      for (p++; n < 2 && isHex(s[p]); n++, p++) v = v * 16 + parseInt(s[p]!, 16);
      if (n === 0) this.die('missing hexadecimal number in escape');
      this.out += String.fromCharCode(v);
    } else if (isOct(c)) {
      let v = 0;
      let n = 0;
      if (octal0 && c === '0') p++;
      for (; n < 3 && isOct(s[p]); n++, p++) v = v * 8 + Number(s[p]);
      this.out += String.fromCharCode(v & 0xff);
    } else if (c !== undefined && '"\\abcefnrtv'.includes(c)) {
      if (c === 'c') throw new Stop();
      this.out += SIMPLE[c]!;
      p++;
    } else if (c === 'u' || c === 'U') {
      const len = c === 'u' ? 4 : 8;
      let v = 0;
      let n = 0;
      for (p++; n < len; n++, p++) {
        if (!isHex(s[p])) this.die('missing hexadecimal number in escape');
        v = v * 16 + parseInt(s[p]!, 16);
      }
      if ((v < 0xa0 && v !== 0x24 && v !== 0x40 && v !== 0x60) || (v >= 0xd800 && v <= 0xdfff)) {
        this.die(`invalid universal character name \\${c}${v.toString(16).toUpperCase().padStart(len, '0')}`);
      }
      // The C locale cannot encode it: gnulib prints the escape back.
      this.out += v < 0x80 ? String.fromCharCode(v) : `\\${v < 0x10000 ? 'u' + v.toString(16).toUpperCase().padStart(4, '0') : 'U' + v.toString(16).toUpperCase().padStart(8, '0')}`;
    } else {
      this.out += '\\';
      if (c !== undefined) {
        this.out += c;
        p++;
      }
    }
    return p - at - 1;
  }

  private escString(s: string): void {
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '\\' && i + 1 < s.length) i += this.esc(s, i, true);
      else this.out += s[i];
    }
  }

  private verify(s: string, end: number, erange: boolean): void {
    if (erange) {
      this.warn(`${gnuQuote(s)}: Numerical result out of range`);
      this.status = 1;
    } else if (end < s.length) {
      this.warn(end === 0 ? `${gnuQuote(s)}: expected a numeric value` : `${gnuQuote(s)}: value not completely converted`);
      this.status = 1;
    }
  }

  /** A character constant 'c or "c: its code, with GNU's warning for what follows it. */
  private charConst(s: string): number | undefined {
    if ((s[0] === '"' || s[0] === "'") && s.length > 1) {
      if (s.length > 2) this.warn(`warning: ${s.slice(2)}: character(s) following character constant have been ignored`);
      return s.charCodeAt(1);
    }
    return undefined;
  }

  private int(s: string, unsigned: boolean): bigint {
    const c = this.charConst(s);
    if (c !== undefined) return BigInt(c);
    const r = strtoint(s, unsigned);
    this.verify(s, r.end, r.erange);
    return r.value;
  }

  private float(s: string): [number, boolean] {
    const c = this.charConst(s);
    if (c !== undefined) return [c, false];
    const r = strtold(s);
    this.verify(s, r.end, r.erange);
    return [r.value, r.neg];
  }

  /** One pass over the format; returns how many arguments it used. */
  private formatted(argv: string[]): number {
    const f = this.format;
    let a = 0;
    const next = (): string | undefined => (a < argv.length ? argv[a++] : undefined);
    for (let i = 0; i < f.length; i++) {
      const ch = f[i]!;
      if (ch === '\\') {
        i += this.esc(f, i, false);
        continue;
      }
      if (ch !== '%') {
        this.out += ch;
        continue;
      }
      const start = i++;
      if (f[i] === '%') {
        this.out += '%';
        continue;
      }
      if (f[i] === 'b') {
        const s = next();
        if (s !== undefined) this.escString(s);
        continue;
      }
      if (f[i] === 'q') {
        const s = next();
        if (s !== undefined) this.out += Buffer.from(quoteBytesStyled(Buffer.from(s, 'latin1'), 'shell-escape')).toString('latin1');
        continue;
      }
      const ok = new Set('aAcdeEfFgGiosuxX');
      let flags = '';
      for (;; i++) {
        const c = f[i];
        if (c === 'I' || c === "'") for (const x of 'aAceEosxX') ok.delete(x);
        else if (c === '#') for (const x of 'cdisu') ok.delete(x);
        else if (c === '0') for (const x of 'cs') ok.delete(x);
        else if (c !== '-' && c !== '+' && c !== ' ') break;
        flags += c;
      }
      const spec: Spec = { flags };
      if (f[i] === '*') {
        i++;
        const s = next();
        if (s !== undefined) {
          const w = this.int(s, false);
          if (w < -(2n ** 31n) || w > 2n ** 31n - 1n) this.die(`invalid field width: ${gnuQuote(s)}`);
          spec.width = Number(w);
        } else spec.width = 0;
      } else {
        let w = '';
        while (f[i] !== undefined && f[i]! >= '0' && f[i]! <= '9') w += f[i++];
        if (w) spec.width = Number(w);
      }
      if (f[i] === '.') {
        i++;
        ok.delete('c');
        if (f[i] === '*') {
          i++;
          const s = next();
          if (s !== undefined) {
            const p = this.int(s, false);
            if (p > 2n ** 31n - 1n) this.die(`invalid precision: ${gnuQuote(s)}`);
            spec.precision = p < 0n ? -1 : Number(p);
          } else spec.precision = 0;
        } else {
          let p = '';
          while (f[i] !== undefined && f[i]! >= '0' && f[i]! <= '9') p += f[i++];
          spec.precision = Number(p || '0');
        }
      }
      while (f[i] !== undefined && 'lLhjtz'.includes(f[i]!)) i++;
      const conv = f[i];
      if (conv === undefined || !ok.has(conv)) this.die(`${f.slice(start, i + 1)}: invalid conversion specification`);
      const arg = next() ?? '';
      switch (conv) {
        case 'd': case 'i':
          this.out += formatInt(conv, spec, this.int(arg, false));
          break;
        case 'o': case 'u': case 'x': case 'X':
          this.out += formatInt(conv, spec, this.int(arg, true));
          break;
        case 'c': {
          const c = arg === '' ? '\0' : arg[0]!;
          this.out += spec.width === undefined ? c : padStr(c, spec);
          break;
        }
        case 's': {
          const s = spec.precision !== undefined && spec.precision >= 0 ? arg.slice(0, spec.precision) : arg;
          this.out += padStr(s, spec);
          break;
        }
        default:
          this.out += formatFloat(conv, spec, ...this.float(arg));
      }
    }
    return a;
  }
}

function padStr(s: string, spec: Spec): string {
  const w = spec.width ?? 0;
  const width = Math.abs(w);
  if (s.length >= width) return s;
  return spec.flags.includes('-') || w < 0 ? s + ' '.repeat(width - s.length) : ' '.repeat(width - s.length) + s;
}
