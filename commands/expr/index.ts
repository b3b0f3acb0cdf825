// expr (GNU coreutils 9.1): evaluate an expression given as separate arguments.
import { defineCommand, helpText, versionText } from '../../src/command/index.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { RegexSyntaxError, translateRegex } from '../../src/regex/index.js';

class Fail extends Error {
  constructor(message: string, readonly status = 2) {
    super(message);
  }
}

type Val = bigint | string;
const isInt = (s: string) => /^-?\d+$/.test(s);

const def = defineCommand({
  name: 'expr',
  summary: 'Print the value of EXPRESSION (each token a separate argument). Operators: | & < <= = == != >= > + - * / % : (anchored basic regex match), match, substr, index, length, + TOKEN, parentheses. Integers are arbitrary precision. Exit status 0 if the value is neither null nor 0, 1 if it is, 2 if the expression is invalid, 3 on another error.',
  usage: 'EXPRESSION\n  or:  expr OPTION',
  mutates: false,
  parse: 'raw',
  usageStatus: 2,
  flags: [],
  async run(ctx) {
    let args = ctx.args;
    if (args.length === 1 && (args[0] === '--help' || args[0] === '--version')) {
      await ctx.stdout.write(args[0] === '--help' ? helpText(def) : versionText(def));
      return 0;
    }
    if (args[0] === '--') args = args.slice(1);
    if (args.length === 0) {
      await ctx.stderr.write(`expr: missing operand\nTry 'expr --help' for more information.\n`);
      return 2;
    }
    try {
      const e = new Expr(args.map((a) => Buffer.from(a, 'utf8').toString('latin1')));
      const v = e.or(true);
      if (e.pos < e.args.length) throw new Fail(`syntax error: unexpected argument ${gnuQuote(e.args[e.pos]!)}`);
      await ctx.stdout.write(Buffer.from(String(v) + '\n', 'latin1'));
      return isNull(v) ? 1 : 0;
    } catch (err) {
      if (!(err instanceof Fail)) throw err;
      await ctx.stderr.write(`expr: ${err.message}\n`);
      return err.status;
    }
  },
});
export default def;

function isNull(v: Val): boolean {
  if (typeof v === 'bigint') return v === 0n;
  return v === '' || /^-?0+$/.test(v);
}

function toInt(v: Val): bigint {
  if (typeof v === 'bigint') return v;
  if (!isInt(v)) throw new Fail('non-integer argument');
  return BigInt(v);
}

class Expr {
  pos = 0;
  constructor(readonly args: string[]) {}

  private next(s: string): boolean {
    if (this.pos < this.args.length && this.args[this.pos] === s) {
      this.pos++;
      return true;
    }
    return false;
  }
  private more(): boolean {
    return this.pos < this.args.length;
  }
  private missing(): never {
    throw new Fail(`syntax error: missing argument after ${gnuQuote(this.args[this.pos - 1]!)}`);
  }

