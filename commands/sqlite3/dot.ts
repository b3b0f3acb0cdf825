/**
 * Dot-commands of the sqlite3 shell (3.40): the ones nosh runs, and the ones it refuses by
 * name because they reach a shell, native code or files outside the zone.
 */
import { NoshError } from '../../src/errors.js';
import type { Shell } from './shell.js';
import { messageOf } from './shell.js';
import { quoteIdent, type Mode } from './render.js';
import { importFile } from './import.js';
import { dump, schemaLine } from './dump.js';

/** The shell's argument split: white space, '...' literal, "..." with backslash escapes. */
export function splitMetaArgs(line: string): string[] {
  const args: string[] = [];
  let h = 0;
  const z = line;
  while (h < z.length) {
    while (h < z.length && /\s/.test(z[h]!)) h++;
    if (h >= z.length) break;
    const c = z[h]!;
    if (c === "'" || c === '"') {
      h++;
      let s = '';
      while (h < z.length && z[h] !== c) {
        if (z[h] === '\\' && c === '"' && h + 1 < z.length) { s += z[h]! + z[h + 1]!; h += 2; continue; }
        s += z[h++]!;
      }
      if (z[h] === c) h++;
      args.push(c === '"' ? resolveBackslashes(s) : s);
    } else {
      let s = '';
      while (h < z.length && !/\s/.test(z[h]!)) s += z[h++]!;
      args.push(resolveBackslashes(s));
    }
  }
  return args;
}

/** resolve_backslashes(): \n \t \r \\ \" \' \a \b \f \v and octal \NNN. */
export function resolveBackslashes(s: string): string {
  return s.replace(/\\([0-7]{1,3}|.)/g, (_m, c: string) => {
    if (/^[0-7]+$/.test(c)) return String.fromCharCode(parseInt(c, 8) & 0xff);
    const map: Record<string, string> = { a: '\x07', b: '\b', t: '\t', n: '\n', v: '\v', f: '\f', r: '\r', '"': '"', "'": "'", '\\': '\\' };
    return map[c] ?? '\\' + c;
  });
}

const FORBIDDEN: Record<string, string> = {
  shell: 'nosh runs no shell and no other program: run each command as its own nosh call.',
  system: 'nosh runs no shell and no other program: run each command as its own nosh call.',
  load: 'nosh loads no native code or SQLite extensions: use the SQL functions built in.',
  excel: 'nosh opens no spreadsheet program: write CSV with .once FILE.csv and .mode csv, then fetch the file.',
  www: 'nosh opens no web browser: write HTML with .once FILE.html and .mode html.',
  timer: 'nosh does not time statements: leave .timer out.',
  cd: 'The working folder is the call\'s cwd: pass cwd with the call instead of .cd.',
};

function refuse(name: string): never {
  throw new NoshError('COMMAND_FORBIDDEN', `sqlite3: .${name} is not available in nosh`, FORBIDDEN[name]!, { command: `.${name}` });
}

/** File names that would run a program (|cmd) are refused; "-e"/"-x" open a spreadsheet. */
function zoneFile(cmd: string, name: string): string {
  if (name.startsWith('|')) {
    throw new NoshError('COMMAND_FORBIDDEN', `sqlite3: .${cmd} ${name.slice(0, 40)}: piping through a program is not available in nosh`,
      'nosh runs no other program: name a file of the zone instead.', { command: `.${cmd}` });
  }
  return name;
}

function booleanValue(s: string): { v: boolean; err?: string } {
  if (/^-?\d+$/.test(s)) return { v: Number(s) !== 0 };
  const l = s.toLowerCase();
  if (l === 'on' || l === 'yes' || l === 'true') return { v: true };
  if (l === 'off' || l === 'no' || l === 'false') return { v: false };
  return { v: false, err: `ERROR: Not a boolean value: "${s}". Assuming "no".\n` };
}

const MODES = ['lines', 'columns', 'list', 'html', 'tcl', 'csv', 'tabs', 'insert', 'quote', 'ascii', 'markdown', 'table', 'box', 'count', 'off', 'json', 'line', 'column', 'qbox'];

const COMMANDS = ['backup', 'bail', 'cd', 'databases', 'dump', 'echo', 'excel', 'exit', 'headers', 'import', 'indexes', 'indices', 'load',
  'mode', 'nullvalue', 'once', 'open', 'output', 'print', 'quit', 'read', 'restore', 'save', 'schema', 'separator', 'shell', 'system',
  'tables', 'timer', 'www'];

