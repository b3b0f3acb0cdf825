/**
 * .import of the sqlite3 shell (3.40): csv_read_one_field / ascii_read_one_field over a file
 * of the zone, the table created from the first row when it does not exist, rows inserted in
 * one transaction, short and long rows reported as the shell does.
 */
import type { Shell } from './shell.js';
import { messageOf } from './shell.js';
import { addProgress, setProgressTotalBytes } from '../../src/runtime/progress.js';

const USAGE = `.import FILE TABLE       Import data from FILE into TABLE
   Options:
     --ascii               Use \\037 and \\036 as column and row separators
     --csv                 Use , and \\n as column and row separators
     --skip N              Skip the first N rows of input
     --schema S            Target table to be S.TABLE
     -v                    "Verbose" - increase auxiliary output
   Notes:
     *  If TABLE does not exist, it is created.  The first row of input
        determines the column names.
     *  If neither --csv or --ascii are used, the input mode is derived
        from the ".mode" output mode
     *  If FILE begins with "|" then it is a command that generates the
        input text.
`;

const EOF = -1;

class Reader {
  pos = 0;
  nLine = 1;
  cTerm = 0;
  private notFirst = false;
  constructor(private readonly z: Buffer, readonly file: string, readonly cSep: number, readonly rSep: number, private readonly warn: (s: string) => void) {}

  private get(): number {
    return this.pos < this.z.length ? this.z[this.pos++]! : EOF;
  }

  csv(): string | null {
    const { cSep, rSep } = this;
    let c = this.get();
    if (c === EOF) { this.cTerm = EOF; return null; }
    const out: number[] = [];
    if (c === 0x22) {
      let pc = 0;
      let ppc = 0;
      const startLine = this.nLine;
      for (;;) {
        c = this.get();
        if (c === rSep) this.nLine++;
        if (c === 0x22 && pc === 0x22) { pc = 0; continue; }
        if ((c === cSep && pc === 0x22) || (c === rSep && pc === 0x22) || (c === rSep && pc === 0x0d && ppc === 0x22) || (c === EOF && pc === 0x22)) {
          while (out.length > 0 && out.pop() !== 0x22) { /* back to the closing quote */ }
          this.cTerm = c;
          break;
        }
        if (pc === 0x22 && c !== 0x0d) this.warn(`${this.file}:${this.nLine}: unescaped " character\n`);
        if (c === EOF) {
          this.warn(`${this.file}:${startLine}: unterminated "-quoted field\n`);
          this.cTerm = c;
          break;
        }
        out.push(c);
        ppc = pc;
        pc = c;
      }
    } else {
      if (c === 0xef && !this.notFirst && this.z[this.pos] === 0xbb && this.z[this.pos + 1] === 0xbf) {
        this.pos += 2;
        c = this.get();
        if (c === EOF) { this.cTerm = EOF; this.notFirst = true; return ''; }
      }
      // An unquoted field is the bytes up to the next separator: decoded in one piece.
      const z = this.z;
      const n = z.length;
      const start = this.pos - 1;
      let p = start;
      while (p < n) {
        const b = z[p]!;
        if (b === cSep || b === rSep) break;
        p++;
      }
      let end = p;
      c = p < n ? z[p]! : EOF;
      this.pos = p < n ? p + 1 : n;
      if (c === rSep) {
        this.nLine++;
        if (end > start && z[end - 1] === 0x0d) end--;
      }
      this.cTerm = c;
      this.notFirst = true;
      return z.toString('utf8', start, end);
    }
    this.notFirst = true;
    return Buffer.from(out).toString('utf8');
  }

  ascii(): string | null {
    let c = this.get();
    if (c === EOF) { this.cTerm = EOF; return null; }
    const out: number[] = [];
    while (c !== EOF && c !== this.cSep && c !== this.rSep) { out.push(c); c = this.get(); }
    if (c === this.rSep) this.nLine++;
    this.cTerm = c;
    return Buffer.from(out).toString('utf8');
  }
}

