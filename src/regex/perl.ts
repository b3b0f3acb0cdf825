// Over 700 lines: one translator, PCRE2's syntax read in one pass whose parts share the scanner state.
/**
 * grep -P: a strict subset of PCRE2 (as GNU grep 3.8 compiles it under LC_ALL=C: no UTF,
 * C-locale tables, PCRE2_DOLLAR_ENDONLY, one line or -z record per subject) translated to a
 * JavaScript RegExp with the same meaning on latin1 "byte strings".
 *
 * Both engines are backtracking and leftmost-first, so an exact translation of each
 * construct gives the same matches. Where JS differs the translation compensates (`.` and
 * `\s` as explicit byte sets, ASCII-only case folding, anchors) or the construct is refused
 * (PerlRefusal): possessive/atomic/recursive/conditional constructs, \K, \G, \p, verbs, ...
 * A back-reference is accepted only where its group has surely been set before it (PCRE
 * fails an unset reference, JS matches it empty).
 * Syntax errors carry PCRE2's own messages (GNU prints them as "grep: MESSAGE").
 */
import { ByteSet, namedClass, renderSet, SPACE_SET, WORD_SET } from './brackets.js';
import { RegexSyntaxError } from './parse.js';

export interface PerlOptions {
  ignoreCase: boolean;
  /** 'line': the subject is a line without its newline (grep); 'any': a -z record, which may hold newlines. */
  newline: 'line' | 'any';
  /** 'line' mode only: the regex runs over a buffer of whole lines, so ^ $ \A \z match at newlines. */
  multiline: boolean;
}

export interface PerlResult {
  source: string;
  flags: string;
  groupCount: number;
  hasBackrefs: boolean;
  usesLookaround: boolean;
}

/** A PCRE construct nosh does not run (GNU accepts it). */
function refuse(what: string, instead: string): never {
  throw new RegexSyntaxError(`-P: nosh does not support ${what}; ${instead}`);
}

/** A syntax error, with PCRE2's message. */
function fail(msg: string): never {
  throw new RegexSyntaxError(msg);
}

const E_REPEAT = 'quantifier does not follow a repeatable item';
const E_ESC = 'unrecognized character follows \\';
const E_CLASS_ESC = 'escape sequence is invalid in character class';
const E_RANGE = 'invalid range in character class';
const E_NOREF = 'reference to non-existent subpattern';

type Anchor = 'bol' | 'mbol' | 'eol' | 'meol' | 'A' | 'z' | 'Z' | 'b' | 'B';

type PNode =
  | { t: 'set'; set: ByteSet }
  | { t: 'seq'; items: PNode[] }
  | { t: 'alt'; alts: PNode[] }
  | { t: 'group'; n: number; body: PNode } // n = 0: non-capturing
  | { t: 'look'; behind: boolean; neg: boolean; body: PNode }
  | { t: 'repeat'; body: PNode; min: number; max: number; lazy: boolean }
  | { t: 'backref'; n: number; name?: string; ci: boolean }
  | { t: 'anchor'; k: Anchor };

interface Flags {
  i: boolean;
  s: boolean;
  m: boolean;
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isHex = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isAlnum = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

const DIGIT_SET = ByteSet.range(48, 57);
/** PCRE2 8-bit, no UTF: \h is tab, space, NBSP; \v is LF VT FF CR NEL. */
const HSPACE_SET = ByteSet.of(9, 32, 0xa0);
const VSPACE_SET = ByteSet.of(10, 11, 12, 13, 0x85);
/** Latin-1 letters that JS's `i` flag folds (PCRE in the C locale folds ASCII only). */
const LATIN1_LETTERS = ByteSet.range(0xc0, 0xde).addRange(0xe0, 0xfe).delete(0xd7).delete(0xf7);

function escapeSet(c: number): ByteSet | undefined {
  switch (String.fromCharCode(c)) {
    case 'd': return DIGIT_SET;
    case 'D': return DIGIT_SET.complement();
    case 'w': return WORD_SET;
    case 'W': return WORD_SET.complement();
    case 's': return SPACE_SET;
    case 'S': return SPACE_SET.complement();
    case 'h': return HSPACE_SET;
    case 'H': return HSPACE_SET.complement();
    case 'v': return VSPACE_SET;
    case 'V': return VSPACE_SET.complement();
  }
  return undefined;
}

const SIMPLE_ESC: Record<string, number> = { t: 9, n: 10, r: 13, f: 12, e: 27, a: 7 };

class PerlParser {
  private pos = 0;
  groupCount = 0;
  readonly names = new Map<string, number>();
  readonly refs: Array<Extract<PNode, { t: 'backref' }>> = [];

