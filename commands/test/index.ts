// test and [ (GNU coreutils 9.1 /usr/bin/test): evaluate EXPRESSION; file tests go through the Vfs.
import type { Stats } from 'node:fs';
import { defineCommand, helpText, versionText, type CommandContext } from '../../src/command/index.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';

class Syntax extends Error {}

const BINOPS = new Set(['=', '==', '!=', '-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-nt', '-ot', '-ef']);
const UNOPS = new Set('abcdefgGhkLnOprsStuwxz'.split('').map((c) => '-' + c));

const def = defineCommand({
  name: 'test',
  aliases: ['['],
  summary: "Exit with the status determined by EXPRESSION (0 true, 1 false, 2 error). `[` is the same command and needs a closing `]`. String tests (-n -z = != ==), integer tests (-eq -ne -lt -le -gt -ge), file tests through the zone (-e -f -d -s -r -w -x -L -h -b -c -p -S -nt -ot -ef), `!`, -a, -o and parentheses. -t is always false (no terminal).",
  usage: 'EXPRESSION\n  or:  test\n  or:  [ EXPRESSION ]\n  or:  [ ]\n  or:  [ OPTION',
  mutates: false,
  parse: 'raw',
  usageStatus: 2,
  flags: [],
  async run(ctx) {
    let args = ctx.args;
    const name = ctx.name;
    if (name === '[') {
      if (args.length === 1 && (args[0] === '--help' || args[0] === '--version')) {
        await ctx.stdout.write(args[0] === '--help' ? helpText(def) : versionText({ ...def, name: '[' }));
        return 0;
      }
      if (args.length === 0 || args[args.length - 1] !== ']') {
        await ctx.stderr.write(`[: missing ${gnuQuote(']')}\n`);
        return 2;
      }
      args = args.slice(0, -1);
    }
    try {
      return new Test(ctx, args).run() ? 0 : 1;
    } catch (e) {
      if (!(e instanceof Syntax)) throw e;
      await ctx.stderr.write(`${name}: ${e.message}\n`);
      return 2;
    }
  },
});
export default def;

class Test {
  private pos = 0;
  constructor(private readonly ctx: CommandContext, private readonly argv: string[]) {}

  run(): boolean {
    const n = this.argv.length;
    if (n === 0) return false;
    const v = n <= 4 ? this.posix(n) : this.expr();
    if (this.pos !== n) throw new Syntax(`extra argument ${gnuQuote(this.argv[this.pos]!)}`);
    return v;
  }

  private advance(check: boolean): void {
    this.pos++;
    if (check && this.pos >= this.argv.length) this.beyond();
  }
  private beyond(): never {
    throw new Syntax(`missing argument after ${gnuQuote(this.argv[this.argv.length - 1]!)}`);
  }

  private posix(n: number): boolean {
    const a = this.argv;
    const p = this.pos;
    switch (n) {
      case 1:
        this.pos++;
        return a[p] !== '';
      case 2:
        if (a[p] === '!') {
          this.pos++;
          return !this.posix(1);
        }
        if (a[p]!.startsWith('-') && a[p]!.length === 2) return this.unary();
        this.beyond();
      // falls through (beyond throws)
      case 3:
        if (BINOPS.has(a[p + 1]!)) return this.binary();
        if (a[p] === '!') {
          this.pos++;
          return !this.posix(2);
        }
        if (a[p] === '(' && a[p + 2] === ')') {
          this.pos++;
          const v = this.posix(1);
          this.pos++;
          return v;
        }
        if (a[p + 1] === '-a' || a[p + 1] === '-o') return this.expr();
        throw new Syntax(`${gnuQuote(a[p + 1]!)}: binary operator expected`);
      case 4:
        if (a[p] === '!') {
          this.pos++;
          return !this.posix(3);
        }
        if (a[p] === '(' && a[p + 3] === ')') {
          this.pos++;
          const v = this.posix(2);
          this.pos++;
          return v;
        }
        return this.expr();
      default:
        return this.expr();
    }
  }

