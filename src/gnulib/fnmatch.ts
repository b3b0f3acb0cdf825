/**
 * glibc fnmatch(3), translated to a JavaScript RegExp over byte strings (latin1: one char =
 * one byte), in the C locale. The one pattern matcher of nosh: glob expansion, find
 * -name/-path/-lname, grep --include/--exclude/--exclude-dir, ls -I/--hide.
 *
 * Why not minimatch: minimatch always splits the pattern on '/' (its `*` and `?` become
 * `[^/]`), which is fnmatch *with* FNM_PATHNAME. find calls fnmatch without it, so
 * `-path './a*c'` must match './a/b/c' — minimatch (match or makeRe) cannot say that.
 *
 * Semantics (C locale; flags as glibc's):
 *   `*` any bytes; `?` one byte; `\x` the byte x (FNM_NOESCAPE: `\` is a plain byte);
 *   a trailing lone `\` never matches; `[...]` with `!`/`^` negation, `]` first is a
 *   member, `\` escapes inside, ranges in byte order (a reversed one is empty), `[:class:]`,
 *   `[=c=]`, `[.c.]`; an unterminated `[` is a literal '['. An unknown class name makes the
 *   pattern never match, negated or not (glibc; checked: find -name '[[:foo:]]' and
 *   grep -r --include='[[:foo:]]' match nothing under LC_ALL=C).
 *   FNM_PATHNAME: `*`, `?` and brackets never match '/'. FNM_PERIOD: a leading '.' of the
 *   name (after a '/' too, with FNM_PATHNAME) is matched only by a literal '.'.
 *   FNM_LEADING_DIR: the pattern may match a leading part of the name followed by '/'.
 * Case folding (FNM_CASEFOLD) is ASCII only: a byte matches a pattern byte, a range or an
 * equivalence class when the folded byte does (pattern folded too), but `[:class:]` tests the
 * name's byte as it is (glibc's ISWCTYPE on the unfolded byte): -iname '[[:upper:]]*' matches
 * 'A' and not 'a'. The casefold RegExp runs on the name as it is.
 */

/** glibc's flag values. */
export const FNM_PATHNAME = 1;
export const FNM_NOESCAPE = 2;
export const FNM_PERIOD = 4;
export const FNM_LEADING_DIR = 8;
export const FNM_CASEFOLD = 16;

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

/**
 * Compile a pattern (byte string) to an anchored RegExp over byte strings; null when it can
 * never match. `flags` true is FNM_CASEFOLD alone (find's -iname, as callers wrote it before flags).
 */
export function fnmatchRegExp(pattern: string, flagBits: number | boolean = 0): RegExp | null {
  const flags = flagBits === true ? FNM_CASEFOLD : flagBits === false ? 0 : flagBits;
  const casefold = (flags & FNM_CASEFOLD) !== 0;
  const pathname = (flags & FNM_PATHNAME) !== 0;
  const period = (flags & FNM_PERIOD) !== 0;
  const escapes = (flags & FNM_NOESCAPE) === 0;
  const fold = (c: number) => (casefold ? lowerAscii(c) : c);
  // A literal byte: under casefold, both cases of a letter.
  const lit = (c: number) => {
    const l = fold(c);
    return casefold && l >= 97 && l <= 122 ? `[${esc(l)}${esc(l - 32)}]` : esc(l);
  };
  const any = pathname ? '[^/]' : '[^]';
  let re = '';
  const n = pattern.length;
  // Is the name's byte at this point a leading one (FNM_PERIOD: no wildcard matches a '.' there)?
  let leading = period;
  for (let i = 0; i < n; i++) {
    const c = pattern.charCodeAt(i);
    const wasLeading = leading;
    leading = false;
    const noDot = wasLeading ? '(?!\\.)' : '';
    if (c === 0x2a /* * */) {
      re += noDot + any + '*';
      while (pattern.charCodeAt(i + 1) === 0x2a) i++;
    } else if (c === 0x3f /* ? */) re += noDot + any;
    else if (c === 0x5c /* \ */ && escapes) {
      if (i + 1 >= n) return null;
      re += lit(pattern.charCodeAt(++i));
    } else if (c === 0x5b /* [ */) {
      const br = bracket(pattern, i, fold, casefold, escapes);
      if (br === null) re += esc(c);
      else if (br.never) return null;
      else {
        re += noDot + (pathname ? '(?!/)' : '') + br.source;
        i = br.end;
      }
    } else {
      re += lit(c);
      if (c === 0x2f /* / */ && pathname && period) leading = true;
    }
  }
  return new RegExp('^' + re + ((flags & FNM_LEADING_DIR) !== 0 ? '(?:/[^]*)?$' : '$'));
}