  constructor(private readonly p: string) {}

  private peek(k = 0): number {
    return this.pos + k < this.p.length ? this.p.charCodeAt(this.pos + k) : -1;
  }

  parse(flags: Flags): PNode {
    const node = this.alternation(flags);
    if (this.pos < this.p.length) fail('unmatched closing parenthesis');
    for (const r of this.refs) {
      if (r.name !== undefined) {
        const n = this.names.get(r.name);
        if (n === undefined) fail(E_NOREF);
        r.n = n;
      }
      if (r.n > this.groupCount || r.n <= 0) fail(E_NOREF);
    }
    return node;
  }

  /** Branches up to ')' or the end; the flags object is shared by the branches (PCRE scoping). */
  private alternation(flags: Flags): PNode {
    const alts: PNode[] = [this.sequence(flags)];
    while (this.peek() === 124 /* | */) {
      this.pos++;
      alts.push(this.sequence(flags));
    }
    return alts.length === 1 ? alts[0]! : { t: 'alt', alts };
  }

  private sequence(flags: Flags): PNode {
    const items: PNode[] = [];
    for (;;) {
      const c = this.peek();
      if (c === -1 || c === 124 || c === 41 /* ) */) break;
      const atom = this.atom(flags, items);
      if (atom === null) {
        // nothing repeatable here (option setting, comment, \E, anchor already pushed)
        if (this.quantifierAhead()) fail(E_REPEAT);
        continue;
      }
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? items[0]! : { t: 'seq', items };
  }

  /** A {n}, {n,} or {n,m} quantifier at pos: its length, or 0 if '{' is a literal there. */
  private braceQuantifier(): { len: number; min: number; max: number } | null {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.pos, this.pos + 40));
    if (!m) {
      if (/^\{,\d+\}/.test(this.p.slice(this.pos, this.pos + 40))) {
        refuse("the '{,N}' quantifier", "write '{0,N}' (or '\\{' for a literal brace)");
      }
      return null;
    }
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
    if (min > 65535 || max > 65535) fail('number too big in {} quantifier');
    if (max !== -1 && max < min) fail('numbers out of order in {} quantifier');
    return { len: m[0].length, min, max };
  }

  private quantifierAhead(): boolean {
    const c = this.peek();
    if (c === 42 || c === 43 || c === 63) return true;
    return c === 123 && this.braceQuantifier() !== null;
  }

  private quantified(atom: PNode): PNode {
    let min: number;
    let max: number;
    const c = this.peek();
    const start = this.pos;
    if (c === 42) [min, max] = [0, -1];
    else if (c === 43) [min, max] = [1, -1];
    else if (c === 63) [min, max] = [0, 1];
    else if (c === 123) {
      const q = this.braceQuantifier();
      if (!q) return atom;
      this.pos += q.len - 1;
      [min, max] = [q.min, q.max];
    } else return atom;
    this.pos++;
    let lazy = false;
    if (this.peek() === 63) {
      lazy = true;
      this.pos++;
    } else if (this.peek() === 43) {
      refuse(`the possessive quantifier '${this.p.slice(start, this.pos + 1)}'`, `use the greedy '${this.p.slice(start, this.pos)}' (it may give back characters)`);
    }
    if (this.quantifierAhead()) fail(E_REPEAT);
    if (atom.t === 'look') refuse('a quantifier on a lookaround assertion', 'drop the quantifier or make the assertion optional with (?:...|)');
    if (atom.t === 'anchor') fail(E_REPEAT);
    return { t: 'repeat', body: atom, min, max, lazy };
  }

  private literal(c: number, flags: Flags): PNode {
    const s = ByteSet.of(c);
    if (flags.i) s.foldAscii();
    return { t: 'set', set: s };
  }

