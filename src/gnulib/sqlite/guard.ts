/**
 * What a statement may do, checked before it runs: nothing reaches outside the zone. sql.js
 * works on an in-memory file system, so SQLite could not open a host file anyway; these are
 * refused by name so the caller learns why (and what to do instead):
 * - load_extension(): no native code is ever loaded;
 * - ATTACH of a file: only as a string literal naming a file of the zone, which is read
 *   through the Vfs into sql.js under a private name (DbSession.attach) and written back
 *   through the Vfs if the call changed it;
 * - VACUUM INTO a file: written through the Vfs into the zone (a new file only).
 */
import { NoshError } from '../../errors.js';

/** Strip leading white space and comments. */
function skipLead(sql: string): string {
  let s = sql;
  for (;;) {
    const t = s.replace(/^\s+/, '');
    if (t.startsWith('--')) { const nl = t.indexOf('\n'); s = nl < 0 ? '' : t.slice(nl + 1); continue; }
    if (t.startsWith('/*')) { const e = t.indexOf('*/'); s = e < 0 ? '' : t.slice(e + 2); continue; }
    return t;
  }
}

/** A single-quoted SQL string at the start of `s`: its value and the rest. */
function stringLiteral(s: string): { value: string; rest: string } | null {
  if (!s.startsWith("'")) return null;
  let i = 1;
  let v = '';
  for (;;) {
    const q = s.indexOf("'", i);
    if (q < 0) return null;
    v += s.slice(i, q);
    if (s[q + 1] === "'") { v += "'"; i = q + 2; continue; }
    return { value: v, rest: s.slice(q + 1) };
  }
}

export type Planned =
  | { kind: 'run' }
  | { kind: 'attach'; file: string; schema: string }
  | { kind: 'vacuum-into'; file: string; schema: string };

const FORBIDDEN_HINT = 'nosh runs SQLite in WebAssembly with no access outside the zone: use plain SQL on files of the zone.';

/** Masks string literals, quoted names and comments, so keywords are only looked for in code. */
export function codeOnly(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\]|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)/g, (m) => ' '.repeat(m.length));
}

/** Refusals seen in the text itself, before SQLite parses it (load_extension is not even compiled in). */
export function refuseForbidden(sql: string): void {
  if (/\bload_extension\s*\(/i.test(codeOnly(sql))) {
    throw new NoshError('COMMAND_FORBIDDEN', 'sqlite3: load_extension() is not available: nosh loads no native code',
      FORBIDDEN_HINT, { function: 'load_extension' });
  }
}

/** Decide how a prepared statement's text is run; throws a refusal. */
export function planStatement(sql: string): Planned {
  refuseForbidden(sql);
  const lead = skipLead(sql);
  const head = /^(attach|vacuum)\b/i.exec(lead);
  if (!head) return { kind: 'run' };
  if (head[1]!.toLowerCase() === 'attach') {
    const afterKw = skipLead(lead.slice(6).replace(/^\s+database\b/i, ''));
    const lit = stringLiteral(afterKw);
    const as = lit && /^\s*as\s+("(?:[^"]|"")*"|\[[^\]]*\]|`[^`]*`|'(?:[^']|'')*'|[A-Za-z_][\w$]*)\s*;?\s*$/i.exec(lit.rest);
    if (!lit || !as) {
      throw new NoshError('COMMAND_FORBIDDEN', 'sqlite3: ATTACH is allowed only in the form ATTACH \'FILE\' AS name, FILE a database file of the zone',
        "Write the file name as a string literal: ATTACH 'other.db' AS other.", { statement: 'ATTACH' });
    }
    if (lit.value === '' || lit.value === ':memory:' || lit.value.startsWith('file:')) {
      if (lit.value.startsWith('file:')) {
        throw new NoshError('COMMAND_FORBIDDEN', 'sqlite3: ATTACH of a URI filename is not available',
          "Name a database file of the zone: ATTACH 'other.db' AS other.", { statement: 'ATTACH' });
      }
      return { kind: 'run' };
    }
    return { kind: 'attach', file: lit.value, schema: unquoteName(as[1]!) };
  }
  // VACUUM [schema] INTO expr
  const v = /^vacuum(?:\s+("(?:[^"]|"")*"|[A-Za-z_][\w$]*))?\s+into\s+([\s\S]*)$/i.exec(lead);
  if (!v) return { kind: 'run' };
  const lit = stringLiteral(v[2]!.trim());
  if (!lit || !/^\s*;?\s*$/.test(lit.rest)) {
    throw new NoshError('COMMAND_FORBIDDEN', 'sqlite3: VACUUM INTO is allowed only with a string literal naming a new file of the zone',
      "Write: VACUUM INTO 'copy.db'.", { statement: 'VACUUM INTO' });
  }
  return { kind: 'vacuum-into', file: lit.value, schema: v[1] ? unquoteName(v[1]) : 'main' };
}

export function unquoteName(n: string): string {
  const c = n[0];
  if (c === '"') return n.slice(1, -1).replace(/""/g, '"');
  if (c === "'") return n.slice(1, -1).replace(/''/g, "'");
  if (c === '[' || c === '`') return n.slice(1, -1);
  return n;
}
