/** The AST compiled to closures: expressions to () => value (or number/string), statements to () => status. */
import type { Expr, FuncDef, Program, Stmt } from './parser.js';
import { compileBuiltin, type E } from './builtins.js';
export type { E } from './builtins.js';
import { sprintf } from './format.js';
import { awkRegex, AwkFatal } from './regex.js';
import { BREAK, CONTINUE, EXIT, Jump, LazyArr, NEXT, NEXTFILE, RETURN, Rt, S, SPECIALS, type Cell } from './runtime.js';
import { AwkArr, compare, numToStr, SN, subscript, toBool, toNum, toStr, type V } from './values.js';
import { sortedKeys } from './sort.js';

export type EN = () => number;
export type ES = () => string;
export type St = () => number;

type Kind = 'num' | 'str' | 'any';

interface Fn { def: FuncDef; body: St | null; nparams: number }

export class Compiler {
  readonly globals = new Map<string, number>();
  locals: Map<string, number> | null = null;
  readonly fns = new Map<string, Fn>();
  exitCode = 0;
  constructor(readonly rt: Rt, readonly prog: Program) {
    SPECIALS.forEach((n, i) => this.globals.set(n, i));
    for (const [name, def] of prog.funcs) {
      if (this.globals.has(name) && SPECIALS.includes(name as never)) throw new AwkFatal(`cannot use special variable \`${name}' as a function name`);
      this.fns.set(name, { def, body: null, nparams: def.params.length });
    }
  }

  slot(name: string): number {
    let i = this.globals.get(name);
    if (i === undefined) {
      if (this.fns.has(name)) throw new AwkFatal(`function \`${name}' called with space between name and \`(',\nor used as a variable or an array`);
      i = this.rt.g.length;
      this.rt.g.push(undefined);
      this.globals.set(name, i);
    }
    return i;
  }

  kind(e: Expr): Kind {
    switch (e.t) {
      case 'num': case 'bin': case 'neg': case 'plus': case 'not': case 'incdec': case 'cmp': case 'match': case 'and': case 'or': case 'in': case 're': case 'getline':
        return 'num';
      case 'str': case 'cat': return 'str';
      case 'assign': return e.op === '=' ? this.kind(e.e) : 'num';
      case 'builtin':
        return ['substr', 'sprintf', 'tolower', 'toupper', 'strftime'].includes(e.name) ? 'str' : ['length', 'index', 'split', 'sub', 'gsub', 'match', 'int', 'sqrt', 'exp', 'log', 'sin', 'cos', 'atan2', 'rand', 'srand', 'asort', 'asorti', 'patsplit', 'systime', 'mktime', 'and', 'or', 'xor', 'compl', 'lshift', 'rshift', 'close', 'fflush'].includes(e.name) ? 'num' : 'any';
      default: return 'any';
    }
  }

  // ---- arrays ----

  /** The array named `name` (a global, or a local/parameter). */
  arr(name: string): () => AwkArr {
    const rt = this.rt;
    const li = this.locals?.get(name);
    if (li !== undefined) {
      return () => {
        const v = rt.frame[li];
        if (v instanceof AwkArr) return v;
        if (v === undefined || v instanceof LazyArr) {
          const a = new AwkArr();
          if (v instanceof LazyArr) v.bind(a);
          rt.frame[li] = a;
          return a;
        }
        throw new AwkFatal(`attempt to use scalar parameter \`${name}' as an array`);
      };
    }
    if (name === 'NF') throw new AwkFatal('attempt to use scalar `NF\' as an array');
    const i = this.slot(name);
    const g = rt.g;
    return () => {
      const v = g[i];
      if (v instanceof AwkArr) return v;
      if (v === undefined) {
        const a = new AwkArr();
        g[i] = a;
        return a;
      }
      throw new AwkFatal(`attempt to use scalar \`${name}' as an array`);
    };
  }

  key(subs: Expr[]): ES {
    const rt = this.rt;
    if (subs.length === 1) {
      const e = subs[0]!;
      if (e.t === 'str') { const k = e.v; return () => k; }
      if (e.t === 'num' && Number.isInteger(e.v)) { const k = subscript(e.v, '%.6g'); return () => k; }
      const f = this.expr(e);
      return () => subscript(f(), rt.convfmt);
    }
    const fs = subs.map((s) => this.expr(s));
    return () => {
      const sep = rt.str(S.SUBSEP);
      let k = subscript(fs[0]!(), rt.convfmt);
      for (let j = 1; j < fs.length; j++) k += sep + subscript(fs[j]!(), rt.convfmt);
      return k;
    };
  }

