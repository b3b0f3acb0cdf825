// Over 700 lines: one reading of sed/compile.c, whose commands share the script scanner's state.
/**
 * GNU sed 4.9 script compiler (a reading of sed/compile.c): script chunks (-e / -f / the
 * script operand) become a flat command vector with jump indices, regexes compiled once.
 * Errors carry GNU's text and position ("-e expression #1, char 3: ...").
 */
import { compileRegex, RegexSyntaxError } from '../../src/regex/index.js';

export class SedError extends Error {
  constructor(message: string, readonly status = 1) {
    super(message);
    this.name = 'SedError';
  }
}

/** A regex of the script; `re` null means the empty regex (reuse the last one used). */
export interface Rx {
  re: RegExp | null;
}

export type AddrKind = 'line' | 'last' | 're' | 'step' | 'plus' | 'tilde';

export interface Addr {
  kind: AddrKind;
  n: number;
  step: number;
  rx?: Rx;
}

export type ReplPart =
  | { k: 'lit'; s: string }
  | { k: 'grp'; n: number }
  | { k: 'case'; c: 'U' | 'L' | 'E' | 'u' | 'l' };

export interface Subst {
  rx: Rx;
  repl: ReplPart[];
  global: boolean;
  nth: number;
  print: boolean;
  out?: OutRef;
  /** The replacement has case conversions (slower path). */
  hasCase: boolean;
  /** Highest \N in the replacement, checked at run time when the regex is empty (`s//`). */
  maxRef: number;
}

/** A `w` destination: /dev/stdout, /dev/stderr or a file in the zone. */
export interface OutRef {
  name: string;
}

export interface Cmd {
  a1?: Addr;
  a2?: Addr;
  bang: boolean;
  cmd: string;
  /** Range state: 0 inactive, 1 active, 2 closed. */
  range: number;
  rangeEnd: number;
  text?: string;
  label?: string;
  jump?: number;
  int?: number;
  fname?: string;
  out?: OutRef;
  subst?: Subst;
  ymap?: string[];
}

export interface ScriptChunk {
  text: string;
  /** 'e': -e or the script operand; 'f': -f FILE (name shown in errors). */
  kind: 'e' | 'f';
  name?: string;
}

export interface CompileOptions {
  extended: boolean;
  sandbox?: boolean;
  /** Called with each new w file as it is parsed: GNU opens (truncates) it then, before a later error. */
  onWfile?: (name: string) => void;
  /** -z: an M regex is matched on each NUL-ended piece of the pattern space (see segmented). */
  nullData?: boolean;
}

/**
 * Regexes with the M flag under -z. GNU then runs the regex on each NUL-delimited piece
 * separately: ^ $ \` \' anchor at the pieces' ends (not at newlines) and . [^x] skip newline.
 */
export const segmented = new WeakSet<RegExp>();

export interface Program {
  cmds: Cmd[];
  /** `#n` on the first line. */
  quiet: boolean;
  /** w files named by the script (opened before any input is read). */
  wfiles: string[];
  /** Number of -e expressions (for runtime "char 0" errors). */
  exprCount: number;
}

const EOF = -1;

const isBlank = (c: number) => c === 32 || c === 9;
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);
const isDigit = (c: number) => c >= 48 && c <= 57;

/** GNU's escapes in text: \a \f \n \r \t \v \dNNN \oNNN \xHH \cX. Returns [char, length] or null. */
function sedEscape(s: string, i: number): [string, number] | null {
  const c = s[i + 1];
  const simple: Record<string, string> = { a: '\x07', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
  if (c === undefined) return null;
  if (c in simple) return [simple[c]!, 2];
  const num = (re: RegExp, base: number): [string, number] | null => {
    const m = re.exec(s.slice(i + 2, i + 5));
    if (!m) return null;
    return [String.fromCharCode(parseInt(m[0], base) & 0xff), 2 + m[0].length];
  };
  if (c === 'd') return num(/^[0-9]{1,3}/, 10);
  if (c === 'o') return num(/^[0-7]{1,3}/, 8);
  if (c === 'x') return num(/^[0-9a-fA-F]{1,2}/, 16);
  if (c === 'c' && i + 2 < s.length) {
    return [String.fromCharCode((s.charCodeAt(i + 2) & ~0x20 & 0xff) ^ 0x40), 3];
  }
  return null;
}

/** a/i/c text: escapes converted, other backslashes removed. */
function processText(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const e = sedEscape(raw, i);
    if (e) {
      out += e[0];
      i += e[1] - 1;
    } else if (i + 1 < raw.length) {
      out += raw[++i];
    }
  }
  return out;
}

