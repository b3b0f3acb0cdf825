/**
 * Lexing of one command line, bash-compatible but with no shell behind it:
 * splitLine() cuts the line into raw words (quotes kept, as bash keeps them until after
 * brace expansion) and pipeline stages, rejecting every unquoted shell metacharacter;
 * unquoteWord() removes the quotes of one (brace-expanded) raw word.
 */
import { NoshError } from '../errors.js';
import { hasGlobMagic } from './glob.js';

export interface Word {
  /** The literal word after quote removal and brace expansion. */
  value: string;
  /** Present only when the word has an unquoted glob char: the word as a glob pattern,
   *  with quoted or escaped glob-special chars backslash-escaped. */
  glob?: string;
}

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

/** Removes backslash-newline pairs outside single quotes, as bash's line continuation. */
function removeContinuations(line: string): string {
  if (!line.includes('\\\n')) return line;
  let out = '';
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") { if (c === "'") quote = ''; out += c; continue; }
    if (c === '\\') {
      if (line[i + 1] === '\n') { i++; continue; }
      out += c + (line[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '"') quote = quote ? '' : '"';
    else if (c === "'" && !quote) quote = "'";
    out += c;
  }
  return out;
}

export interface SplitLine { line: string; stages: string[][] }

/** Splits a command line into pipeline stages of raw (still quoted) words. */
export function splitLine(input: string, pipes: boolean): SplitLine {
  const line = removeContinuations(input);
  const stages: string[][] = [[]];
  const n = line.length;
  let start = -1; // start of the current word, -1 when between words
  const endWord = (at: number): void => {
    if (start >= 0) stages[stages.length - 1].push(line.slice(start, at));
    start = -1;
  };
  let i = 0;
  while (i < n) {
    const c = line[i];
    if (c === ' ' || c === '\t') { endWord(i); i++; continue; }
    if (c === '#' && start < 0) break; // comment to end of line
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
    i++;
  }
  endWord(i);
  if (stages[stages.length - 1].length === 0) {
    if (stages.length > 1) invalid("empty pipeline stage: nothing after the last '|'", 'write a command on each side of |');
    invalid('empty command line', 'write a command, e.g. ls');
  }
  return { line, stages };
}

const GLOB_SPECIAL = '*?[]\\-!^';

/**
 * Quote removal of one raw word (after brace expansion). Returns null for an unquoted
 * word that became empty (bash drops it, e.g. the empty half of `{a,}`).
 */
export function unquoteWord(raw: string): Word | null {
  let value = '';
  let glob = '';
  let quoted = false;
  const lit = (ch: string): void => { value += ch; glob += GLOB_SPECIAL.includes(ch) ? '\\' + ch : ch; };
  // A `$` that brace expansion put next to a name (`{$,a}b`) would expand in bash. After
  // brace expansion bash reads $' and $" literally, as inside double quotes.
  const checkDollar = (i: number): void => {
    const k = dollarKind(raw, i, true);
    if (k) rejectAt(raw, i, `${k[0]} (formed by brace expansion)`, k[1]);
  };
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === "'") {
      quoted = true;
      let j = raw.indexOf("'", i + 1);
      if (j < 0) j = raw.length;
      for (let k = i + 1; k < j; k++) lit(raw[k]);
      i = j;
    } else if (c === '"') {
      quoted = true;
      let j = i + 1;
      for (; j < raw.length && raw[j] !== '"'; j++) {
        const d = raw[j];
        if (d === '\\' && '"\\$`'.includes(raw[j + 1] ?? '')) { lit(raw[j + 1]); j++; continue; }
        if (d === '$') checkDollar(j);
        if (d === '`') rejectAt(raw, j, "'`' (formed by brace expansion)", HINT_SUBST);
        lit(d);
      }
      i = j;
    } else if (c === '\\') {
      quoted = true;
      if (i + 1 < raw.length) lit(raw[++i]);
    } else {
      if (c === '$') checkDollar(i);
      if (c === '`') rejectAt(raw, i, "'`' (formed by brace expansion)", HINT_SUBST);
      value += c;
      glob += c;
    }
  }
  if (value === '' && !quoted) return null;
  return value.length > 0 && hasGlobMagic(glob) ? { value, glob } : { value };
}
