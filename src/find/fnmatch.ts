/**
 * glibc fnmatch(3) with flags 0 or FNM_CASEFOLD, as find's -name/-path/-lname use it,
 * translated to a JavaScript RegExp over byte strings (latin1: one char = one byte).
 *
 * Why not minimatch: minimatch always splits the pattern on '/' (its `*` and `?` become
 * `[^/]`), which is fnmatch *with* FNM_PATHNAME. find calls fnmatch without it, so
 * `-path './a*c'` must match './a/b/c' — minimatch (match or makeRe) cannot say that.
 *
 * Semantics (C locale, no FNM_PERIOD, no FNM_PATHNAME, escapes on):
 *   `*` any bytes (also '/', also a leading '.'); `?` one byte; `\x` the byte x;
 *   a trailing lone `\` never matches; `[...]` with `!`/`^` negation, `]` first is a
 *   member, `\` escapes inside, ranges in byte order, `[:class:]`, `[=c=]`, `[.c.]`;
 *   an unterminated `[` is a literal '['. An unknown class name never matches.
 * Case folding (FNM_CASEFOLD) is ASCII only: the name and the pattern are both folded.
 */

const CLASSES: Record<string, string> = {
  alpha: 'A-Za-z', digit: '0-9', alnum: '0-9A-Za-z', upper: 'A-Z', lower: 'a-z',
  space: ' \\t\\n\\r\\f\\v', blank: ' \\t', punct: '!-\\/:-@\\[-`{-~', print: ' -~', graph: '!-~',
  cntrl: '\\x00-\\x1f\\x7f', xdigit: '0-9A-Fa-f',
};

function esc(code: number): string {
  return '\\x' + code.toString(16).padStart(2, '0');
}

const lowerAscii = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);

/** Fold ASCII upper case letters of a byte string. */
export function foldAscii(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
}

/** Compile a pattern (byte string) to an anchored RegExp; null when it can never match. */
export function fnmatchRegExp(pattern: string, casefold = false): RegExp | null {
  const fold = (c: number) => (casefold ? lowerAscii(c) : c);
  let re = '';
  const n = pattern.length;
  for (let i = 0; i < n; i++) {
    const c = pattern.charCodeAt(i);
    if (c === 0x2a /* * */) {
      re += '[^]*';
      while (pattern.charCodeAt(i + 1) === 0x2a) i++;
    } else if (c === 0x3f /* ? */) re += '[^]';
    else if (c === 0x5c /* \ */) {
      if (i + 1 >= n) return null;
      re += esc(fold(pattern.charCodeAt(++i)));
    } else if (c === 0x5b /* [ */) {
      const br = bracket(pattern, i, fold);
      if (br === null) re += esc(c);
      else if (br.never) return null;
      else {
        re += br.source;
        i = br.end;
      }
    } else re += esc(fold(c));
  }
  return new RegExp('^' + re + '$');
}

/** Parse a bracket starting at `start` ('['); null when unterminated (then '[' is literal). */
function bracket(p: string, start: number, fold: (c: number) => number): { source: string; end: number; never?: boolean } | null {
  let i = start + 1;
  let neg = false;
  if (p[i] === '!' || p[i] === '^') {
    neg = true;
    i++;
  }
  let body = '';
  let never = false;
  let first = true;
  for (;;) {
    if (i >= p.length) return null;
    let lo: number;
    const ch = p[i]!;
    if (ch === ']' && !first) break;
    first = false;
    if (ch === '[' && (p[i + 1] === ':' || p[i + 1] === '=' || p[i + 1] === '.')) {
      const kind = p[i + 1]!;
      const close = p.indexOf(kind + ']', i + 2);
      if (close < 0) return null;
      const inner = p.slice(i + 2, close);
      i = close + 2;
      if (kind === ':') {
        const cls = CLASSES[inner];
        if (cls === undefined) never = true;
        else body += cls;
        continue;
      }
      if (inner.length !== 1) {
        never = true;
        continue;
      }
      lo = inner.charCodeAt(0);
    } else if (ch === '\\') {
      if (i + 1 >= p.length) return null;
      lo = p.charCodeAt(i + 1);
      i += 2;
    } else {
      lo = p.charCodeAt(i);
      i++;
    }
    // A range lo-hi (a '-' followed by ']' is a literal '-').
    if (p[i] === '-' && i + 1 < p.length && p[i + 1] !== ']') {
      let hi: number;
      if (p[i + 1] === '\\') {
        if (i + 2 >= p.length) return null;
        hi = p.charCodeAt(i + 2);
        i += 3;
      } else if (p[i + 1] === '[' && (p[i + 2] === '=' || p[i + 2] === '.')) {
        const kind = p[i + 2]!;
        const close = p.indexOf(kind + ']', i + 3);
        if (close < 0) return null;
        const inner = p.slice(i + 3, close);
        hi = inner.charCodeAt(0);
        i = close + 2;
      } else {
        hi = p.charCodeAt(i + 1);
        i += 2;
      }
      const a = fold(lo);
      const b = fold(hi);
      if (a <= b) body += esc(a) + '-' + esc(b);
      continue;
    }
    body += esc(fold(lo));
  }
  if (never && !neg) return { source: '', end: i, never: true };
  if (body === '') return { source: neg ? '[^]' : '(?!)', end: i };
  return { source: '[' + (neg ? '^' : '') + body + ']', end: i };
}

export interface GlobMatcher {
  test(s: string): boolean;
}

/** A compiled pattern; `test` takes a byte string. */
export function compileGlob(pattern: string, casefold: boolean): GlobMatcher {
  const re = fnmatchRegExp(pattern, casefold);
  if (re === null) return { test: () => false };
  // Fast paths for the commonest shapes: '*.ext' and literal names.
  if (!casefold) {
    const m = /^\*([^*?[\\]*)$/.exec(pattern);
    if (m) {
      const suffix = m[1]!;
      return { test: (s) => s.endsWith(suffix) };
    }
    if (!/[*?[\\]/.test(pattern)) return { test: (s) => s === pattern };
  }
  if (casefold) return { test: (s) => re.test(foldAscii(s)) };
  return re;
}
