import { translateRegex, type RegexDialect } from '../../src/regex/index.js';
import { LiteralSet, literalOf } from '../../src/regex/aho-corasick.js';

// The matcher: the patterns compiled to one search (regex or Aho-Corasick automaton).
export class Fatal extends Error {
  constructor(message: string, readonly usage = false, readonly status = 2) {
    super(message);
  }
}


export const bytesOf = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

export function parseContext(v: string): number {
  if (!/^[ \t]*\+?[0-9]+$/.test(v)) throw new Fatal(`${v}: invalid context length argument`);
  return Math.min(Number(v.trim()), Number.MAX_SAFE_INTEGER);
}


// ---- the matcher -------------------------------------------------------------------

export interface Matcher {
  /** Global regex over a chunk of whole lines; null: test line by line. */
  bufRe: RegExp | null;
  /** Does this line (no terminator) match? */
  test(line: string): boolean;
  /** The leftmost-longest non-empty match in the line at or after `pos`, as [start, end); null if none. */
  match(line: string, pos: number): [number, number] | null;
  none: boolean;
  /** Many literal patterns (see literalMatcher): the next matching line of a chunk, instead of bufRe. */
  lineIn?(s: string, pos: number, eol: string): [number, number] | null;
}

/** From this many patterns on, literal ones are searched with one automaton (see literalMatcher). */
export const AUTOMATON_MIN = 16;

/**
 * Many patterns that are all literal (-F, or BRE/ERE without a special character): one
 * Aho-Corasick automaton (src/regex/aho-corasick.ts says why not one alternation regex),
 * built once. null when they are not all literal or it would be too large.
 */
export function literalMatcher(patterns: string[], dialect: RegexDialect, o: { i: boolean; w: boolean; x: boolean; z: boolean }): Matcher | null {
  if (patterns.length < AUTOMATON_MIN || dialect === 'perl') return null;
  const eol = o.z ? '\0' : '\n';
  const strings: string[] = [];
  let empty = false;
  for (const p of patterns) {
    const lit = literalOf(p, dialect);
    if (lit === null) return null;
    if (lit === '') empty = true;
    // A string holding the line terminator never matches inside a line.
    else if (!lit.includes(eol)) strings.push(lit);
  }
  // The empty string with -w: its matches depend on the bytes around every position; the regexes say it.
  if (empty && o.w) return null;
  if (empty && o.x) strings.push('');
  const set = LiteralSet.build(strings, { ignoreCase: o.i, word: o.w, line: o.x });
  if (!set) return null;
  if (empty && !o.x) {
    // The empty string matches every line; -o prints only the non-empty matches.
    return {
      bufRe: null, none: false, test: () => true, match: (line, from) => set.match(line, from),
      lineIn: (s, pos, eolChar) => {
        if (pos >= s.length) return null;
        const le = s.indexOf(eolChar, pos);
        return [pos, le < 0 ? s.length : le];
      },
    };
  }
  return { bufRe: null, none: false, test: (line) => set.test(line), match: (line, from) => set.match(line, from), lineIn: (s, pos, eolChar) => set.lineIn(s, pos, eolChar) };
}

/** Read size: V8 decodes 64 KiB latin1 strings much faster per byte than 256 KiB ones. */
export const CHUNK = 64 * 1024;

export const WORD = '[0-9A-Za-z_]';

/**
 * V8 compiles a regex on its first exec and refuses one whose code is too large ("Regular
 * expression too large", a SyntaxError thrown by exec): try it once on an empty string.
 */
export function compiles(re: RegExp): boolean {
  try {
    re.lastIndex = 0;
    re.exec('');
    return true;
  } catch (e) {
    if (e instanceof SyntaxError) return false;
    throw e;
  } finally {
    re.lastIndex = 0;
  }
}

export function buildMatcher(patterns: string[], dialect: RegexDialect, o: { i: boolean; w: boolean; x: boolean; z: boolean }, warn: (m: string) => void): Matcher {
  if (patterns.length === 0) {
    return { bufRe: null, test: () => false, match: () => null, none: true };
  }
  const literal = literalMatcher(patterns, dialect, o);
  if (literal) return literal;
  const wrapBuf = (src: string) => (o.x ? `(?<![^\\n])(?:${src})(?![^\\n])` : o.w ? `(?<!${WORD})(?:${src})(?!${WORD})` : src);
  const wrapLine = (src: string) => (o.x ? `^(?:${src})$` : o.w ? `(?<!${WORD})(?:${src})(?!${WORD})` : src);
  const lineRes: RegExp[] = [];
  const bufSrc: string[] = [];
  let flags = '';
  let backrefs = false;
  const seen = new Set<string>();
  for (const p of patterns) {
    const t = translateRegex(p, { dialect, ignoreCase: o.i, newline: o.z ? 'any' : 'line' });
    for (const w of t.warnings) if (!seen.has(w)) {
      seen.add(w);
      warn(w);
    }
    // Compiled (by V8, on first use) only where needed: one combined regex tests lines; the
    // per-pattern ones serve -o (longest across patterns) and back-references.
    lineRes.push(new RegExp(wrapLine(t.source), t.flags + 'g'));
    if (t.hasBackrefs) backrefs = true;
    flags = t.flags;
    if (!o.z) {
      const b = translateRegex(p, { dialect, ignoreCase: o.i, newline: 'line', multiline: true });
      bufSrc.push(b.source);
    }
  }
  const single = lineRes.length === 1;
  let combinedLine = single ? lineRes[0]! : backrefs ? null : new RegExp(lineRes.map((r) => `(?:${r.source})`).join('|'), 'g');
  // Too large once joined: test the patterns one by one, line by line.
  if (combinedLine && !single && !compiles(combinedLine)) combinedLine = null;
  if (!combinedLine || single) {
    for (const r of lineRes) if (!compiles(r)) throw new Fatal('regular expression too large (the JavaScript regex engine refuses it); use shorter patterns');
  }
  let bufRe: RegExp | null = null;
  if (!o.z && (single || !backrefs)) {
    const joined = single ? bufSrc[0]! : bufSrc.map((s) => `(?:${s})`).join('|');
    bufRe = new RegExp(wrapBuf(joined), flags + 'g');
    if (!compiles(bufRe)) bufRe = null;
  }
  const test = (line: string): boolean => {
    if (combinedLine) {
      combinedLine.lastIndex = 0;
      return combinedLine.test(line);
    }
    for (const r of lineRes) {
      r.lastIndex = 0;
      if (r.test(line)) return true;
    }
    return false;
  };
  // One match at a time: a long line can hold millions (an array of them all once took the
  // worker's heap, and V8's out-of-memory then aborted the whole process).
  const match = (line: string, from: number): [number, number] | null => {
    let pos = from;
    while (pos <= line.length) {
      let bs = -1;
      let be = -1;
      for (const r of lineRes) {
        r.lastIndex = pos;
        const m = r.exec(line);
        if (!m) continue;
        const e = m.index + m[0].length;
        if (bs < 0 || m.index < bs || (m.index === bs && e > be)) {
          bs = m.index;
          be = e;
        }
      }
      if (bs < 0) return null;
      if (be > bs) return [bs, be];
      pos = bs + 1;
    }
    return null;
  };
  return { bufRe, test, match, none: false };
}
