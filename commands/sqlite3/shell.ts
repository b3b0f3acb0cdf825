/**
 * The sqlite3 shell's engine (shell.c of SQLite 3.40): shell_exec over the statements of a
 * text, process_input over lines (dot-commands, SQL accumulated up to a complete statement),
 * error reports ("Parse error near line N", "Error: in prepare, ...") and their exit codes.
 */
import { NoshError } from '../../src/errors.js';
import { VfsError } from '../../src/vfs/index.js';
import type { CommandContext } from '../../src/command/index.js';
import { DbSession } from '../../src/gnulib/sqlite/database.js';
import { errorContext, resultCode } from '../../src/gnulib/sqlite/errors.js';
import { planStatement, refuseForbidden } from '../../src/gnulib/sqlite/guard.js';
import type { Statement } from '../../src/gnulib/sqlite/sqljs.js';
import type { Value } from '../../src/gnulib/sqlite/values.js';
import { cacheableSql, resultCache, rowBytes, type ResultCache } from '../../src/gnulib/sqlite/result-cache.js';
import { RowRenderer, renderColumnar, type RenderState } from './render.js';
import { isComplete, endsWithSemicolon, splitStatements } from './complete.js';

export interface ShellConfig {
  dbPath: string;
  readonly: boolean;
  maxDatabaseBytes?: number;
}

const FLUSH_AT = 64 * 1024;

/** Rows of a statement being kept for the result cache (over: too big, or not all rows read). */
interface Collector { cols: string[] | null; rows: Value[][]; bytes: number; max: number; over: boolean }

export class Shell {
  st: RenderState = { mode: 'list', showHeader: false, colSep: '|', rowSep: '\n', nullValue: '', insertTable: 'table', wrap: 0 };
  /** .headers was given: .mode column/table/box/markdown keep it. */
  headerSet = false;
  bail = false;
  echo = false;
  private session: DbSession | null = null;
  private chunks: Buffer[] = [];
  private pending = 0;
  /** .output / .once FILE: output collected, written to the file when it ends. */
  redirect: { path: string; once: boolean; chunks: Buffer[] } | null = null;
  /** .read nesting. */
  depth = 0;

  constructor(readonly ctx: CommandContext, readonly cfg: ShellConfig) {}

  async db(): Promise<DbSession> {
    if (!this.session) {
      this.session = await DbSession.open(this.ctx.fs, this.cfg.dbPath, this.ctx.cwd, { readonly: this.cfg.readonly || this.openReadonly, maxDatabaseBytes: this.cfg.maxDatabaseBytes });
    }
    return this.session;
  }

  /** Open another database (.open): the current one is finished first. */
  async reopen(path: string, readonly: boolean): Promise<void> {
    this.finish();
    this.cfg.dbPath = path;
    this.openReadonly = readonly;
  }

  /** .open --readonly: this database only. */
  private openReadonly = false;

  out(b: Buffer | string): void {
    const buf = typeof b === 'string' ? Buffer.from(b) : b;
    this.chunks.push(buf);
    this.pending += buf.length;
  }

  async flush(): Promise<void> {
    if (this.chunks.length === 0) return;
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [];
    this.pending = 0;
    if (this.redirect) this.redirect.chunks.push(all);
    else await this.ctx.stdout.write(all);
  }

  /** Is the returned output full (a reading call stops there)? */
  private full(): boolean {
    const room = this.redirect ? undefined : this.ctx.stdout.room?.();
    return room !== undefined && room <= this.pending;
  }

  async err(text: string): Promise<void> {
    await this.ctx.stderr.write(text);
  }

  /** .once lasts for the command after it: ended here once that one ran. */
  onceFresh = false;

  async afterCommand(): Promise<void> {
    if (this.redirect?.once) {
      if (this.onceFresh) this.onceFresh = false;
      else await this.endRedirect();
    }
  }

