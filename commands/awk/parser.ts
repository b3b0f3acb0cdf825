/** awk source to an AST (gawk's grammar, the parts nosh runs). */
import { AwkSyntaxError, Lexer, type Tok, type Warn } from './lexer.js';
import type { Expr, Item, Program, Redir, Stmt } from './ast.js';

export type { Expr, FuncDef, Item, Program, Redir, Stmt } from './ast.js';

export class Refused extends Error {}

export function refuse(what: string, hint = 'Read and write files in the zone with getline < "file" and print > "file" instead'): never {
  throw new Refused(`${what} is not supported in nosh: nosh runs no other program (no shell, no network). ${hint}`);
}

export interface Source { text: string; name: string }

export class Parser {
  private lx!: Lexer;
  private tok!: Tok;
  private peeked: Tok[] = [];
  private noGt = 0;
  private noIn = 0;
  readonly prog: Program = { items: [], funcs: new Map(), mainGetline: false, writes: false, errors: [] };
  private inFunc: Set<string> | null = null;
  private loopDepth = 0;
  constructor(private readonly warn: Warn, private readonly include?: (name: string) => Source) {}

  parse(sources: Source[]): Program {
    for (const s of sources) this.parseSource(s);
    return this.prog;
  }

  private srcName = 'cmd. line';
  private parseSource(s: Source): void {
    const savedName = this.srcName;
    this.srcName = s.name;
    this.lx = new Lexer(s.text, this.warn);
    this.peeked = [];
    this.advance();
    this.skipTerms();
    while (this.tok.kind !== 'eof') {
      this.item();
      this.skipTerms();
    }
    this.srcName = savedName;
  }

  private advance(): Tok {
    this.tok = this.peeked.length ? this.peeked.shift()! : this.lx.next();
    return this.tok;
  }
  private peek(): Tok {
    if (!this.peeked.length) this.peeked.push(this.lx.next());
    return this.peeked[0]!;
  }
  private error(msg = 'syntax error', t: Tok = this.tok): never {
    if (msg === 'syntax error' && (t.kind === 'nl' || t.kind === 'eof')) {
      const text = this.lx.lineText(t.line);
      throw new AwkSyntaxError('unexpected newline or end of string', t.kind === 'nl' ? t.line + 1 : t.line, text, text.length);
    }
    throw new AwkSyntaxError(msg, t.line, this.lx.lineText(t.line), t.col + (t.kind === 'eof' || t.kind === 'nl' ? 0 : Math.max(t.text.length, 1) - 1));
  }
  private is(kind: Tok['kind'], text?: string): boolean {
    return this.tok.kind === kind && (text === undefined || this.tok.text === text);
  }
  private isOp(text: string): boolean {
    return this.tok.kind === 'op' && this.tok.text === text;
  }
  private expectOp(text: string): void {
    if (!this.isOp(text)) this.error();
    this.advance();
  }
  private optNl(): void {
    while (this.tok.kind === 'nl') this.advance();
  }
  private skipTerms(): void {
    while (this.tok.kind === 'nl' || this.isOp(';')) this.advance();
  }

  private item(): void {
    const t = this.tok;
    if (t.kind === 'kw' && t.text === '@include') {
      this.advance();
      if (!this.is('str')) this.error();
      const name = this.tok.text;
      this.advance();
      if (!this.include) this.error('@include is not supported here');
      const saved = { lx: this.lx, tok: this.tok, peeked: this.peeked };
      this.parseSource(this.include(name));
      this.lx = saved.lx;
      this.tok = saved.tok;
      this.peeked = saved.peeked;
      return;
    }
    if (t.kind === 'kw' && t.text === '@namespace') this.error('@namespace is not supported in nosh');
    if (t.kind === 'kw' && t.text === 'function') return this.func();
    if (t.kind === 'kw' && (t.text === 'BEGIN' || t.text === 'END' || t.text === 'BEGINFILE' || t.text === 'ENDFILE')) {
      this.advance();
      if (!this.isOp('{')) this.error(`${t.text} blocks must have an action part`, t);
      this.prog.items.push({ kind: t.text, body: this.block() });
      return;
    }
    const it: Item = { kind: 'main', loc: `${this.srcName}:${this.tok.line}` };
    if (!this.isOp('{')) {
      it.pattern = this.expr();
      if (this.isOp(',')) {
        this.advance();
        this.optNl();
        it.pattern2 = this.expr();
      }
    }
    if (this.isOp('{')) it.body = this.block();
    else if (this.tok.kind !== 'nl' && this.tok.kind !== 'eof' && !this.isOp(';')) this.error();
    this.prog.items.push(it);
  }

