/**
 * Bash brace expansion, ported from bash's braces.c (brace_expand, expand_amble,
 * expand_seqterm, mkseq, brace_gobbler) so that the corner cases come out as in bash.
 * It works on the raw word text, quotes included (quoted braces and commas are inert);
 * quote removal happens afterwards. All work is bounded: word count, output size,
 * scanning steps and nesting depth; beyond a bound it throws INVALID_ARGUMENT.
 */
import { NoshError } from '../errors.js';

const MAX_CHARS = 8 * 1024 * 1024;
const MAX_STEPS = 10_000_000;
const MAX_DEPTH = 200;
const INT_MAX = 2n ** 31n - 1n;
const INTMAX_MAX = 2n ** 63n - 1n;
const INTMAX_MIN = -(2n ** 63n);

interface Ctx { maxWords: number; limit: number; budget: BraceBudget }

/** Scanning steps left for a whole command line: a bound per word let 10 000 words of a few
 *  thousand unmatched braces each take 10 M steps apiece (minutes of main-thread time). */
export interface BraceBudget { steps: number }

export function braceBudget(): BraceBudget {
  return { steps: 0 };
}

function tooBig(what: string, hint: string): never {
  throw new NoshError('INVALID_ARGUMENT', `brace expansion ${what}`, hint);
}

const isBlank = (c: string | undefined): boolean => c === undefined || c === ' ' || c === '\t' || c === '\n';

/**
 * From text[i], finds the char `satisfy` outside quotes and inner braces; for '}' only
 * once a top-level ',' or '..' was seen (what makes a brace expression valid).
 * Returns the index found, or -1.
 */
function gobble(text: string, i: number, satisfy: string, ctx: Ctx): number {
  let level = 0;
  let quoted = '';
  let pass = false;
  let commas = satisfy === '}' ? 0 : 1;
  for (; i < text.length; i++) {
    if (++ctx.budget.steps > MAX_STEPS) tooBig('is too complex', 'use fewer braces in one word');
    const c = text[i];
    if (pass) { pass = false; continue; }
    if (c === '\\' && quoted !== "'") { pass = true; continue; }
    if (quoted) { if (c === quoted) quoted = ''; continue; }
    if (c === '"' || c === "'") { quoted = c; continue; }
    if (c === satisfy && level === 0 && commas > 0) {
      // bash ignores an open brace at the word start followed by a close brace: `{}`
      if (c === '{' && (i === 0 || isBlank(text[i - 1])) && (isBlank(text[i + 1]) || text[i + 1] === '}')) continue;
      return i;
    }
    if (c === '{') level++;
    else if (c === '}' && level > 0) level--;
    else if (satisfy === '}' && level === 0 && (c === ',' || (c === '.' && text[i + 1] === '.' && text[i + 2] !== '}'))) commas++;
  }
  return -1;
}

function charCount(a: string[]): number {
  let n = 0;
  for (const s of a) n += s.length;
  return n;
}

/** Cartesian concatenation, checked against the bounds before allocating. */
function product(a: string[], b: string[], ctx: Ctx): string[] {
  if (b.length === 1 && b[0] === '') return a;
  if (a.length === 1 && a[0] === '') return b;
  checkSize(a.length * b.length, charCount(a) * b.length + charCount(b) * a.length, ctx);
  const out: string[] = [];
  for (const x of a) for (const y of b) out.push(x + y);
  return out;
}

function checkSize(words: number, chars: number, ctx: Ctx): void {
  if (words > ctx.maxWords) tooBig(`would make the command line longer than ${ctx.limit} words`, 'use a smaller range or fewer alternatives, or split the work into several calls');
  if (chars > MAX_CHARS) tooBig(`would produce more than ${MAX_CHARS} characters`, 'use a smaller range or fewer alternatives');
}

/** brace_expand(): iterative over the postamble (bash recurses), recursive over nesting. */
function expand(text: string, ctx: Ctx, depth: number): string[] {
  if (depth > MAX_DEPTH) tooBig('is nested too deeply', `nest braces at most ${MAX_DEPTH} levels deep`);
  let result: string[] = [''];
  let rest = text;
  for (;;) {
    // the first '{' that has a matching '}' making a valid brace expression
    let open = 0;
    let close = -1;
    for (;;) {
      open = gobble(rest, open, '{', ctx);
      if (open < 0) break;
      close = gobble(rest, open + 1, '}', ctx);
      if (close >= 0) break;
      open++;
    }
    if (open < 0) return product(result, [rest], ctx);
    const preamble = rest.slice(0, open);
    const amble = rest.slice(open + 1, close);
    let tack: string[] | null;
    if (!hasSeparator(amble)) {
      tack = expandSeq(amble, ctx);
      if (!tack) {
        if (close + 1 >= rest.length) return product(result, [rest], ctx);
        tack = [rest.slice(open, close + 1)];
      }
    } else {
      tack = expandAmble(amble, ctx, depth);
    }
    result = product(product(result, [preamble], ctx), tack, ctx);
    rest = rest.slice(close + 1);
    if (rest === '') return result;
  }
}

/** bash's check for a comma in the amble skips backslash pairs only (not quotes). */
function hasSeparator(amble: string): boolean {
  for (let j = 0; j < amble.length; j++) {
    if (amble[j] === '\\') j++;
    else if (amble[j] === ',') return true;
  }
  return false;
}