  // ---- lvalues ----

  lvalue(e: Expr): { get: E; set: (v: V) => void } {
    const rt = this.rt;
    if (e.t === 'var') {
      const name = e.name;
      if (name === 'NF') return { get: () => rt.getNF(), set: (v) => rt.setNF(toNum(v)) };
      const li = this.locals?.get(name);
      if (li !== undefined) {
        return {
          get: () => {
            const v = rt.frame[li];
            if (v instanceof LazyArr) return undefined;
            if (v instanceof AwkArr) throw new AwkFatal(`attempt to use array \`${name}' in a scalar context`);
            return v;
          },
          set: (v) => {
            if (rt.frame[li] instanceof AwkArr) throw new AwkFatal(`attempt to use array \`${name}' in a scalar context`);
            rt.frame[li] = v;
          },
        };
      }
      const i = this.slot(name);
      const g = rt.g;
      return {
        get: () => {
          const v = g[i];
          if (v instanceof AwkArr) throw new AwkFatal(`attempt to use array \`${name}' in a scalar context`);
          return v as V;
        },
        set: (v) => {
          if (g[i] instanceof AwkArr) throw new AwkFatal(`attempt to use array \`${name}' in a scalar context`);
          g[i] = v;
        },
      };
    }
    if (e.t === 'field') {
      const idx = this.num(e.e);
      return {
        get: () => rt.field(rt.checkIndex(idx())),
        set: (v) => rt.setField(rt.checkIndex(idx()), toStr(v, rt.convfmt), v),
      };
    }
    if (e.t === 'idx') {
      const a = this.arr(e.name);
      const k = this.key(e.subs);
      return {
        get: () => {
          const m = a();
          const key = k();
          const v = m.get(key);
          if (v === undefined && !m.has(key)) m.set(key, undefined);
          return v;
        },
        set: (v) => { a().set(k(), v); },
      };
    }
    throw new AwkFatal('invalid assignment target');
  }

  // ---- expressions ----

  expr(e: Expr): E {
    const rt = this.rt;
    switch (e.t) {
      case 'num': { const v = e.v; return () => v; }
      case 'str': { const v = e.v; return () => v; }
      case 're': { const b = this.bool(e); return () => (b() ? 1 : 0); }
      case 'var': {
        if (e.name === 'NF') return () => rt.getNF();
        return this.lvalue(e).get;
      }
      case 'field': {
        if (e.e.t === 'num') { const k = rt.checkIndex(e.e.v); return () => rt.field(k); }
        const idx = this.num(e.e);
        return () => rt.field(rt.checkIndex(idx()));
      }
      case 'idx': return this.lvalue(e).get;
      case 'assign': return this.assign(e);
      case 'cond': {
        const c = this.bool(e.c), a = this.expr(e.a), b = this.expr(e.b);
        return () => (c() ? a() : b());
      }
      case 'cat': case 'group': {
        if (e.t === 'group') {
          if (e.list.length !== 1) throw new AwkFatal('syntax error');
          return this.expr(e.list[0]!);
        }
        const s = this.str(e);
        return s;
      }
      case 'incdec': {
        const lv = this.lvalue(e.lv);
        const d = e.op === '++' ? 1 : -1;
        if (e.pre) return () => { const v = toNum(lv.get()) + d; lv.set(v); return v; };
        return () => { const v = toNum(lv.get()); lv.set(v + d); return v; };
      }
      case 'call': return this.call(e);
      case 'builtin': return compileBuiltin(this, e.name, e.args, e.paren);
      case 'getline': return this.getline(e);
      default: {
        if (this.kind(e) === 'num') return this.num(e);
        throw new AwkFatal(`internal: cannot compile ${e.t}`);
      }
    }
  }

