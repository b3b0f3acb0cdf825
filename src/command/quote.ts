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