  /** Write a finished .output/.once file through the Vfs (atomic, quota-checked). */
  async endRedirect(): Promise<void> {
    await this.flush();
    const r = this.redirect;
    if (!r) return;
    this.redirect = null;
    const fs = this.ctx.fs;
    if (fs.policy.readonly) throw new NoshError('ZONE_READONLY', `${r.path}: the zone is read-only`, 'Leave out .output/.once: the output comes back in stdout.');
    fs.writeFile(r.path, Buffer.concat(r.chunks), this.ctx.cwd);
  }

  /** End of the call: output written, database written back if it changed. */
  finish(): void {
    const s = this.session;
    this.session = null;
    s?.finish();
  }

  discard(): void {
    this.session?.discard();
    this.session = null;
  }

  /**
   * shell_exec: run every statement of `sql`; stops at the first error. Returns the result
   * code and the error text as the shell builds it ("in prepare, MSG (N)" / "stepping, MSG (N)").
   */
  async exec(sql: string): Promise<{ rc: number; err: string | null }> {
    const s = await this.db();
    const cache = resultCache(this.ctx.limits.sqliteResultCacheBytes);
    for (const { start, end } of splitStatements(sql)) {
      let stmt: Statement;
      const text = sql.slice(start, end);
      refuseForbidden(text);
      // A read the result cache may answer or keep: only while this call ran nothing else on the database.
      const key = cache && s.resultIdentity && !s.tainted && cacheableSql(text) ? `${s.resultFile}\0${s.resultIdentity}\0${text}` : null;
      let collect: Collector | undefined;
      if (key) {
        const hit = cache!.get(key);
        if (hit) {
          if (hit.cols) await this.renderRows(hit.cols, hit.rows);
          if (this.ctx.signal.aborted) throw new NoshError('CANCELLED', 'sqlite3 cancelled');
          continue;
        }
        if (s.resultSettled) collect = { cols: null, rows: [], bytes: 0, max: cache!.maxEntry, over: false };
      }
      try {
        stmt = (key ? s.readDb() : s.db).prepare(text);
      } catch (e) {
        const msg = messageOf(e);
        if (msg === 'Nothing to prepare') continue;
        const rc = resultCode(msg);
        return { rc, err: `in prepare, ${msg}${rc > 1 ? ` (${rc})` : ''}${errorContext(sql.slice(start), msg)}` };
      }
      try {
        const plan = planStatement(stmt.getSQL());
        if (plan.kind === 'attach') {
          await s.attach(plan.file, plan.schema);
        } else if (plan.kind === 'vacuum-into') {
          s.writeZoneFile(plan.file, await s.vacuumCopy(plan.schema), true);
        } else {
          s.guard();
          await this.runStatement(stmt, collect);
          if (collect && !collect.over) (cache as ResultCache).put(key!, s.resultFile!, { cols: collect.cols, rows: collect.rows }, collect.bytes);
        }
      } catch (e) {
        if (e instanceof NoshError || e instanceof VfsError) throw e;
        const msg = messageOf(e);
        const rc = resultCode(msg);
        return { rc, err: `stepping, ${msg}${rc > 1 ? ` (${rc})` : ''}` };
      } finally {
        stmt.free();
      }
      if (this.ctx.signal.aborted) throw new NoshError('CANCELLED', 'sqlite3 cancelled');
    }
    return { rc: 0, err: null };
  }

  /** exec_prepared_stmt: step and render (the rows kept in `collect` too). */
  private async runStatement(stmt: Statement, collect?: Collector): Promise<void> {
    if (!stmt.step()) return;
    const cols = stmt.getColumnNames();
    const read = () => (stmt.get as (p: null, c: { useBigInt: boolean }) => Value[])(null, { useBigInt: true });
    let get = read;
    if (collect) {
      collect.cols = cols;
      get = () => {
        const row = read();
        if (!collect.over) {
          collect.bytes += rowBytes(row);
          if (collect.bytes > collect.max) { collect.over = true; collect.rows = []; } else collect.rows.push(row);
        }
        return row;
      };
    }
    await this.render(cols, get, () => stmt.step(), collect);
  }

