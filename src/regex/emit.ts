/**
 * AST -> JavaScript regex source (no `u` flag; text is latin1 "byte strings").
 *
 * Leftmost-longest: POSIX picks the longest match at the leftmost position;
 * JS picks the first alternative that lets the whole regex match. We reorder
 * the alternatives of every alternation so that those that match longer
 * strings come first (stable sort, see below).
 * This makes literal alternations (`a|ab|abc`, `foo|foobar`) and alternatives
 * that are prefixes of one another behave like GNU. Alternations whose
 * alternatives hold capturing groups in more than one alternative are left as
 * written (reordering would renumber the groups).
 * Order: longer minimal length first (so an alternative that can match the
 * empty string never shadows one that cannot: `x*|y`, `ab*|abc`), then longer
 * maximal length (`a|ab*`), then as written.
 *
 * Cases that still differ from GNU (documented, not emulated):
 *  - the longest match may need a shorter choice in an *earlier* part
 *    (`(a|ab)(c|bcd)` on "abcd": GNU "abcd", we "abc");
 *  - an alternative with a larger minimum but smaller reach wins over a
 *    longer one (`a|a*` on "aaa": GNU "aaa", we "a");
 *  - greedy quantifiers inside a concatenation where giving back characters
 *    would yield a longer overall match (`a*(ab)*b` style);
 *  - POSIX subexpression (capture) rules: JS reports the last iteration's
 *    captures by its own rules, and a back-reference to a group that did not
 *    participate matches the empty string in JS but fails in POSIX;
 *  - with ignoreCase AND back-references we must use the JS `i` flag (a JS
 *    back-reference cannot be folded otherwise), which also folds latin1
 *    letters 0xC0-0xDE <-> 0xE0-0xFE (e.g. UTF-8 lead bytes 0xC3/0xE3); GNU in
 *    the C locale folds ASCII only. Without back-references folding is exact.
 *  - V8's linear-time fallback is unavailable for patterns with
 *    back-references, lookarounds (`\<`/`\>` when the neighbour is not surely
 *    a word char, multiline `^`/`$`), the `i` flag or huge counted repeats;
 *    those rely on the task timeout.
 */
import { ByteSet, literalChar, renderSet, WORD_SET } from './brackets.js';
import type { Node } from './parse.js';

export interface EmitOptions {
  ignoreCase: boolean;
  newline: 'line' | 'any';
  multiline: boolean;
}

interface Out {
  src: string;
  /** can take a JS quantifier directly */
  quantifiable: boolean;
}

export interface EmitResult {
  source: string;
  usesLookaround: boolean;
}

export function emit(ast: Node, opts: EmitOptions): EmitResult {
  const e = new Emitter(opts);
  const out = e.node(ast);
  let source = out.src;
  if (ast.t === 'alt') source = '(?:' + source + ')';
  if (source === '') source = '(?:)';
  return { source, usesLookaround: e.usesLookaround };
}

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

class Emitter {
  usesLookaround = false;
  constructor(private readonly o: EmitOptions) {}

  node(n: Node): Out {
    switch (n.t) {
      case 'empty':
        return { src: '', quantifiable: false };
      case 'char':
        if (this.o.ignoreCase && isLetter(n.c)) {
          const lo = n.c | 0x20;
          return { src: '[' + String.fromCharCode(lo) + String.fromCharCode(lo - 32) + ']', quantifiable: true };
        }
        return { src: literalChar(n.c), quantifiable: true };
      case 'any':
        return { src: this.o.newline === 'line' ? '[^\\n]' : '[^]', quantifiable: true };
      case 'set':
        return { src: renderSet(this.effectiveSet(n)), quantifiable: true };
      case 'anchor':
        return { src: this.anchor(n.k), quantifiable: false };
      case 'backref':
        return { src: '(?:\\' + n.n + ')', quantifiable: true };
      case 'group':
        return { src: '(' + this.node(n.body).src + ')', quantifiable: true };
      case 'repeat': {
        if (n.body.t === 'anchor') {
          // a repeated zero-width assertion (grep's dfa allows "x\<*"): optional or once
          return n.min === 0 ? { src: '', quantifiable: false } : this.node(n.body);
        }
        const b = this.node(n.body);
        const body = b.quantifiable ? b.src : '(?:' + b.src + ')';
        let q: string;
        if (n.max === -1) q = n.min === 0 ? '*' : n.min === 1 ? '+' : `{${n.min},}`;
        else if (n.min === 0 && n.max === 1) q = '?';
        else if (n.min === n.max) q = `{${n.min}}`;
        else q = `{${n.min},${n.max}}`;
        return { src: body + q, quantifiable: false };
      }
      case 'seq': {
        const items = n.items;
        const parts = items.map((item, i) => {
          // \< before something that must start with a word char is just \b (and \> after
          // something that must end with one): keeps V8's linear-time fallback usable.
          if (item.t === 'anchor' && item.k === 'wstart' && i + 1 < items.length && this.isWordOnly(this.edgeSet(items[i + 1]!, true))) {
            return '\\b';
          }
          if (item.t === 'anchor' && item.k === 'wend' && i > 0 && this.isWordOnly(this.edgeSet(items[i - 1]!, false))) {
            return '\\b';
          }
          return item.t === 'alt' ? '(?:' + this.node(item).src + ')' : this.node(item).src;
        });
        return { src: parts.join(''), quantifiable: false };
      }
      case 'alt':
        return { src: orderAlternatives(n.alts).map((a) => this.node(a).src).join('|'), quantifiable: false };
    }
  }