  or(evaluate: boolean): Val {
    let l = this.and(evaluate);
    while (this.next('|')) {
      const r = this.and(evaluate && isNull(l));
      if (isNull(l)) l = isNull(r) ? 0n : r;
    }
    return l;
  }
  private and(evaluate: boolean): Val {
    let l = this.cmp(evaluate);
    while (this.next('&')) {
      const r = this.cmp(evaluate && !isNull(l));
      if (isNull(l) || isNull(r)) l = 0n;
    }
    return l;
  }
  private cmp(evaluate: boolean): Val {
    let l = this.add(evaluate);
    for (;;) {
      const op = ['<', '<=', '=', '==', '!=', '>=', '>'].find((o) => this.next(o));
      if (!op) return l;
      const r = this.add(evaluate);
      if (!evaluate) continue;
      let c: number;
      const ls = String(l);
      const rs = String(r);
      if (isInt(ls) && isInt(rs)) {
        const a = BigInt(ls);
        const b = BigInt(rs);
        c = a < b ? -1 : a > b ? 1 : 0;
      } else c = Buffer.compare(Buffer.from(ls, 'latin1'), Buffer.from(rs, 'latin1'));
      const t = op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '=' || op === '==' ? c === 0 : op === '!=' ? c !== 0 : op === '>=' ? c >= 0 : c > 0;
      l = t ? 1n : 0n;
    }
  }
  private add(evaluate: boolean): Val {
    let l = this.mul(evaluate);
    for (;;) {
      const op = this.next('+') ? '+' : this.next('-') ? '-' : '';
      if (!op) return l;
      const r = this.mul(evaluate);
      if (evaluate) l = op === '+' ? toInt(l) + toInt(r) : toInt(l) - toInt(r);
    }
  }
  private mul(evaluate: boolean): Val {
    let l = this.colon(evaluate);
    for (;;) {
      const op = this.next('*') ? '*' : this.next('/') ? '/' : this.next('%') ? '%' : '';
      if (!op) return l;
      const r = this.colon(evaluate);
      if (!evaluate) continue;
      const a = toInt(l);
      const b = toInt(r);
      if (op !== '*' && b === 0n) throw new Fail('division by zero');
      l = op === '*' ? a * b : op === '/' ? a / b : a % b;
    }
  }
  private colon(evaluate: boolean): Val {
    let l = this.unary(evaluate);
    while (this.next(':')) {
      const r = this.unary(evaluate);
      if (evaluate) l = match(String(l), String(r));
    }
    return l;
  }
  private unary(evaluate: boolean): Val {
    if (!this.more()) this.missing();
    if (this.next('+')) {
      if (!this.more()) this.missing();
      return this.args[this.pos++]!;
    }
    if (this.next('length')) {
      const s = String(this.unary(evaluate));
      return BigInt(s.length);
    }
    if (this.next('match')) {
      const s = this.unary(evaluate);
      const r = this.unary(evaluate);
      return evaluate ? match(String(s), String(r)) : 0n;
    }
    if (this.next('index')) {
      const s = String(this.unary(evaluate));
      const chars = String(this.unary(evaluate));
      let i = 0;
      for (; i < s.length; i++) if (chars.includes(s[i]!)) break;
      return i < s.length ? BigInt(i + 1) : 0n;
    }
    if (this.next('substr')) {
      const s = String(this.unary(evaluate));
      const p = String(this.unary(evaluate));
      const n = String(this.unary(evaluate));
      if (!isInt(p) || !isInt(n)) return '';
      const pos = BigInt(p);
      const len = BigInt(n);
      if (pos < 1n || len < 1n || pos > BigInt(s.length)) return '';
      return s.slice(Number(pos) - 1, Number(pos - 1n + len > BigInt(s.length) ? BigInt(s.length) : pos - 1n + len));
    }
    return this.primary(evaluate);
  }
  private primary(evaluate: boolean): Val {
    if (!this.more()) this.missing();
    if (this.next('(')) {
      const v = this.or(evaluate);
      if (!this.more()) throw new Fail(`syntax error: expecting ')' after ${gnuQuote(this.args[this.pos - 1]!)}`);
      if (!this.next(')')) throw new Fail(`syntax error: expecting ')' instead of ${gnuQuote(this.args[this.pos]!)}`);
      return v;
    }
    if (this.args[this.pos] === ')') throw new Fail(`syntax error: unexpected ')'`);
    const s = this.args[this.pos++]!;
    return s;
  }
}

/** STRING : REGEX, anchored at the start: the first group's text, or the length matched. */
function match(s: string, pattern: string): Val {
  let t;
  try {
    t = translateRegex(pattern, { dialect: 'basic', flavor: 'sed', newline: 'any' });
  } catch (e) {
    if (e instanceof RegexSyntaxError) throw new Fail(e.message);
    throw e;
  }
  const re = new RegExp('^(?:' + t.source + ')', t.flags);
  const m = re.exec(s);
  if (t.groupCount > 0) return m && m[1] !== undefined ? m[1] : '';
  return m ? BigInt(m[0].length) : 0n;
}
