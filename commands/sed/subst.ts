/** sed's s command: matching under -z, the replacement and its case conversions, and the l command's escapes. */

import { VfsError } from '../../src/vfs/index.js';
import { NoshError } from '../../src/errors.js';
import { noteBytes } from '../../src/runtime/memory.js';
import type { Subst } from './parse.js';
/**
 * GNU's match_regex for an M regex under -z: the first match at or after `from`, searched in
 * the NUL-delimited piece holding `from` and then in each following piece on its own.
 */
export function segExec(re: RegExp, ps: string, from: number): RegExpExecArray | null {
  let beg = from === 0 ? 0 : ps.lastIndexOf('\0', from - 1) + 1;
  let start = from;
  for (;;) {
    let end = ps.indexOf('\0', beg);
    if (end < 0) end = ps.length;
    re.lastIndex = start - beg;
    const m = re.exec(ps.slice(beg, end));
    if (m) {
      m.index += beg;
      return m;
    }
    if (end >= ps.length) return null;
    beg = start = end + 1;
  }
}

/** The length of s///g's result (a global regex that never matches empty). */
export function resultLength(sub: Subst, re: RegExp, ps: string): number {
  let total = ps.length;
  re.lastIndex = 0;
  for (let m = re.exec(ps); m; m = re.exec(ps)) {
    total -= m[0].length;
    for (const p of sub.repl) total += p.k === 'lit' ? p.s.length : p.k === 'grp' ? (m[p.n]?.length ?? 0) : 0;
  }
  re.lastIndex = 0;
  return total;
}

/** At most how long s/// can make a pattern space of `len` characters: each replacement adds its literals and at most `len` per group reference. */
export function maxResult(sub: Subst, len: number): number {
  let lits = 0;
  let refs = 0;
  for (const p of sub.repl) {
    if (p.k === 'lit') lits += p.s.length;
    else if (p.k === 'grp') refs++;
  }
  return len * (1 + refs + lits) + lits;
}

/**
 * A string built from many small pieces (s///g's result): `+=` would make one heap object
 * per piece (a chain of millions for a long line, many times the string's own size); the
 * pieces are joined a few thousand at a time instead.
 */
export class Pieces {
  private done: string[] = [];
  private cur: string[] = [];
  length = 0;
  add(s: string): void {
    if (s.length === 0) return;
    this.cur.push(s);
    this.length += s.length;
    if (this.cur.length >= 4096) {
      this.done.push(this.cur.join(''));
      this.cur = [];
    }
  }
  join(): string {
    if (this.done.length === 0) return this.cur.join('');
    this.done.push(this.cur.join(''));
    this.cur = [];
    return this.done.join('');
  }
}

/** An error reading a file (GNU ignores those of r and R), not the budget or the output cap. */
export function isReadError(e: unknown): boolean {
  return e instanceof VfsError || (e instanceof Error && !(e instanceof NoshError) && typeof (e as NodeJS.ErrnoException).code === 'string' && /^E[A-Z]+$/.test((e as NodeJS.ErrnoException).code!));
}

/** The longest pattern space s///g replaces with String.prototype.replace (see subst). */
export const FAST_REPLACE_MAX = 1 << 20;

/** Pieces (newlines and lines) N leaves unjoined at most, see SedRunner.ps. */
export const TAIL_PIECES = 256;

