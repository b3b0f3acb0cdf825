/**
 * Many fixed strings as ONE automaton (Aho-Corasick), over byte strings (latin1: one char =
 * one byte), for grep -F / literal patterns.
 *
 * Why not one alternation regex built once: V8's backtracking engine tries every
 * alternative at every position, so 2000 strings cost about 2000 backtracks per input byte;
 * past --regexp-backtracks-before-fallback the pool's linear-engine fallback takes over,
 * and that engine simulates an NFA of the whole alternation: 2000 words of 8-22 bytes ran
 * 20 s at 0.5-1 GB/s of growth (memory V8's heap limit does not see), where this automaton
 * scans in one pass, a table lookup a byte, and takes (states x alphabet) 32-bit entries:
 * 2000 such words are ~30 000 states x 27 classes, about 3 MB, bounded (AC_MAX_TABLE)
 * before it is allocated. Measured on the same input: see the report of issue 17.
 *
 * Semantics are GNU grep's for fixed strings in the C locale: ASCII-only case folding
 * (-i), -w (the occurrence is neither preceded nor followed by a word byte [0-9A-Za-z_]),
 * -x (the whole line is one of the strings), -o (leftmost, then longest, occurrence).
 */

/** Dense transition tables larger than this many entries are not built (see build()). */
const AC_MAX_TABLE = 16 * 1024 * 1024;

const isWord = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const fold = (c: number) => (c >= 65 && c <= 90 ? c | 32 : c);

/** Lower-case ASCII letters only (String#toLowerCase would fold latin1 letters too). */
function foldString(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
}

export interface LiteralSetOptions {
  ignoreCase: boolean;
  /** -w */
  word: boolean;
  /** -x */
  line: boolean;
}

/**
 * A set of non-empty byte strings. `find` and `match` work on lines or on a chunk of whole
 * lines: a caller makes sure no string holds the line terminator (see GNU: such a string
 * can never match inside one line).
 */
export class LiteralSet {
  private readonly classOf: Uint8Array;
  private readonly k: number;
  /** next state = delta[state * k + class] */
  private readonly delta: Int32Array;
  /** Length of the string that ends at this state (its depth), 0 if none does. */
  private readonly term: Int32Array;
  /** The nearest state down the failure chain (itself excluded) where a string ends, -1 if none. */
  private readonly dict: Int32Array;
  /** Does some string end at this state or down its failure chain? */
  private readonly out: Uint8Array;
  private readonly maxLen: number;
  private readonly whole: Set<string> | null;

  /** null when the automaton would be larger than AC_MAX_TABLE entries. */
  static build(strings: string[], o: LiteralSetOptions): LiteralSet | null {
    const classOf = new Uint8Array(256);
    let k = 1;
    let total = 1;
    for (const s of strings) {
      total += s.length;
      for (let i = 0; i < s.length; i++) {
        const c = o.ignoreCase ? fold(s.charCodeAt(i)) : s.charCodeAt(i);
        if (classOf[c] === 0) classOf[c] = k++;
      }
    }
    if (o.ignoreCase) for (let c = 65; c <= 90; c++) classOf[c] = classOf[c | 32]!;
    if (total * k > AC_MAX_TABLE) return null;
    return new LiteralSet(strings, o, classOf, k, total);
  }

  private constructor(strings: string[], private readonly o: LiteralSetOptions, classOf: Uint8Array, k: number, total: number) {
    this.classOf = classOf;
    this.k = k;
    // The trie, in the dense table (0: no edge yet; the root is state 0, never a target).
    const delta = new Int32Array(total * k);
    const term = new Int32Array(total);
    let states = 1;
    let maxLen = 0;
    for (const s of strings) {
      let st = 0;
      for (let i = 0; i < s.length; i++) {
        const idx = st * k + classOf[s.charCodeAt(i)]!;
        let nx = delta[idx]!;
        if (nx === 0) {
          nx = states++;
          delta[idx] = nx;
        }
        st = nx;
      }
      term[st] = s.length;
      if (s.length > maxLen) maxLen = s.length;
    }
    // Failure links breadth first, turning the trie into a DFA (missing edges follow the failure).
    const fail = new Int32Array(states);
    const dict = new Int32Array(states).fill(-1);
    const out = new Uint8Array(states);
    const queue = new Int32Array(states);
    let head = 0;
    let tail = 0;
    for (let c = 0; c < k; c++) {
      const nx = delta[c]!;
      if (nx !== 0) queue[tail++] = nx; // fail = 0
    }
    for (let c = 1; c < states; c++) if (term[c]) out[c] = 1;
    while (head < tail) {
      const st = queue[head++]!;
      const f = fail[st]!;
      dict[st] = term[f] ? f : dict[f]!;
      if (dict[st]! >= 0) out[st] = 1;
      for (let c = 0; c < k; c++) {
        const idx = st * k + c;
        const nx = delta[idx]!;
        if (nx !== 0) {
          fail[nx] = delta[f * k + c]!;
          queue[tail++] = nx;
        } else delta[idx] = delta[f * k + c]!;
      }
    }
    this.delta = delta.length === states * k ? delta : delta.slice(0, states * k);
    this.term = term.subarray(0, states);
    this.dict = dict;
    this.out = out;
    this.maxLen = maxLen;
    this.whole = o.line ? new Set(strings.map((s) => (o.ignoreCase ? foldString(s) : s))) : null;
  }