  private effectiveSet(n: { set: ByteSet; negated: boolean }): ByteSet {
    let s = new ByteSet(n.set.bits);
    if (this.o.ignoreCase) s.foldAscii();
    if (n.negated) {
      s = s.complement();
      if (this.o.newline === 'line') s.delete(10);
    }
    return s;
  }

  /** The bytes a (non-empty) match of n can start (first=true) or end with; undefined if n may match empty or is not simple. */
  private edgeSet(n: Node, first: boolean): ByteSet | undefined {
    switch (n.t) {
      case 'char':
        return this.o.ignoreCase ? ByteSet.of(n.c).foldAscii() : ByteSet.of(n.c);
      case 'set':
        return this.effectiveSet(n);
      case 'group':
        return this.edgeSet(n.body, first);
      case 'repeat':
        return n.min >= 1 ? this.edgeSet(n.body, first) : undefined;
      case 'seq':
        return this.edgeSet(first ? n.items[0]! : n.items[n.items.length - 1]!, first);
      case 'alt': {
        const u = new ByteSet();
        for (const a of n.alts) {
          const s = this.edgeSet(a, first);
          if (!s) return undefined;
          u.addSet(s);
        }
        return u;
      }
      default:
        return undefined;
    }
  }

  private isWordOnly(s: ByteSet | undefined): boolean {
    if (!s) return false;
    for (let c = 0; c < 256; c++) if (s.has(c) && !WORD_SET.has(c)) return false;
    return true;
  }

  private anchor(k: string): string {
    switch (k) {
      case 'bol':
        if (this.o.multiline) {
          this.usesLookaround = true;
          return '(?<![^\\n])';
        }
        return '^';
      case 'eol':
        if (this.o.multiline) {
          this.usesLookaround = true;
          return '(?![^\\n])';
        }
        return '$';
      case 'bufstart':
        return '^';
      case 'bufend':
        return '$';
      case 'wordb':
        return '\\b';
      case 'nwordb':
        return '\\B';
      case 'wstart':
        this.usesLookaround = true;
        return '\\b(?=\\w)';
      case 'wend':
        this.usesLookaround = true;
        return '\\b(?<=\\w)';
      default:
        throw new Error('unknown anchor ' + k);
    }
  }
}

function hasGroup(n: Node): boolean {
  switch (n.t) {
    case 'group':
      return true;
    case 'repeat':
      return hasGroup(n.body);
    case 'seq':
      return n.items.some(hasGroup);
    case 'alt':
      return n.alts.some(hasGroup);
    default:
      return false;
  }
}

/** [min, max] length of the strings a node can match (Infinity = unbounded). */
export function lengthBounds(n: Node): [number, number] {
  switch (n.t) {
    case 'empty':
    case 'anchor':
      return [0, 0];
    case 'char':
    case 'any':
    case 'set':
      return [1, 1];
    case 'backref':
      return [0, Infinity];
    case 'group':
      return lengthBounds(n.body);
    case 'repeat': {
      const [lo, hi] = lengthBounds(n.body);
      const max = n.max === -1 ? (hi === 0 ? 0 : Infinity) : n.max * hi;
      return [n.min * lo, max];
    }
    case 'seq': {
      let lo = 0;
      let hi = 0;
      for (const i of n.items) {
        const [a, b] = lengthBounds(i);
        lo += a;
        hi += b;
      }
      return [lo, hi];
    }
    case 'alt': {
      let lo = Infinity;
      let hi = 0;
      for (const a of n.alts) {
        const [x, y] = lengthBounds(a);
        lo = Math.min(lo, x);
        hi = Math.max(hi, y);
      }
      return [lo, hi];
    }
  }
}

function orderAlternatives(alts: Node[]): Node[] {
  if (alts.filter(hasGroup).length > 1) return alts;
  const keyed = alts.map((a, i) => ({ a, i, b: lengthBounds(a) }));
  keyed.sort((x, y) => y.b[0] - x.b[0] || y.b[1] - x.b[1] || x.i - y.i);
  return keyed.map((k) => k.a);
}
