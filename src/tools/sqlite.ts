/**
 * The sqlite and import_csv tools: SQL on a database file of the zone through sql.js (the
 * engine of the sqlite3 command, src/gnulib/sqlite), with bound parameters, and CSV import.
 * Writes go back atomically through the Vfs; a database changed by another call since it was
 * read is not overwritten (BUSY).
 */
import { z } from 'zod';
import { NoshError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { DbSession } from '../gnulib/sqlite/database.js';
import { planStatement, refuseForbidden } from '../gnulib/sqlite/guard.js';
import { parseCsv } from '../gnulib/sqlite/csv.js';
import type { Statement, SqlValue } from '../gnulib/sqlite/sqljs.js';
import { defineTool, type ToolContext } from './types.js';
import { addProgress, setProgressTotalBytes } from '../runtime/progress.js';

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const SqlInput = z.object({
  path: z.string().min(1).describe('Database file inside the zone (created on the first write if missing; ":memory:" for a scratch database).'),
  sql: z.string().min(1).describe('SQL to run: one statement, or several separated by ";" (then the last one that returns rows gives columns/rows).'),
  params: z.array(Scalar).optional().describe('Values bound to the ? (or ?1, ?2...) parameters of the statement, in order. Never build SQL strings from values: bind them here. Only with a single statement.'),
  readonly: z.boolean().optional().describe('Open the database read-only: any statement that writes fails.'),
  max_rows: z.number().int().min(1).max(LIMITS.maxResults.max).optional().describe('Most rows returned (default 1000); truncated says when there were more.'),
}).strict();

const ImportInput = z.object({
  path: z.string().min(1).describe('Database file inside the zone (created if missing).'),
  table: z.string().min(1).describe('Table to fill; created (all columns TEXT) when it does not exist.'),
  csv_path: z.string().min(1).describe('CSV file inside the zone.'),
  header: z.boolean().optional().describe('The first row holds the column names (default true). Without a header a new table gets columns c1, c2, ...'),
  delimiter: z.string().min(1).max(1).optional().describe('Field delimiter, one character (default ",").'),
}).strict();

type Json = string | number | null | { base64: string };

function jsonValue(v: unknown): Json {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (v instanceof Uint8Array) return { base64: Buffer.from(v).toString('base64') };
  return String(v);
}

function sqlError(e: unknown): NoshError {
  if (e instanceof NoshError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  const ro = /readonly database/.test(msg);
  return new NoshError(ro ? 'ZONE_READONLY' : 'INVALID_ARGUMENT', `sqlite: ${msg}`,
    ro ? 'The database is open read-only (readonly, the sqliteReadonly setting, or a read-only zone or role): run only SELECT statements.'
      : 'Fix the SQL and run it again (the error is SQLite\'s own).', { sqlite_error: msg });
}

function totalChanges(s: DbSession): number {
  return Number(s.db.exec('SELECT total_changes()')[0]?.values[0]?.[0] ?? 0);
}

async function openSession(ctx: ToolContext, path: string, readonly: boolean | undefined): Promise<DbSession> {
  return DbSession.open(ctx.fs, path, ctx.cwd, {
    readonly: !!readonly || !!ctx.limits.sqliteReadonly, maxDatabaseBytes: ctx.limits.maxDatabaseBytes,
  });
}

export const sqlite = defineTool({
  name: 'sqlite',
  description: 'Run SQL on an SQLite database file of the zone (SQLite in WebAssembly; nothing outside the zone is reachable: ' +
    'ATTACH only names files of the zone, load_extension is refused). Bind values with params (positional ?), never by ' +
    'building SQL strings. Returns {columns, rows (arrays; blobs as {base64}), rows_affected, truncated}. Changes are written ' +
    'back atomically; readonly: true refuses every write. For the sqlite3 shell (modes, dot-commands) use exec.',
  input: SqlInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  // in the zone's write order even for a SELECT (the SQL decides, once it runs): a change is
  // committed in a versioned zone and checked against the group's ownership rows
  mutates: true,
  readOnlyMode: true,
  async run(ctx, args) {
    refuseForbidden(args.sql);
    const s = await openSession(ctx, args.path, args.readonly);
    const maxRows = args.max_rows ?? 1000;
    let columns: string[] = [];
    let rows: Json[][] = [];
    let truncated = false;
    let statements = 0;
    try {
      const before = totalChanges(s);
      const it = s.db.iterateStatements(args.sql);
      let stmt: Statement | undefined;
      for (;;) {
        let r;
        try {
          r = it.next();
        } catch (e) {
          throw sqlError(e);
        }
        if (r.done) break;
        stmt = r.value;
        statements++;
        if (args.params !== undefined && (statements > 1 || it.getRemainingSQL().trim().replace(/^;+$/, '') !== '')) {
          throw new NoshError('INVALID_ARGUMENT', 'sqlite: params bind one statement; the sql holds several',
            'Send one statement per call when binding params.');
        }
        const plan = planStatement(stmt.getSQL());
        try {
          if (plan.kind === 'attach') { await s.attach(plan.file, plan.schema); continue; }
          if (plan.kind === 'vacuum-into') { s.writeZoneFile(plan.file, await s.vacuumCopy(plan.schema), true); continue; }
          if (args.params) stmt.bind(args.params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p)) as SqlValue[]);
          s.guard();
          const get = () => (stmt!.get as (p: null, c: { useBigInt: boolean }) => unknown[])(null, { useBigInt: true });
          let budget = ctx.limits.maxOutputBytes;
          const names = stmt.getColumnNames();
          if (names.length > 0) { columns = names; rows = []; truncated = false; }
          if (stmt.step()) {
            do {
              if (rows.length >= maxRows || budget <= 0) { truncated = true; break; }
              const row = get().map(jsonValue);
              budget -= JSON.stringify(row).length;
              rows.push(row);
            } while (stmt.step());
          }
        } catch (e) {
          throw sqlError(e);
        }
        if (ctx.signal.aborted) throw new NoshError('CANCELLED', 'sqlite cancelled');
      }
      const affected = totalChanges(s) - before;
      s.finish();
      return {
        data: { columns, rows, rows_affected: affected, truncated },
        message: truncated ? `${rows.length} rows (more not returned: raise max_rows or add LIMIT/OFFSET)` : `${rows.length} rows, ${affected} changed`,
      };
    } catch (e) {
      s.discard();
      throw e;
    }
  },
});