export const emptyCache = new WeakMap<RegExp, boolean>();
/** The regex can never match the empty string (so JS's global replace equals GNU's loop). */
export function neverEmpty(re: RegExp): boolean {
  let v = emptyCache.get(re);
  if (v === undefined) {
    const src = re.source;
    v = !/\(\?<?[=!]|\\[bB]|\^|\$/.test(src) && new RegExp(src, re.flags.replace('g', '')).exec('') === null;
    emptyCache.set(re, v);
  }
  return v;
}

export const replacerCache = new WeakMap<Subst, string | ((...a: unknown[]) => string)>();
/** A String.prototype.replace replacement: a plain string when it has no groups. */
export function replacer(sub: Subst): string | ((...a: unknown[]) => string) {
  let r = replacerCache.get(sub);
  if (r === undefined) {
    if (sub.repl.every((p) => p.k === 'lit')) r = sub.repl.map((p) => (p as { s: string }).s).join('').replace(/\$/g, '$$$$');
    else {
      const parts = sub.repl;
      r = (...a: unknown[]) => {
        let s = '';
        for (const p of parts) {
          if (p.k === 'lit') s += p.s;
          else if (p.k === 'grp') s += (a[p.n] as string | undefined) ?? '';
        }
        return s;
      };
    }
    replacerCache.set(sub, r);
  }
  return r;
}

export function expand(sub: Subst, m: RegExpExecArray): string {
  let s = '';
  for (const p of sub.repl) {
    if (p.k === 'lit') s += p.s;
    else if (p.k === 'grp') s += m[p.n] ?? '';
  }
  return s;
}

export function asciiUpper(s: string): string {
  return /[^\x00-\x7f]/.test(s) ? s.replace(/[a-z]+/g, (x) => x.toUpperCase()) : s.toUpperCase();
}
export function asciiLower(s: string): string {
  return /[^\x00-\x7f]/.test(s) ? s.replace(/[A-Z]+/g, (x) => x.toLowerCase()) : s.toLowerCase();
}

export function expandCase(sub: Subst, m: RegExpExecArray): string {
  let s = '';
  let mode: 'U' | 'L' | '' = '';
  let one: 'u' | 'l' | '' = '';
  for (const p of sub.repl) {
    if (p.k === 'case') {
      if (p.c === 'U' || p.c === 'L') {
        mode = p.c;
        one = '';
      }
      else if (p.c === 'E') {
        mode = '';
        one = '';
      } else one = p.c;
      continue;
    }
    let piece = p.k === 'lit' ? p.s : (m[p.n] ?? '');
    if (piece === '') continue;
    if (mode === 'U') piece = asciiUpper(piece);
    else if (mode === 'L') piece = asciiLower(piece);
    if (one) {
      const first = one === 'u' ? asciiUpper(piece[0]!) : asciiLower(piece[0]!);
      piece = first + piece.slice(1);
      one = '';
    }
    s += piece;
  }
  return s;
}

export const LIST_ESC: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 92: '\\\\' };

/** The `l` form of byte c (its escape, or the character). */
export function listChar(c: number): string {
  const e = LIST_ESC[c];
  if (e !== undefined) return e;
  if (c >= 32 && c < 127) return String.fromCharCode(c);
  return '\\' + c.toString(8).padStart(3, '0');
}

/**
 * The `l` command's unambiguous form, wrapped at lineLen (0: never), with its `$` and line
 * end. Bytes, counted first: up to four times the pattern space, as one string built a
 * character at a time it would take a heap object per character.
 */
export function listLine(ps: string, lineLen: number, delim = '\n'): Buffer {
  const pass = (put: ((o: string) => void) | null): number => {
    let n = 0;
    let w = 0;
    for (let i = 0; i < ps.length; i++) {
      const o = listChar(ps.charCodeAt(i));
      if (lineLen > 0 && w + o.length > lineLen - 1) {
        put?.('\\' + delim);
        n += 1 + delim.length;
        w = 0;
      }
      put?.(o);
      n += o.length;
      w += o.length;
    }
    put?.('$' + delim);
    return n + 1 + delim.length;
  };
  const out = Buffer.allocUnsafe(pass(null));
  noteBytes(out.length);
  let at = 0;
  pass((o) => {
    at += out.write(o, at, 'latin1');
  });
  return out;
}