  /** Bytes of the automaton's tables (for the report of a caller that wants to know). */
  get bytes(): number {
    return this.delta.byteLength + this.term.byteLength * 2 + this.out.byteLength;
  }

  /**
   * The first occurrence in s[from, end) that counts (-w boundaries), as the index where it
   * ends (exclusive); -1 if none. -x is the caller's (see lineIn).
   */
  private firstEnd(s: string, from: number, end: number): number {
    const { classOf, delta, out, k } = this;
    let st = 0;
    for (let i = from; i < end; i++) {
      st = delta[st * k + classOf[s.charCodeAt(i)]!]!;
      if (out[st] === 0) continue;
      if (!this.o.word) return i + 1;
      if (this.wordAt(s, st, i + 1, end) >= 0) return i + 1;
    }
    return -1;
  }

  /** Start of the longest occurrence ending at `e` in state `st` that has -w boundaries, -1 if none. */
  private wordAt(s: string, st: number, e: number, end: number): number {
    if (e < end && isWord(s.charCodeAt(e))) return -1;
    for (let t = this.term[st] ? st : this.dict[st]!; t >= 0; t = this.dict[t]!) {
      const b = e - this.term[t]!;
      if (b === 0 || !isWord(s.charCodeAt(b - 1))) return b;
    }
    return -1;
  }

  /** Does this line (no terminator) hold an occurrence? */
  test(line: string): boolean {
    if (this.whole) return this.whole.has(this.o.ignoreCase ? foldString(line) : line);
    return this.firstEnd(line, 0, line.length) >= 0;
  }

  /**
   * The first line of s (lines end in `eol`) at or after `pos` (a line start) that holds an
   * occurrence, as [start, end of line); null if none.
   */
  lineIn(s: string, pos: number, eol: string): [number, number] | null {
    const len = s.length;
    if (this.whole) {
      while (pos < len) {
        let le = s.indexOf(eol, pos);
        if (le < 0) le = len;
        if (this.test(s.slice(pos, le))) return [pos, le];
        pos = le + 1;
      }
      return null;
    }
    // -w looks at the byte after an occurrence: the terminator, at worst, never a word byte.
    const e = this.firstEnd(s, pos, len);
    if (e < 0) return null;
    const ls = e - 1 === 0 ? 0 : s.lastIndexOf(eol, e - 2) + 1;
    let le = s.indexOf(eol, e - 1);
    if (le < 0) le = len;
    return [ls, le];
  }

  /** The leftmost-longest occurrence in the line at or after `from`, as [start, end); null if none. */
  match(line: string, from: number): [number, number] | null {
    if (this.whole) return from === 0 && line.length > 0 && this.test(line) ? [0, line.length] : null;
    const { classOf, delta, out, term, dict, k, maxLen } = this;
    const len = line.length;
    let bs = -1;
    let be = -1;
    let st = 0;
    for (let i = from; i < len; i++) {
      // Nothing ending later can start at or before the best start.
      if (bs >= 0 && i + 1 - maxLen > bs) break;
      st = delta[st * k + classOf[line.charCodeAt(i)]!]!;
      if (out[st] === 0) continue;
      const e = i + 1;
      let b: number;
      if (this.o.word) b = this.wordAt(line, st, e, len);
      else b = e - (term[st] ? term[st]! : term[dict[st]!]!); // the longest ends the chain's first
      if (b >= 0 && (bs < 0 || b < bs || (b === bs && e > be))) {
        bs = b;
        be = e;
      }
    }
    return bs < 0 ? null : [bs, be];
  }
}

/**
 * The byte string a pattern stands for when it has no special character in its dialect,
 * else null. Conservative: a character that is special somewhere counts as special.
 */
export function literalOf(pattern: string, dialect: 'basic' | 'extended' | 'fixed' | 'perl'): string | null {
  if (dialect === 'fixed') return pattern;
  if (dialect === 'basic') return /[\\.[\]*^$]/.test(pattern) ? null : pattern;
  if (dialect === 'extended') return /[\\.[\]*^$+?(){}|]/.test(pattern) ? null : pattern;
  return null;
}