/** Parse a bracket starting at `start` ('['); null when unterminated (then '[' is literal). */
function bracket(p: string, start: number, fold: (c: number) => number, casefold: boolean, escapes: boolean): { source: string; end: number; never?: boolean } | null {
  // Under casefold: the classes (tested on the byte as it is) and the folded singles/ranges.
  const classes: RegExp[] = [];
  const folded: Array<[number, number]> = [];
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
        else {
          body += cls;
          classes.push(new RegExp(`[${cls}]`));
        }
        continue;
      }
      if (inner.length !== 1) {
        never = true;
        continue;
      }
      lo = inner.charCodeAt(0);
      if (kind === '=' || p[i] !== '-') {
        // [=c=] and [.c.] compare the name's byte unfolded, even under FNM_CASEFOLD;
        // [=c=] starts no range.
        body += esc(lo);
        classes.push(new RegExp(esc(lo)));
        continue;
      }
    } else if (ch === '\\' && escapes) {
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
      if (p[i + 1] === '\\' && escapes) {
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
      if (a <= b) folded.push([a, b]);
      continue;
    }
    body += esc(fold(lo));
    folded.push([fold(lo), fold(lo)]);
  }
  if (casefold) {
    body = '';
    for (let c = 0; c < 256; c++) {
      const f = lowerAscii(c);
      const ch = String.fromCharCode(c);
      if (classes.some((r) => r.test(ch)) || folded.some(([a, b]) => f >= a && f <= b)) body += esc(c);
    }
  }
  // An unknown class makes fnmatch fail (no match), negated or not.
  if (never) return { source: '', end: i, never: true };
  if (body === '') return { source: neg ? '[^]' : '(?!)', end: i };
  return { source: '[' + (neg ? '^' : '') + body + ']', end: i };
}

export interface GlobMatcher {
  test(s: string): boolean;
}

const NEVER: GlobMatcher = { test: () => false };

/** A compiled pattern (byte string); `test` takes a byte string. */
export function fnmatchBytes(pattern: string, flags = 0): GlobMatcher {
  const re = fnmatchRegExp(pattern, flags);
  if (re === null) return NEVER;
  // Fast paths for the commonest shapes: '*.ext' and literal names.
  if ((flags & ~FNM_NOESCAPE) === 0) {
    const m = /^\*([^*?[\\]*)$/.exec(pattern);
    if (m) {
      const suffix = m[1]!;
      return { test: (s) => s.endsWith(suffix) };
    }
    if (!/[*?[\\]/.test(pattern)) return { test: (s) => s === pattern };
  }
  return re;
}

/** Byte string (latin1) of text (UTF-8). */
const bytesOf = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
const ASCII = /^[\x00-\x7f]*$/;

/**
 * fnmatch(3) of text: the pattern and each name as their UTF-8 bytes (C locale: `?` is one
 * byte). Pure ASCII names are tested as they are.
 */
export function fnmatch(pattern: string, flags = 0): GlobMatcher {
  const m = fnmatchBytes(bytesOf(pattern), flags);
  if (m === NEVER) return m;
  return { test: (s) => m.test(ASCII.test(s) ? s : bytesOf(s)) };
}
