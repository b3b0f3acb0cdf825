/**
 * The sqlite3 shell's output modes (shell.c of SQLite 3.40: shell_callback for the row modes,
 * exec_prepared_stmt_columnar for column, table, box and markdown), byte for byte.
 */
import { formatReal, sqlLiteral, type Value } from '../../src/gnulib/sqlite/values.js';

export type Mode = 'list' | 'csv' | 'json' | 'line' | 'column' | 'box' | 'markdown' | 'table' | 'html' | 'quote' | 'ascii' | 'insert';

export interface RenderState {
  mode: Mode;
  showHeader: boolean;
  colSep: string;
  rowSep: string;
  nullValue: string;
  /** Table name of insert mode. */
  insertTable: string;
  /** Columnar modes: wrap cells at this many characters (0: never; .mode box sets 60). */
  wrap: number;
}

/** The bytes of a value as sqlite3_column_text gives them (null: SQL NULL). */
export function textBytes(v: Value): Buffer | null {
  if (v === null) return null;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  if (typeof v === 'number') return Buffer.from(formatReal(v));
  return Buffer.from(typeof v === 'bigint' ? v.toString() : v);
}

/** What printf("%s") prints of them: up to the first NUL. */
function cstr(b: Buffer): Buffer {
  const z = b.indexOf(0);
  return z < 0 ? b : b.subarray(0, z);
}

const NEED_CSV_QUOTE = (c: number) => c < 0x21 || c === 0x22 || c === 0x27 || c >= 0x7f;