  num(e: Expr): EN {
    const rt = this.rt;
    switch (e.t) {
      case 'num': { const v = e.v; return () => v; }
      case 'field': {
        if (e.e.t === 'num') { const k = rt.checkIndex(e.e.v); return () => rt.fieldNum(k); }
        break;
      }
      case 'var': {
        if (e.name === 'NF') return () => rt.getNF();
        const li = this.locals?.get(e.name);
        if (li === undefined) {
          const i = this.slot(e.name);
          const g = rt.g;
          const get = this.lvalue(e).get;
          return () => { const v = g[i]; return typeof v === 'number' ? v : toNum(get()); };
        }
        break;
      }
      case 'bin': {
        const a = this.num(e.a), b = this.num(e.b);
        switch (e.op) {
          case '+': return () => a() + b();
          case '-': return () => a() - b();
          case '*': return () => a() * b();
          case '/': return () => { const y = b(); if (y === 0) throw new AwkFatal('division by zero attempted'); return a() / y; };
          case '%': return () => { const y = b(); if (y === 0) throw new AwkFatal('division by zero attempted in `%\''); return a() % y; };
          case '^': return () => Math.pow(a(), b());
        }
        break;
      }
      case 'neg': { const a = this.num(e.e); return () => -a(); }
      case 'plus': { const a = this.num(e.e); return () => a(); }
      case 'not': { const a = this.bool(e.e); return () => (a() ? 0 : 1); }
      case 'cmp': case 'match': case 'and': case 'or': case 'in': case 're': {
        const b = this.bool(e);
        return () => (b() ? 1 : 0);
      }
    }
    const f = this.expr(e);
    return () => toNum(f());
  }

  str(e: Expr): ES {
    const rt = this.rt;
    switch (e.t) {
      case 'str': { const v = e.v; return () => v; }
      case 'field': if (e.e.t === 'num') { const k = rt.checkIndex(e.e.v); return () => rt.fieldStr(k); } break;
      case 'cat': {
        const a = this.str(e.a), b = this.str(e.b);
        return () => { const x = a(); return x + b(); };
      }
    }
    if (this.kind(e) === 'num') {
      const n = this.num(e);
      return () => numToStr(n(), rt.convfmt);
    }
    const f = this.expr(e);
    return () => toStr(f(), rt.convfmt);
  }

  /** A string for output (numbers through OFMT). */
  out(e: Expr): ES {
    const rt = this.rt;
    if (e.t === 'field' && e.e.t === 'num') { const k = rt.checkIndex(e.e.v); return () => rt.fieldStr(k); }
    if (this.kind(e) === 'str') return this.str(e);
    if (this.kind(e) === 'num') { const n = this.num(e); return () => numToStr(n(), rt.ofmt); }
    const f = this.expr(e);
    return () => { const v = f(); return typeof v === 'number' ? numToStr(v, rt.ofmt) : toStr(v, rt.convfmt); };
  }

  /** A regex operand: a literal, or a dynamic one from a value. */
  regex(e: Expr): () => RegExp {
    const rt = this.rt;
    if (e.t === 're') { const re = awkRegex(e.src); return () => re; }
    const s = this.str(e);
    void rt;
    return () => awkRegex(s());
  }

  /** A regex operand as source text (sub, gsub, gensub). */
  regexSource(e: Expr): () => string {
    if (e.t === 're') { const src = e.src; awkRegex(src); return () => src; }
    return this.str(e);
  }

  bool(e: Expr): () => boolean {
    const rt = this.rt;
    switch (e.t) {
      case 're': { const re = awkRegex(e.src); return () => re.test(rt.rec); }
      case 'not': { const a = this.bool(e.e); return () => !a(); }
      case 'and': { const a = this.bool(e.a), b = this.bool(e.b); return () => a() && b(); }
      case 'or': { const a = this.bool(e.a), b = this.bool(e.b); return () => a() || b(); }
      case 'match': {
        const s = this.str(e.a), re = this.regex(e.re);
        return e.neg ? () => !re().test(s()) : () => re().test(s());
      }
      case 'in': {
        const a = this.arr(e.name), k = this.key(e.subs);
        return () => a().has(k());
      }
      case 'cmp': return this.cmp(e.op, e.a, e.b);
      case 'num': { const v = e.v !== 0; return () => v; }
      case 'str': { const v = e.v !== ''; return () => v; }
    }
    const k = this.kind(e);
    if (k === 'num') { const n = this.num(e); return () => n() !== 0; }
    if (k === 'str') { const s = this.str(e); return () => s() !== ''; }
    const f = this.expr(e);
    return () => toBool(f());
  }