  private expr(): boolean {
    if (this.pos >= this.argv.length) this.beyond();
    return this.or();
  }
  private or(): boolean {
    let v = this.and();
    while (this.pos < this.argv.length && this.argv[this.pos] === '-o') {
      this.advance(true);
      v = this.and() || v;
    }
    return v;
  }
  private and(): boolean {
    let v = this.term();
    while (this.pos < this.argv.length && this.argv[this.pos] === '-a') {
      this.advance(true);
      v = this.term() && v;
    }
    return v;
  }
  private term(): boolean {
    const a = this.argv;
    if (this.pos >= a.length) this.beyond();
    let negated = false;
    while (this.pos < a.length && a[this.pos] === '!') {
      this.advance(true);
      negated = !negated;
    }
    let v: boolean;
    if (a[this.pos] === '(') {
      this.advance(true);
      let n = 1;
      while (n < 4 && this.pos + n < a.length && a[this.pos + n] !== ')') n++;
      v = this.pos + n < a.length && a[this.pos + n] === ')' && n < 4 ? this.posix(n) : this.expr();
      if (a[this.pos] === undefined) throw new Syntax(`${gnuQuote(')')} expected`);
      if (a[this.pos] !== ')') throw new Syntax(`${gnuQuote(')')} expected, found ${gnuQuote(a[this.pos]!)}`);
      this.advance(false);
    } else if (a.length - this.pos >= 3 && BINOPS.has(a[this.pos + 1]!)) v = this.binary();
    else if (a[this.pos]!.startsWith('-') && a[this.pos]!.length === 2) v = this.unary();
    else {
      v = a[this.pos] !== '';
      this.advance(false);
    }
    return negated !== v;
  }

  private int(s: string): bigint {
    const m = /^[ \t\n\v\f\r]*([+-]?\d+)[ \t\n\v\f\r]*$/.exec(s);
    if (!m) throw new Syntax(`invalid integer ${gnuQuote(s)}`);
    return BigInt(m[1]!);
  }

  private stat(p: string, link = false): Stats | null {
    try {
      return link ? this.ctx.fs.lstat(p, this.ctx.cwd) : this.ctx.fs.stat(p, this.ctx.cwd);
    } catch {
      return null;
    }
  }

  private binary(): boolean {
    const a = this.argv;
    const l = a[this.pos]!;
    const op = a[this.pos + 1]!;
    const r = a[this.pos + 2]!;
    this.pos += 3;
    switch (op) {
      case '=': case '==': return l === r;
      case '!=': return l !== r;
      case '-nt': case '-ot': {
        const ls = this.stat(l);
        const rs = this.stat(r);
        const [x, y] = op === '-nt' ? [ls, rs] : [rs, ls];
        if (!x) return false;
        if (!y) return true;
        return x.mtimeMs > y.mtimeMs || (x.mtimeMs === y.mtimeMs && (x as Stats & { mtimeNs?: bigint }).mtimeNs! > (y as Stats & { mtimeNs?: bigint }).mtimeNs!);
      }
      case '-ef': {
        const ls = this.stat(l);
        const rs = this.stat(r);
        return !!ls && !!rs && ls.dev === rs.dev && ls.ino === rs.ino;
      }
      default: {
        const x = this.int(l);
        const y = this.int(r);
        switch (op) {
          case '-eq': return x === y;
          case '-ne': return x !== y;
          case '-lt': return x < y;
          case '-le': return x <= y;
          case '-gt': return x > y;
          default: return x >= y;
        }
      }
    }
  }

  private unary(): boolean {
    const op = this.argv[this.pos]!;
    if (!UNOPS.has(op)) throw new Syntax(`${gnuQuote(op)}: unary operator expected`);
    this.advance(true);
    const arg = this.argv[this.pos]!;
    this.advance(false);
    switch (op) {
      case '-n': return arg.length > 0;
      case '-z': return arg.length === 0;
      case '-t': this.int(arg); return false;
      case '-h': case '-L': return this.stat(arg, true)?.isSymbolicLink() ?? false;
    }
    const st = this.stat(arg);
    if (!st) return false;
    switch (op) {
      case '-e': return true;
      case '-f': return st.isFile();
      case '-d': return st.isDirectory();
      case '-s': return st.size > 0;
      case '-b': return st.isBlockDevice();
      case '-c': return st.isCharacterDevice();
      case '-p': return st.isFIFO();
      case '-S': return st.isSocket();
      case '-g': return (st.mode & 0o2000) !== 0;
      case '-u': return (st.mode & 0o4000) !== 0;
      case '-k': return (st.mode & 0o1000) !== 0;
      case '-r': return (st.mode & 0o444) !== 0;
      case '-w': return (st.mode & 0o222) !== 0;
      case '-x': return (st.mode & 0o111) !== 0;
      default: return true; // -O -G: the zone's files are the caller's
    }
  }
}