  /** One item; null when it is not repeatable (already pushed into items, or nothing). */
  private atom(flags: Flags, items: PNode[]): PNode | null {
    const c = this.p.charCodeAt(this.pos++);
    switch (c) {
      case 46: { // .
        const s = flags.s ? ByteSet.range(0, 255) : ByteSet.range(0, 255).delete(10);
        return { t: 'set', set: s };
      }
      case 94: // ^
        items.push({ t: 'anchor', k: flags.m ? 'mbol' : 'bol' });
        return null;
      case 36: // $
        items.push({ t: 'anchor', k: flags.m ? 'meol' : 'eol' });
        return null;
      case 91: // [
        return { t: 'set', set: this.bracket(flags) };
      case 40: // (
        return this.group(flags, items);
      case 42: case 43: case 63: // * + ?
        return fail(E_REPEAT);
      case 123: { // {
        this.pos--;
        if (this.braceQuantifier()) fail(E_REPEAT);
        this.pos++;
        return this.literal(c, flags);
      }
      case 92: // \
        return this.escape(flags, items);
      default:
        return this.literal(c, flags);
    }
  }

  private escape(flags: Flags, items: PNode[]): PNode | null {
    if (this.pos >= this.p.length) fail('\\ at end of pattern');
    const c = this.p.charCodeAt(this.pos++);
    const ch = String.fromCharCode(c);
    if (!isAlnum(c)) return this.literal(c, flags);
    const set = escapeSet(c);
    if (set) return { t: 'set', set: new ByteSet(set.bits) };
    const b = this.byteEscape(c, ch);
    if (b >= 0) return this.literal(b, flags);
    switch (ch) {
      case 'N':
        if (this.peek() === 123 && !this.quantifierAhead()) refuse('\\N{...}', 'write the byte as \\xHH');
        return { t: 'set', set: ByteSet.range(0, 255).delete(10) };
      case 'b': case 'B': case 'A': case 'z': case 'Z':
        items.push({ t: 'anchor', k: ch as Anchor });
        return null;
      case 'Q': {
        const end = this.p.indexOf('\\E', this.pos);
        const text = this.p.slice(this.pos, end < 0 ? this.p.length : end);
        this.pos = end < 0 ? this.p.length : end + 2;
        if (text === '') return null;
        for (let k = 0; k < text.length - 1; k++) items.push(this.literal(text.charCodeAt(k), flags));
        return this.literal(text.charCodeAt(text.length - 1), flags);
      }
      case 'E':
        return null;
      case 'g': case 'k':
        return this.backref(ch, flags);
      case 'u': case 'U': case 'l': case 'L': case 'F':
        return fail('PCRE2 does not support \\F, \\L, \\l, \\N{name}, \\U, or \\u');
      case 'K': return refuse('\\K', 'use a lookbehind (?<=...) for the part before it');
      case 'G': return refuse('\\G', 'anchor with ^ instead');
      case 'p': case 'P': return refuse(`\\${ch}{...} (Unicode properties)`, 'use a class such as [[:alpha:]] or [^[:alpha:]]');
      case 'X': return refuse('\\X', 'use . (bytes: no Unicode clusters under LC_ALL=C)');
      case 'C': return refuse('\\C', 'use .');
      case 'R': return refuse('\\R', "use (?:\\r\\n|[\\n\\v\\f\\r\\x85])");
      case 'o': return refuse('\\o{...}', 'write the byte as \\xHH');
    }
    if (isDigit(c)) {
      if (c !== 48 && !isDigit(this.peek())) {
        const r = { t: 'backref' as const, n: c - 48, ci: flags.i };
        this.refs.push(r);
        return r;
      }
      return refuse(`the escape '\\${ch}${isDigit(this.peek()) ? String.fromCharCode(this.peek()) : ''}...'`, 'write \\g{N} for a back-reference or \\xHH for a byte');
    }
    return fail(E_ESC);
  }