  private func(): void {
    this.advance();
    if (this.tok.kind !== 'name' && this.tok.kind !== 'funcname') this.error();
    const name = this.tok.text;
    if (this.prog.funcs.has(name)) this.error(`function \`${name}' previously defined`);
    this.advance();
    this.expectOp('(');
    const params: string[] = [];
    while (!this.isOp(')')) {
      if (this.tok.kind !== 'name') this.error();
      if (params.includes(this.tok.text)) this.error(`function \`${name}': parameter #${params.length + 1}, \`${this.tok.text}', duplicates parameter #${params.indexOf(this.tok.text) + 1}`);
      params.push(this.tok.text);
      this.advance();
      if (this.isOp(',')) { this.advance(); this.optNl(); }
      else if (!this.isOp(')')) this.error();
    }
    this.advance();
    this.optNl();
    this.inFunc = new Set(params);
    const body = this.block();
    this.inFunc = null;
    this.prog.funcs.set(name, { name, params, body });
  }

  private block(): Stmt[] {
    this.expectOp('{');
    const out: Stmt[] = [];
    this.skipTerms();
    while (!this.isOp('}')) {
      if (this.tok.kind === 'eof') this.error();
      out.push(this.stmt());
      this.skipTerms();
    }
    this.advance();
    return out;
  }

  /** End of a simple statement: `;`, newline, or before `}`. */
  private endSimple(): void {
    if (this.isOp(';') || this.tok.kind === 'nl') { this.advance(); return; }
    if (this.isOp('}') || this.tok.kind === 'eof') return;
    this.error();
  }

  private body(): Stmt {
    this.optNl();
    if (this.isOp(';')) { this.advance(); return { t: 'block', body: [] }; }
    return this.stmt();
  }

  /** Where a statement is, as gawk names it in messages ("cmd. line:2", "prog.awk:5"). */
  private stmt(): Stmt {
    const loc = `${this.srcName}:${this.tok.line}`;
    const s = this.stmt1();
    (s as { loc?: string }).loc = loc;
    return s;
  }

