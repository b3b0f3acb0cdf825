/**
 * .dump of the sqlite3 shell (3.40): PRAGMA foreign_keys=OFF, a transaction, every table's
 * CREATE and its rows as INSERTs (insert mode: strings with newlines through replace()),
 * sqlite_sequence reset, then indexes, triggers and views.
 */
import type { Shell } from './shell.js';
import { quoteIdent, RowRenderer } from './render.js';
import type { Value } from '../../src/gnulib/sqlite/values.js';

export async function dump(sh: Shell, args: string[]): Promise<void> {
  const patterns = args.filter((a) => !a.startsWith('-'));
  const dataOnly = args.includes('--data-only');
  const noSys = args.includes('--nosys');
  for (const a of args) {
    if (a.startsWith('-') && !['--data-only', '--nosys', '--newlines', '--preserve-rowids'].includes(a)) throw new Error(`Unknown option "${a}" on ".dump"`);
  }
  const s = await sh.db();
  const like = patterns.length === 0 ? 'true'
    : patterns.map((p) => `tbl_name LIKE '${p.replace(/'/g, "''")}' ESCAPE '\\'`).join(' OR ');
  // Reading the schema first: a file that is not a database fails here, before any output.
  const tables = s.db.exec(`SELECT name, type, sql FROM sqlite_schema AS o WHERE (${like}) AND type=='table' AND sql NOT NULL ORDER BY tbl_name='sqlite_sequence', rowid`);
  if (!noSys) sh.out('PRAGMA foreign_keys=OFF;\n');
  sh.out('BEGIN TRANSACTION;\n');
  for (const row of tables[0]?.values ?? []) {
    const name = String(row[0]);
    const sql = String(row[2]);
    if (name === 'sqlite_sequence') {
      if (noSys) continue;
      sh.out('DELETE FROM sqlite_sequence;\n');
    } else if (/^sqlite_stat.$/.test(name)) {
      if (noSys) continue;
      sh.out('ANALYZE sqlite_schema;\n');
    } else if (name.startsWith('sqlite_')) {
      continue;
    } else if (!dataOnly) {
      if (sql.startsWith('CREATE VIRTUAL TABLE')) {
        sh.out('PRAGMA writable_schema=ON;\n');
        sh.out(`INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','${name.replace(/'/g, "''")}','${name.replace(/'/g, "''")}',0,'${sql.replace(/'/g, "''")}');\n`);
        continue;
      }
      sh.out(schemaLine(sql) + ';\n');
    }
    const cols = s.db.exec(`PRAGMA table_info(${quoteIdent(name)})`)[0]?.values.map((c) => String(c[1])) ?? [];
    if (cols.length === 0) continue;
    await sh.flush();
    await insertRows(sh, `SELECT ${cols.map(quoteIdent).join(',')} FROM ${quoteIdent(name)}`, quoteIdent(name));
  }
  if (!dataOnly) {
    const rest = s.db.exec(`SELECT sql FROM sqlite_schema AS o WHERE (${like}) AND sql NOT NULL AND type IN ('index','trigger','view')`);
    for (const row of rest[0]?.values ?? []) {
      const z = String(row[0]);
      sh.out(z + (z.includes('--') ? '\n;\n' : ';\n'));
    }
  }
  sh.out('COMMIT;\n');
  await sh.flush();
}

/** printSchemaLine: CREATE TABLE "x" is printed as CREATE TABLE IF NOT EXISTS "x". */
export function schemaLine(sql: string): string {
  return /^CREATE TABLE ['"]/.test(sql) ? `CREATE TABLE IF NOT EXISTS ${sql.slice(13)}` : sql;
}

/** Rows of a query as the shell's insert mode writes them (.dump). */
export async function insertRows(sh: Shell, select: string, table: string): Promise<void> {
  const s = await sh.db();
  const stmt = s.db.prepare(select);
  try {
    const r = new RowRenderer({ ...sh.st, mode: 'insert', showHeader: false, insertTable: table }, stmt.getColumnNames(), (b) => sh.out(b));
    while (stmt.step()) {
      r.row((stmt.get as (p: null, c: { useBigInt: boolean }) => Value[])(null, { useBigInt: true }));
      await sh.flush();
    }
  } finally {
    stmt.free();
  }
}
