/** awk's built-in functions, compiled to closures. */
import type { Expr } from './parser.js';
import { sprintf } from './format.js';
import { awkRegex, awkRegexG, AwkFatal } from './regex.js';
import { LazyArr, S, splitBy } from './runtime.js';
import { asort } from './sort.js';
import { AwkArr, numToStr, SN, toNum, toStr, type V } from './values.js';
import type { Rt } from './runtime.js';

/** A compiled expression: a closure giving its value. */
export type E = () => V;

/** What a builtin needs of the compiler (src: compile.ts's Compiler), so this file does not import it back. */
export interface Compiler {
  readonly rt: Rt;
  locals: Map<string, number> | null;
  slot(name: string): number;
  arr(name: string): () => AwkArr;
  lvalue(e: Expr): { get: E; set: (v: V) => void };
  expr(e: Expr): E;
  num(e: Expr): () => number;
  str(e: Expr): () => string;
  regex(e: Expr): () => RegExp;
  regexSource(e: Expr): () => string;
}
import { strftime } from '../../src/gnulib/strftime.js';

// ---- glibc random() with gawk's 256-byte state (TYPE_4: degree 63, separation 1) ----
class Random {
  private r: Int32Array = new Int32Array(63);
  private f = 1;
  private b = 0;
  seed(seed: number): void {
    const r = this.r;
    let word = seed | 0 || 1;
    r[0] = word;
    for (let i = 1; i < 63; i++) {
      const hi = Math.trunc(word / 127773);
      const lo = word % 127773;
      word = 16807 * lo - 2836 * hi;
      if (word < 0) word += 2147483647;
      r[i] = word;
    }
    this.f = 1;
    this.b = 0;
    for (let i = 0; i < 630; i++) this.next();
  }
  next(): number {
    const r = this.r;
    r[this.f] = (r[this.f]! + r[this.b]!) | 0;
    const res = (r[this.f]! >>> 1) & 0x7fffffff;
    if (++this.f >= 63) this.f = 0;
    if (++this.b >= 63) this.b = 0;
    return res;
  }
}

const DIV = 2147483648;

function toLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}
function toUpper(s: string): string {
  return s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}

/** sub/gsub's replacement: & is the match, \& a literal &, \\& a backslash then the match. */
function subRepl(repl: string): (m: string) => string {
  if (!repl.includes('&') && !repl.includes('\\')) return () => repl;
  const parts: (string | null)[] = [];
  let lit = '';
  for (let i = 0; i < repl.length; i++) {
    const c = repl[i];
    if (c === '\\' && repl[i + 1] === '&') { lit += '&'; i++; continue; }
    if (c === '\\' && repl[i + 1] === '\\' && repl[i + 2] === '&') { lit += '\\'; i++; continue; }
    if (c === '&') { parts.push(lit, null); lit = ''; continue; }
    lit += c;
  }
  parts.push(lit);
  return (m) => { let o = ''; for (const p of parts) o += p === null ? m : p; return o; };
}

/** Replace matches of re in s: all (global) or the n-th; returns [result, count]. */
export function substitute(s: string, src: string, repl: (m: RegExpExecArray) => string, all: boolean, nth = 1): [string, number] {
  const re = awkRegexG(src);
  let out = '';
  let pos = 0;
  let count = 0;
  let seen = 0;
  let lastEnd = -1;
  let from = 0;
  while (from <= s.length) {
    re.lastIndex = from;
    const m = re.exec(s);
    if (!m) break;
    const start = m.index;
    const len = m[0].length;
    if (len === 0 && start === lastEnd) {
      // an empty match right after a match does not count
      from = start + 1;
      continue;
    }
    seen++;
    if (all || seen === nth) {
      out += s.slice(pos, start) + repl(m);
      pos = start + len;
      count++;
      if (!all) break;
    }
    lastEnd = start + len;
    from = len === 0 ? start + 1 : start + len;
  }
  if (count === 0) return [s, 0];
  return [out + s.slice(pos), count];
}

function gensubRepl(repl: string): (m: RegExpExecArray) => string {
  return (m) => {
    let o = '';
    for (let i = 0; i < repl.length; i++) {
      const c = repl[i]!;
      if (c === '\\') {
        const d = repl[i + 1];
        if (d !== undefined && d >= '0' && d <= '9') { o += m[Number(d)] ?? ''; i++; continue; }
        if (d === '&') { o += '&'; i++; continue; }
        if (d === '\\') { o += '\\'; i++; continue; }
        o += c;
        continue;
      }
      o += c === '&' ? m[0] : c;
    }
    return o;
  };
}

const rngs = new WeakMap<object, { rng: Random; seed: number }>();