  private stmt1(): Stmt {
    const t = this.tok;
    if (this.isOp('{')) return { t: 'block', body: this.block() };
    if (t.kind === 'kw') {
      switch (t.text) {
        case 'if': {
          this.advance();
          this.expectOp('(');
          const c = this.expr();
          this.expectOp(')');
          const a = this.body();
          // `if (x) s; else t`: look past terminators for else
          const save = this.saveState();
          this.skipTerms();
          if (this.is('kw', 'else')) {
            this.advance();
            return { t: 'if', c, a, b: this.body() };
          }
          this.restoreState(save);
          return { t: 'if', c, a };
        }
        case 'while': {
          this.advance();
          this.expectOp('(');
          const c = this.expr();
          this.expectOp(')');
          if (this.isOp(';')) { this.advance(); return { t: 'while', c, body: { t: 'block', body: [] } }; }
          this.loopDepth++;
          const body = this.body();
          this.loopDepth--;
          return { t: 'while', c, body };
        }
        case 'do': {
          this.advance();
          this.loopDepth++;
          const body = this.body();
          this.loopDepth--;
          this.skipTerms();
          if (!this.is('kw', 'while')) this.error();
          this.advance();
          this.expectOp('(');
          const c = this.expr();
          this.expectOp(')');
          this.endSimple();
          return { t: 'do', body, c };
        }
        case 'for': return this.forStmt();
        case 'break': case 'continue':
          if (this.loopDepth === 0) this.error(`\`${t.text}' is not allowed outside a loop or switch`);
          this.advance();
          this.endSimple();
          return { t: t.text };
        case 'next': case 'nextfile':
          this.advance();
          this.endSimple();
          return { t: t.text };
        case 'exit': case 'return': {
          this.advance();
          let e: Expr | undefined;
          if (!this.isOp(';') && !this.isOp('}') && this.tok.kind !== 'nl' && this.tok.kind !== 'eof') e = this.expr();
          this.endSimple();
          if (t.text === 'return' && !this.inFunc) this.error('`return\' used outside function context', t);
          return e ? { t: t.text, e } : { t: t.text };
        }
        case 'delete': {
          this.advance();
          const paren = this.isOp('(');
          if (paren) this.advance();
          if (this.tok.kind !== 'name') this.error();
          const name = this.tok.text;
          this.advance();
          let subs: Expr[] | undefined;
          if (this.isOp('[')) { this.advance(); subs = this.exprList(']'); }
          if (paren) this.expectOp(')');
          this.endSimple();
          return subs ? { t: 'delete', name, subs } : { t: 'delete', name };
        }
        case 'print': case 'printf': return this.printStmt();
        case 'switch': return this.switchStmt();
      }
    }
    const e = this.expr();
    this.endSimple();
    return { t: 'expr', e };
  }

  private switchStmt(): Stmt {
    this.advance();
    this.expectOp('(');
    const e = this.expr();
    this.expectOp(')');
    this.optNl();
    this.expectOp('{');
    const cases: { v?: Expr; body: Stmt[] }[] = [];
    this.skipTerms();
    this.loopDepth++;
    while (!this.isOp('}')) {
      let v: Expr | undefined;
      if (this.is('kw', 'case')) {
        this.advance();
        if (this.isOp('/')) { v = { t: 're', src: this.lx.regex(this.tok).text }; this.advance(); }
        else v = this.unary();
      } else if (this.is('kw', 'default')) this.advance();
      else this.error();
      this.expectOp(':');
      const body: Stmt[] = [];
      this.skipTerms();
      while (!this.is('kw', 'case') && !this.is('kw', 'default') && !this.isOp('}')) {
        body.push(this.stmt());
        this.skipTerms();
      }
      cases.push(v ? { v, body } : { body });
    }
    this.loopDepth--;
    this.advance();
    return { t: 'switch', e, cases };
  }

  private saveState(): { pos: number; line: number; tok: Tok; peeked: Tok[]; ls: number } {
    const lx = this.lx as unknown as { pos: number; line: number; lineStart: number };
    return { pos: lx.pos, line: lx.line, ls: lx.lineStart, tok: this.tok, peeked: [...this.peeked] };
  }
  private restoreState(s: ReturnType<Parser['saveState']>): void {
    const lx = this.lx as unknown as { pos: number; line: number; lineStart: number };
    lx.pos = s.pos;
    lx.line = s.line;
    lx.lineStart = s.ls;
    this.tok = s.tok;
    this.peeked = s.peeked;
  }

  private forStmt(): Stmt {
    this.advance();
    this.expectOp('(');
    // for (k in a)
    if (this.tok.kind === 'name' && this.peek().kind === 'kw' && this.peek().text === 'in') {
      const save = this.saveState();
      const v: Expr = { t: 'var', name: this.tok.text };
      this.advance();
      this.advance();
      if (this.tok.kind === 'name') {
        const arr = this.tok.text;
        this.advance();
        if (this.isOp(')')) {
          this.advance();
          this.loopDepth++;
          const body = this.body();
          this.loopDepth--;
          return { t: 'forin', v, arr, body };
        }
      }
      this.restoreState(save);
    }
    const init = this.isOp(';') ? undefined : this.simpleStmt();
    this.expectOp(';');
    this.optNl();
    const c = this.isOp(';') ? undefined : this.expr();
    this.expectOp(';');
    this.optNl();
    const step = this.isOp(')') ? undefined : this.simpleStmt();
    this.expectOp(')');
    if (this.isOp(';')) { this.advance(); return { t: 'for', init, c, step, body: { t: 'block', body: [] } } as Stmt; }
    this.loopDepth++;
    const body = this.body();
    this.loopDepth--;
    return { t: 'for', init, c, step, body } as Stmt;
  }