  private cmp(op: string, ea: Expr, eb: Expr): () => boolean {
    const rt = this.rt;
    const ka = this.kind(ea), kb = this.kind(eb);
    let c: () => number;
    if (ka === 'num' && kb === 'num') {
      const a = this.num(ea), b = this.num(eb);
      switch (op) {
        case '<': return () => a() < b();
        case '<=': return () => a() <= b();
        case '>': return () => a() > b();
        case '>=': return () => a() >= b();
        case '==': return () => a() === b();
        case '!=': return () => a() !== b();
      }
      c = () => 0;
    } else if (ka === 'str' || kb === 'str') {
      const a = this.str(ea), b = this.str(eb);
      c = () => { const x = a(), y = b(); return x < y ? -1 : x > y ? 1 : 0; };
    } else {
      const a = this.expr(ea), b = this.expr(eb);
      c = () => compare(a(), b(), rt.convfmt);
    }
    switch (op) {
      case '<': return () => c() < 0;
      case '<=': return () => c() <= 0;
      case '>': return () => c() > 0;
      case '>=': return () => c() >= 0;
      case '==': return () => c() === 0;
      default: return () => c() !== 0;
    }
  }

  private assign(e: Extract<Expr, { t: 'assign' }>): E {
    const rt = this.rt;
    if (e.op === '=') {
      // x = y keeps y's type (a strnum stays one)
      if (e.lv.t === 'var' && e.lv.name !== 'NF' && this.locals?.get(e.lv.name) === undefined) {
        const i = this.slot(e.lv.name), g = rt.g, f = this.expr(e.e), name = e.lv.name;
        return () => {
          const v = f();
          if (g[i] instanceof AwkArr) throw new AwkFatal(`attempt to use array \`${name}' in a scalar context`);
          g[i] = v;
          return v;
        };
      }
      const lv = this.lvalue(e.lv), f = this.expr(e.e);
      return () => { const v = f(); lv.set(v); return v; };
    }
    const b = this.num(e.e);
    let op: (x: number, y: number) => number;
    switch (e.op) {
      case '+=': op = (x, y) => x + y; break;
      case '-=': op = (x, y) => x - y; break;
      case '*=': op = (x, y) => x * y; break;
      case '/=': op = (x, y) => { if (y === 0) throw new AwkFatal('division by zero attempted in `/=\''); return x / y; }; break;
      case '%=': op = (x, y) => { if (y === 0) throw new AwkFatal('division by zero attempted in `%=\''); return x % y; }; break;
      default: op = (x, y) => Math.pow(x, y);
    }
    if (e.lv.t === 'var' && e.lv.name !== 'NF' && this.locals?.get(e.lv.name) === undefined && e.op === '+=') {
      const i = this.slot(e.lv.name), g = rt.g;
      const get = this.lvalue(e.lv).get;
      return () => {
        const y = b();
        const v = g[i];
        const r = (typeof v === 'number' ? v : toNum(get())) + y;
        g[i] = r;
        return r;
      };
    }
    const lv = this.lvalue(e.lv);
    return () => {
      const y = b();
      const r = op(toNum(lv.get()), y);
      lv.set(r);
      return r;
    };
  }

  private getline(e: Extract<Expr, { t: 'getline' }>): E {
    const rt = this.rt;
    const lv = e.lv ? this.lvalue(e.lv) : null;
    const bump = (): void => {
      rt.g[S.NR] = toNum(rt.g[S.NR] as V) + 1;
      rt.g[S.FNR] = toNum(rt.g[S.FNR] as V) + 1;
    };
    if (e.src) {
      const src = this.str(e.src);
      return () => {
        const r = rt.getlineFile(src());
        if (r === -1) return -1;
        if (r === null) return 0;
        if (lv) lv.set(new SN(r));
        else rt.setRecord(r);
        return 1;
      };
    }
    return () => {
      const r = rt.getlineMain();
      if (r === null) return 0;
      bump();
      if (lv) lv.set(new SN(r));
      else rt.setRecord(r);
      return 1;
    };
  }