export const importCsv = defineTool({
  name: 'import_csv',
  description: 'Import a CSV file of the zone into a table of an SQLite database file of the zone (the table is created, ' +
    'all columns TEXT, when missing; header: true takes its column names from the first row). Quoted fields may hold ' +
    'delimiters, quotes and newlines. Returns {table, columns, rows_imported, created}.',
  input: ImportInput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  mutates: true,
  async run(ctx, args) {
    const data = ctx.fs.readFile(args.csv_path, ctx.cwd);
    const text = data.toString('utf8');
    // Progress: the CSV's bytes against its size, counted pro rata of the rows inserted (parsed up front).
    setProgressTotalBytes(data.length);
    const records = parseCsv(text, args.delimiter ?? ',');
    const header = args.header ?? true;
    const s = await openSession(ctx, args.path, false);
    try {
      const q = (n: string) => `"${n.replace(/"/g, '""')}"`;
      let columns: string[];
      let created = false;
      try {
        const probe = s.db.prepare(`SELECT * FROM ${q(args.table)}`);
        columns = probe.getColumnNames();
        probe.free();
        if (header) records.shift();
      } catch {
        const first = header ? records.shift() : records[0];
        if (!first || first.length === 0) throw new NoshError('INVALID_ARGUMENT', `import_csv: ${args.csv_path} has no rows`, 'Give a CSV file with at least a header row.');
        columns = header ? first.map((c, i) => c || `c${i + 1}`) : first.map((_, i) => `c${i + 1}`);
        s.guard();
        try {
          s.db.run(`CREATE TABLE ${q(args.table)}(${columns.map((c) => `${q(c)} TEXT`).join(', ')})`);
        } catch (e) {
          throw sqlError(e);
        }
        created = true;
      }
      const n = columns.length;
      const stmt = s.db.prepare(`INSERT INTO ${q(args.table)} VALUES(${new Array(n).fill('?').join(',')})`);
      let imported = 0;
      try {
        s.db.run('BEGIN');
        let counted = 0;
        const count = () => {
          const upto = records.length === 0 ? data.length : Math.floor(data.length * imported / records.length);
          addProgress(0, upto - counted);
          counted = upto;
        };
        for (const rec of records) {
          const vals: (string | null)[] = rec.slice(0, n);
          while (vals.length < n) vals.push(null);
          stmt.run(vals);
          if ((++imported & 1023) === 0) count();
        }
        count();
        s.db.run('COMMIT');
      } catch (e) {
        throw sqlError(e);
      } finally {
        stmt.free();
      }
      s.finish();
      return { data: { table: args.table, columns, rows_imported: imported, created }, message: `${imported} rows imported into ${args.table}` };
    } catch (e) {
      s.discard();
      throw e;
    }
  },
});
