/**
 * Parser for POSIX regexes in GNU's dialects. It follows glibc's regcomp.c
 * (peek_token, parse_reg_exp, parse_branch, parse_expression, parse_sub_exp,
 * parse_dup_op, fetch_number, parse_bracket_exp, ...) with the syntax bits that
 * GNU grep 3.8 (RE_SYNTAX_GREP / RE_SYNTAX_EGREP) and GNU sed 4.9
 * (RE_SYNTAX_POSIX_BASIC / RE_SYNTAX_POSIX_EXTENDED) use, plus the two checks
 * grep's dfa.c adds on top ("* at start of expression" warnings and the
 * "[:space:]" error).
 */
import { ByteSet, namedClass, SPACE_SET, WORD_SET } from './brackets.js';

export class RegexSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegexSyntaxError';
  }
}

export const MSG = {
  BADPAT: 'Invalid regular expression',
  EBRACK: 'Unmatched [, [^, [:, [., or [=',
  EPAREN: 'Unmatched ( or \\(',
  ERPAREN: 'Unmatched ) or \\)',
  ESUBREG: 'Invalid back reference',
  BADRPT: 'Invalid preceding regular expression',
  BADBR: 'Invalid content of \\{\\}',
  EBRACE: 'Unmatched \\{',
  ERANGE: 'Invalid range end',
  ECTYPE: 'Invalid character class name',
  ECOLLATE: 'Invalid collation character',
  EESCAPE: 'Trailing backslash',
  ESIZE: 'Regular expression too big',
  COLON: 'character class syntax is [[:space:]], not [:space:]',
} as const;

export type AnchorKind = 'bol' | 'eol' | 'bufstart' | 'bufend' | 'wordb' | 'nwordb' | 'wstart' | 'wend';

export type Node =
  | { t: 'empty' }
  | { t: 'char'; c: number }
  | { t: 'set'; set: ByteSet; negated: boolean }
  | { t: 'any' }
  | { t: 'anchor'; k: AnchorKind }
  | { t: 'backref'; n: number }
  | { t: 'group'; n: number; body: Node }
  | { t: 'repeat'; body: Node; min: number; max: number } // max -1 = infinity
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; alts: Node[] };

export interface Syntax {
  extended: boolean;
  /** grep flavour (RE_SYNTAX_GREP/EGREP) vs sed flavour (RE_SYNTAX_POSIX_*). */
  grep: boolean;
  /**
   * grep only: build the tree the way grep's dfa.c reads the pattern (dfa.c decides which
   * lines match; glibc only locates matches inside them). The two differ only in odd
   * corners: ERE '{' at the start that is not an interval (dfa: literal; glibc: skipped),
   * a valid interval at the start (dfa: skipped whole; glibc: only the '{'), and
   * repetition operators after an anchor (dfa: repeat the anchor; glibc: new expression).
   * Syntax errors always follow glibc (grep compiles with glibc first).
   */
  dfa?: boolean;
  ignoreCase: boolean;
  sedEscapes: boolean;
}

const RE_DUP_MAX = 0x7fff;

type TokType =
  | 'CHAR'
  | 'END'
  | 'BACKSLASH_END'
  | 'ALT'
  | 'BACKREF'
  | 'ANCHOR'
  | 'WORD'
  | 'NOTWORD'
  | 'SPACE'
  | 'NOTSPACE'
  | 'OPEN_SUB'
  | 'CLOSE_SUB'
  | 'STAR'
  | 'PLUS'
  | 'QUESTION'
  | 'OPEN_DUP'
  | 'CLOSE_DUP'
  | 'OPEN_BRACKET'
  | 'PERIOD';

interface Token {
  type: TokType;
  c: number; // the char (after a backslash: the escaped char)
  start: number;
  len: number;
  anchor?: AnchorKind;
  ref?: number;
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);

export interface ParseResult {
  ast: Node;
  groupCount: number;
  warnings: string[];
  hasBackrefs: boolean;
}

export function parseRegex(pattern: string, syn: Syntax): ParseResult {
  if (syn.grep && syn.dfa) {
    // errors (and nothing else) from glibc's reading, the tree from dfa.c's
    new Parser(pattern, { ...syn, dfa: false }).parse();
  }
  return new Parser(pattern, syn).parse();
}

