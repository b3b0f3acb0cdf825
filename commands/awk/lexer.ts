/** awk's tokens: newlines are significant, `/` is a regex where an operand is expected (the parser asks). */

export class AwkSyntaxError extends Error {
  constructor(message: string, readonly line: number, readonly src: string, readonly col: number, readonly plain = false) {
    super(message);
  }
}

export type TokKind =
  | 'num' | 'str' | 'ere' | 'name' | 'funcname' | 'builtin' | 'kw' | 'op' | 'nl' | 'eof';

export interface Tok {
  kind: TokKind;
  /** Operator or keyword text, name, string value (escapes done), regex source. */
  text: string;
  num?: number;
  line: number;
  col: number;
  /** Whitespace came before it (a function call needs `name(` with none). */
  spaceBefore: boolean;
}

export const KEYWORDS = new Set([
  'BEGIN', 'END', 'BEGINFILE', 'ENDFILE', 'function', 'func', 'if', 'else', 'while', 'for', 'do', 'break', 'continue',
  'next', 'nextfile', 'exit', 'return', 'delete', 'in', 'getline', 'print', 'printf', 'switch', 'case', 'default',
]);

export const BUILTINS = new Set([
  'length', 'substr', 'index', 'split', 'sub', 'gsub', 'gensub', 'match', 'sprintf', 'tolower', 'toupper',
  'sin', 'cos', 'atan2', 'exp', 'log', 'sqrt', 'int', 'rand', 'srand', 'close', 'fflush', 'system',
  'asort', 'asorti', 'patsplit', 'strftime', 'systime', 'mktime', 'isarray', 'typeof', 'and', 'or', 'xor',
  'compl', 'lshift', 'rshift', 'strtonum', 'gsub',
]);

const OPS3 = ['**=', '...'];
const OPS2 = ['+=', '-=', '*=', '/=', '%=', '^=', '==', '<=', '>=', '!=', '++', '--', '&&', '||', '>>', '**', '|&'];
const OPS1 = '{}()[];,+-*/%^!<>|?:~$=';

export interface Warn {
  (msg: string, line: number): void;
}

export class Lexer {
  pos = 0;
  line = 1;
  private lineStart = 0;
  last: Tok | null = null;
  constructor(readonly src: string, private readonly warn: Warn) {}

  private error(msg: string): never {
    throw new AwkSyntaxError(msg, this.line, this.lineText(this.line), this.pos - this.lineStart);
  }

  /** The text of the current source line (for gawk's caret messages). */
  lineText(line: number): string {
    return this.src.split('\n')[line - 1] ?? '';
  }

  private skipSpace(): boolean {
    const s = this.src;
    let any = false;
    for (;;) {
      const c = s[this.pos];
      if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') { this.pos++; any = true; }
      else if (c === '\\' && s[this.pos + 1] === '\n') { this.pos += 2; this.line++; this.lineStart = this.pos; any = true; }
      else if (c === '\\' && s[this.pos + 1] === '\r' && s[this.pos + 2] === '\n') { this.pos += 3; this.line++; this.lineStart = this.pos; any = true; }
      else if (c === '#') { while (this.pos < s.length && s[this.pos] !== '\n') this.pos++; any = true; }
      else return any;
    }
  }

  private tok(kind: TokKind, text: string, start: number, space: boolean, num?: number): Tok {
    const t: Tok = { kind, text, line: this.line, col: start - this.lineStart, spaceBefore: space };
    if (num !== undefined) t.num = num;
    this.last = t;
    return t;
  }

  next(): Tok {
    const space = this.skipSpace();
    const s = this.src;
    const start = this.pos;
    if (this.pos >= s.length) return this.tok('eof', '', start, space);
    const c = s[this.pos]!;
    if (c === '\n') {
      const t = this.tok('nl', '\n', start, space);
      this.pos++;
      this.line++;
      this.lineStart = this.pos;
      return t;
    }
    if (c === '"') return this.string(start, space);
    if ((c >= '0' && c <= '9') || (c === '.' && s[this.pos + 1]! >= '0' && s[this.pos + 1]! <= '9')) return this.number(start, space);
    if (/[A-Za-z_]/.test(c)) {
      let e = this.pos + 1;
      while (e < s.length && /[A-Za-z_0-9]/.test(s[e]!)) e++;
      const w = s.slice(this.pos, e);
      this.pos = e;
      if (w === 'func') return this.tok('kw', 'function', start, space);
      if (KEYWORDS.has(w)) return this.tok('kw', w, start, space);
      if (BUILTINS.has(w)) return this.tok('builtin', w, start, space);
      if (s[e] === '(') return this.tok('funcname', w, start, space);
      return this.tok('name', w, start, space);
    }
    if (c === '@') {
      let e = this.pos + 1;
      while (e < s.length && /[A-Za-z_0-9]/.test(s[e]!)) e++;
      const w = s.slice(this.pos + 1, e);
      this.pos = e;
      if (w === 'load') this.error('@load is not supported in nosh: no extension can be loaded; use the built-in functions');
      if (w === 'include' || w === 'namespace') return this.tok('kw', '@' + w, start, space);
      this.error(`syntax error`);
    }
    for (const o of OPS3) if (s.startsWith(o, this.pos)) { this.pos += 3; return this.tok('op', o, start, space); }
    for (const o of OPS2) if (s.startsWith(o, this.pos)) { this.pos += 2; return this.tok('op', o, start, space); }
    if (OPS1.includes(c)) { this.pos++; return this.tok('op', c, start, space); }
    this.pos++;
    this.error('syntax error');
  }