  /** \t \n \r \f \e \a \xHH \x{HH} \0oo \cX: the byte, or -1 if c is no such escape. */
  private byteEscape(c: number, ch: string): number {
    if (ch in SIMPLE_ESC) return SIMPLE_ESC[ch]!;
    if (ch === 'x') {
      if (this.peek() === 123) {
        const close = this.p.indexOf('}', this.pos);
        const digits = close < 0 ? '' : this.p.slice(this.pos + 1, close);
        if (close < 0 || !/^[0-9A-Fa-f]*$/.test(digits)) refuse(`'\\x{' without hex digits and '}'`, 'write \\x{HH}');
        if (digits === '') fail('digits missing in \\x{} or \\o{} or \\N{U+}');
        const v = parseInt(digits, 16);
        if (v > 0xff) fail('character code point value in \\x{} or \\o{} is too large');
        this.pos = close + 1;
        return v;
      }
      let v = 0;
      let n = 0;
      while (n < 2 && isHex(this.peek())) {
        v = v * 16 + parseInt(String.fromCharCode(this.peek()), 16);
        this.pos++;
        n++;
      }
      if (n === 0) refuse("'\\x' without hex digits", 'write \\x00 for a NUL byte');
      return v;
    }
    if (c === 48) {
      let v = 0;
      for (let n = 0; n < 2 && this.peek() >= 48 && this.peek() <= 55; n++) v = v * 8 + (this.p.charCodeAt(this.pos++) - 48);
      return v;
    }
    if (ch === 'c') {
      if (this.pos >= this.p.length) fail('\\c at end of pattern');
      let x = this.p.charCodeAt(this.pos++);
      if (x < 32 || x > 126) fail('\\c must be followed by a printable ASCII character');
      if (x >= 97 && x <= 122) x -= 32;
      return x ^ 0x40;
    }
    return -1;
  }

