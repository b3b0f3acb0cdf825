/**
 * File names in diagnostics, quoted as GNU coreutils 9.1 does under LC_ALL=C (gnulib
 * quotearg's "shell-escape" styles), worked out from the real tools' output:
 *
 * - quoteName (quotef, with `colon`) leaves a name bare when every byte is harmless
 *   in a shell word: letters, digits, `% + , - . / @ ] _`, `:` (unless `colon`), and
 *   `# ~` or a lone `{` / `}` when not at the start. Anything else quotes it.
 * - quoteAlways (quoteaf) and a quoted quoteName: the name in '...'; control bytes and
 *   bytes >= 0x80 (the name's UTF-8 bytes: C locale, so none is printable) go in
 *   $'...' pieces, a run of them sharing one piece (`'a'$'\f\n''b'`), a piece that
 *   ends inside the name followed by `''` to reopen the plain quote (so a leading one
 *   gives `''$'\n''x'`); a `'` becomes `'\''`.
 * - A name with a `'` and only "simple" bytes (no control/high byte, none of
 *   `! " $ & ( ) * ; < = > ? [ \ ^ \` |`, `# ~` only first, `{ }` only alone) is put
 *   in double quotes instead: "a'b".
 * - Otherwise, with a `'`, GNU writes the name twice internally and the second pass
 *   starts in the state the first one ended in: if the name ends inside a $'...'
 *   piece, the first plain byte (not a `'`) gets a spurious leading `''`:
 *   a'<LF> gives '''a'\'''$'\n'.
 */

const SAFE_BYTE = new Uint8Array(256);
for (const c of '%+,-./0123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ]_abcdefghijklmnopqrstuvwxyz@') SAFE_BYTE[c.charCodeAt(0)] = 1;

const NAMED_ESCAPES: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' };

function isEscaped(b: number): boolean {
  return b < 0x20 || b >= 0x7f;
}

/** Whether the byte at i is harmless unquoted. */
function bare(bytes: Uint8Array, i: number, colon: boolean): boolean {
  const b = bytes[i]!;
  if (b === 0x3a) return !colon;
  if (SAFE_BYTE[b]) return true;
  if (b === 0x7b || b === 0x7d) return bytes.length !== 1; // '{' '}' alone
  if (b === 0x23 || b === 0x7e) return i !== 0; // '#' '~' at the start
  return false;
}

/** Whether the byte at i lets a name with a `'` be written "in double quotes". */
function doubleQuotable(bytes: Uint8Array, i: number): boolean {
  const b = bytes[i]!;
  if (b === 0x27 || b === 0x20 || SAFE_BYTE[b]) return true;
  if (b === 0x7b || b === 0x7d) return bytes.length === 1;
  if (b === 0x23 || b === 0x7e) return i === 0;
  return false;
}

/** One pass of the always-quoted form, without the closing quote; `pending`: inside $'...'. */
function quotedPass(bytes: Uint8Array, pending: boolean): { out: string; pending: boolean } {
  let out = "'";
  for (const b of bytes) {
    if (b === 0x27) {
      out += "'\\''";
      pending = false;
    } else if (isEscaped(b)) {
      if (!pending) out += "'$'";
      pending = true;
      out += '\\' + (NAMED_ESCAPES[b] ?? b.toString(8).padStart(3, '0'));
    } else {
      if (pending) out += "''";
      pending = false;
      out += String.fromCharCode(b);
    }
  }
  return { out, pending };
}

function quoteBytes(bytes: Uint8Array): string {
  if (!bytes.includes(0x27)) return quotedPass(bytes, false).out + "'";
  let simple = true;
  for (let i = 0; i < bytes.length && simple; i++) simple = doubleQuotable(bytes, i);
  if (simple) return `"${String.fromCharCode(...bytes)}"`;
  const first = quotedPass(bytes, false);
  return quotedPass(bytes, first.pending).out + "'";
}

function utf8(name: string): Uint8Array {
  return Buffer.from(name, 'utf8');
}

/**
 * GNU's quotef()/quotearg shell-escape style: the name bare when safe, else quoted.
 * `colon` (quotef, used for "NAME: error" diagnostics) also quotes names with ':'.
 */