interface Label {
  name: string;
  index: number;
}

export function compileProgram(chunks: ScriptChunk[], opts: CompileOptions): Program {
  const cmds: Cmd[] = [];
  const blocks: { index: number; chunk: number; pos: number; line: number }[] = [];
  const labels: Label[] = [];
  const jumps: Label[] = [];
  const wfiles: string[] = [];
  let quiet = false;
  let exprCount = 0;
  let pendingText: Cmd | null = null;
  /** Text of pendingText read so far, when a chunk ended inside it (after a backslash). */
  let pendingRaw = '';

  // reader state
  let src = '';
  let cur = 0;
  let line = 1;
  let chunk: ScriptChunk = { text: '', kind: 'e' };

  const fail = (msg: string, posOverride?: { pos: number; line: number; chunk: ScriptChunk; expr: number }): never => {
    const c = posOverride?.chunk ?? chunk;
    if (c.kind === 'f') throw new SedError(`file ${c.name} line ${posOverride?.line ?? line}: ${msg}`);
    throw new SedError(`-e expression #${posOverride?.expr ?? exprCount}, char ${posOverride?.pos ?? cur}: ${msg}`);
  };
  const inchar = (): number => {
    if (cur >= src.length) return EOF;
    const c = src.charCodeAt(cur++);
    if (c === 10) line++;
    return c;
  };
  const savchar = (c: number): void => {
    if (c === EOF) return;
    cur--;
    if (c === 10) line--;
  };
  const inNonblank = (): number => {
    let c;
    do c = inchar();
    while (isBlank(c));
    return c;
  };
  const inInteger = (first: number): number => {
    let n = first - 48;
    for (;;) {
      const c = inchar();
      if (!isDigit(c)) {
        savchar(c);
        return n;
      }
      n = n * 10 + (c - 48);
    }
  };
  const readEndOfCmd = (): void => {
    const c = inNonblank();
    if (c === 125 /* } */ || c === 35 /* # */) savchar(c);
    else if (c !== EOF && c !== 10 && c !== 59) fail('extra characters after command');
  };
  const readLabel = (): string => {
    let c = inNonblank();
    let s = '';
    while (c !== EOF && c !== 10 && !isSpace(c) && c !== 59 && c !== 125) {
      s += String.fromCharCode(c);
      c = inchar();
    }
    savchar(c);
    return s;
  };
  const readFilename = (): string => {
    let c = inNonblank();
    let s = '';
    while (c !== EOF && c !== 10) {
      s += String.fromCharCode(c);
      c = inchar();
    }
    return s;
  };
  /**
   * match_slash: text up to the unescaped delimiter, or null when unterminated. In a regex, a
   * bracket expression is taken whole as GNU sed 4.9 takes it: the delimiter and backslashes
   * in it are literal (`s/[/]/X/`, `s/[\-\/]/X/`), `[:` `[.` `[=` run to their closing pair, and
   * only `\n` is turned into a newline. `\n` is a literal n when n is the delimiter.
   */
  const matchSlash = (slash: number, regex: boolean): string | null => {
    let b = '';
    let c: number;
    while ((c = inchar()) !== EOF && c !== 10) {
      if (c === slash) return b;
      if (c === 91 /* [ */ && regex) {
        const br = bracket();
        if (br === null) return null;
        b += br;
        continue;
      }
      if (c === 92) {
        c = inchar();
        if (c === EOF) break;
        // the delimiter stands for itself (n too), except & in a replacement, which stays quoted
        if (c === slash && !(c === 38 && !regex)) { /* literal */ }
        else if (c === 110 && regex) c = 10;
        else if (c !== 10) b += '\\';
      }
      b += String.fromCharCode(c);
    }
    if (c === 10) savchar(c);
    return null;
  };
  /** The rest of a bracket expression after its `[`, as written (null when the line ends first). */
  const bracket = (): string | null => {
    let b = '[';
    let c = inchar();
    if (c === 94 /* ^ */) {
      b += '^';
      c = inchar();
    }
    if (c === 93 /* ] */) {
      b += ']';
      c = inchar();
    }
    for (;;) {
      if (c === EOF || c === 10) {
        if (c === 10) savchar(c);
        return null;
      }
      if (c === 93) return b + ']';
      if (c === 91) {
        const k = inchar();
        b += '[';
        if (k === 58 || k === 46 || k === 61 /* : . = */) {
          // a class, collating symbol or equivalence class runs to its closing `k]`
          b += String.fromCharCode(k);
          let prev = -1;
          for (;;) {
            const d = inchar();
            if (d === EOF || d === 10) {
              if (d === 10) savchar(d);
              return null;
            }
            b += String.fromCharCode(d);
            if (d === 93 && prev === k) break;
            prev = d;
          }
          c = inchar();
          continue;
        }
        c = k;
        continue;
      }
      if (c === 92) {
        const k = inchar();
        if (k === 110 /* n */) {
          b += '\n';
          c = inchar();
          continue;
        }
        b += '\\';
        c = k;
        continue;
      }
      b += String.fromCharCode(c);
      c = inchar();
    }
  };
  const compileRx = (pattern: string, icase: boolean, multi: boolean): Rx => {
    if (pattern === '') {
      if (icase || multi) fail('cannot specify modifiers on empty regexp');
      return { re: null };
    }
    try {
      const seg = multi && !!opts.nullData;
      const re = compileRegex(pattern, {
        dialect: opts.extended ? 'extended' : 'basic',
        flavor: 'sed',
        sedEscapes: true,
        ignoreCase: icase,
        newline: multi ? 'line' : 'any',
        multiline: multi && !seg,
      }, 'g');
      if (seg) segmented.add(re);
      return { re };
    } catch (e) {
      if (e instanceof RegexSyntaxError) return fail(e.message);
      throw e;
    }
  };
  const openW = (name: string): OutRef => {
    if (name === '') fail('missing filename in r/R/w/W commands');
    if (!wfiles.includes(name)) {
      wfiles.push(name);
      opts.onWfile?.(name);
    }
    return { name };
  };
  const compileAddress = (c: number): Addr | null => {
    if (c === 47 /* / */ || c === 92 /* \ */) {
      if (c === 92) c = inchar();
      const b = matchSlash(c, true);
      if (b === null) fail('unterminated address regex');
      let icase = false;
      let multi = false;
      for (;;) {
        const f = inNonblank();
        if (f === 73) icase = true;
        else if (f === 77) multi = true;
        else {
          savchar(f);
          return { kind: 're', n: 0, step: 0, rx: compileRx(b!, icase, multi) };
        }
      }
    }
    if (isDigit(c)) {
      const n = inInteger(c);
      const t = inNonblank();
      if (t !== 126 /* ~ */) {
        savchar(t);
        return { kind: 'line', n, step: 0 };
      }
      const d = inNonblank();
      const step = isDigit(d) ? inInteger(d) : (savchar(d), 0);
      if (step > 0) return { kind: 'step', n, step };
      return { kind: 'line', n, step: 0 };
    }
    if (c === 43 /* + */ || c === 126 /* ~ */) {
      const d = inNonblank();
      const n = isDigit(d) ? inInteger(d) : (savchar(d), 0);
      return { kind: c === 43 ? 'plus' : 'tilde', n, step: 0 };
    }
    if (c === 36 /* $ */) return { kind: 'last', n: 0, step: 0 };
    return null;
  };
  const readText = (cmd: Cmd, leadin: number): void => {
    // GNU joins -e chunks with newlines: text whose line ends in a backslash at a chunk's end
    // goes on in the next chunk (pendingRaw), as it goes on in the next line.
    let raw = pendingRaw;
    pendingRaw = '';
    if (leadin === EOF) {
      pendingText = cmd;
      cmd.text = '';
      return;
    }
    if (leadin !== 10) raw += String.fromCharCode(leadin);
    let c = inchar();
    while (c !== EOF && c !== 10) {
      if (c === 92) {
        c = inchar();
        if (c === EOF) {
          pendingText = cmd;
          pendingRaw = raw + '\n';
          cmd.text = processText(pendingRaw);
          return;
        }
        if (c === 10) {
          raw += '\n';
          c = inchar();
          continue;
        }
        raw += '\\';
      }
      raw += String.fromCharCode(c);
      c = inchar();
    }
    cmd.text = processText(raw) + '\n';
    pendingText = null;
  };
  const setupReplacement = (s: string): { parts: ReplPart[]; maxRef: number; hasCase: boolean } => {
    const parts: ReplPart[] = [];
    let lit = '';
    let maxRef = 0;
    let hasCase = false;
    const flush = () => {
      if (lit) parts.push({ k: 'lit', s: lit });
      lit = '';
    };
    for (let i = 0; i < s.length; i++) {
      const ch = s[i]!;
      if (ch === '&') {
        flush();
        parts.push({ k: 'grp', n: 0 });
        continue;
      }
      if (ch !== '\\' || i + 1 >= s.length) {
        lit += ch;
        continue;
      }
      const n = s[i + 1]!;
      if (n >= '0' && n <= '9') {
        flush();
        const g = n.charCodeAt(0) - 48;
        if (g > maxRef) maxRef = g;
        parts.push({ k: 'grp', n: g });
        i++;
        continue;
      }
      if (n === 'L' || n === 'U' || n === 'E' || n === 'l' || n === 'u') {
        flush();
        hasCase = true;
        parts.push({ k: 'case', c: n });
        i++;
        continue;
      }
      if (n === '\n' || n === '&' || n === '\\') {
        lit += n;
        i++;
        continue;
      }
      const e = sedEscape(s, i);
      if (e) {
        lit += e[0];
        i += e[1] - 1;
        continue;
      }
      lit += n;
      i++;
    }
    flush();
    return { parts, maxRef, hasCase };
  };

  for (let ci = 0; ci < chunks.length; ci++) {
    chunk = chunks[ci]!;
    src = chunk.text;
    cur = 0;
    line = 1;
    if (chunk.kind === 'e') exprCount++;
    if (pendingText) readText(pendingText, 10);
    for (;;) {
      let ch = inchar();
      if (ch === EOF) break;
      if (ch === 59 || isSpace(ch)) continue;
      if (ch === 35 /* # */) {
        if (ci === 0 && cur === 1) {
          const n = inchar();
          if (n === 110 /* n */) {
            const after = inchar();
            if (after === EOF || after === 10) {
              quiet = true;
              continue;
            }
          }
        }
        while (ch !== EOF && ch !== 10) ch = inchar();
        continue;
      }
      const cmd: Cmd = { bang: false, cmd: '', range: 0, rangeEnd: 0 };
      const a1 = compileAddress(ch);
      if (a1) {
        if (a1.kind === 'plus' || a1.kind === 'tilde') fail('invalid usage of +N or ~N as first address');
        cmd.a1 = a1;
        ch = inNonblank();
        if (ch === 44 /* , */) {
          const a2 = compileAddress(inNonblank());
          if (!a2) fail('unexpected `,\'');
          cmd.a2 = a2!;
          ch = inNonblank();
        }
        // 0,/re/ and (GNU 4.9) 0r FILE, which reads FILE before the first line
        if (a1.kind === 'line' && a1.n === 0 && (cmd.a2 ? cmd.a2.kind !== 're' : ch !== 114 /* r */)) fail('invalid usage of line address 0');
        if (a1.kind === 'line' && a1.n === 0 && cmd.a2) cmd.range = 1;
      }
      if (ch === 33 /* ! */) {
        cmd.bang = true;
        ch = inNonblank();
        while (isSpace(ch)) ch = inchar();
        if (ch === 33) fail('multiple `!\'s');
      }
      cmd.cmd = ch === EOF ? '' : String.fromCharCode(ch);
      switch (cmd.cmd) {
        case '#':
          if (cmd.a1) fail("comments don't accept any addresses");
          while (ch !== EOF && ch !== 10) ch = inchar();
          continue;
        case 'v': {
          const v = readLabel();
          if (v !== '' && compareVersion(v, '4.9') > 0) fail('expected newer version of sed');
          readEndOfCmd();
          continue;
        }
        case '{':
          blocks.push({ index: cmds.length, chunk: ci, pos: cur, line });
          break;
        case '}':
          if (blocks.length === 0) fail('unexpected `}\'');
          if (cmd.a1) fail("`}' doesn't want any addresses");
          readEndOfCmd();
          cmds[blocks.pop()!.index]!.jump = cmds.length + 1;
          break;
        case 'e':
          fail('e command is not supported in nosh (no shell)');
          break;
        case 'a':
        case 'i':
        case 'c': {
          ch = inNonblank();
          if (ch === EOF) fail("expected \\ after `a', `c' or `i'");
          if (ch === 92) ch = inchar();
          else {
            savchar(ch);
            ch = 10;
            // one-liner: leading blanks were skipped above
          }
          readText(cmd, ch);
          break;
        }
        case ':': {
          if (cmd.a1) fail(": doesn't want any addresses");
          const l = readLabel();
          if (l === '') fail('":" lacks a label');
          readEndOfCmd();
          labels.push({ name: l, index: cmds.length });
          cmd.label = l;
          break;
        }
        case 'T':
        case 'b':
        case 't':
          cmd.label = readLabel();
          readEndOfCmd();
          jumps.push({ name: cmd.label, index: cmds.length });
          break;
        case 'Q':
        case 'q':
        case 'L':
        case 'l': {
          if ((cmd.cmd === 'q' || cmd.cmd === 'Q') && cmd.a2) fail('command only uses one address');
          ch = inNonblank();
          if (isDigit(ch)) {
            cmd.int = inInteger(ch);
            ch = inNonblank();
          } else cmd.int = -1;
          if (ch === 125 || ch === 35) savchar(ch);
          else if (ch !== EOF && ch !== 10 && ch !== 59) fail('extra characters after command');
          break;
        }
        case '=': case 'd': case 'D': case 'F': case 'g': case 'G': case 'h': case 'H':
        case 'n': case 'N': case 'p': case 'P': case 'z': case 'x':
          readEndOfCmd();
          break;
        case 'r': {
          if (opts.sandbox) fail('e/r/w commands disabled in sandbox mode');
          const f = readFilename();
          if (f === '') fail('missing filename in r/R/w/W commands');
          cmd.fname = f;
          break;
        }
        case 'R': {
          if (opts.sandbox) fail('e/r/w commands disabled in sandbox mode');
          const f = readFilename();
          if (f === '') fail('missing filename in r/R/w/W commands');
          cmd.fname = f;
          break;
        }
        case 'W':
        case 'w':
          if (opts.sandbox) fail('e/r/w commands disabled in sandbox mode');
          cmd.out = openW(readFilename());
          break;
        case 's': {
          const slash = inchar();
          const b = matchSlash(slash, true);
          if (b === null) fail("unterminated `s' command");
          const b2 = matchSlash(slash, false);
          if (b2 === null) fail("unterminated `s' command");
          const r = setupReplacement(b2!);
          const sub: Subst = { rx: { re: null }, repl: r.parts, global: false, nth: 0, print: false, hasCase: r.hasCase, maxRef: r.maxRef };
          let icase = false;
          let multi = false;
          let done = false;
          while (!done) {
            const f = inchar();
            switch (f) {
              case 105: case 73: icase = true; break;
              case 109: case 77: multi = true; break;
              case 101: fail('e flag of the s command is not supported in nosh (no shell)'); break;
              case 112:
                if (sub.print) fail("multiple `p' options to `s' command");
                sub.print = true;
                break;
              case 103:
                if (sub.global) fail("multiple `g' options to `s' command");
                sub.global = true;
                break;
              case 119:
                if (opts.sandbox) fail('e/r/w commands disabled in sandbox mode');
                sub.out = openW(readFilename());
                done = true;
                break;
              case 125: case 35:
                savchar(f);
                done = true;
                break;
              case 10: case 59: case EOF:
                done = true;
                break;
              case 32: case 9:
                break;
              case 13:
                if (inchar() === 10) {
                  done = true;
                  break;
                }
                fail("unknown option to `s'");
                break;
              default:
                if (isDigit(f)) {
                  if (sub.nth) fail("multiple number options to `s' command");
                  sub.nth = inInteger(f);
                  if (!sub.nth) fail("number option to `s' command may not be zero");
                  break;
                }
                fail("unknown option to `s'");
            }
          }
          sub.rx = compileRx(b!, icase, multi);
          if (sub.rx.re) {
            const groups = countGroups(sub.rx.re);
            if (r.maxRef > groups) fail(`invalid reference \\${r.maxRef} on \`s' command's RHS`);
          }
          cmd.subst = sub;
          break;
        }
        case 'y': {
          const slash = inchar();
          const b = matchSlash(slash, false);
          if (b === null) fail("unterminated `y' command");
          const b2 = matchSlash(slash, false);
          if (b2 === null) fail("unterminated `y' command");
          const from = yText(b!);
          const to = yText(b2!);
          if (from.length !== to.length) fail("strings for `y' command are different lengths");
          const map: string[] = [];
          for (let i = 0; i < 256; i++) map.push(String.fromCharCode(i));
          for (let i = 0; i < from.length; i++) map[from.charCodeAt(i) & 0xff] = to[i]!;
          cmd.ymap = map;
          readEndOfCmd();
          break;
        }
        case '':
          fail('missing command');
          break;
        default:
          fail(`unknown command: \`${cmd.cmd}'`);
      }
      cmds.push(cmd);
    }
  }
  if (blocks.length > 0) {
    const b = blocks[blocks.length - 1]!;
    let expr = 0;
    for (let i = 0; i <= b.chunk; i++) if (chunks[i]!.kind === 'e') expr++;
    fail('unmatched `{\'', { pos: 0, line: b.line, chunk: chunks[b.chunk]!, expr });
  }
  // GNU keeps its jumps newest first, so the last unresolved one is reported
  for (const j of [...jumps].reverse()) {
    if (j.name !== '' && !labels.some((x) => x.name === j.name)) throw new SedError(`can't find label for jump to \`${j.name}'`, 4);
  }
  for (const j of jumps) {
    if (j.name === '') {
      cmds[j.index]!.jump = cmds.length;
      continue;
    }
    // A label defined twice: GNU jumps to the last definition (its label list is newest first).
    const l = labels.findLast((x) => x.name === j.name);
    if (!l) throw new SedError(`can't find label for jump to \`${j.name}'`, 4);
    cmds[j.index]!.jump = l.index;
  }
  return { cmds, quiet, wfiles, exprCount };
}