class Parser {
  private pos = 0;
  private tok: Token = { type: 'END', c: 0, start: 0, len: 0 };
  private groupCount = 0;
  private completed = 0; // bitmap of completed groups 1..9 (bit n-1)
  private warnings: string[] = [];
  private hasBackrefs = false;
  /** dfa.c's "laststart": only zero-width things since start, '(' or '|'. */
  private lastStart = true;

  // syntax bits
  private readonly ere: boolean;
  private readonly contextIndepOps: boolean;
  private readonly contextInvalidOps: boolean;
  private readonly contextInvalidDup: boolean;
  private readonly invalidIntervalOrd: boolean;
  private readonly unmatchedRightParenOrd: boolean;
  private readonly dfa: boolean;

  constructor(
    private readonly p: string,
    private readonly syn: Syntax,
  ) {
    this.ere = syn.extended;
    this.contextIndepOps = syn.extended;
    this.contextInvalidOps = syn.extended && !syn.grep;
    this.contextInvalidDup = !syn.extended && !syn.grep;
    this.invalidIntervalOrd = syn.extended && syn.grep;
    this.unmatchedRightParenOrd = syn.extended && syn.grep;
    this.dfa = syn.grep && !!syn.dfa;
  }

  private code(i: number): number {
    return this.p.charCodeAt(i);
  }

  private fail(msg: string): never {
    throw new RegexSyntaxError(msg);
  }

  parse(): ParseResult {
    this.fetch(true);
    const ast = this.parseRegExp(0);
    if (this.tok.type !== 'END') this.fail(MSG.ERPAREN); // not reachable in practice
    return { ast, groupCount: this.groupCount, warnings: this.warnings, hasBackrefs: this.hasBackrefs };
  }

  // ---------------------------------------------------------------- tokens

  private tokType(): TokType {
    return this.tok.type;
  }

  private fetch(caretHere = false): void {
    this.tok = this.peek(this.pos, caretHere);
    this.pos += this.tok.len;
  }

  private peek(i: number, caretHere: boolean): Token {
    const p = this.p;
    if (i >= p.length) return { type: 'END', c: 0, start: i, len: 0 };
    const c = this.code(i);
    if (c === 92 /* \ */) {
      if (i + 1 >= p.length) return { type: 'BACKSLASH_END', c, start: i, len: 1 };
      const c2 = this.code(i + 1);
      const t: Token = { type: 'CHAR', c: c2, start: i, len: 2 };
      const ch = String.fromCharCode(c2);
      switch (ch) {
        case '|':
          if (!this.ere) t.type = 'ALT';
          break;
        case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
          t.type = 'BACKREF';
          t.ref = c2 - 48;
          break;
        case '<': t.type = 'ANCHOR'; t.anchor = 'wstart'; break;
        case '>': t.type = 'ANCHOR'; t.anchor = 'wend'; break;
        case 'b': t.type = 'ANCHOR'; t.anchor = 'wordb'; break;
        case 'B': t.type = 'ANCHOR'; t.anchor = 'nwordb'; break;
        case '`': t.type = 'ANCHOR'; t.anchor = 'bufstart'; break;
        case "'": t.type = 'ANCHOR'; t.anchor = 'bufend'; break;
        case 'w': t.type = 'WORD'; break;
        case 'W': t.type = 'NOTWORD'; break;
        case 's': t.type = 'SPACE'; break;
        case 'S': t.type = 'NOTSPACE'; break;
        case '(': if (!this.ere) t.type = 'OPEN_SUB'; break;
        case ')': if (!this.ere) t.type = 'CLOSE_SUB'; break;
        case '+': if (!this.ere) t.type = 'PLUS'; break;
        case '?': if (!this.ere) t.type = 'QUESTION'; break;
        case '{': if (!this.ere) t.type = 'OPEN_DUP'; break;
        case '}': if (!this.ere) t.type = 'CLOSE_DUP'; break;
        default:
          if (this.syn.sedEscapes) {
            const e = this.sedEscape(i);
            if (e) return e;
          }
          break;
      }
      return t;
    }
    const t: Token = { type: 'CHAR', c, start: i, len: 1 };
    switch (String.fromCharCode(c)) {
      case '|': if (this.ere) t.type = 'ALT'; break;
      case '*': t.type = 'STAR'; break;
      case '+': if (this.ere) t.type = 'PLUS'; break;
      case '?': if (this.ere) t.type = 'QUESTION'; break;
      case '{': if (this.ere) t.type = 'OPEN_DUP'; break;
      case '}': if (this.ere) t.type = 'CLOSE_DUP'; break;
      case '(': if (this.ere) t.type = 'OPEN_SUB'; break;
      case ')': if (this.ere) t.type = 'CLOSE_SUB'; break;
      case '[': t.type = 'OPEN_BRACKET'; break;
      case '.': t.type = 'PERIOD'; break;
      case '^':
        if (this.ere || caretHere || i === 0) {
          t.type = 'ANCHOR';
          t.anchor = 'bol';
        }
        break;
      case '$':
        if (this.ere || i + 1 === p.length) {
          t.type = 'ANCHOR';
          t.anchor = 'eol';
        } else {
          const next = this.peek(i + 1, false);
          if (next.type === 'ALT' || next.type === 'CLOSE_SUB') {
            t.type = 'ANCHOR';
            t.anchor = 'eol';
          }
        }
        break;
    }
    return t;
  }