function lookup(word: string): string | null {
  if (COMMANDS.includes(word)) return word;
  const hits = COMMANDS.filter((c) => c.startsWith(word));
  return word.length >= 2 && hits.length === 1 ? hits[0]! : null;
}

/** .tables / .indexes: names in columns 80 wide (shell.c's layout). */
async function listNames(sh: Shell, sql: string, pattern: string): Promise<void> {
  const s = await sh.db();
  const names: string[] = [];
  const stmt = s.db.prepare(sql);
  try {
    stmt.bind([pattern]);
    while (stmt.step()) names.push(String(stmt.get()[0]));
  } finally {
    stmt.free();
  }
  if (names.length === 0) return;
  const maxlen = Math.max(...names.map((n) => Buffer.byteLength(n)));
  const nPrintCol = Math.max(1, Math.floor(80 / (maxlen + 2)));
  const nPrintRow = Math.ceil(names.length / nPrintCol);
  for (let i = 0; i < nPrintRow; i++) {
    let line = '';
    for (let j = i; j < names.length; j += nPrintRow) {
      const n = names[j]!;
      line += (j < nPrintRow ? '' : '  ') + n + ' '.repeat(maxlen - Buffer.byteLength(n));
    }
    sh.out(line + '\n');
  }
  await sh.flush();
}

async function databaseNames(sh: Shell): Promise<string[]> {
  const s = await sh.db();
  const r = s.db.exec('PRAGMA database_list');
  return (r[0]?.values ?? []).map((row) => String(row[1]));
}

async function tablesSql(sh: Shell, indexes: boolean): Promise<string> {
  const parts = (await databaseNames(sh)).map((db) => {
    const sel = db.toLowerCase() === 'main' ? 'SELECT name FROM ' : `SELECT '${db.replace(/'/g, "''")}'||'.'||name FROM `;
    const from = `"${db.replace(/"/g, '""')}".sqlite_schema `;
    return sel + from + (indexes ? " WHERE type='index'   AND tbl_name LIKE ?1" : " WHERE type IN ('table','view')   AND name NOT LIKE 'sqlite_%'   AND name LIKE ?1");
  });
  return parts.join(' UNION ALL ') + ' ORDER BY 1';
}

/** shellFakeSchema: "name(col,...)" comment added after a CREATE VIEW by .schema. */
async function fakeSchema(sh: Shell, name: string): Promise<string> {
  const s = await sh.db();
  const r = s.db.exec(`PRAGMA table_info("${name.replace(/"/g, '""')}")`);
  const cols = (r[0]?.values ?? []).map((row) => quoteIdent(String(row[1] ?? '')));
  return `${quoteIdent(name)}(${cols.join(',')})`;
}