function csvField(b: Buffer | null, st: RenderState): Buffer {
  if (b === null) return Buffer.from(st.nullValue);
  const z = cstr(b);
  let quote = z.length === 0;
  for (const c of z) if (NEED_CSV_QUOTE(c)) { quote = true; break; }
  if (!quote && st.colSep !== '' && z.includes(st.colSep)) quote = true;
  if (!quote) return z;
  return Buffer.concat([Buffer.from('"'), Buffer.from(z.toString('latin1').replace(/"/g, '""'), 'latin1'), Buffer.from('"')]);
}

function htmlEscape(b: Buffer): Buffer {
  const s = cstr(b).toString('latin1').replace(/[<&>"']/g, (c) => ({ '<': '&lt;', '&': '&amp;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
  return Buffer.from(s, 'latin1');
}

export function jsonString(b: Buffer): Buffer {
  let s = '"';
  for (const c of b) {
    if (c === 0x22 || c === 0x5c) s += '\\' + String.fromCharCode(c);
    else if (c <= 0x1f) {
      const named: Record<number, string> = { 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t' };
      s += named[c] ?? '\\u' + c.toString(16).padStart(4, '0');
    } else s += String.fromCharCode(c);
  }
  return Buffer.from(s + '"', 'latin1');
}

/** SQL string literal as quote mode writes it ('' for a quote, newlines raw). */
function quotedString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** A row-at-a-time renderer for one statement: `row` per result row, `end` after the last. */
export class RowRenderer {
  private cnt = 0;
  constructor(private readonly st: RenderState, private readonly cols: string[], private readonly out: (b: Buffer | string) => void) {}

  row(values: Value[]): void {
    const { st, cols, out } = this;
    const first = this.cnt++ === 0;
    const texts = values.map(textBytes);
    switch (st.mode) {
      case 'line': {
        const w = Math.max(5, ...cols.map((c) => Buffer.byteLength(c)));
        if (!first) out(st.rowSep);
        cols.forEach((c, i) => {
          out(' '.repeat(Math.max(0, w - Buffer.byteLength(c))) + c + ' = ');
          out(texts[i] === null ? st.nullValue : cstr(texts[i]!));
          out(st.rowSep);
        });
        return;
      }
      case 'list':
      case 'ascii': {
        if (first && st.showHeader) out(cols.join(st.colSep) + st.rowSep);
        texts.forEach((t, i) => {
          out(t === null ? st.nullValue : cstr(t));
          out(i < texts.length - 1 ? st.colSep : st.rowSep);
        });
        return;
      }
      case 'csv': {
        if (first && st.showHeader) {
          cols.forEach((c, i) => { out(csvField(Buffer.from(c), st)); out(i < cols.length - 1 ? st.colSep : st.rowSep); });
        }
        texts.forEach((t, i) => { out(csvField(t, st)); out(i < texts.length - 1 ? st.colSep : st.rowSep); });
        return;
      }
      case 'html': {
        if (first && st.showHeader) {
          out('<TR>');
          for (const c of cols) { out('<TH>'); out(htmlEscape(Buffer.from(c))); out('</TH>\n'); }
          out('</TR>\n');
        }
        out('<TR>');
        for (const t of texts) { out('<TD>'); out(t === null ? st.nullValue : htmlEscape(t)); out('</TD>\n'); }
        out('</TR>\n');
        return;
      }
      case 'quote': {
        if (first && st.showHeader) out(cols.map(quotedString).join(st.colSep) + st.rowSep);
        out(values.map((v) => typeof v === 'string' ? quotedString(v) : sqlLiteral(v, 'Inf')).join(st.colSep) + st.rowSep);
        return;
      }
      case 'insert': {
        out(`INSERT INTO ${st.insertTable}`);
        if (st.showHeader) out(`(${cols.map(quoteIdent).join(',')})`);
        out(` VALUES(${values.map((v) => typeof v === 'string' ? escapedString(v) : sqlLiteral(v, '1e999')).join(',')});\n`);
        return;
      }
      case 'json': {
        out(first ? '[{' : ',\n{');
        values.forEach((v, i) => {
          out(jsonString(Buffer.from(cols[i]!)));
          out(':');
          if (v === null) out('null');
          else if (typeof v === 'bigint') out(v.toString());
          else if (typeof v === 'number') out(sqlLiteral(v, '1e999'));
          else if (typeof v === 'string') out(jsonString(cstr(Buffer.from(v))));
          else out(jsonString(Buffer.from(v)));
          if (i < values.length - 1) out(',');
        });
        out('}');
        return;
      }
      default:
        throw new Error(`columnar mode ${st.mode} in RowRenderer`);
    }
  }

  end(): void {
    if (this.st.mode === 'json' && this.cnt > 0) this.out(']\n');
  }
}

/** An SQL string literal as .dump and insert mode write it: newlines and CRs through replace(). */
export function escapedString(s: string): string {
  const hasNl = s.includes('\n');
  const hasCr = s.includes('\r');
  if (!hasNl && !hasCr) return quotedString(s);
  let body = quotedString(s.replace(/\\n/g, '\\n').replace(/\n/g, '\\n').replace(/\r/g, '\\r'));
  if (hasCr) body = `replace(${body},'\\r',char(13))`;
  if (hasNl) body = `replace(${body},'\\n',char(10))`;
  return body;
}

const KEYWORDS = new Set(('ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT BEFORE BEGIN BETWEEN BY ' +
  'CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME ' +
  'CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE ' +
  'EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL FILTER FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP ' +
  'GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN ' +
  'KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL NULLS OF OFFSET ON OR ORDER ' +
  'OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE RANGE RECURSIVE REFERENCES REGEXP REINDEX ' +
  'RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN ' +
  'TIES TO TRANSACTION TRIGGER UNBOUNDED UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT').split(' '));

/** The shell's quoteChar(): '"' when a name is not a plain identifier (or is a keyword), else none. */
export function needsQuote(name: string): boolean {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return true;
  return KEYWORDS.has(name.toUpperCase());
}

export function quoteIdent(name: string): string {
  return needsQuote(name) ? `"${name.replace(/"/g, '""')}"` : name;
}

// ---- columnar modes ---------------------------------------------------------------------

/** Display width: UTF-8 lead bytes (the shell's strlenChar). */
function widthOf(b: Buffer): number {
  let n = 0;
  for (const c of b) if ((c & 0xc0) !== 0x80) n++;
  return n;
}

/**
 * translateForDisplayAndDup: what fits on one display line (tabs to spaces at multiples of 8,
 * up to the first other control character), and the rest (after one newline) for the next line.
 */
function splitForDisplay(z: Buffer, wrap: number): { line: Buffer; tail: Buffer | null } {
  const mx = wrap > 0 ? wrap : 1_000_000;
  const out: number[] = [];
  let i = 0;
  let n = 0;
  while (i < z.length && n < mx) {
    const c = z[i]!;
    if (c >= 0x20) {
      n++;
      do { out.push(z[i++]!); } while (i < z.length && (z[i]! & 0xc0) === 0x80);
      continue;
    }
    if (c === 0x09) {
      do { n++; out.push(0x20); } while ((n & 7) !== 0 && n < mx);
      i++;
      continue;
    }
    break;
  }
  let tail: Buffer | null = null;
  if (i < z.length) {
    if (z[i] === 0x0d && z[i + 1] === 0x0a) i++;
    if (z[i] === 0x0a) i++;
    tail = i < z.length && z[i] !== 0 ? z.subarray(i) : null;
  }
  return { line: Buffer.from(out), tail };
}

const B = { h: '─', v: '│', tl: '┌', tr: '┐', bl: '└', br: '┘', lt: '├', rt: '┤', tt: '┬', bt: '┴', x: '┼' };

/** Render one statement's rows in column, table, box or markdown mode (nothing for no rows). */
export function renderColumnar(st: RenderState, cols: string[], rows: Value[][], out: (b: Buffer | string) => void): void {
  if (rows.length === 0 || cols.length === 0) return;
  const n = cols.length;
  const cells: Buffer[] = cols.map((c) => splitForDisplay(Buffer.from(c), st.wrap).line);
  const rowDiv: boolean[] = [];
  for (const r of rows) {
    let pending: (Buffer | null)[] = r.map((v) => textBytes(v) ?? Buffer.from(st.nullValue));
    let next = true;
    while (next) {
      next = false;
      rowDiv.push(true);
      const tails: (Buffer | null)[] = [];
      for (let i = 0; i < n; i++) {
        const { line, tail } = splitForDisplay(pending[i] ?? Buffer.alloc(0), st.wrap);
        cells.push(line);
        tails.push(tail);
        if (tail) { next = true; rowDiv[rowDiv.length - 1] = false; }
      }
      pending = tails;
    }
  }
  const multi = rowDiv.some((d) => !d);
  const w = new Array<number>(n).fill(0);
  cells.forEach((c, i) => { w[i % n] = Math.max(w[i % n]!, widthOf(c)); });
  const pad = (c: Buffer, width: number): Buffer => Buffer.concat([c, Buffer.from(' '.repeat(Math.max(0, width - widthOf(c))))]);
  const center = (c: Buffer, width: number): Buffer => {
    const k = width - widthOf(c);
    return Buffer.concat([Buffer.from(' '.repeat(Math.floor(k / 2))), c, Buffer.from(' '.repeat(Math.floor((k + 1) / 2)))]);
  };
  const sepLine = (l: string, m: string, r: string, h: string) => l + w.map((x) => h.repeat(x + 2)).join(m) + r + '\n';
  let colSep = '  ';
  let rowSep = '\n';
  const mode = st.mode;
  if (mode === 'column') {
    if (st.showHeader) {
      for (let i = 0; i < n; i++) { out(pad(cells[i]!, w[i]!)); out(i === n - 1 ? '\n' : '  '); }
      for (let i = 0; i < n; i++) { out('-'.repeat(w[i]!)); out(i === n - 1 ? '\n' : '  '); }
    }
  } else {
    colSep = mode === 'box' ? ` ${B.v} ` : ' | ';
    rowSep = mode === 'box' ? ` ${B.v}\n` : ' |\n';
    if (mode === 'table') out(sepLine('+', '+', '+', '-'));
    if (mode === 'box') out(sepLine(B.tl, B.tt, B.tr, B.h));
    out(mode === 'box' ? `${B.v} ` : '| ');
    for (let i = 0; i < n; i++) { out(center(cells[i]!, w[i]!)); out(i === n - 1 ? rowSep : colSep); }
    if (mode === 'table') out(sepLine('+', '+', '+', '-'));
    if (mode === 'markdown') out(sepLine('|', '|', '|', '-'));
    if (mode === 'box') out(sepLine(B.lt, B.x, B.rt, B.h));
  }
  const total = cells.length;
  for (let i = n, j = 0; i < total; i++, j++) {
    if (j === 0 && mode !== 'column') out(mode === 'box' ? `${B.v} ` : '| ');
    out(pad(cells[i]!, w[j]!));
    if (j === n - 1) {
      out(rowSep);
      if (multi && rowDiv[i / n - 1 | 0] && i + 1 < total) {
        if (mode === 'table') out(sepLine('+', '+', '+', '-'));
        else if (mode === 'box') out(sepLine(B.lt, B.x, B.rt, B.h));
        else if (mode === 'column') out('\n');
      }
      j = -1;
    } else out(colSep);
  }
  if (mode === 'table') out(sepLine('+', '+', '+', '-'));
  if (mode === 'box') out(sepLine(B.bl, B.bt, B.br, B.h));
}
