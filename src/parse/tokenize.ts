/**
 * Lexing of one command line, bash-compatible but with no shell behind it:
 * splitLine() cuts the line into raw words (quotes kept, as bash keeps them until after
 * brace expansion) and pipeline stages, rejecting every unquoted shell metacharacter;
 * unquoteWord() removes the quotes of one (brace-expanded) raw word.
 */
import { NoshError } from '../errors.js';
import { hasGlobMagic } from './glob.js';
import type { Word } from './word.js';

export type { Word } from './word.js';

const HINT_ONE = 'run one command per call';
const HINT_VAR = "there are no variables: write the value itself, or quote the $ as '\\$'";
const HINT_SUBST = 'command substitution is not supported: run the inner command first and pass its output';
const HINT_OUT = 'nosh has no redirection: use the stdout_file parameter to save output, or quote the character if it is an argument';
const HINT_IN = 'nosh has no redirection: pass the file name as an argument, or quote the character if it is an argument';
const HINT_PAREN = "subshells and grouping are not supported: quote the parenthesis if it is an argument, e.g. find . '(' -name a ')'";
const HINT_QUOTE = "use plain single quotes and write the characters themselves";

function snippet(line: string, at: number): string {
  const from = Math.max(0, at - 20);
  const s = line.slice(from, at + 20).replace(/[\r\n\t]/g, ' ');
  return (from > 0 ? '…' : '') + s + (at + 20 < line.length ? '…' : '');
}

export function rejectAt(line: string, at: number, what: string, hint: string): never {
  throw new NoshError('METACHAR_REJECTED',
    `${what} at position ${at + 1} is not allowed (nosh runs no shell): ${snippet(line, at)}`,
    hint, { metachar: what, position: at + 1 });
}

function invalid(message: string, hint: string, details: Record<string, unknown> = {}): never {
  throw new NoshError('INVALID_ARGUMENT', message, hint, details);
}

const NAME_START = /[A-Za-z_]/;
const SPECIAL_PARAM = '?$#@*!-0123456789';

/** What an unquoted (dq=false) or double-quoted `$` at s[i] expands in bash, or null if it is literal. */
function dollarKind(s: string, i: number, dq: boolean): [string, string] | null {
  const n = s[i + 1];
  if (n === undefined) return null;
  if (n === '(') return ["'$(' (command substitution)", HINT_SUBST];
  if (n === '{') return ["'${' (parameter expansion)", HINT_VAR];
  if (n === '[') return ["'$[' (arithmetic expansion)", 'there is no arithmetic expansion: write the value itself'];
  if (NAME_START.test(n)) {
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i + 1, i + 65));
    return [`'$${m ? m[0] : n}' (variable)`, HINT_VAR];
  }
  if (SPECIAL_PARAM.includes(n)) return [`'$${n}' (special parameter)`, HINT_VAR];
  if (!dq && n === "'") return ["\"$'\" (ANSI-C quoting)", HINT_QUOTE];
  if (!dq && n === '"') return ["'$\"' (locale quoting)", HINT_QUOTE];
  return null;
}

/**
 * Removes backslash-newline pairs outside single quotes, as bash's line continuation.
 * Copies runs between the pairs as slices: a char-by-char `out +=`, and reading the last
 * char of that growing string (which flattens it) at each '#', took seconds to minutes of
 * main-thread time on a 15 MB line.
 */
function removeContinuations(line: string): string {
  if (!line.includes('\\\n')) return line;
  const parts: string[] = [];
  let from = 0; // start of the run not yet copied
  let quote = '';
  let prev = ' '; // the last char kept, as the start of a line
  let prevEscaped = false; // prev was escaped by a backslash
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") { if (c === "'") quote = ''; prev = c; prevEscaped = false; continue; }
    if (c === '\\') {
      if (line[i + 1] === '\n') {
        parts.push(line.slice(from, i));
        from = i + 2;
        i++;
        continue;
      }
      if (i + 1 < line.length) { prev = line[i + 1]; prevEscaped = true; }
      i++;
      continue;
    }
    if (c === '#' && !quote && !prevEscaped && /[ \t\n;&|()<>]/.test(prev)) {
      // a comment runs to the newline and has no continuation
      const nl = line.indexOf('\n', i);
      const end = nl < 0 ? line.length : nl;
      prev = line[end - 1];
      prevEscaped = false;
      i = end - 1;
      continue;
    }
    if (c === '"') quote = quote ? '' : '"';
    else if (c === "'" && !quote) quote = "'";
    prev = c;
    prevEscaped = false;
  }
  parts.push(line.slice(from));
  return parts.join('');
}