async function schema(sh: Shell, args: string[]): Promise<number> {
  const s = await sh.db();
  const pattern = args.find((a) => !a.startsWith('-'));
  let where = '';
  const params: string[] = [];
  if (pattern !== undefined) {
    const glob = /[*?[]/.test(pattern);
    where = `lower(tbl_name) ${glob ? 'GLOB' : 'LIKE'} ?1${glob ? '' : " ESCAPE '\\'"} AND `;
    params.push(pattern.toLowerCase());
  }
  const sql = `SELECT sql, type, name FROM (SELECT sql, type, tbl_name, name, rowid AS x, 0 AS snum FROM main.sqlite_schema
    UNION ALL SELECT sql, type, tbl_name, name, rowid, 1 FROM temp.sqlite_schema) WHERE ${where}type!='meta' AND sql IS NOT NULL ORDER BY snum, x`;
  const stmt = s.db.prepare(sql);
  const rows: [string, string, string][] = [];
  try {
    if (params.length) stmt.bind(params);
    while (stmt.step()) {
      const [a, b, c] = stmt.get();
      rows.push([String(a), String(b), String(c)]);
    }
  } finally {
    stmt.free();
  }
  for (const [text, type, name] of rows) {
    let line = text;
    if (type === 'view') line = `${text}\n/* ${await fakeSchema(sh, name)} */`;
    sh.out(schemaLine(line) + ';\n');
  }
  await sh.flush();
  return 0;
}

function setMode(sh: Shell, args: string[]): number | string {
  const st = sh.st;
  const raw = args[1];
  if (raw === undefined) {
    const name = st.mode === 'list' ? 'list' : st.mode;
    const extra = ['column', 'box', 'table', 'markdown'].includes(st.mode) ? ` --wrap ${st.wrap} --wordwrap off --noquote` : '';
    return `current output mode: ${name}${extra}\n`;
  }
  const hit = MODES.find((m) => m.startsWith(raw));
  const word = hit === 'lines' ? 'line' : hit === 'columns' ? 'column' : hit;
  const columnar = (m: Mode) => {
    st.mode = m;
    st.wrap = 60;
    if (m === 'column' && !sh.headerSet) st.showHeader = true;
  };
  switch (word) {
    case 'line': st.mode = 'line'; st.rowSep = '\n'; break;
    case 'column': columnar('column'); st.rowSep = '\n'; break;
    case 'list': st.mode = 'list'; st.colSep = '|'; st.rowSep = '\n'; break;
    case 'html': st.mode = 'html'; break;
    case 'csv': st.mode = 'csv'; st.colSep = ','; st.rowSep = '\r\n'; break;
    case 'tabs': st.mode = 'list'; st.colSep = '\t'; break;
    case 'insert': st.mode = 'insert'; st.insertTable = quoteIdent(args[2] ?? 'table'); break;
    case 'quote': st.mode = 'quote'; st.colSep = ','; st.rowSep = '\n'; break;
    case 'ascii': st.mode = 'ascii'; st.colSep = '\x1f'; st.rowSep = '\x1e'; break;
    case 'markdown': columnar('markdown'); break;
    case 'table': columnar('table'); break;
    case 'box': columnar('box'); break;
    case 'json': st.mode = 'json'; break;
    default:
      return -1;
  }
  return 0;
}

/**
 * do_meta_command: 0 done, 1 error, 2 .quit. `args` of a line starting with '.'.
 */
export async function metaCommand(sh: Shell, line: string): Promise<number> {
  const args = splitMetaArgs(line.slice(1));
  if (args.length === 0) return 0;
  const name = lookup(args[0]!);
  const fail = async (text: string) => { await sh.err(text); return 1; };
  if (name === null) return fail(`Error: unknown command or invalid arguments:  "${args[0]}". Enter ".help" for help\n`);
  if (Object.hasOwn(FORBIDDEN, name)) refuse(name);
  let rc = 0;
  switch (name) {
    case 'quit': return 2;
    case 'exit': return 2;
    case 'bail':
    case 'echo':
    case 'headers': {
      if (args.length !== 2) return fail(`Usage: .${name} on|off\n`);
      const b = booleanValue(args[1]!);
      if (b.err) await sh.err(b.err);
      if (name === 'bail') sh.bail = b.v;
      else if (name === 'echo') sh.echo = b.v;
      else { sh.st.showHeader = b.v; sh.headerSet = true; }
      break;
    }
    case 'mode': {
      const r = setMode(sh, args);
      if (r === -1) return fail('Error: mode should be one of: ascii box column csv html insert json line list markdown qbox quote table tabs tcl\n');
      if (typeof r === 'string') { sh.out(r); await sh.flush(); }
      break;
    }
    case 'separator':
      if (args.length < 2 || args.length > 3) return fail('Usage: .separator COL ?ROW?\n');
      sh.st.colSep = args[1]!;
      if (args.length === 3) sh.st.rowSep = args[2]!;
      break;
    case 'nullvalue':
      if (args.length !== 2) return fail('Usage: .nullvalue STRING\n');
      sh.st.nullValue = args[1]!;
      break;
    case 'print':
      sh.out(args.slice(1).join(' ') + '\n');
      await sh.flush();
      break;
    case 'tables':
    case 'indexes':
    case 'indices': {
      if (args.length > 2) return fail(name === 'tables' ? 'Usage: .tables ?LIKE-PATTERN?\n' : 'Usage: .indexes ?LIKE-PATTERN?\n');
      const s = await sh.db();
      try {
        s.db.exec('SELECT 1 FROM sqlite_schema LIMIT 1');
      } catch (e) {
        return fail(`Error: ${messageOf(e)}\n`);
      }
      await listNames(sh, await tablesSql(sh, name !== 'tables'), args[1] ?? '%');
      break;
    }
    case 'databases': {
      const s = await sh.db();
      const r = s.db.exec('PRAGMA database_list');
      for (const row of r[0]?.values ?? []) sh.out(`${row[1]}: ${row[1] === 'main' ? (sh.cfg.dbPath === ':memory:' ? '' : sh.cfg.dbPath) : ''} r/${(await sh.db()).readonly ? 'o' : 'w'}\n`);
      await sh.flush();
      break;
    }
    case 'schema':
      try {
        rc = await schema(sh, args.slice(1));
      } catch (e) {
        return fail(`Error: ${messageOf(e)}\n`);
      }
      break;
    case 'dump':
      try {
        await dump(sh, args.slice(1));
      } catch (e) {
        if (e instanceof NoshError) throw e;
        return fail(`Error: ${messageOf(e)}\n`);
      }
      break;
    case 'import':
      rc = await importFile(sh, args.slice(1), zoneFile);
      break;
    case 'read': {
      if (args.length !== 2) return fail('Usage: .read FILE\n');
      const file = zoneFile('read', args[1]!);
      let text: string;
      try {
        text = sh.ctx.fs.readFile(file, sh.ctx.cwd).toString('utf8');
      } catch (e) {
        if (e instanceof Error && 'errno' in e && (e as { errno: string }).errno === 'ENOENT') return fail(`Error: cannot open "${file}"\n`);
        throw e;
      }
      if (sh.depth > 25) return fail('Error: .read nested too deeply\n');
      sh.depth++;
      try {
        rc = await sh.processInput(text, async (l) => { const r = await metaCommand(sh, l); await sh.afterCommand(); return r; });
      } finally {
        sh.depth--;
      }
      if (rc === 2) return 2;
      break;
    }
    case 'once':
    case 'output': {
      const rest = args.slice(1).filter((a) => a !== '--bom');
      if (rest.some((a) => a === '-e' || a === '-x')) refuse('excel');
      await sh.endRedirect();
      if (rest.length === 0 || (name === 'output' && rest[0] === 'stdout')) {
        if (name === 'once') return fail('Usage: .once FILE\n');
        break;
      }
      if (rest.length > 1) return fail(`ERROR: extra parameter: "${rest[1]}".  Usage:\n.${name} ?FILE?\n`);
      const file = zoneFile(name, rest[0]!);
      if (sh.ctx.fs.policy.readonly) throw new NoshError('ZONE_READONLY', `${file}: the zone is read-only`, 'Leave out .output/.once: the output comes back in stdout.');
      sh.ctx.fs.resolve(file, sh.ctx.cwd);
      sh.redirect = { path: file, once: name === 'once', chunks: [] };
      sh.onceFresh = name === 'once';
      return 0;
    }
    case 'open': {
      const rest = args.slice(1).filter((a) => !a.startsWith('-'));
      if (args.slice(1).some((a) => a.startsWith('-') && a !== '--new' && a !== '--readonly')) {
        throw new NoshError('COMMAND_FORBIDDEN', `sqlite3: .open ${args.slice(1).join(' ')}: only a database file of the zone may be opened`,
          'Use .open FILE (or .open --readonly FILE) with a file of the zone.', { command: '.open' });
      }
      if (rest.length > 1) return fail(`Error: extra argument: "${rest[1]}"\n`);
      const file = rest[0] ?? ':memory:';
      if (file.startsWith('file:')) {
        throw new NoshError('COMMAND_FORBIDDEN', 'sqlite3: .open of a URI filename is not available', 'Use .open FILE with a file of the zone.', { command: '.open' });
      }
      if (file !== ':memory:') sh.ctx.fs.resolve(file, sh.ctx.cwd);
      await sh.reopen(file, args.includes('--readonly'));
      if (args.includes('--new') && file !== ':memory:') await (await sh.db()).resetEmpty();
      break;
    }
    case 'backup':
    case 'save': {
      const rest = args.slice(1).filter((a) => !a.startsWith('-'));
      if (rest.length < 1 || rest.length > 2) return fail('Usage: .backup ?DB? FILENAME\n');
      const file = zoneFile(name, rest[rest.length - 1]!);
      const schemaName = rest.length === 2 ? rest[0]! : 'main';
      const s = await sh.db();
      try {
        const bytes = await s.vacuumCopy(schemaName);
        s.writeZoneFile(file, bytes, false);
      } catch (e) {
        if (e instanceof NoshError || (e instanceof Error && 'errno' in e)) throw e;
        return fail(`Error: ${messageOf(e)}\n`);
      }
      break;
    }
    case 'restore': {
      const rest = args.slice(1);
      if (rest.length < 1 || rest.length > 2) return fail('Usage: .restore ?DB? FILE\n');
      if (rest.length === 2 && rest[0] !== 'main') return fail(`Error: unknown database ${rest[0]}\n`);
      const file = zoneFile(name, rest[rest.length - 1]!);
      try {
        await (await sh.db()).restoreFrom(file);
      } catch (e) {
        if (e instanceof NoshError || (e instanceof Error && 'errno' in e)) throw e;
        return fail(`Error: ${messageOf(e)}\n`);
      }
      break;
    }
    default:
      return fail(`Error: unknown command or invalid arguments:  "${args[0]}". Enter ".help" for help\n`);
  }
  return rc;
}