  private call(e: Extract<Expr, { t: 'call' }>): E {
    const rt = this.rt;
    const fn = this.fns.get(e.name);
    if (!fn) throw new AwkFatal(`function \`${e.name}' not defined`);
    if (e.args.length > fn.nparams) rt.warn(`warning: function \`${e.name}' called with more arguments than declared`);
    const args = e.args.slice(0, fn.nparams).map((a) => this.argPasser(a));
    const n = fn.nparams;
    this.compileFn(fn);
    let depth = 0;
    return () => {
      const frame: Cell[] = new Array(n);
      for (let j = 0; j < args.length; j++) frame[j] = args[j]!();
      const saved = rt.frame;
      rt.frame = frame;
      if (++depth > 10000) throw new AwkFatal('function call nesting too deep');
      let st: number;
      try {
        st = fn.body!();
      } finally {
        depth--;
        rt.frame = saved;
      }
      if (st === RETURN) {
        const v = rt.ret;
        rt.ret = undefined;
        return v;
      }
      if (st === NEXT || st === NEXTFILE || st === EXIT) throw new Jump(st);
      return undefined;
    };
  }

  /** An argument: arrays (and untyped variables) by reference, the rest by value. */
  private argPasser(a: Expr): () => Cell {
    const rt = this.rt;
    if (a.t === 'var' && a.name !== 'NF') {
      const name = a.name;
      const li = this.locals?.get(name);
      if (li !== undefined) {
        return () => {
          const fr = rt.frame;
          const v = fr[li];
          if (v === undefined) return new LazyArr((arr) => { fr[li] = arr; });
          if (v instanceof LazyArr) return new LazyArr((arr) => { fr[li] = arr; v.bind(arr); });
          return v;
        };
      }
      if (!this.fns.has(name)) {
        const i = this.slot(name), g = rt.g;
        return () => {
          const v = g[i];
          if (v === undefined) return new LazyArr((arr) => { g[i] = arr; });
          return v;
        };
      }
    }
    return this.expr(a);
  }

  compileFn(fn: Fn): void {
    if (fn.body) return;
    let compiled: St | null = null;
    fn.body = () => compiled!();
    const saved = this.locals;
    this.locals = new Map(fn.def.params.map((p, i) => [p, i]));
    compiled = this.block(fn.def.body);
    this.locals = saved;
    fn.body = compiled;
  }

  // ---- statements ----

  block(list: Stmt[]): St {
    const fs = list.map((s) => this.stmt(s));
    if (fs.length === 0) return () => 0;
    if (fs.length === 1) return fs[0]!;
    if (fs.length === 2) { const [a, b] = fs as [St, St]; return () => a() || b(); }
    return () => {
      for (let j = 0; j < fs.length; j++) { const r = fs[j]!(); if (r) return r; }
      return 0;
    };
  }

  stmt(s: Stmt): St {
    const f = this.stmt1(s);
    const loc = (s as { loc?: string }).loc;
    if (loc === undefined || s.t === 'block' || s.t === 'if' || s.t === 'while' || s.t === 'do' || s.t === 'for' || s.t === 'forin') return f;
    const rt = this.rt;
    return () => { rt.loc = loc; return f(); };
  }