export function quoteName(name: string, colon = false): string {
  const bytes = utf8(name);
  let plain = bytes.length > 0;
  for (let i = 0; i < bytes.length && plain; i++) plain = bare(bytes, i, colon);
  return plain ? name : quoteBytes(bytes);
}

/** quotef(): quoteName with ':' forcing quotes, for "NAME: error" diagnostics. */
export function quoteNameColon(name: string): string {
  return quoteName(name, true);
}

/** quoteaf(): the shell-escape-always style, a plain name quoted too ('f'). */
export function quoteAlways(name: string): string {
  return quoteBytes(utf8(name));
}

/** gnulib quoting styles, as `ls --quoting-style` names them (c-maybe: what ls uses internally for none of them). */
export type QuotingStyle =
  | 'literal' | 'shell' | 'shell-always' | 'shell-escape' | 'shell-escape-always' | 'c' | 'c-maybe' | 'escape' | 'locale' | 'clocale';

export const QUOTING_STYLES: QuotingStyle[] = ['literal', 'shell', 'shell-always', 'shell-escape', 'shell-escape-always', 'c', 'escape', 'locale', 'clocale'];

const SAFE_ANY = new Uint8Array(256);
for (const c of '%+,-./0123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ]_abcdefghijklmnopqrstuvwxyz') SAFE_ANY[c.charCodeAt(0)] = 1;
const SHELL_SPECIAL = new Uint8Array(256);
for (const c of '!"$&()*;<=>[^`|') SHELL_SPECIAL[c.charCodeAt(0)] = 1;
const ESC_LETTER: Record<number, number> = { 7: 0x61, 8: 0x62, 12: 0x66, 11: 0x76, 10: 0x6e, 13: 0x72, 9: 0x74 };

const FORCE = Symbol('force outer quotes');

/**
 * gnulib's quotearg_buffer_restyled in a unibyte locale (LC_ALL=C: a byte is printable when
 * 0x20-0x7e), as coreutils 9.1 has it: `quoteThese` are bytes quoted too (ls: ' ' for
 * escape, '=>@|' with -F, ':' in directory headers). Returns the output bytes.
 */
export function quoteBytesStyled(arg: Uint8Array, style: QuotingStyle, quoteThese: string | null = null, elideFlag = false): number[] {
  const r = restyled(arg, style, elideFlag, quoteThese);
  if (r !== FORCE) return r;
  throw new Error('unreachable');
}