  private number(start: number, space: boolean): Tok {
    const s = this.src;
    const hex = /^0[xX][0-9a-fA-F]+/.exec(s.slice(this.pos, this.pos + 40));
    if (hex) {
      this.pos += hex[0].length;
      return this.tok('num', hex[0], start, space, parseInt(hex[0].slice(2), 16));
    }
    const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(s.slice(this.pos, this.pos + 400))!;
    this.pos += m[0].length;
    let v = Number(m[0]);
    // gawk reads a leading 0 as octal in program text (when every digit is octal)
    if (/^0[0-7]+$/.test(m[0])) v = parseInt(m[0], 8);
    return this.tok('num', m[0], start, space, v);
  }

  private string(start: number, space: boolean): Tok {
    const s = this.src;
    let i = this.pos + 1;
    let out = '';
    for (;;) {
      if (i >= s.length || s[i] === '\n') { this.pos = start; this.error('unterminated string'); }
      const c = s[i]!;
      if (c === '"') { i++; break; }
      if (c === '\\') {
        const r = unescape(s, i, this.warn, this.line, false);
        out += r.text;
        i = r.end;
        if (r.newline) { this.line++; this.lineStart = i; }
        continue;
      }
      out += c;
      i++;
    }
    this.pos = i;
    return this.tok('str', out, start, space);
  }

  /** Re-read from a `/` (or `/=`) token as a regex literal; returns its source (escapes kept). */
  regex(from: Tok): Tok {
    const s = this.src;
    let i = this.pos - from.text.length + 1;
    let out = '';
    let inBracket = false;
    for (;;) {
      if (i >= s.length || s[i] === '\n') { this.pos = i; this.error('unterminated regexp'); }
      const c = s[i]!;
      if (c === '\\' && i + 1 < s.length) {
        if (s[i + 1] === '/') out += '/';
        else if (s[i + 1] === '\n') { this.line++; this.lineStart = i + 2; }
        else out += c + s[i + 1];
        i += 2;
        continue;
      }
      if (c === '[' && !inBracket) {
        inBracket = true;
        out += c;
        i++;
        if (s[i] === '^') { out += '^'; i++; }
        if (s[i] === ']') { out += ']'; i++; }
        continue;
      }
      if (c === ']' && inBracket) inBracket = false;
      else if (c === '[' && inBracket && (s[i + 1] === ':' || s[i + 1] === '.' || s[i + 1] === '=')) {
        const close = s.indexOf(s[i + 1]! + ']', i + 2);
        if (close > 0) { out += s.slice(i, close + 2); i = close + 2; continue; }
      }
      if (c === '/' && !inBracket) { i++; break; }
      out += c;
      i++;
    }
    this.pos = i;
    return this.tok('ere', out, this.pos, from.spaceBefore);
  }
}

/** One backslash escape of a string at s[i] === '\\': what it stands for. */
export function unescape(s: string, i: number, warn: Warn | null, line: number, inRegex: boolean): { text: string; end: number; newline?: boolean } {
  const d = s[i + 1];
  if (d === undefined) return { text: '\\', end: i + 1 };
  switch (d) {
    case 'n': return { text: '\n', end: i + 2 };
    case 't': return { text: '\t', end: i + 2 };
    case 'r': return { text: '\r', end: i + 2 };
    case 'f': return { text: '\f', end: i + 2 };
    case 'v': return { text: '\v', end: i + 2 };
    case 'a': return { text: '\x07', end: i + 2 };
    case 'b': return { text: '\b', end: i + 2 };
    case '\\': return { text: inRegex ? '\\\\' : '\\', end: i + 2 };
    case '"': return { text: '"', end: i + 2 };
    case '/': return { text: '/', end: i + 2 };
    case '\n': return { text: '', end: i + 2, newline: true };
    case 'x': {
      const m = /^[0-9a-fA-F]{1,2}/.exec(s.slice(i + 2, i + 4));
      if (!m) {
        warn?.('no hex digits in `\\x\' escape sequence', line);
        return { text: 'x', end: i + 2 };
      }
      return { text: String.fromCharCode(parseInt(m[0], 16)), end: i + 2 + m[0].length };
    }
    default:
      if (d >= '0' && d <= '7') {
        const m = /^[0-7]{1,3}/.exec(s.slice(i + 1, i + 4))!;
        return { text: String.fromCharCode(parseInt(m[0], 8) & 0xff), end: i + 1 + m[0].length };
      }
      if (inRegex) return { text: '\\' + d, end: i + 2 };
      warn?.(`escape sequence \`\\${d}' treated as plain \`${d}'`, line);
      return { text: d, end: i + 2 };
  }
}