  private simpleStmt(): Stmt {
    return { t: 'expr', e: this.expr() };
  }

  private printStmt(): Stmt {
    const kind = this.tok.text as 'print' | 'printf';
    this.advance();
    let args: Expr[] = [];
    this.noGt++;
    if (!this.isOp(';') && !this.isOp('}') && !this.isOp('>') && !this.isOp('>>') && !this.isOp('|') && !this.isOp('|&') && this.tok.kind !== 'nl' && this.tok.kind !== 'eof') {
      args = this.exprListPlain();
    }
    this.noGt--;
    if (args.length === 1 && args[0]!.t === 'group') args = args[0].list;
    if (kind === 'printf' && args.length === 0) this.error();
    let redir: Redir | undefined;
    if (this.isOp('>') || this.isOp('>>')) {
      const op = this.tok.text as '>' | '>>';
      this.advance();
      this.prog.writes = true;
      redir = { op, e: this.concat(true) };
    } else if (this.isOp('|')) refuse('print | "command" (output to a command)', 'Print to standard output and pipe the command line instead (awk \'...\' file | sort), or print > "file" in the zone');
    else if (this.isOp('|&')) refuse('|& (a coprocess)');
    this.endSimple();
    return redir ? { t: kind, args, redir } : { t: kind, args };
  }

  private exprListPlain(): Expr[] {
    const out = [this.expr()];
    while (this.isOp(',')) {
      this.advance();
      this.optNl();
      out.push(this.expr());
    }
    return out;
  }

  private exprList(close: string): Expr[] {
    this.optNl();
    const out: Expr[] = [];
    if (this.isOp(close)) { this.advance(); return out; }
    const saveGt = this.noGt;
    const saveIn = this.noIn;
    this.noGt = 0;
    this.noIn = 0;
    out.push(this.expr());
    this.optNl();
    while (this.isOp(',')) {
      this.advance();
      this.optNl();
      out.push(this.expr());
      this.optNl();
    }
    this.noGt = saveGt;
    this.noIn = saveIn;
    this.expectOp(close);
    return out;
  }

  expr(): Expr {
    return this.ternary();
  }

  private isLvalue(e: Expr): boolean {
    return e.t === 'var' || e.t === 'field' || e.t === 'idx';
  }

  private ternary(): Expr {
    const c = this.or();
    if (this.isOp('?')) {
      this.advance();
      this.optNl();
      const a = this.ternary();
      this.optNl();
      this.expectOp(':');
      this.optNl();
      const b = this.ternary();
      return { t: 'cond', c, a, b };
    }
    if (this.tok.kind === 'op' && /^(=|\+=|-=|\*=|\/=|%=|\^=|\*\*=)$/.test(this.tok.text) && this.isLvalue(c)) {
      let op = this.tok.text;
      if (op === '**=') op = '^=';
      this.advance();
      this.optNl();
      return { t: 'assign', op, lv: c, e: this.ternary() };
    }
    return c;
  }

  private or(): Expr {
    let a = this.and();
    while (this.isOp('||')) {
      this.advance();
      this.optNl();
      a = { t: 'or', a, b: this.and() };
    }
    return a;
  }

  private and(): Expr {
    let a = this.inExpr();
    while (this.isOp('&&')) {
      this.advance();
      this.optNl();
      a = { t: 'and', a, b: this.inExpr() };
    }
    return a;
  }