  /** GNU sed's escapes (\n \t \dNNN \oNNN \xHH \cX ...), producing literal bytes. */
  private sedEscape(i: number): Token | undefined {
    const p = this.p;
    const c2 = p[i + 1]!;
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 };
    if (c2 in simple) return { type: 'CHAR', c: simple[c2]!, start: i, len: 2 };
    const num = (re: RegExp, base: number): Token | undefined => {
      const m = re.exec(p.slice(i + 2));
      if (!m) return undefined;
      return { type: 'CHAR', c: parseInt(m[0], base) & 0xff, start: i, len: 2 + m[0].length };
    };
    if (c2 === 'd') return num(/^[0-9]{1,3}/, 10);
    if (c2 === 'o') return num(/^[0-7]{1,3}/, 8);
    if (c2 === 'x') return num(/^[0-9a-fA-F]{1,2}/, 16);
    if (c2 === 'c' && i + 2 < p.length) {
      return { type: 'CHAR', c: (p.charCodeAt(i + 2) & ~0x20 & 0xff) ^ 0x40, start: i, len: 3 };
    }
    return undefined;
  }

  // ---------------------------------------------------------------- grammar

  private parseRegExp(nest: number): Node {
    const initial = this.completed;
    const alts: Node[] = [this.parseBranch(nest)];
    while (this.tok.type === 'ALT') {
      this.fetch(true);
      this.lastStart = true;
      const tt = this.tok.type;
      if (tt !== 'ALT' && tt !== 'END' && (nest === 0 || tt !== 'CLOSE_SUB')) {
        const accumulated = this.completed;
        this.completed = initial;
        alts.push(this.parseBranch(nest));
        this.completed |= accumulated;
      } else {
        alts.push({ t: 'empty' });
      }
    }
    return alts.length === 1 ? alts[0]! : { t: 'alt', alts };
  }

  private parseBranch(nest: number): Node {
    const items: Node[] = [this.parseExpression(nest)];
    while (
      this.tok.type !== 'ALT' &&
      this.tok.type !== 'END' &&
      (nest === 0 || this.tok.type !== 'CLOSE_SUB')
    ) {
      items.push(this.parseExpression(nest));
    }
    const flat = items.filter((n) => n.t !== 'empty');
    if (flat.length === 0) return { t: 'empty' };
    if (flat.length === 1) return flat[0]!;
    return { t: 'seq', items: flat };
  }

  private parseExpression(nest: number): Node {
    const tok = this.tok;
    let tree: Node;
    switch (tok.type) {
      case 'CHAR':
        tree = { t: 'char', c: tok.c };
        this.lastStart = false;
        break;
      case 'OPEN_SUB':
        tree = this.parseSubExp(nest + 1);
        this.lastStart = false;
        break;
      case 'OPEN_BRACKET':
        tree = this.parseBracket();
        this.lastStart = false;
        break;
      case 'BACKREF': {
        const n = tok.ref!;
        if (!(this.completed & (1 << (n - 1)))) this.fail(MSG.ESUBREG);
        this.hasBackrefs = true;
        tree = { t: 'backref', n };
        this.lastStart = false;
        break;
      }
      case 'OPEN_DUP':
      case 'STAR':
      case 'PLUS':
      case 'QUESTION':
        if (tok.type === 'OPEN_DUP' && this.contextInvalidDup) this.fail(MSG.BADRPT);
        if (this.contextInvalidOps && !this.contextInvalidDup) this.fail(MSG.BADRPT);
        if (this.contextIndepOps) {
          // ERE: an operator with nothing to repeat applies to the empty string: skip it.
          if (this.dfa && tok.type === 'OPEN_DUP') {
            // grep: dfa.c (which selects the lines) skips a whole valid interval and
            // takes '{' literally otherwise; glibc would skip just the '{' token.
            const len = this.validIntervalAhead();
            if (len < 0) {
              tree = { t: 'char', c: tok.c };
              this.lastStart = false;
              break;
            }
            this.warnStart(tok);
            this.pos += len;
          } else if (this.dfa) {
            this.warnStart(tok);
          }
          this.fetch();
          return this.parseExpression(nest);
        }
        tree = { t: 'char', c: tok.c };
        this.lastStart = false;
        break;
      case 'CLOSE_SUB':
        if (!this.unmatchedRightParenOrd) this.fail(MSG.ERPAREN);
        tree = { t: 'char', c: tok.c };
        this.lastStart = false;
        break;
      case 'CLOSE_DUP':
        tree = { t: 'char', c: tok.c };
        this.lastStart = false;
        break;
      case 'ANCHOR':
        tree = { t: 'anchor', k: tok.anchor! };
        this.fetch();
        // glibc: anchors cannot be repeated, "^*" is <^><*> and the * starts a new
        // expression. grep's dfa.c (which decides which lines match) repeats the anchor
        // unless, in a BRE, nothing but zero-width items precede ("^*" = literal *).
        if (!this.dfa || (!this.ere && this.lastStart)) return tree;
        return this.parseDupLoop(tree);
      case 'PERIOD':
        tree = { t: 'any' };
        this.lastStart = false;
        break;
      case 'WORD':
      case 'NOTWORD':
        tree = { t: 'set', set: WORD_SET, negated: tok.type === 'NOTWORD' };
        this.lastStart = false;
        break;
      case 'SPACE':
      case 'NOTSPACE':
        tree = { t: 'set', set: SPACE_SET, negated: tok.type === 'NOTSPACE' };
        this.lastStart = false;
        break;
      case 'ALT':
      case 'END':
        return { t: 'empty' };
      case 'BACKSLASH_END':
        this.fail(MSG.EESCAPE);
    }
    this.fetch();
    return this.parseDupLoop(tree);
  }

  private warnStart(tok: Token): void {
    if (!this.lastStart) return;
    const what = tok.type === 'OPEN_DUP' ? '{...}' : String.fromCharCode(tok.c);
    this.warnings.push(`warning: ${what} at start of expression`);
  }

  private parseDupLoop(tree: Node): Node {
    while (
      this.tok.type === 'STAR' ||
      this.tok.type === 'PLUS' ||
      this.tok.type === 'QUESTION' ||
      this.tok.type === 'OPEN_DUP'
    ) {
      const r = this.parseDupOp(tree);
      if (r === undefined) break; // '{' rolled back to a literal
      tree = r;
      if (this.contextInvalidDup && (this.tok.type === 'STAR' || this.tok.type === 'OPEN_DUP')) {
        this.fail(MSG.BADRPT);
      }
    }
    return tree;
  }

  /**
   * dfa.c's view: length of the valid ERE interval body ("M}", "M,}", ",N}", "M,N}", ",}")
   * that follows a '{', or -1.
   */
  private validIntervalAhead(): number {
    const m = /^([0-9]*)(?:(,)([0-9]*))?\}/.exec(this.p.slice(this.pos));
    if (!m) return -1;
    if (m[1] === '' && m[2] === undefined) return -1;
    const min = m[1] === '' ? 0 : Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    return min <= max ? m[0].length : -1;
  }

  private parseSubExp(nest: number): Node {
    const n = ++this.groupCount;
    this.fetch(true);
    this.lastStart = true;
    let body: Node;
    if (this.tok.type === 'CLOSE_SUB') body = { t: 'empty' };
    else {
      body = this.parseRegExp(nest);
      if (this.tokType() !== 'CLOSE_SUB') this.fail(MSG.EPAREN);
    }
    if (n <= 9) this.completed |= 1 << (n - 1);
    return { t: 'group', n, body };
  }

  /** glibc fetch_number: -1 = no digits, -2 = invalid. */
  private fetchNumber(): number {
    let num = -1;
    for (;;) {
      this.fetch();
      const t = this.tok;
      if (t.type === 'END') return -2;
      if (t.type === 'CLOSE_DUP' || t.c === 44 /* , */) break;
      num =
        t.type !== 'CHAR' || !isDigit(t.c) || num === -2
          ? -2
          : num === -1
            ? t.c - 48
            : Math.min(RE_DUP_MAX + 1, num * 10 + t.c - 48);
    }
    return num;
  }

  /** Returns undefined when an ERE '{' turned out to be a literal (token rewound). */
  private parseDupOp(elem: Node): Node | undefined {
    const tok = this.tok;
    let min: number;
    let max: number;
    if (tok.type === 'OPEN_DUP') {
      const startPos = this.pos;
      const startTok = tok;
      if (this.dfa && this.ere && this.validIntervalAhead() < 0) {
        // dfa.c: an invalid interval is a literal '{' (glibc errors were raised already)
        this.tok = { ...startTok, type: 'CHAR' };
        return undefined;
      }
      let start = this.fetchNumber();
      let end = 0;
      if (start === -1) {
        if (this.tok.type === 'CHAR' && this.tok.c === 44) start = 0; // {,m}
        else this.fail(MSG.BADBR); // {} is invalid
      }
      if (start !== -2) {
        end =
          this.tok.type === 'CLOSE_DUP'
            ? start
            : this.tok.type === 'CHAR' && this.tok.c === 44
              ? this.fetchNumber()
              : -2;
      }
      if (start === -2 || end === -2) {
        if (!this.invalidIntervalOrd) {
          this.fail(this.tok.type === 'END' ? MSG.EBRACE : MSG.BADBR);
        }
        this.pos = startPos;
        this.tok = { ...startTok, type: 'CHAR' };
        return undefined;
      }
      if ((end !== -1 && start > end) || this.tok.type !== 'CLOSE_DUP') this.fail(MSG.BADBR);
      if (RE_DUP_MAX < (end === -1 ? start : end)) this.fail(MSG.ESIZE);
      min = start;
      max = end;
    } else {
      min = tok.type === 'PLUS' ? 1 : 0;
      max = tok.type === 'QUESTION' ? 1 : -1;
    }
    if (this.dfa && this.ere) this.warnStart(tok); // only an anchor can be repeated at start
    this.fetch();
    return { t: 'repeat', body: elem, min, max };
  }

  // ---------------------------------------------------------------- brackets

  /** Bracket char: with ignoreCase glibc reads the pattern through tolower. */
  private bc(i: number): number {
    const c = this.code(i);
    return this.syn.ignoreCase ? lower(c) : c;
  }

  private parseBracket(): Node {
    const p = this.p;
    const open = this.pos; // just after '['
    let i = open;
    const set = new ByteSet();
    let negated = false;
    if (i >= p.length) this.fail(MSG.BADPAT);
    if (this.code(i) === 94 /* ^ */) {
      negated = true;
      i++;
      if (i >= p.length) this.fail(MSG.BADPAT);
    }
    this.colonCheck(i);
    type Elem =
      | { k: 'char'; c: number }
      | { k: 'class'; name: string }
      | { k: 'equiv'; name: string }
      | { k: 'coll'; name: string };
    // peek_token_bracket
    const peekB = (j: number): { type: 'END' | 'OPEN_COLL' | 'OPEN_EQUIV' | 'OPEN_CLASS' | 'RANGE' | 'CLOSE' | 'CHAR'; c: number; len: number } => {
      if (j >= p.length) return { type: 'END', c: 0, len: 0 };
      const c = this.bc(j);
      if (this.syn.sedEscapes && c === 92 && j + 1 < p.length) {
        const simple: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 };
        const e = simple[p[j + 1]!];
        if (e !== undefined) return { type: 'CHAR', c: e, len: 2 };
        if (p[j + 1] === '\\') return { type: 'CHAR', c: 92, len: 2 };
      }
      if (c === 91 /* [ */) {
        const c2 = j + 1 < p.length ? this.code(j + 1) : 0;
        if (c2 === 46) return { type: 'OPEN_COLL', c: c2, len: 2 };
        if (c2 === 61) return { type: 'OPEN_EQUIV', c: c2, len: 2 };
        if (c2 === 58) return { type: 'OPEN_CLASS', c: c2, len: 2 };
        return { type: 'CHAR', c, len: 1 };
      }
      if (c === 45) return { type: 'RANGE', c, len: 1 };
      if (c === 93) return { type: 'CLOSE', c, len: 1 };
      return { type: 'CHAR', c, len: 1 };
    };
    // parse_bracket_symbol: i points after "[:" etc.
    const parseSymbol = (delim: number, isClass: boolean): string => {
      let name = '';
      if (i >= p.length) this.fail(MSG.EBRACK);
      for (let n = 0; ; n++) {
        if (n >= 32) this.fail(MSG.EBRACK);
        const ch = isClass ? this.code(i) : this.bc(i);
        i++;
        if (i >= p.length) this.fail(MSG.EBRACK);
        if (ch === delim && this.code(i) === 93) break;
        name += String.fromCharCode(ch);
      }
      i++;
      return name;
    };
    const parseElement = (tk: ReturnType<typeof peekB>, acceptHyphen: boolean): Elem => {
      i += tk.len;
      if (tk.type === 'OPEN_COLL') return { k: 'coll', name: parseSymbol(46, false) };
      if (tk.type === 'OPEN_EQUIV') return { k: 'equiv', name: parseSymbol(61, false) };
      if (tk.type === 'OPEN_CLASS') return { k: 'class', name: parseSymbol(58, true) };
      if (tk.type === 'RANGE' && !acceptHyphen) {
        if (peekB(i).type !== 'CLOSE') this.fail(MSG.ERANGE);
      }
      return { k: 'char', c: tk.c };
    };
    const single = (e: Elem): number => {
      if (e.k === 'char') return e.c;
      if (e.name.length !== 1) this.fail(MSG.ECOLLATE);
      return e.name.charCodeAt(0);
    };

    let tk = peekB(i);
    if (tk.type === 'CLOSE') tk = { ...tk, type: 'CHAR' };
    let first = true;
    for (;;) {
      const startElem = parseElement(tk, first);
      first = false;
      tk = peekB(i);
      let isRange = false;
      let tk2: ReturnType<typeof peekB> | undefined;
      if (startElem.k !== 'class' && startElem.k !== 'equiv') {
        if (tk.type === 'END') this.fail(MSG.EBRACK);
        if (tk.type === 'RANGE') {
          i += tk.len;
          tk2 = peekB(i);
          if (tk2.type === 'END') this.fail(MSG.EBRACK);
          if (tk2.type === 'CLOSE') {
            i -= tk.len; // the last '-' is an ordinary char
            tk = { ...tk, type: 'CHAR' };
          } else isRange = true;
        }
      }
      if (isRange) {
        const endElem = parseElement(tk2!, true);
        tk = peekB(i);
        if (startElem.k === 'class' || startElem.k === 'equiv' || endElem.k === 'class' || endElem.k === 'equiv') {
          this.fail(MSG.ERANGE);
        }
        const lo = single(startElem);
        const hi = single(endElem);
        if (lo > hi) this.fail(MSG.ERANGE);
        set.addRange(lo, hi);
      } else {
        switch (startElem.k) {
          case 'char':
            set.add(startElem.c);
            break;
          case 'coll':
          case 'equiv':
            set.add(single(startElem));
            break;
          case 'class': {
            let name = startElem.name;
            if (this.syn.ignoreCase && (name === 'upper' || name === 'lower')) name = 'alpha';
            const cls = namedClass(name);
            if (!cls) this.fail(MSG.ECTYPE);
            set.addSet(cls);
            break;
          }
        }
      }
      if (tk.type === 'END') this.fail(MSG.EBRACK);
      if (tk.type === 'CLOSE') break;
    }
    i += tk.len; // skip ']'
    this.pos = i;
    return { t: 'set', set, negated };
  }

  /** dfa.c: "[:space:]" (first and last member ':', other chars, no ranges/classes) is an error. */
  private colonCheck(i: number): void {
    const p = this.p;
    if (i >= p.length || this.code(i) !== 58) return;
    let state = 1;
    let c = this.code(i++);
    for (;;) {
      state &= ~2;
      if (c === 91 && i < p.length && (this.code(i) === 58 || this.code(i) === 46 || this.code(i) === 61)) {
        return; // a class / equivalence class / collating element: bit 3, never an error
      }
      if (i >= p.length) return; // unbalanced: glibc reports it
      const c1 = this.code(i++);
      if (c1 === 45 /* - */ && i < p.length && this.code(i) !== 93) return; // a range: bit 3
      state |= c === 58 ? 2 : 4;
      if (c1 === 93 /* ] */) break;
      c = c1;
    }
    if (state === 7) this.fail(MSG.COLON);
  }
}