/** y strings: `\\` is a backslash, `\n` a newline, GNU escapes, other `\X` is X. */
function yText(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch !== '\\' || i + 1 >= s.length) {
      out += ch;
      continue;
    }
    const e = sedEscape(s, i);
    if (e) {
      out += e[0];
      i += e[1] - 1;
      continue;
    }
    out += s[++i];
  }
  return out;
}

export function countGroups(re: RegExp): number {
  return new RegExp(re.source + '|').exec('')!.length - 1;
}

/** glibc's strverscmp, which GNU's `v` uses: digit runs compare as numbers, a run with a leading zero is smaller. */
function compareVersion(a: string, b: string): number {
  const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (i === a.length && i === b.length) return 0;
  let j = i;
  while (j > 0 && isDigit(a[j - 1])) j--;
  const code = (s: string): number => (i < s.length ? s.charCodeAt(i) : 0);
  if (!(isDigit(a[i]) && isDigit(b[i])) && !(j < i && (isDigit(a[i]) || isDigit(b[i])))) return code(a) - code(b);
  const run = (s: string): string => /^[0-9]*/.exec(s.slice(j))![0];
  const ra = run(a);
  const rb = run(b);
  const za = ra.startsWith('0');
  const zb = rb.startsWith('0');
  if (za !== zb) return za ? -1 : 1;
  if (za) return code(a) - code(b);
  if (ra.length !== rb.length) return ra.length - rb.length;
  return code(a) - code(b);
}