  private inExpr(): Expr {
    let a = this.matchExpr();
    while (this.is('kw', 'in') && !this.noIn) {
      this.advance();
      if (this.tok.kind !== 'name') this.error();
      const subs = a.t === 'group' ? a.list : [a];
      a = { t: 'in', subs, name: this.tok.text };
      this.advance();
    }
    return a;
  }

  private matchExpr(): Expr {
    let a = this.comparison();
    while (this.isOp('~') || (this.isOp('!') && this.peekIs('~'))) {
      const neg = this.isOp('!');
      this.advance();
      if (neg) this.advance();
      a = { t: 'match', neg, a, re: this.comparison() };
    }
    return a;
  }

  private peekIs(op: string): boolean {
    const p = this.peek();
    return p.kind === 'op' && p.text === op && !p.spaceBefore;
  }

  private comparison(): Expr {
    const a = this.concat(false);
    const t = this.tok;
    if (t.kind === 'op' && (t.text === '<' || t.text === '<=' || t.text === '==' || t.text === '!=' || t.text === '>=' || (t.text === '>' && !this.noGt))) {
      this.advance();
      return { t: 'cmp', op: t.text, a, b: this.concat(false) };
    }
    if (t.kind === 'op' && t.text === '|') {
      if (this.peek().kind === 'kw' && this.peek().text === 'getline') refuse('"command" | getline (input from a command)');
      if (this.noGt) return a;
      this.error();
    }
    if (t.kind === 'op' && t.text === '|&') refuse('|& (a coprocess)');
    return a;
  }

  private startsConcat(): boolean {
    const t = this.tok;
    switch (t.kind) {
      case 'num': case 'str': case 'name': case 'funcname': case 'builtin': return true;
      case 'kw': return t.text === 'getline';
      case 'op': return t.text === '$' || t.text === '(' || t.text === '!' || t.text === '++' || t.text === '--';
      default: return false;
    }
  }

  /** Concatenation; `noCmpIn` for a redirection target (no `in` either). */
  private concat(redirTarget: boolean): Expr {
    let a = this.additive();
    while (this.startsConcat() && !(this.isOp('!') && this.peekIs('~'))) {
      if (redirTarget && this.is('kw', 'in')) break;
      a = { t: 'cat', a, b: this.additive() };
    }
    return a;
  }