/** The generator of one run: gawk starts seeded with 1 (its first srand() returns 1). */
function state(rt: object): { rng: Random; seed: number } {
  let s = rngs.get(rt);
  if (!s) {
    const rng = new Random();
    rng.seed(1);
    s = { rng, seed: 1 };
    rngs.set(rt, s);
  }
  return s;
}

export function compileBuiltin(c: Compiler, name: string, args: Expr[], _paren: boolean): E {
  const rt = c.rt;
  const n = args.length;
  const argc = (min: number, max: number): void => {
    if (n < min || n > max) throw new AwkFatal(`${n} is invalid as number of arguments for ${name}`);
  };
  const S_ = (i: number) => c.str(args[i]!);
  const N_ = (i: number) => c.num(args[i]!);
  /** Target array argument. */
  const A_ = (i: number) => {
    const a = args[i]!;
    if (a.t !== 'var') throw new AwkFatal(`${name}: argument ${i + 1} is not an array`);
    return c.arr(a.name);
  };
  switch (name) {
    case 'length': {
      argc(0, 1);
      if (n === 0) return () => rt.recLength;
      const a = args[0]!;
      if (a.t === 'var' && a.name !== 'NF') {
        const li = c.locals?.get(a.name);
        const cell = li !== undefined ? () => rt.frame[li] : ((i: number) => () => rt.g[i])(c.slot(a.name));
        return () => {
          const v = cell();
          if (v instanceof AwkArr) return v.size;
          if (v instanceof LazyArr) return 0;
          return toStr(v as V, rt.convfmt).length;
        };
      }
      const s = S_(0);
      return () => s().length;
    }
    case 'substr': {
      argc(2, 3);
      const s = S_(0), m = N_(1), l = n === 3 ? N_(2) : null;
      return () => {
        const str = s();
        let start = m();
        start = start !== start ? 1 : Math.trunc(start);
        if (start < 1) start = 1;
        let len = Infinity;
        if (l) {
          const d = l();
          if (!(d >= 1)) return '';
          len = Math.trunc(d);
        }
        if (start > str.length) return '';
        return str.substr(start - 1, len === Infinity ? undefined : len);
      };
    }
    case 'index': {
      argc(2, 2);
      const s = S_(0), t = S_(1);
      return () => s().indexOf(t()) + 1;
    }
    case 'split': case 'patsplit': {
      argc(2, 4);
      const s = S_(0), a = A_(1);
      const sep = n >= 3 ? (args[2]!.t === 're' ? ((src: string) => () => src)((args[2] as { src: string }).src) : S_(2)) : null;
      const seps = n === 4 ? A_(3) : null;
      const pat = name === 'patsplit';
      return () => {
        const str = s();
        const fs = sep ? sep() : pat ? rt.str(S.FPAT) : rt.str(S.FS);
        const arr = a();
        arr.clear();
        const sp = seps ? seps() : null;
        sp?.clear();
        if (pat) {
          const re = awkRegexG(fs);
          let k = 0, from = 0, last = 0;
          while (from <= str.length) {
            re.lastIndex = from;
            const m = re.exec(str);
            if (!m) break;
            if (m[0].length === 0) { from = m.index + 1; continue; }
            sp?.set(String(k), new SN(str.slice(last, m.index)));
            arr.set(String(++k), new SN(m[0]));
            from = last = m.index + m[0].length;
          }
          sp?.set(String(k), new SN(str.slice(last)));
          return k;
        }
        const out: string[] = [''];
        const nf = splitBy(str, fs, out, false);
        for (let k = 1; k <= nf; k++) arr.set(String(k), new SN(out[k]!));
        if (sp && nf > 0) {
          // the separators between the fields
          let pos = 0;
          if (fs === ' ') {
            const lead = /^[ \t\n]*/.exec(str)![0];
            if (lead) sp.set('0', new SN(lead));
            pos = lead.length;
          }
          for (let k = 1; k < nf; k++) {
            pos += out[k]!.length;
            const next = str.indexOf(out[k + 1]!, pos + (fs === '' ? 0 : 1));
            sp.set(String(k), new SN(str.slice(pos, next)));
            pos = next;
          }
          if (fs === ' ') {
            const trail = str.slice(pos + out[nf]!.length);
            if (trail) sp.set(String(nf), new SN(trail));
          }
        }
        return nf;
      };
    }
    case 'sub': case 'gsub': {
      argc(2, 3);
      const re = c.regexSource(args[0]!), r = S_(1);
      const all = name === 'gsub';
      const target = n === 3 ? c.lvalue(args[2]!) : null;
      return () => {
        const src = re();
        const rep = subRepl(r());
        const cur = target ? toStr(target.get(), rt.convfmt) : rt.rec;
        const [res, cnt] = substitute(cur, src, (m) => rep(m[0]), all);
        if (cnt > 0) {
          if (target) target.set(res);
          else rt.setRecord(res);
        }
        return cnt;
      };
    }
    case 'gensub': {
      argc(3, 4);
      const re = c.regexSource(args[0]!), r = S_(1), how = c.expr(args[2]!), a3 = args[3], t: E = a3 === undefined ? () => new SN(rt.rec) : a3.t === 'field' && a3.e.t === 'num' && a3.e.v === 0 ? () => rt.rec : c.expr(a3);
      return () => {
        const src = re();
        const rep = r();
        const h = how();
        const hs = toStr(h, rt.convfmt);
        let all = false, nth = 1;
        if (hs[0] === 'g' || hs[0] === 'G') all = true;
        else {
          nth = Math.trunc(toNum(h));
          if (!(nth >= 1)) { rt.warn(`warning: gensub: third argument \`${hs}' treated as 1`); nth = 1; }
        }
        // nothing replaced: the target itself (the record as the default target and a field stay
        // strnums; a number, and $0 named, come back as a string, true when not empty, as gawk's:
        // `if (gensub(/b/, "x", 1, 0))` is true)
        const tv = t();
        const ts = toStr(tv, rt.convfmt);
        const [res, cnt] = substitute(ts, src, gensubRepl(rep), all, nth);
        return cnt === 0 ? (typeof tv === 'number' ? ts : tv) : res;
      };
    }
    case 'match': {
      argc(2, 3);
      const s = S_(0), re = c.regex(args[1]!), a = n === 3 ? A_(2) : null;
      return () => {
        const str = s();
        const m = re().exec(str);
        const arr = a ? a() : null;
        arr?.clear();
        if (!m) {
          rt.g[S.RSTART] = 0;
          rt.g[S.RLENGTH] = -1;
          return 0;
        }
        rt.g[S.RSTART] = m.index + 1;
        rt.g[S.RLENGTH] = m[0].length;
        if (arr) {
          const sep = rt.str(S.SUBSEP);
          let pos = m.index;
          for (let k = 0; k < m.length; k++) {
            const g = m[k];
            if (g === undefined) continue;
            arr.set(String(k), new SN(g));
            const st = k === 0 ? m.index : str.indexOf(g, pos);
            if (k > 0) pos = st;
            arr.set(k + sep + 'start', st + 1);
            arr.set(k + sep + 'length', g.length);
          }
        }
        return m.index + 1;
      };
    }
    case 'sprintf': {
      if (n === 0) throw new AwkFatal('sprintf: no arguments');
      const fs = args.map((x) => c.expr(x));
      return () => {
        const vals = fs.map((f) => f());
        return sprintf(toStr(vals[0], rt.convfmt), vals.slice(1), rt.convfmt);
      };
    }
    case 'tolower': { argc(1, 1); const s = S_(0); return () => toLower(s()); }
    case 'toupper': { argc(1, 1); const s = S_(0); return () => toUpper(s()); }
    case 'int': { argc(1, 1); const x = N_(0); return () => Math.trunc(x()); }
    case 'sqrt': { argc(1, 1); const x = N_(0); return () => { const v = x(); if (v < 0) rt.warn(`warning: sqrt: called with negative argument ${numToStr(v, rt.convfmt)}`); return Math.sqrt(v); }; }
    case 'exp': { argc(1, 1); const x = N_(0); return () => Math.exp(x()); }
    case 'log': { argc(1, 1); const x = N_(0); return () => { const v = x(); if (v < 0) rt.warn(`warning: log: received negative argument ${numToStr(v, rt.convfmt)}`); return Math.log(v); }; }
    case 'sin': { argc(1, 1); const x = N_(0); return () => Math.sin(x()); }
    case 'cos': { argc(1, 1); const x = N_(0); return () => Math.cos(x()); }
    case 'atan2': { argc(2, 2); const y = N_(0), x = N_(1); return () => Math.atan2(y(), x()); }
    case 'rand': {
      argc(0, 0);
      return () => {
        const r = state(rt).rng;
        let v: number;
        do {
          const d1 = r.next(), d2 = r.next();
          v = 0.5 + ((d1 / DIV + d2) / DIV);
          v -= 0.5;
        } while (v === 1.0);
        return v;
      };
    }
    case 'srand': {
      argc(0, 1);
      const x = n === 1 ? N_(0) : () => Math.floor(Date.now() / 1000);
      return () => {
        const st = state(rt);
        const prev = st.seed;
        st.seed = Math.trunc(x());
        st.rng.seed(st.seed >>> 0);
        return prev;
      };
    }
    case 'close': {
      argc(1, 2);
      const s = S_(0);
      return () => rt.close(s());
    }
    case 'fflush': {
      argc(0, 1);
      return () => { rt.outputs.flushFiles(); return 0; };
    }
    case 'asort': case 'asorti': {
      argc(1, 3);
      const src = A_(0), dest = n >= 2 ? A_(1) : null, how = n === 3 ? S_(2) : null;
      return () => {
        const s = src();
        const d = dest ? dest() : s;
        if (d !== s) return asort(rt, new AwkArr(s), d, how?.(), name === 'asorti');
        return asort(rt, new AwkArr(s), s, how?.(), name === 'asorti');
      };
    }
    case 'systime': { argc(0, 0); return () => Math.floor(Date.now() / 1000); }
    case 'strftime': {
      argc(0, 3);
      const f = n >= 1 ? S_(0) : () => '%a %b %e %H:%M:%S %Z %Y';
      const t = n >= 2 ? N_(1) : () => Math.floor(Date.now() / 1000);
      return () => strftime(f(), Math.trunc(t()));
    }
    case 'mktime': {
      argc(1, 2);
      const s = S_(0);
      return () => {
        const p = s().trim().split(/[ \t\n]+/).map(Number);
        if (p.length < 6 || p.slice(0, 6).some((x) => !Number.isFinite(x))) return -1;
        return Math.floor(Date.UTC(p[0]!, p[1]! - 1, p[2]!, p[3]!, p[4]!, p[5]!) / 1000);
      };
    }
    case 'and': case 'or': case 'xor': {
      if (n < 2) throw new AwkFatal(`${name}: called with less than two arguments`);
      const fs = args.map((_, i) => N_(i));
      return () => {
        let r = BigInt(Math.trunc(fs[0]!()));
        for (let i = 1; i < fs.length; i++) {
          const v = BigInt(Math.trunc(fs[i]!()));
          r = name === 'and' ? r & v : name === 'or' ? r | v : r ^ v;
        }
        return Number(r);
      };
    }
    case 'compl': { argc(1, 1); const x = N_(0); return () => Number(BigInt.asUintN(53, ~BigInt(Math.trunc(x())))); }
    case 'lshift': { argc(2, 2); const x = N_(0), y = N_(1); return () => Number(BigInt.asUintN(64, BigInt(Math.trunc(x())) << BigInt(Math.trunc(y())))); }
    case 'rshift': { argc(2, 2); const x = N_(0), y = N_(1); return () => Number(BigInt(Math.trunc(x())) >> BigInt(Math.trunc(y()))); }
    case 'strtonum': {
      argc(1, 1);
      const f = c.expr(args[0]!);
      return () => {
        const v = f();
        if (typeof v === 'number') return v;
        const s = toStr(v, rt.convfmt).trim();
        if (/^[-+]?0[xX][0-9a-fA-F]+/.test(s)) { const m = /^([-+]?)0[xX]([0-9a-fA-F]+)/.exec(s)!; return (m[1] === '-' ? -1 : 1) * parseInt(m[2]!, 16); }
        if (/^0[0-7]+/.test(s)) return parseInt(/^0[0-7]+/.exec(s)![0], 8);
        return toNum(v);
      };
    }
    case 'isarray': {
      argc(1, 1);
      const a = args[0]!;
      if (a.t !== 'var') return () => 0;
      const li = c.locals?.get(a.name);
      const cell = li !== undefined ? () => rt.frame[li] : ((i: number) => () => rt.g[i])(c.slot(a.name));
      return () => (cell() instanceof AwkArr ? 1 : 0);
    }
    case 'typeof': {
      argc(1, 2);
      const a = args[0]!;
      if (a.t === 'var') {
        const li = c.locals?.get(a.name);
        const cell = li !== undefined ? () => rt.frame[li] : a.name === 'NF' ? () => rt.getNF() : ((i: number) => () => rt.g[i])(c.slot(a.name));
        return () => typeName(cell() as V | AwkArr | LazyArr);
      }
      if (a.t === 're') return () => 'regexp';
      const f = c.expr(a);
      return () => typeName(f());
    }
    case 'system': throw new AwkFatal('system() is not supported in nosh');
  }
  throw new AwkFatal(`function \`${name}' not defined`);
}

function typeName(v: V | AwkArr | LazyArr): string {
  if (v instanceof AwkArr) return 'array';
  if (v === undefined || v instanceof LazyArr) return 'untyped';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  return v.isNum ? 'strnum' : 'string';
}


export { awkRegex };