  /** Rows kept by the result cache, rendered as a statement's rows are. */
  private async renderRows(cols: string[], rows: Value[][]): Promise<void> {
    let i = 0;
    await this.render(cols, () => rows[i]!, () => ++i < rows.length);
  }

  /** Render rows: `get` the current one, `step` to the next (false at the end); stops when the output is full. */
  private async render(cols: string[], get: () => Value[], step: () => boolean, collect?: Collector): Promise<void> {
    const mode = this.st.mode;
    if (mode === 'column' || mode === 'box' || mode === 'table' || mode === 'markdown') {
      const rows: Value[][] = [];
      let failure: unknown;
      try {
        do {
          rows.push(get());
          if (this.full()) { if (collect) collect.over = true; break; }
        } while (step());
      } catch (e) {
        failure = e;
      }
      renderColumnar(this.st, cols, rows, (b) => this.out(b));
      await this.flush();
      if (failure) throw failure;
      return;
    }
    const r = new RowRenderer(this.st, cols, (b) => this.out(b));
    try {
      do {
        r.row(get());
        if (this.pending > FLUSH_AT) {
          if (this.full()) { if (collect) collect.over = true; break; }
          await this.flush();
        }
      } while (step());
    } finally {
      r.end();
      await this.flush();
    }
  }

  /** SQL given as an argument: "Error: MSG" and its code stop the call. */
  async runArg(sql: string): Promise<number> {
    const { rc, err } = await this.exec(sql);
    if (err !== null || rc !== 0) {
      await this.err(`Error: ${err ?? `unable to process SQL: ${sql}`}\n`);
      return rc !== 0 ? rc : 1;
    }
    return 0;
  }

  /** runOneSqlLine: an error is "Parse error near line N: ..." or "Runtime error near line N: ...". */
  private async runChunk(sql: string, startline: number): Promise<number> {
    const { rc, err } = await this.exec(sql);
    if (rc === 0 && err === null) return 0;
    let type = 'Error';
    let tail = err ?? 'unknown error';
    if (err?.startsWith('in prepare, ')) { type = 'Parse error'; tail = err.slice(12); }
    else if (err?.startsWith('stepping, ')) { type = 'Runtime error'; tail = err.slice(10); }
    await this.err(`${type} near line ${startline}: ${tail}\n`);
    return 1;
  }

  private async echoLine(text: string): Promise<void> {
    if (!this.echo) return;
    this.out(text + '\n');
    await this.flush();
  }

  /**
   * process_input: lines of text; a line starting with '.' (outside a statement) is a
   * dot-command, '#' a comment; SQL runs once a line ends a complete statement. Returns
   * 1 when there were errors, 2 for .quit.
   */
  async processInput(text: string, meta: (line: string) => Promise<number>): Promise<number> {
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    let sql = '';
    let startline = 0;
    let errCnt = 0;
    let lineno = 0;
    for (const raw of lines) {
      if (errCnt > 0 && this.bail) break;
      const line = raw;
      lineno++;
      if (sql === '' && line.trim() === '') { await this.echoLine(line); continue; }
      if (sql === '' && (line.startsWith('.') || line.startsWith('#'))) {
        await this.echoLine(line);
        if (line.startsWith('.')) {
          const rc = await meta(line);
          if (rc === 2) return 2;
          if (rc) errCnt++;
        }
        continue;
      }
      if (sql === '') {
        sql = line.replace(/^\s+/, '');
        startline = lineno;
      } else sql += '\n' + line;
      // As the shell: the statement is looked at again only when the new line has a ';' (else a
      // long statement read line by line would be tokenized once per line: quadratic).
      if (line.includes(';') && endsWithSemicolon(sql) && isComplete(sql)) {
        await this.echoLine(sql);
        errCnt += await this.runChunk(sql, startline);
        await this.afterCommand();
        sql = '';
      } else if (startline === lineno && sql.trim() === '') {
        sql = '';
      }
    }
    if (sql !== '' && !(errCnt > 0 && this.bail)) {
      await this.echoLine(sql);
      errCnt += await this.runChunk(sql, startline);
    }
    return errCnt > 0 ? 1 : 0;
  }
}

export function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