function restyled(arg: Uint8Array, styleIn: QuotingStyle, elideFlag: boolean, quoteThese: string | null): number[] | typeof FORCE {
  let style: QuotingStyle = styleIn;
  let elide = elideFlag;
  let backslash = false;
  let quoteString: number[] = [];
  let encounteredSingleQuote = false;
  let allCompat = true;
  let scanning = false;
  let scanned = false;
  // coreutils 9.1 (gnulib of 2022): the $'...' state survives the second pass below.
  let pending = false;
  const qt = (c: number) => quoteThese !== null && quoteThese.includes(String.fromCharCode(c));
  const force = (): number[] | typeof FORCE => {
    const s: QuotingStyle = style === 'shell-always' && backslash ? 'shell-escape-always' : style;
    return restyled(arg, s, false, null);
  };
  for (;;) {
    const out: number[] = [];
    if (style === 'c-maybe') {
      style = 'c';
      elide = true;
    }
    if (style === 'c') {
      if (!elide) out.push(0x22);
      backslash = true;
      quoteString = [0x22];
    } else if (style === 'escape') {
      backslash = true;
      elide = false;
    } else if (style === 'locale' || style === 'clocale') {
      // C locale: no translation, an ASCII charset: 'like this' ("like this" for clocale).
      const q = style === 'clocale' ? 0x22 : 0x27;
      if (!elide) out.push(q);
      backslash = true;
      quoteString = [q];
    } else if (style === 'literal') {
      elide = false;
    } else {
      if (style === 'shell-escape') backslash = true;
      if (style === 'shell-escape' || style === 'shell') elide = true;
      if (style !== 'shell-always' && !elide) backslash = true;
      style = 'shell-always';
      if (!elide) out.push(0x27);
      quoteString = [0x27];
    }
    const shellAlways = style === 'shell-always';
    for (let i = 0; i < arg.length; i++) {
      let c = arg[i]!;
      let isRightQuote = false;
      let escaping = false;
      let compat = false;
      let esc = 0;
      let action: 'check' | 'escape' | 'store' = 'check';
      if (backslash && !shellAlways && quoteString.length > 0 && i + quoteString.length <= arg.length && quoteString.every((q, k) => arg[i + k] === q)) {
        if (elide) return force();
        isRightQuote = true;
      }
      if (c === 0x3f) {
        if (shellAlways && elide) return force();
      } else if (ESC_LETTER[c] !== undefined || c === 0x5c) {
        esc = c === 0x5c ? c : ESC_LETTER[c]!;
        const cAndShell = c === 10 || c === 13 || c === 9 || c === 0x5c;
        let toEscape = true;
        if (c === 0x5c) {
          if (shellAlways) {
            if (elide) return force();
            action = 'store';
            toEscape = false;
          } else if (backslash && elide && quoteString.length > 0) {
            action = 'store';
            toEscape = false;
          }
        }
        if (toEscape) {
          if (cAndShell && shellAlways && elide) return force();
          if (backslash) {
            c = esc;
            action = 'escape';
          }
        }
      } else if (c === 0x7b || c === 0x7d || c === 0x23 || c === 0x7e || c === 0x20 || SHELL_SPECIAL[c]) {
        let special = true;
        if ((c === 0x7b || c === 0x7d) && arg.length !== 1) special = false;
        else if ((c === 0x7b || c === 0x7d || c === 0x23 || c === 0x7e) && i !== 0) special = false;
        if (special) {
          if (c === 0x7b || c === 0x7d || c === 0x23 || c === 0x7e || c === 0x20) compat = true;
          if (shellAlways && elide) return force();
        }
      } else if (c === 0x27) {
        encounteredSingleQuote = true;
        compat = true;
        if (shellAlways) {
          if (elide) return force();
          if (!scanned) {
            scanning = true;
            scanned = true;
          }
          out.push(0x27, 0x5c, 0x27);
          pending = false;
        }
      } else if (SAFE_ANY[c]) {
        compat = true;
      } else {
        const printable = c >= 0x20 && c < 0x7f;
        compat = printable;
        if (backslash && !printable) {
          // START_ESC, then three octal digits.
          if (elide) return force();
          escaping = true;
          if (shellAlways && !pending) {
            out.push(0x27, 0x24, 0x27);
            pending = true;
          }
          out.push(0x5c, 0x30 + (c >> 6), 0x30 + ((c >> 3) & 7));
          c = 0x30 + (c & 7);
          action = 'store';
        }
      }
      if (action === 'check') {
        const quoted = ((backslash && !shellAlways) || elide) && qt(c);
        action = quoted || isRightQuote ? 'escape' : 'store';
      }
      if (action === 'escape') {
        if (elide) return force();
        escaping = true;
        if (shellAlways && !pending) {
          out.push(0x27, 0x24, 0x27);
          pending = true;
        }
        out.push(0x5c);
      }
      // store_c
      if (pending && !escaping) {
        out.push(0x27, 0x27);
        pending = false;
      }
      out.push(c);
      if (!compat) allCompat = false;
    }
    if (out.length === 0 && shellAlways && elide) return force();
    if (shellAlways && !elide && encounteredSingleQuote) {
      if (allCompat) return restyled(arg, 'c', elideFlag, quoteThese);
      if (scanning) {
        scanning = false;
        continue;
      }
    }
    if (quoteString.length > 0 && !elide) out.push(...quoteString);
    return out;
  }
}

/** A name (a JS string, its UTF-8 bytes) quoted in a gnulib style; bytes >= 0x80 kept raw come back as they were. */
export function quoteStyled(name: string, style: QuotingStyle, quoteThese: string | null = null): string {
  const out = quoteBytesStyled(Buffer.from(name, 'utf8'), style, quoteThese);
  return Buffer.from(out).toString('utf8');
}
