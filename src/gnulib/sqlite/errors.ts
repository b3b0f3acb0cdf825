/**
 * What sql.js does not expose, rebuilt from the error text: the primary result code the
 * sqlite3 shell prints "(N)" with and exits with, and the offset of the error in the statement
 * (sqlite3_error_offset) that the shell's "^--- error here" context points at.
 */
const CODES: [RegExp, number][] = [
  [/constraint failed|^FOREIGN KEY constraint|^NOT NULL constraint|^CHECK constraint/, 19],
  [/^attempt to write a readonly database/, 8],
  [/^datatype mismatch/, 20],
  [/^string or blob too big/, 18],
  [/^file is not a database/, 26],
  [/^database disk image is malformed/, 11],
  [/^column index out of range|^bind or column index out of range/, 25],
  [/^interrupted/, 9],
  [/^database or disk is full/, 13],
  [/^database is locked/, 5],
  [/^database table is locked/, 6],
  [/^out of memory/, 7],
  [/^unable to open database/, 14],
  [/^query aborted|^abort due to ROLLBACK/, 4],
];

/** The primary result code of an error message (1, SQLITE_ERROR, when not known). */
export function resultCode(message: string): number {
  for (const [re, code] of CODES) if (re.test(message)) return code;
  return 1;
}

function tokenOffset(sql: string, token: string, ci: boolean): number {
  if (token === '') return -1;
  const hay = ci ? sql.toLowerCase() : sql;
  const needle = ci ? token.toLowerCase() : token;
  const word = /^\w/.test(needle);
  let from = 0;
  for (;;) {
    const at = hay.indexOf(needle, from);
    if (at < 0) return -1;
    const before = at === 0 ? '' : hay[at - 1]!;
    const after = hay[at + needle.length] ?? '';
    if (!word || (!/\w/.test(before) && !/\w/.test(after))) return at;
    from = at + 1;
  }
}

/** Byte offset (in the statement) the error points at, or -1 (no context shown). */
export function errorOffset(sql: string, message: string): number {
  let m = /^near "(.*)": syntax error$/s.exec(message);
  if (m) return Buffer.byteLength(sql.slice(0, Math.max(0, tokenOffset(sql, m[1]!, false))));
  m = /^(?:no such column|no such function|ambiguous column name|misuse of aggregate(?: function)?|wrong number of arguments to function): (.+?)(?:\(\))?$/.exec(message);
  if (m) {
    const name = m[1]!;
    let at = tokenOffset(sql, name, true);
    if (at < 0 && name.includes('.')) at = tokenOffset(sql, name.slice(name.lastIndexOf('.') + 1), true);
    return at < 0 ? -1 : Buffer.byteLength(sql.slice(0, at));
  }
  return -1;
}

/** The shell's shell_error_context(): the statement around the error and a caret. */
export function errorContext(sql: string, message: string): string {
  let off = errorOffset(sql, message);
  if (off < 0) return '';
  let z = Buffer.from(sql);
  while (off > 50) {
    off--;
    z = z.subarray(1);
    while (z.length && (z[0]! & 0xc0) === 0x80) { z = z.subarray(1); off--; }
  }
  let len = z.length;
  if (len > 78) {
    len = 78;
    while ((z[len]! & 0xc0) === 0x80) len--;
  }
  const code = Buffer.from(z.subarray(0, len));
  for (let i = 0; i < code.length; i++) if (code[i] === 0x20 || (code[i]! >= 0x09 && code[i]! <= 0x0d)) code[i] = 0x20;
  const text = code.toString('utf8');
  return off < 25 ? `\n  ${text}\n  ${' '.repeat(off)}^--- error here` : `\n  ${text}\n  ${' '.repeat(off - 14)}error here ---^`;
}