function expandAmble(amble: string, ctx: Ctx, depth: number): string[] {
  const result: string[] = [];
  let chars = 0;
  let start = 0;
  for (;;) {
    const comma = gobble(amble, start, ',', ctx);
    const end = comma < 0 ? amble.length : comma;
    const partial = expand(amble.slice(start, end), ctx, depth + 1);
    chars += charCount(partial);
    checkSize(result.length + partial.length, chars, ctx);
    for (const p of partial) result.push(p);
    if (comma < 0) return result;
    start = comma + 1;
  }
}

const NUM = /^[ \t\n\v\f\r]*[+-]?[0-9]+/;

function toIntmax(s: string): bigint | null {
  const v = BigInt(s.trim());
  return v > INTMAX_MAX || v < INTMAX_MIN ? null : v;
}

/** expand_seqterm(): `{x..y}` or `{x..y..incr}`, or null when not a valid sequence. */
function expandSeq(text: string, ctx: Ctx): string[] | null {
  const t = text.indexOf('..');
  if (t < 0) return null;
  const lhs = text.slice(0, t);
  const rhs = text.slice(t + 2);
  if (lhs === '' || rhs === '') return null;
  let lhsType: 'int' | 'char' | 'bad' = 'bad';
  let lhsV = 0n;
  if (/^[ \t\n\v\f\r]*[+-]?[0-9]+[ \t\n\v\f\r]*$/.test(lhs)) {
    const v = toIntmax(lhs);
    if (v !== null) { lhsType = 'int'; lhsV = v; }
  } else if (/^[A-Za-z]$/.test(lhs)) lhsType = 'char';

  let rhsType: 'int' | 'char' | 'bad' = 'bad';
  let rhsV = 0n;
  let ep = 0;
  const m = /^[+-]?[0-9]/.test(rhs) ? NUM.exec(rhs) : null;
  if (m) {
    const v = toIntmax(m[0]);
    ep = m[0].length;
    if (v !== null && (ep === rhs.length || rhs[ep] === '.')) { rhsType = 'int'; rhsV = v; }
  } else if (/^[A-Za-z]/.test(rhs) && (rhs.length === 1 || rhs[1] === '.')) {
    rhsType = 'char';
    ep = 1;
  }
  const rhsLen = ep;
  let incr = 1n;
  if (rhsType !== 'bad') {
    if (rhs[ep] === '.' && rhs[ep + 1] === '.' && ep + 2 < rhs.length) {
      const mi = NUM.exec(rhs.slice(ep + 2));
      const v = mi ? toIntmax(mi[0]) : null;
      if (mi && v !== null) { incr = v; ep += 2 + mi[0].length; } else ep += 2;
    }
    if (ep !== rhs.length) rhsType = 'bad';
  }
  if (lhsType === 'bad' || lhsType !== rhsType) return null;

  if (lhsType === 'char') return mkseq(BigInt(lhs.charCodeAt(0)), BigInt(rhs.charCodeAt(0)), incr, 'char', 1, ctx);
  let width = 0;
  const lhsLen = lhs.length;
  if ((lhsLen > 1 && lhs[0] === '0') || (lhsLen > 2 && lhs[0] === '-' && lhs[1] === '0')) width = lhsLen;
  if (((rhsLen > 1 && rhs[0] === '0') || (rhsLen > 2 && rhs[0] === '-' && rhs[1] === '0')) && width < rhsLen) width = rhsLen;
  if (width > 0) width = Math.max(width, lhsLen, rhsLen);
  return mkseq(lhsV, rhsV, incr, width > 0 ? 'zint' : 'int', width, ctx);
}

function mkseq(start: bigint, end: bigint, incr: bigint, type: 'int' | 'zint' | 'char', width: number, ctx: Ctx): string[] | null {
  if (incr === 0n) incr = 1n;
  if (start > end && incr > 0n) incr = -incr;
  else if (start < end && incr < 0n) {
    if (incr === INTMAX_MIN) return null;
    incr = -incr;
  }
  const diff = end - start;
  if (diff < INTMAX_MIN + 3n || diff > INTMAX_MAX - 2n) return null;
  const step = incr < 0n ? -incr : incr;
  const span = (diff < 0n ? -diff : diff) / step;
  if (span > INT_MAX - 3n) return null; // bash leaves such a sequence unexpanded
  const count = Number(span) + 1;
  checkSize(count, count * (width + 20), ctx);
  const out: string[] = [];
  let n = start;
  for (;;) {
    if (type === 'char') out.push(String.fromCharCode(Number(n)));
    else if (type === 'int') out.push(n.toString());
    else out.push(zeroPad(BigInt.asIntN(32, n), width));
    n += incr;
    if (n > INTMAX_MAX || n < INTMAX_MIN) break;
    if ((incr < 0n && n < end) || (incr > 0n && n > end)) break;
  }
  return out;
}

/** printf("%0*d", width, n) */
function zeroPad(n: bigint, width: number): string {
  const neg = n < 0n;
  const digits = (neg ? -n : n).toString();
  return (neg ? '-' : '') + digits.padStart(width - (neg ? 1 : 0), '0');
}

/**
 * Brace-expands one raw (still quoted) word. maxWords bounds the number of results;
 * lineLimit is the limit of the whole line, for the message; budget is shared by the
 * words of one line. A word without braces,
 * or without any ',' or '..', is returned as is without scanning.
 */
export function braceExpand(raw: string, maxWords: number, lineLimit = maxWords, budget = braceBudget()): string[] {
  if (!raw.includes('{') || !raw.includes('}') || (!raw.includes(',') && !raw.includes('..'))) return [raw];
  return expand(raw, { maxWords, limit: lineLimit, budget }, 0);
}