  private backref(ch: string, flags: Flags): PNode {
    const rest = this.p.slice(this.pos);
    let m: RegExpExecArray | null;
    let r: Extract<PNode, { t: 'backref' }> | null = null;
    if (ch === 'g' && (m = /^(?:\{(-?\d+)\}|(-?\d+))/.exec(rest))) {
      let n = Number(m[1] ?? m[2]);
      if (n < 0) n = this.groupCount + 1 + n;
      if (n === 0) fail(E_NOREF);
      r = { t: 'backref', n, ci: flags.i };
    } else if ((m = ch === 'g' ? /^\{([A-Za-z_]\w*)\}/.exec(rest) : /^(?:<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)'|\{([A-Za-z_]\w*)\})/.exec(rest))) {
      r = { t: 'backref', n: 0, name: m[1] ?? m[2] ?? m[3], ci: flags.i };
    } else if (ch === 'g' && /^[<']/.test(rest)) {
      refuse("subroutine calls \\g<...>", 'repeat the group\'s pattern, or use \\g{N} for a back-reference');
    } else {
      refuse(`this \\${ch} form`, ch === 'g' ? 'write \\g{N} or \\g{name}' : 'write \\k<name>');
    }
    this.pos += m![0].length;
    this.refs.push(r!);
    return r!;
  }

  private groupName(end: string): string {
    const close = this.p.indexOf(end, this.pos);
    const name = close < 0 ? '' : this.p.slice(this.pos, close);
    if (/^\d/.test(name)) fail('subpattern name must start with a non-digit');
    if (!/^[A-Za-z_]\w{0,31}$/.test(name)) refuse('this group name', 'use a name of letters, digits and _ (at most 32)');
    if (this.names.has(name)) fail('two named subpatterns have the same name (PCRE2_DUPNAMES not set)');
    this.pos = close + end.length;
    return name;
  }

  private group(outer: Flags, items: PNode[]): PNode | null {
    const open = this.pos - 1;
    const flags: Flags = { ...outer };
    let kind: 'cap' | 'noncap' | 'look' = 'cap';
    let behind = false;
    let neg = false;
    let name: string | undefined;
    if (this.peek() === 42 /* * */) refuse('backtracking control verbs (*...)', 'remove the verb');
    if (this.peek() === 63 /* ? */) {
      this.pos++;
      const rest = this.p.slice(this.pos, this.pos + 3);
      if (rest.startsWith(':')) {
        this.pos++;
        kind = 'noncap';
      } else if (rest.startsWith('=') || rest.startsWith('!')) {
        neg = rest[0] === '!';
        this.pos++;
        kind = 'look';
      } else if (rest.startsWith('<=') || rest.startsWith('<!')) {
        neg = rest[1] === '!';
        behind = true;
        this.pos += 2;
        kind = 'look';
      } else if (rest.startsWith('P<') || rest.startsWith('<') || rest.startsWith("'")) {
        this.pos += rest[0] === 'P' ? 2 : 1;
        name = this.groupName(rest[0] === "'" ? "'" : '>');
      } else if (rest.startsWith('P=')) {
        this.pos += 2;
        const close = this.p.indexOf(')', this.pos);
        const nm = close < 0 ? '' : this.p.slice(this.pos, close);
        if (!/^[A-Za-z_]\w*$/.test(nm)) refuse('this (?P=name) form', 'write (?P=name) with a valid name');
        this.pos = close + 1;
        const r = { t: 'backref' as const, n: 0, name: nm, ci: outer.i };
        this.refs.push(r);
        return r;
      } else if (rest.startsWith('#')) {
        const close = this.p.indexOf(')', this.pos);
        if (close < 0) fail('missing ) after (?# comment');
        this.pos = close + 1;
        return null;
      } else if (rest.startsWith('>')) {
        return refuse('atomic groups (?>...)', 'use a non-capturing group (?:...) (it may backtrack)');
      } else if (rest.startsWith('|')) {
        return refuse('branch reset groups (?|...)', 'use (?:...) and number the groups as written');
      } else if (rest.startsWith('(')) {
        return refuse('conditional groups (?(...)...)', 'use alternation');
      } else if (/^(?:R|[+-]?\d|&|P>)/.test(rest)) {
        return refuse('recursion and subroutine calls ((?R), (?N), (?&name))', 'repeat the pattern explicitly');
      } else if (rest.startsWith('C')) {
        return refuse('callouts (?C...)', 'remove them');
      } else {
        // option setting: (?imsx-imsx) or (?imsx-imsx:...)
        let on = true;
        for (;;) {
          const o = this.peek();
          if (o === -1) fail('missing closing parenthesis');
          this.pos++;
          const oc = String.fromCharCode(o);
          if (oc === ')' || oc === ':') break;
          if (oc === '-' && on) on = false;
          else if (oc === 'i' || oc === 's' || oc === 'm') flags[oc] = on;
          else if ('xnUJ^'.includes(oc)) refuse(`the inline option '${oc}' in '${this.p.slice(open, this.pos)}...'`, 'only (?i), (?s) and (?m) (and their - forms) are supported');
          else fail('unrecognized character after (? or (?-');
        }
        if (this.p.charCodeAt(this.pos - 1) === 41) {
          // (?i) applies to the rest of the enclosing group, its later branches included
          Object.assign(outer, flags);
          return null;
        }
        kind = 'noncap';
      }
    }
    const n = kind === 'cap' ? ++this.groupCount : 0;
    if (name !== undefined) this.names.set(name, n);
    const body = this.alternation(flags);
    if (this.peek() !== 41) fail('missing closing parenthesis');
    this.pos++;
    if (kind === 'look') {
      if (behind) checkLookbehind(body);
      const look: PNode = { t: 'look', behind, neg, body };
      items.push(look);
      return this.quantifierAhead() ? look : null;
    }
    return { t: 'group', n, body };
  }

  /** After '[': the class's byte set (folded under (?i)). */
  private bracket(flags: Flags): ByteSet {
    const p = this.p;
    const t = p[this.pos];
    if ((t === ':' || t === '.' || t === '=') && posixEnd(p, this.pos + 1, t) >= 0) {
      fail(t === ':' ? 'POSIX named classes are supported only within a class' : 'POSIX collating elements are not supported');
    }
    let negated = false;
    if (this.peek() === 94) {
      negated = true;
      this.pos++;
    }
    const s = new ByteSet();
    let first = true;
    for (;;) {
      if (this.pos >= p.length) fail('missing terminating ] for character class');
      const c = p.charCodeAt(this.pos);
      if (c === 93 && !first) {
        this.pos++;
        break;
      }
      first = false;
      const lo = this.classItem(s);
      if (lo < 0) {
        // a class escape or POSIX class: a following '-' may not start a range
        if (p[this.pos] === '-' && this.pos + 1 < p.length && p[this.pos + 1] !== ']') fail(E_RANGE);
        continue;
      }
      if (p[this.pos] === '-' && this.pos + 1 < p.length && p[this.pos + 1] !== ']') {
        this.pos++;
        const tmp = new ByteSet();
        const hi = this.classItem(tmp);
        if (hi < 0) fail(E_RANGE);
        if (hi < lo) fail('range out of order in character class');
        s.addRange(lo, hi);
      } else s.add(lo);
    }
    if (flags.i) s.foldAscii();
    return negated ? s.complement() : s;
  }

  /** One class member at pos: a byte (returned), or a set added to s (returns -1). */
  private classItem(s: ByteSet): number {
    const p = this.p;
    const c = p.charCodeAt(this.pos);
    if (c === 91 && (p[this.pos + 1] === ':' || p[this.pos + 1] === '.' || p[this.pos + 1] === '=')) {
      const term = p[this.pos + 1]!;
      const end = posixEnd(p, this.pos + 2, term);
      if (end >= 0) {
        if (term !== ':') fail('POSIX collating elements are not supported');
        let name = p.slice(this.pos + 2, end);
        const neg = name.startsWith('^');
        if (neg) name = name.slice(1);
        const set = name === 'word' ? WORD_SET : namedClass(name);
        if (!set) fail('unknown POSIX class name');
        s.addSet(neg ? set!.complement() : set!);
        this.pos = end + 2;
        return -1;
      }
    }
    this.pos++;
    if (c !== 92) return c;
    if (this.pos >= p.length) fail('\\ at end of pattern');
    const e = p.charCodeAt(this.pos++);
    const ch = String.fromCharCode(e);
    if (!isAlnum(e)) return e;
    const set = escapeSet(e);
    if (set) {
      s.addSet(set);
      return -1;
    }
    if (ch === 'b') return 8;
    const b = this.byteEscape(e, ch);
    if (b >= 0) return b;
    if (ch === 'N') fail('\\N is not supported in a class');
    if (ch === 'Q' || ch === 'E') refuse('\\Q...\\E inside [...]', 'escape the characters one by one');
    if (ch === 'p' || ch === 'P') refuse(`\\${ch}{...} (Unicode properties)`, 'use a POSIX class such as [[:alpha:]]');
    if (ch === 'u' || ch === 'U' || ch === 'l' || ch === 'L' || ch === 'F') fail('PCRE2 does not support \\F, \\L, \\l, \\N{name}, \\U, or \\u');
    if ('BAzZGKRXCgk'.includes(ch)) fail(E_CLASS_ESC);
    if (isDigit(e)) refuse(`'\\${ch}' inside [...]`, 'write the byte as \\xHH');
    if (ch === 'o') refuse('\\o{...}', 'write the byte as \\xHH');
    return fail(E_ESC);
  }
}

/** PCRE2's check_posix_syntax: the index of the terminator before ']' of "[:name:]", or -1. */
function posixEnd(p: string, i: number, term: string): number {
  for (; i < p.length; i++) {
    if (p[i] === '\\' && (p[i + 1] === ']' || p[i + 1] === '\\')) i++;
    else if ((p[i] === '[' && p[i + 1] === term) || p[i] === ']') return -1;
    else if (p[i] === term && p[i + 1] === ']') return i;
  }
  return -1;
}

/** Length of every match of n, or -1 if it varies (PCRE2 10.42's rule, strict). */
function fixedLength(n: PNode): number {
  switch (n.t) {
    case 'set': return 1;
    case 'anchor': case 'look': return 0;
    case 'backref': return -1;
    case 'group': return fixedLength(n.body);
    case 'repeat': {
      if (n.min !== n.max) return -1;
      const l = fixedLength(n.body);
      return l < 0 ? -1 : l * n.min;
    }
    case 'seq': {
      let sum = 0;
      for (const it of n.items) {
        const l = fixedLength(it);
        if (l < 0) return -1;
        sum += l;
      }
      return sum;
    }
    case 'alt': {
      const l = fixedLength(n.alts[0]!);
      return n.alts.every((a) => fixedLength(a) === l) ? l : -1;
    }
  }
}

function contains(n: PNode, pred: (x: PNode) => boolean): boolean {
  if (pred(n)) return true;
  switch (n.t) {
    case 'seq': return n.items.some((x) => contains(x, pred));
    case 'alt': return n.alts.some((x) => contains(x, pred));
    case 'group': case 'look': case 'repeat': return contains(n.body, pred);
    default: return false;
  }
}

function checkLookbehind(body: PNode): void {
  if (contains(body, (x) => x.t === 'backref')) refuse('back-references inside a lookbehind', 'move the reference out of the lookbehind');
  const branches = body.t === 'alt' ? body.alts : [body];
  for (const b of branches) if (fixedLength(b) < 0) fail('lookbehind assertion is not fixed length');
}

/**
 * Every back-reference must follow its group in a sequence, with nothing optional between
 * them (no alternation, ?, *, {0,n} or lookaround around the group): then the group is set
 * whenever the reference is tried, in PCRE as in JS.
 */
function checkBackrefs(root: PNode): void {
  const groups = new Map<number, PNode[]>();
  const refs: Array<{ n: number; chain: PNode[] }> = [];
  const walk = (n: PNode, chain: PNode[]): void => {
    const c = [...chain, n];
    if (n.t === 'group' && n.n > 0) groups.set(n.n, c);
    if (n.t === 'backref') refs.push({ n: n.n, chain: c });
    if (n.t === 'seq') n.items.forEach((x) => walk(x, c));
    else if (n.t === 'alt') n.alts.forEach((x) => walk(x, c));
    else if (n.t === 'group' || n.t === 'look' || n.t === 'repeat') walk(n.body, c);
  };
  walk(root, []);
  const unsure = (n: number): never =>
    refuse(`the back-reference \\${n} where group ${n} may be unset (PCRE then fails, JavaScript matches empty)`, 'make sure the group always matches before the reference');
  for (const r of refs) {
    const g = groups.get(r.n)!;
    let k = 0;
    while (k < g.length && k < r.chain.length && g[k] === r.chain[k]) k++;
    if (k === g.length || k === 0) unsure(r.n); // the reference is inside its own group
    const lca = g[k - 1]!;
    if (lca.t !== 'seq' || lca.items.indexOf(g[k]!) > lca.items.indexOf(r.chain[k]!)) unsure(r.n);
    for (let j = k; j < g.length; j++) {
      const x = g[j]!;
      if (x.t === 'alt' || x.t === 'look' || (x.t === 'repeat' && x.min === 0)) unsure(r.n);
    }
  }
}

/** The items a match of n starts with (through leading groups and zero-width anchors). */
function leading(n: PNode, out: PNode[]): PNode[] {
  if (n.t === 'alt') n.alts.forEach((a) => leading(a, out));
  else if (n.t === 'group') leading(n.body, out);
  else if (n.t === 'seq') {
    let k = 0;
    while (k < n.items.length - 1 && n.items[k]!.t === 'anchor') k++;
    if (n.items.length > 0) leading(n.items[k]!, out);
  } else out.push(n);
  return out;
}

/**
 * GNU grep 3.8's PCRE2 (10.42) takes a literal at the start of a leading lookahead as the
 * first character of the match and then looks for a "required" later character only after
 * it, so `(?=a)x*a` misses "a". Refused rather than emulated (conservatively: a leading
 * positive lookahead on a literal, with any variable-length repeat in the pattern).
 */
function checkLeadingLookahead(root: PNode): void {
  for (const x of leading(root, [])) {
    if (x.t !== 'look' || x.neg || x.behind) continue;
    const first = leading(x.body, []);
    const literal = first.some((f) => f.t === 'set' && f.set.size() <= 2);
    if (literal && contains(root, (r) => r.t === 'repeat' && r.min !== r.max)) {
      refuse('a leading lookahead on a literal character followed by a variable-length repeat (GNU grep 3.8 with PCRE2 10.42 misses some of its matches)', 'rewrite the pattern without the leading lookahead');
    }
  }
}

function sets(n: PNode, out: ByteSet[]): ByteSet[] {
  contains(n, (x) => {
    if (x.t === 'set') out.push(x.set);
    return false;
  });
  return out;
}

export function translatePerl(pattern: string, opts: PerlOptions): PerlResult {
  const parser = new PerlParser(pattern);
  const ast = parser.parse({ i: opts.ignoreCase, s: false, m: false });
  const hasBackrefs = parser.refs.length > 0;
  if (hasBackrefs) checkBackrefs(ast);
  checkLeadingLookahead(ast);
  // A caseless back-reference needs JS's `i` flag, which folds the whole regex and Latin-1
  // letters too: accept it only where that changes nothing.
  let flags = '';
  if (parser.refs.some((r) => r.ci)) {
    const why = 'drop -i/(?i) or write the case variants in the group explicitly';
    if (parser.refs.some((r) => !r.ci)) refuse('mixing caseless and case-sensitive back-references', why);
    for (const s of sets(ast, [])) {
      for (let c = 65; c <= 90; c++) if (s.bits[c] !== s.bits[c + 32]) refuse('case-sensitive parts in a pattern with a caseless back-reference', why);
      for (let c = 0xc0; c <= 0xde; c++) if (c !== 0xd7 && s.bits[c] !== s.bits[c + 32]) refuse('a caseless back-reference with Latin-1 letters in the pattern', why);
    }
    const groups = new Set(parser.refs.map((r) => r.n));
    contains(ast, (x) => {
      if (x.t === 'group' && groups.has(x.n)) {
        for (const s of sets(x.body, [])) {
          for (let c = 0xc0; c <= 0xfe; c++) if (s.bits[c] && LATIN1_LETTERS.has(c)) refuse('a caseless back-reference to a group that can match bytes 0xC0-0xFE', why);
        }
      }
      return false;
    });
    flags = 'i';
  }
  const e = new PerlEmitter(opts);
  let source = e.node(ast);
  if (source === '') source = '(?:)';
  return { source, flags, groupCount: parser.groupCount, hasBackrefs, usesLookaround: e.usesLookaround };
}

class PerlEmitter {
  usesLookaround = false;
  constructor(private readonly o: PerlOptions) {}

  private anchor(k: Anchor): string {
    const line = this.o.newline === 'line';
    const look = (s: string) => {
      this.usesLookaround = true;
      return s;
    };
    switch (k) {
      case 'b': return '\\b';
      case 'B': return '\\B';
      case 'bol': case 'A':
        return line && this.o.multiline ? look('(?<![^\\n])') : '^';
      case 'eol': case 'z':
        return line && this.o.multiline ? look('(?![^\\n])') : '$';
      case 'Z':
        if (line) return this.o.multiline ? look('(?![^\\n])') : '$';
        return look('(?=\\n?$)');
      case 'mbol':
        if (line) return this.o.multiline ? look('(?<![^\\n])') : '^';
        // not after a newline that ends the subject (PCRE2 without ALT_CIRCUMFLEX)
        return look('(?:^|(?<=\\n)(?!$))');
      case 'meol':
        if (line) return this.o.multiline ? look('(?![^\\n])') : '$';
        return look('(?=\\n|$)');
    }
  }

  node(n: PNode, top = false): string {
    switch (n.t) {
      case 'set': {
        const s = new ByteSet(n.set.bits);
        // a line never holds a newline; dropping it keeps buffer-wide matching exact
        if (this.o.newline === 'line') s.delete(10);
        return renderSet(s);
      }
      case 'anchor':
        return this.anchor(n.k);
      case 'backref':
        return '(?:\\' + n.n + ')';
      case 'group':
        return (n.n > 0 ? '(' : '(?:') + this.node(n.body, true) + ')';
      case 'look':
        this.usesLookaround = true;
        return '(?' + (n.behind ? '<' : '') + (n.neg ? '!' : '=') + this.node(n.body, true) + ')';
      case 'repeat': {
        const b = n.body;
        const src = this.node(b);
        const atom = b.t === 'set' || b.t === 'group' || b.t === 'backref' ? src : '(?:' + src + ')';
        let q: string;
        if (n.max === -1) q = n.min === 0 ? '*' : n.min === 1 ? '+' : `{${n.min},}`;
        else if (n.min === 0 && n.max === 1) q = '?';
        else if (n.min === n.max) q = `{${n.min}}`;
        else q = `{${n.min},${n.max}}`;
        return atom + q + (n.lazy ? '?' : '');
      }
      case 'seq':
        return n.items.map((x) => this.node(x)).join('');
      case 'alt': {
        const s = n.alts.map((x) => this.node(x, true)).join('|');
        return top ? s : '(?:' + s + ')';
      }
    }
  }
}