  private additive(): Expr {
    let a = this.mul();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.tok.text;
      this.advance();
      a = { t: 'bin', op, a, b: this.mul() };
    }
    return a;
  }

  private mul(): Expr {
    let a = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = this.tok.text;
      const line = this.tok.line;
      this.advance();
      const b = this.unary();
      if (op !== '*' && b.t === 'num' && b.v === 0) this.prog.errors.push(`cmd. line:${line}: error: division by zero attempted${op === '%' ? ' in `%\'' : ''}`);
      a = { t: 'bin', op, a, b };
    }
    return a;
  }

  unary(): Expr {
    if (this.isOp('!')) { this.advance(); return { t: 'not', e: this.unary() }; }
    if (this.isOp('-')) { this.advance(); return { t: 'neg', e: this.unary() }; }
    if (this.isOp('+')) { this.advance(); return { t: 'plus', e: this.unary() }; }
    return this.power();
  }

  private power(): Expr {
    const a = this.incdec();
    if (this.isOp('^') || this.isOp('**')) {
      this.advance();
      // right associative; the exponent may carry a unary minus
      let b: Expr;
      if (this.isOp('-')) { this.advance(); b = { t: 'neg', e: this.powerOperand() }; }
      else if (this.isOp('+')) { this.advance(); b = this.powerOperand(); }
      else if (this.isOp('!')) { this.advance(); b = { t: 'not', e: this.powerOperand() }; }
      else b = this.power();
      return { t: 'bin', op: '^', a, b };
    }
    return a;
  }
  private powerOperand(): Expr {
    return this.power();
  }

  private incdec(): Expr {
    if (this.isOp('++') || this.isOp('--')) {
      const op = this.tok.text as '++' | '--';
      this.advance();
      const lv = this.incdec();
      if (!this.isLvalue(lv)) this.error();
      return { t: 'incdec', op, pre: true, lv };
    }
    const e = this.dollar();
    if ((this.isOp('++') || this.isOp('--')) && this.isLvalue(e)) {
      const op = this.tok.text as '++' | '--';
      this.advance();
      return { t: 'incdec', op, pre: false, lv: e };
    }
    return e;
  }

  private dollar(): Expr {
    if (this.isOp('$')) {
      this.advance();
      if (this.isOp('++') || this.isOp('--')) {
        const op = this.tok.text as '++' | '--';
        this.advance();
        const lv = this.dollar();
        return { t: 'field', e: { t: 'incdec', op, pre: true, lv } };
      }
      if (this.isOp('-')) { this.advance(); return { t: 'field', e: { t: 'neg', e: this.dollar() } }; }
      return { t: 'field', e: this.dollar() };
    }
    return this.primary();
  }

  private primary(): Expr {
    const t = this.tok;
    switch (t.kind) {
      case 'num': this.advance(); return { t: 'num', v: t.num! };
      case 'str': this.advance(); return { t: 'str', v: t.text };
      case 'ere': this.advance(); return { t: 're', src: t.text };
      case 'name': {
        this.advance();
        if (this.isOp('[')) {
          this.advance();
          const subs = this.exprList(']');
          if (subs.length === 0) this.error();
          return { t: 'idx', name: t.text, subs };
        }
        return { t: 'var', name: t.text };
      }
      case 'funcname': {
        this.advance();
        this.advance();
        const args = this.exprList(')');
        return { t: 'call', name: t.text, args, line: t.line };
      }
      case 'builtin': {
        this.advance();
        if (t.text === 'system') refuse('system()');
        if (this.isOp('(') ) {
          this.advance();
          return { t: 'builtin', name: t.text, args: this.exprList(')'), paren: true };
        }
        if (t.text === 'length') return { t: 'builtin', name: 'length', args: [], paren: false };
        this.error();
      }
      // falls through
      case 'kw':
        if (t.text === 'getline') return this.getline();
        this.error();
      // falls through
      case 'op':
        if (t.text === '(') {
          this.advance();
          const list = this.exprList(')');
          if (list.length === 0) this.error();
          if (list.length > 1) return { t: 'group', list };
          return list[0]!;
        }
        if (t.text === '/' || t.text === '/=') {
          const re = this.lx.regex(t);
          this.advance();
          return { t: 're', src: re.text };
        }
        if (t.text === '-') { this.advance(); return { t: 'neg', e: this.unary() }; }
        if (t.text === '+') { this.advance(); return { t: 'plus', e: this.unary() }; }
        if (t.text === '!') { this.advance(); return { t: 'not', e: this.unary() }; }
        this.error();
      // falls through
      default:
        this.error(t.kind === 'eof' ? 'syntax error' : 'syntax error');
    }
  }

  private getline(): Expr {
    this.advance();
    let lv: Expr | undefined;
    if (this.isOp('$') || this.tok.kind === 'name') lv = this.dollarOrVar();
    if (this.isOp('<')) {
      this.advance();
      const src = this.incdec();
      if (src.t === 'str' && (src.v === '-' || src.v === '/dev/stdin')) this.prog.mainGetline = true;
      return lv ? { t: 'getline', lv, src } : { t: 'getline', src };
    }
    this.prog.mainGetline = true;
    return lv ? { t: 'getline', lv } : { t: 'getline' };
  }

  private dollarOrVar(): Expr {
    if (this.isOp('$')) {
      this.advance();
      return { t: 'field', e: this.incdecNoPost() };
    }
    const name = this.tok.text;
    this.advance();
    if (this.isOp('[')) {
      this.advance();
      return { t: 'idx', name, subs: this.exprList(']') };
    }
    return { t: 'var', name };
  }
  private incdecNoPost(): Expr {
    if (this.isOp('++') || this.isOp('--')) return this.incdec();
    return this.dollar();
  }
}