function q(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export async function importFile(sh: Shell, argv: string[], zoneFile: (cmd: string, name: string) => string): Promise<number> {
  let file: string | undefined;
  let table: string | undefined;
  let schemaName: string | undefined;
  let nSkip = 0;
  let forced: 'csv' | 'ascii' | null = null;
  const fail = async (text: string) => { await sh.err(text); return 1; };
  const usage = async (text: string) => { sh.out(text); await sh.flush(); return 1; };
  for (let i = 0; i < argv.length; i++) {
    const z = argv[i]!.replace(/^--/, '-');
    if (!argv[i]!.startsWith('-')) {
      if (file === undefined) file = argv[i];
      else if (table === undefined) table = argv[i];
      else return usage(`ERROR: extra argument: "${argv[i]}".  Usage:\n${USAGE}`);
    } else if (z === '-v') {
      /* verbose: nothing extra */
    } else if (z === '-skip' && i < argv.length - 1) {
      nSkip = Number.parseInt(argv[++i]!, 10) || 0;
    } else if (z === '-schema' && i < argv.length - 1) {
      schemaName = argv[++i];
    } else if (z === '-ascii') {
      forced = 'ascii';
    } else if (z === '-csv') {
      forced = 'csv';
    } else {
      return usage(`ERROR: unknown option: "${argv[i]!.replace(/^--/, '-')}".  Usage:\n${USAGE}`);
    }
  }
  if (file === undefined) return usage(`ERROR: missing FILE argument. Usage:\n${USAGE}`);
  if (table === undefined) return usage(`ERROR: missing TABLE argument. Usage:\n${USAGE}`);
  zoneFile('import', file);
  let cSep: number;
  let rSep: number;
  if (forced === 'csv') { cSep = 0x2c; rSep = 0x0a; }
  else if (forced === 'ascii') { cSep = 0x1f; rSep = 0x1e; }
  else {
    const col = Buffer.from(sh.st.colSep);
    let row = Buffer.from(sh.st.rowSep);
    if (col.length === 0) return fail('Error: non-null column separator required for import\n');
    if (col.length > 1) return fail('Error: multi-character column separators not allowed for import\n');
    if (row.length === 0) return fail('Error: non-null row separator required for import\n');
    if (row.length === 2 && sh.st.mode === 'csv' && sh.st.rowSep === '\r\n') {
      // As the shell: the output row separator becomes the input one, for good.
      sh.st.rowSep = '\n';
      row = Buffer.from('\n');
    }
    if (row.length > 1) return fail('Error: multi-character row separators not allowed for import\n');
    cSep = col[0]!;
    rSep = row[0]!;
  }
  const asciiMode = forced === 'ascii' || (forced === null && sh.st.mode === 'ascii');
  let data: Buffer;
  try {
    data = sh.ctx.fs.readFile(file, sh.ctx.cwd);
  } catch (e) {
    if (e instanceof Error && 'errno' in e && (e as { errno: string }).errno === 'ENOENT') return fail(`Error: cannot open "${file}"\n`);
    throw e;
  }
  const warnings: string[] = [];
  const rd = new Reader(data, file, cSep, rSep, (s) => warnings.push(s));
  // Progress: the file's bytes parsed (and inserted) against its size.
  setProgressTotalBytes(data.length);
  let counted = 0;
  const count = () => {
    addProgress(0, rd.pos - counted);
    counted = rd.pos;
  };
  const read = cSep === 0x1f && rSep === 0x1e ? () => rd.ascii() : () => rd.csv();
  const flushWarnings = async () => { for (const w of warnings.splice(0)) await sh.err(w); };
  const s = await sh.db();
  s.guard();
  const full = schemaName ? `${q(schemaName)}.${q(table)}` : q(table);
  while (nSkip-- > 0) {
    while (read() !== null && rd.cTerm === cSep) { /* skip the row */ }
  }
  let nCol: number;
  try {
    const probe = s.db.prepare(`SELECT * FROM ${full}`);
    nCol = probe.getColumnNames().length;
    probe.free();
  } catch {
    const names: string[] = [];
    for (;;) {
      const f = read();
      if (f === null) break;
      names.push(f);
      if (rd.cTerm !== cSep) break;
    }
    await flushWarnings();
    if (names.length === 0) return fail(`${file}: empty file\n`);
    const create = `CREATE TABLE ${full}(\n${names.map((n) => `${q(n)} TEXT`).join(', ')})`;
    try {
      s.db.run(create);
    } catch (e) {
      return fail(`${create} failed:\n${messageOf(e)}\n`);
    }
    nCol = names.length;
  }
  const insert = `INSERT INTO ${full} VALUES(${new Array(nCol).fill('?').join(',')})`;
  let stmt;
  try {
    stmt = s.db.prepare(insert);
  } catch (e) {
    return fail(`Error: ${messageOf(e)}\n`);
  }
  let inTx = false;
  try {
    try { s.db.run('BEGIN'); inTx = true; } catch { /* already in a transaction */ }
    do {
      const startLine = rd.nLine;
      const vals: (string | null)[] = [];
      let i = 0;
      for (; i < nCol; i++) {
        const z = read();
        if (z === null && i === 0) break;
        if (asciiMode && (z === null || z === '') && i === 0) break;
        vals.push(z);
        if (i < nCol - 1 && rd.cTerm !== cSep) {
          warnings.push(`${file}:${startLine}: expected ${nCol} columns but found ${i + 1} - filling the rest with NULL\n`);
          i += 2;
          while (i <= nCol) { vals.push(null); i++; }
        }
      }
      if (rd.cTerm === cSep) {
        do { read(); i++; } while (rd.cTerm === cSep);
        warnings.push(`${file}:${startLine}: expected ${nCol} columns but found ${i} - extras ignored\n`);
      }
      if (i >= nCol) {
        try {
          stmt.run(vals.slice(0, nCol));
        } catch (e) {
          warnings.push(`${file}:${startLine}: INSERT failed: ${messageOf(e)}\n`);
        }
      }
      count();
      if (warnings.length > 0) await flushWarnings();
    } while (rd.cTerm !== EOF);
  } finally {
    stmt.free();
    if (inTx) {
      try { s.db.run('COMMIT'); } catch { /* rolled back */ }
    }
  }
  await flushWarnings();
  return 0;
}