  private stmt1(s: Stmt): St {
    const rt = this.rt;
    switch (s.t) {
      case 'expr': {
        if (s.e.t === 'incdec' || s.e.t === 'assign') { const f = this.expr(s.e); return () => { f(); return 0; }; }
        const f = this.expr(s.e);
        return () => { f(); return 0; };
      }
      case 'print': return this.print(s);
      case 'printf': {
        const args = s.args.map((a) => this.expr(a));
        const stream = this.stream(s.redir);
        return () => {
          const vals = args.map((f) => f());
          stream().write(sprintf(toStr(vals[0], rt.convfmt), vals.slice(1), rt.convfmt, 'printf'));
          return 0;
        };
      }
      case 'if': {
        const c = this.bool(s.c), a = this.stmt(s.a);
        if (!s.b) return () => (c() ? a() : 0);
        const b = this.stmt(s.b);
        return () => (c() ? a() : b());
      }
      case 'while': {
        const c = this.bool(s.c), body = this.stmt(s.body);
        return () => {
          while (c()) {
            const r = body();
            if (r === BREAK) break;
            if (r && r !== CONTINUE) return r;
          }
          return 0;
        };
      }
      case 'do': {
        const c = this.bool(s.c), body = this.stmt(s.body);
        return () => {
          do {
            const r = body();
            if (r === BREAK) break;
            if (r && r !== CONTINUE) return r;
          } while (c());
          return 0;
        };
      }
      case 'for': {
        const init = s.init ? this.stmt(s.init) : null;
        const c = s.c ? this.bool(s.c) : () => true;
        const step = s.step ? this.stmt(s.step) : null;
        const body = this.stmt(s.body);
        return () => {
          if (init) init();
          for (; c(); step?.()) {
            const r = body();
            if (r === BREAK) break;
            if (r && r !== CONTINUE) return r;
          }
          return 0;
        };
      }
      case 'forin': {
        const a = this.arr(s.arr), lv = this.lvalue(s.v), body = this.stmt(s.body);
        return () => {
          const m = a();
          const keys = sortedKeys(rt, m);
          for (const k of keys) {
            if (!m.has(k)) continue;
            lv.set(new SN(k));
            const r = body();
            if (r === BREAK) break;
            if (r && r !== CONTINUE) return r;
          }
          return 0;
        };
      }
      case 'block': return this.block(s.body);
      case 'next': return () => NEXT;
      case 'nextfile': return () => NEXTFILE;
      case 'break': return () => BREAK;
      case 'continue': return () => CONTINUE;
      case 'exit': {
        const f = s.e ? this.num(s.e) : null;
        return () => {
          if (f) this.exitCode = Math.trunc(f()) & 0xff;
          return EXIT;
        };
      }
      case 'return': {
        const f = s.e ? this.expr(s.e) : null;
        return () => {
          rt.ret = f ? f() : undefined;
          return RETURN;
        };
      }
      case 'delete': {
        const a = this.arr(s.name);
        if (!s.subs) return () => { a().clear(); return 0; };
        const k = this.key(s.subs);
        return () => { a().delete(k()); return 0; };
      }
      case 'switch': {
        const v = this.expr(s.e);
        const cases = s.cases.map((c) => ({
          test: c.v ? (c.v.t === 're' ? ((re: RegExp) => (x: V) => re.test(toStr(x, rt.convfmt)))(awkRegex(c.v.src)) : ((f: E) => (x: V) => compare(x, f(), rt.convfmt) === 0)(this.expr(c.v))) : null,
          body: this.block(c.body),
        }));
        return () => {
          const x = v();
          let start = cases.findIndex((c) => c.test?.(x));
          if (start < 0) start = cases.findIndex((c) => !c.test);
          if (start < 0) return 0;
          for (let j = start; j < cases.length; j++) {
            const r = cases[j]!.body();
            if (r === BREAK) return 0;
            if (r) return r;
          }
          return 0;
        };
      }
    }
  }

  private stream(redir: Extract<Stmt, { t: 'print' | 'printf' }>['redir']): () => { write(s: string): void } {
    const rt = this.rt;
    const out = rt.outputs;
    if (!redir) return () => out.stdout;
    const name = this.str(redir.e);
    const append = redir.op === '>>';
    return () => out.get(name(), append);
  }

  private print(s: Extract<Stmt, { t: 'print' | 'printf' }>): St {
    const rt = this.rt;
    const stream = this.stream(s.redir);
    const stdout = rt.outputs.stdout;
    if (s.args.length === 0) {
      if (!s.redir) return () => { rt.printRec(stdout, rt.str(S.ORS)); return 0; };
      return () => { stream().write(rt.rec + rt.str(S.ORS)); return 0; };
    }
    const a0 = s.args[0]!;
    if (s.args.length === 1 && !s.redir && a0.t === 'field' && a0.e.t === 'num') {
      // print $k: the field's bytes are copied when the record was not decoded
      const k = rt.checkIndex(a0.e.v);
      return () => { rt.printField(k, stdout, rt.str(S.ORS)); return 0; };
    }
    const parts = s.args.map((a) => this.out(a));
    if (parts.length === 1) {
      const p = parts[0]!;
      if (!s.redir) return () => { stdout.write(p() + rt.str(S.ORS)); return 0; };
      return () => { const t = p() + rt.str(S.ORS); stream().write(t); return 0; };
    }
    return () => {
      const ofs = rt.str(S.OFS);
      let t = parts[0]!();
      for (let j = 1; j < parts.length; j++) t += ofs + parts[j]!();
      t += rt.str(S.ORS);
      stream().write(t);
      return 0;
    };
  }
}