const LINE_SPECIAL = /[ \t'"\\$|;&<>()`\n\r\0]/g;

export interface SplitLine { line: string; stages: string[][] }

/** Splits a command line into pipeline stages of raw (still quoted) words, at most maxWords of them. */
export function splitLine(input: string, pipes: boolean, maxWords = Infinity): SplitLine {
  const line = removeContinuations(input);
  const stages: string[][] = [[]];
  const n = line.length;
  let start = -1; // start of the current word, -1 when between words
  let words = 0;
  const endWord = (at: number): void => {
    if (start >= 0) {
      // each raw word brace-expands to one word at least: stop before holding millions
      if (++words > maxWords) invalid(`the command line has more than ${maxWords} words`, 'use a smaller brace expansion, or split the work into several calls');
      stages[stages.length - 1].push(line.slice(start, at));
    }
    start = -1;
  };
  let i = 0;
  while (i < n) {
    const c = line[i];
    if (c === ' ' || c === '\t') { endWord(i); i++; continue; }
    if (c === '#' && start < 0) { // a comment, up to a newline (which is then rejected)
      const nl = line.indexOf('\n', i);
      if (nl < 0) break;
      i = nl;
      continue;
    }
    switch (c) {
      case "'": {
        const j = line.indexOf("'", i + 1);
        if (j < 0) invalid(`unterminated single quote at position ${i + 1}`, "close the quote with '", { position: i + 1 });
        if (start < 0) start = i;
        i = j + 1;
        continue;
      }
      case '"': {
        if (start < 0) start = i;
        let j = i + 1;
        for (; j < n && line[j] !== '"'; j++) {
          const d = line[j];
          if (d === '\\') j++;
          else if (d === '`') rejectAt(line, j, "'`' (command substitution)", HINT_SUBST);
          else if (d === '$') {
            const k = dollarKind(line, j, true);
            if (k) rejectAt(line, j, k[0], k[1]);
          }
        }
        if (j >= n) invalid(`unterminated double quote at position ${i + 1}`, 'close the quote with "', { position: i + 1 });
        i = j + 1;
        continue;
      }
      case '\\':
        if (i + 1 >= n) invalid('trailing backslash at the end of the line', "remove it, or write '\\\\' for a literal backslash");
        if (start < 0) start = i;
        i += 2;
        continue;
      case '$': {
        const k = dollarKind(line, i, false);
        if (k) rejectAt(line, i, k[0], k[1]);
        break;
      }
      case '|': {
        const next = line[i + 1];
        if (next === '|') rejectAt(line, i, "'||'", HINT_ONE);
        if (next === '&') rejectAt(line, i, "'|&'", 'stderr cannot be piped: run one command per call');
        if (!pipes) rejectAt(line, i, "'|' (pipe)", 'pipes are disabled in this zone');
        endWord(i);
        if (stages[stages.length - 1].length === 0) {
          invalid(`empty pipeline stage: nothing before '|' at position ${i + 1}`, 'write a command on each side of |', { position: i + 1 });
        }
        stages.push([]);
        i++;
        continue;
      }
      case ';': rejectAt(line, i, line[i + 1] === ';' ? "';;'" : "';'", HINT_ONE);
      case '&':
        if (line[i + 1] === '&') rejectAt(line, i, "'&&'", HINT_ONE);
        if (line[i + 1] === '>') rejectAt(line, i, "'&>' (redirection)", HINT_OUT);
        rejectAt(line, i, "'&' (background)", `there are no background jobs: ${HINT_ONE}`);
      case '>': rejectAt(line, i, line[i + 1] === '>' ? "'>>' (redirection)" : "'>' (redirection)", HINT_OUT);
      case '<': rejectAt(line, i, line[i + 1] === '<' ? "'<<' (here-document)" : "'<' (redirection)", HINT_IN);
      case '(': case ')': rejectAt(line, i, `'${c}'`, HINT_PAREN);
      case '`': rejectAt(line, i, "'`' (command substitution)", HINT_SUBST);
      case '\n': rejectAt(line, i, 'a newline', `${HINT_ONE}; quote the newline if it is part of an argument`);
      case '\r': rejectAt(line, i, 'a carriage return', `${HINT_ONE}; quote the character if it is part of an argument`);
      default: break;
    }
    if (c === '\0') invalid(`NUL character at position ${i + 1}`, 'remove the NUL character', { position: i + 1 });
    if (start < 0) start = i;
    i = nextSpecial(LINE_SPECIAL, line, i + 1); // skip a run of ordinary characters
  }
  endWord(i);
  if (stages[stages.length - 1].length === 0) {
    if (stages.length > 1) invalid("empty pipeline stage: nothing after the last '|'", 'write a command on each side of |');
    invalid('empty command line', 'write a command, e.g. ls');
  }
  return { line, stages };
}

const GLOB_SPECIAL = /[*?[\]\\!^-]/g;
const GLOB_CHAR = /[*?[]/;
const ESCAPED = /\\([\s\S])/g;
const UNQUOTED_SPECIAL = /['"\\$`]/g;
const DQ_SPECIAL = /["\\$`]/g;

function nextSpecial(re: RegExp, s: string, from: number): number {
  re.lastIndex = from;
  const m = re.exec(s);
  return m ? m.index : s.length;
}

/**
 * Quote removal of one raw word (after brace expansion). Returns null for an unquoted
 * word that became empty (bash drops it, e.g. the empty half of `{a,}`).
 * The glob form escapes quoted `* ? [ ] \` and also `- ! ^` (special inside brackets).
 */
export function unquoteWord(raw: string): Word | null {
  // Pieces of the value, quoted or not; the glob form is built only when an unquoted piece
  // has a glob char (escaping every piece of a 15 MB line of escapes took seconds).
  const value: string[] = [];
  const quotedAt: boolean[] = [];
  let quoted = false;
  let magic = false;
  const lit = (s: string): void => { value.push(s); quotedAt.push(true); };
  const plain = (s: string): void => {
    value.push(s);
    quotedAt.push(false);
    if (!magic && GLOB_CHAR.test(s)) magic = true;
  };
  // A `$` that brace expansion put next to a name (`{$,a}b`) would expand in bash. After
  // brace expansion bash reads $' and $" literally, as inside double quotes.
  const check = (i: number): void => {
    if (raw[i] === '`') rejectAt(raw, i, "'`' (formed by brace expansion)", HINT_SUBST);
    const k = dollarKind(raw, i, true);
    if (k) rejectAt(raw, i, `${k[0]} (formed by brace expansion)`, k[1]);
  };
  let i = 0;
  while (i < raw.length) {
    const c = raw[i];
    if (c === "'") {
      quoted = true;
      const j = raw.indexOf("'", i + 1);
      const end = j < 0 ? raw.length : j;
      lit(raw.slice(i + 1, end));
      i = end + 1;
    } else if (c === '"') {
      quoted = true;
      let j = i + 1;
      while (j < raw.length && raw[j] !== '"') {
        const k = nextSpecial(DQ_SPECIAL, raw, j);
        lit(raw.slice(j, k));
        j = k;
        if (raw[j] === '\\') {
          const n = raw[j + 1];
          if (n !== undefined && '"\\$`'.includes(n)) { lit(n); j += 2; } else { lit('\\'); j++; }
        } else if (raw[j] === '$' || raw[j] === '`') {
          check(j);
          lit(raw[j]);
          j++;
        }
      }
      i = j + 1;
    } else if (c === '\\') {
      quoted = true;
      // a run of escapes is one piece, unescaped natively (one piece per char was slow)
      let j = i;
      while (raw[j] === '\\' && j + 1 < raw.length) j += 2;
      if (j > i) lit(raw.slice(i, j).replace(ESCAPED, '$1'));
      i = j > i ? j : i + 2;
    } else {
      if (c === '$' || c === '`') check(i);
      const k = nextSpecial(UNQUOTED_SPECIAL, raw, i + 1);
      plain(raw.slice(i, k));
      i = k;
    }
  }
  const v = value.join('');
  if (v === '' && !quoted) return null;
  if (!magic || v.length === 0) return { value: v };
  const g = value.map((p, j) => (quotedAt[j] ? p.replace(GLOB_SPECIAL, '\\$&') : p)).join('');
  return hasGlobMagic(g) ? { value: v, glob: g } : { value: v };
}