/**
 * Can the regex match no delimiter and no line boundary? Then s///g over a block of whole lines
 * equals s///g over each of them. Checked on the compiled JavaScript source, token by token:
 * literal characters, escaped punctuation, \xHH, groups `(` `(?:` `)`, `|`, quantifiers and
 * positive classes of plain characters; under newline-delimited input also `[^\n]` (what `.`
 * compiles to). Anchors, `.`, other escapes (\b, \w, \n, back-references), look-arounds and
 * negated classes are refused, and a regex that can match empty (see neverEmpty).
 */
export function lineLocal(re: RegExp, delim: string): boolean {
  if (!re.global || !/^[gi]*$/.test(re.flags)) return false;
  const s = re.source;
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === '\\') {
      const n = s[i + 1];
      if (n === undefined) return false;
      if (n === 'x' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 2, i + 4))) {
        const v = parseInt(s.slice(i + 2, i + 4), 16);
        if (v === delim.charCodeAt(0) || v === 10) return false;
        i += 4;
        continue;
      }
      if (/[A-Za-z0-9]/.test(n)) return false;
      i += 2;
      continue;
    }
    if (c === '[') {
      if (delim === '\n' && s.startsWith('[^\\n]', i)) {
        i += 5;
        continue;
      }
      const end = s.indexOf(']', i + 1);
      if (end < 0 || !/^[A-Za-z0-9 _,;:=@#%&'"<>!~`/-]+$/.test(s.slice(i + 1, end))) return false;
      i = end + 1;
      continue;
    }
    if (c === '(' && s[i + 1] === '?') {
      if (s[i + 2] !== ':') return false;
      i += 3;
      continue;
    }
    if (c === '^' || c === '$' || c === '.' || c === '\n' || c === '\0' || c === delim) return false;
    i++;
  }
  return neverEmpty(re);
}

/**
 * A bulk s///g (see lineLocal) whose regex spells a literal (plain characters, escaped
 * punctuation, \xHH; no i flag) and whose replacement is literal or `&`: both as bytes.
 */
export function literalSubst(sub: Subst): [Buffer, Buffer] | null {
  const re = sub.rx.re;
  if (!re || re.flags !== 'g') return null;
  let lit = '';
  const s = re.source;
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === '\\') {
      const n = s[i + 1];
      if (n === 'x' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 2, i + 4))) {
        lit += String.fromCharCode(parseInt(s.slice(i + 2, i + 4), 16));
        i += 4;
        continue;
      }
      if (n === undefined || /[A-Za-z0-9]/.test(n)) return null;
      lit += n;
      i += 2;
      continue;
    }
    if ('^$.|?*+()[]{}'.includes(c)) return null;
    lit += c;
    i++;
  }
  if (lit === '') return null;
  let rep = '';
  for (const p of sub.repl) {
    if (p.k === 'lit') rep += p.s;
    else if (p.k === 'grp' && p.n === 0) rep += lit;
    else return null;
  }
  return [Buffer.from(lit, 'latin1'), Buffer.from(rep, 'latin1')];
}

/**
 * Every `p` in `block` replaced by `r`, left to right without overlaps. `owned`: the block may
 * be changed and kept; otherwise the result is a new Buffer.
 */
export function replaceLiteral(block: Buffer, p: Buffer, r: Buffer, owned: boolean): Buffer {
  let i = block.indexOf(p);
  if (i < 0) return owned ? block : copyOf(block);
  if (p.length === 1 && r.length === 1) {
    const a = p[0]!;
    const b = r[0]!;
    const out = owned ? block : copyOf(block);
    for (let n = out.length; i < n; i++) if (out[i] === a) out[i] = b;
    return out;
  }
  const parts: Buffer[] = [];
  let start = 0;
  while (i >= 0) {
    parts.push(block.subarray(start, i), r);
    start = i + p.length;
    i = block.indexOf(p, start);
  }
  parts.push(block.subarray(start));
  return Buffer.concat(parts);
}

/** A copy (Buffer.from of a Buffer copies byte by byte in JavaScript). */
function copyOf(b: Buffer): Buffer {
  const c = Buffer.allocUnsafe(b.length);
  b.copy(c);
  return c;
}
