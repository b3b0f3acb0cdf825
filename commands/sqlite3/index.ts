// sqlite3 (the SQLite 3.40 command-line shell) on a database file of the zone, run by sql.js
// (SQLite in WebAssembly) inside the worker: output modes, dot-commands, errors and exit codes
// as the shell's; .shell, .system, .load, load_extension() and files outside the zone refused.
import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { Shell } from './shell.js';
import { metaCommand } from './dot.js';

const WITH_ARG = new Set(['separator', 'newline', 'nullvalue', 'cmd', 'init', 'vfs', 'heap', 'lookaside', 'pagecache', 'mmap', 'maxsize']);
const IGNORED = new Set(['batch', 'interactive', 'safe', 'nofollow', 'stats', 'scanstats', 'memtrace', 'pcachetrace', 'lookaside', 'heap', 'pagecache', 'mmap', 'maxsize', 'vfs']);
const MODE_FLAGS = new Set(['html', 'list', 'quote', 'line', 'column', 'json', 'markdown', 'table', 'box', 'csv', 'ascii', 'tabs']);
const REFUSED = new Set(['append', 'deserialize', 'zip', 'A', 'sorterref', 'utf8']);

export const VERSION = '3.40.1 2022-12-28 14:03:47 df5c253c0b3dd24916e4ec7cf77d3db5294cc9fd45ae7b9c5e82ad8197f3alt1';

type Item = { opt: string; value?: string };

/** The shell's two passes over argv: options anywhere, the first other word is FILE, the rest SQL. */
function parseArgv(args: string[]): { items: Item[]; file?: string; sql: string[] } | { error: string } {
  const items: Item[] = [];
  let file: string | undefined;
  const sql: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-') || a === '-') {
      if (file === undefined) file = a;
      else sql.push(a);
      continue;
    }
    const opt = a.startsWith('--') ? a.slice(2) : a.slice(1);
    if (WITH_ARG.has(opt)) {
      if (i === args.length - 1) return { error: `sqlite3: Error: missing argument to ${a}\n` };
      items.push({ opt, value: args[++i]! });
      continue;
    }
    if (MODE_FLAGS.has(opt) || IGNORED.has(opt) || REFUSED.has(opt) || ['header', 'noheader', 'echo', 'bail', 'readonly', 'version', 'help'].includes(opt)) {
      items.push({ opt });
      continue;
    }
    return { error: `sqlite3: Error: unknown option: ${a}\nUse -help for a list of options.\n` };
  }
  return { items, file, sql };
}

export default defineCommand({
  name: 'sqlite3',
  summary: 'Run SQL on an SQLite database file of the zone (the sqlite3 shell: modes, dot-commands).',
  usage: '[OPTIONS] FILENAME [SQL...]',
  // A writer (in the zone's write order) whatever its SQL says: a statement, .import or .output
  // may change files, and a change must be committed in a versioned zone and checked against
  // the group's ownership rows like any other. Writes go back through the Vfs only when a
  // statement changed the database; one changed by another process since it was read is
  // refused (BUSY) rather than overwritten. Read-only zones open databases read-only.
  mutates: true,
  readOnlyMode: true,
  parse: 'raw',
  usageStatus: 1,
  reference: 'SQLite 3.40.1',
  flags: [],
  async run(ctx: CommandContext) {
    const parsed = parseArgv(ctx.args);
    if ('error' in parsed) {
      await ctx.stderr.write(parsed.error);
      return 1;
    }
    const { items, sql } = parsed;
    if (items.some((i) => i.opt === 'version')) {
      await ctx.stdout.write(VERSION + '\n');
      return 0;
    }
    if (items.some((i) => i.opt === 'help')) {
      await ctx.stderr.write(`Usage: sqlite3 [OPTIONS] FILENAME [SQL]\nFILENAME is the name of an SQLite database. A new database is created\nif the file does not previously exist.\n`);
      return 1;
    }
    for (const i of items) {
      if (REFUSED.has(i.opt) || i.opt === 'vfs') {
        const { NoshError } = await import('../../src/errors.js');
        throw new NoshError('COMMAND_FORBIDDEN', `sqlite3: -${i.opt} is not available in nosh`,
          'Open a plain database file of the zone: sqlite3 FILE.db \'SQL\'.', { option: `-${i.opt}` });
      }
    }
    const readonly = items.some((i) => i.opt === 'readonly') || !!ctx.limits.sqliteReadonly;
    const sh = new Shell(ctx, { dbPath: parsed.file ?? ':memory:', readonly, maxDatabaseBytes: ctx.limits.maxDatabaseBytes });
    const meta = (line: string) => metaCommand(sh, line);
    let rc = 0;
    try {
      for (const it of items) {
        const st = sh.st;
        switch (it.opt) {
          case 'html': case 'line': case 'column': case 'json': case 'markdown': case 'table': case 'box':
            st.mode = it.opt; break;
          case 'list': st.mode = 'list'; break;
          case 'quote': st.mode = 'quote'; st.colSep = ','; st.rowSep = '\n'; break;
          case 'csv': st.mode = 'csv'; st.colSep = ','; break;
          case 'ascii': st.mode = 'ascii'; st.colSep = '\x1f'; st.rowSep = '\x1e'; break;
          case 'tabs': st.mode = 'list'; st.colSep = '\t'; break;
          case 'separator': st.colSep = it.value!; break;
          case 'newline': st.rowSep = it.value!; break;
          case 'nullvalue': st.nullValue = it.value!; break;
          case 'header': st.showHeader = true; break;
          case 'noheader': st.showHeader = false; break;
          case 'echo': sh.echo = true; break;
          case 'bail': sh.bail = true; break;
          case 'init': {
            const r = await meta(`.read '${it.value!.replace(/'/g, '')}'`);
            if (r === 2) return 0;
            break;
          }
          case 'cmd': {
            const z = it.value!;
            if (z.startsWith('.')) {
              const r = await meta(z);
              await sh.afterCommand();
              if (r && sh.bail) return r === 2 ? 0 : r;
            } else {
              const { rc: r, err } = await sh.exec(z);
              if (err !== null) {
                await sh.err(`Error: ${err}\n`);
                if (sh.bail) return r !== 0 ? r : 1;
              } else if (r !== 0) {
                await sh.err(`Error: unable to process SQL "${z}"\n`);
                if (sh.bail) return r;
              }
            }
            break;
          }
          default: break;
        }
      }
      if (sql.length > 0) {
        for (const z of sql) {
          if (z.startsWith('.')) {
            const r = await meta(z);
            await sh.afterCommand();
            if (r) { rc = r === 2 ? 0 : r; break; }
          } else {
            const r = await sh.runArg(z);
            if (r) { rc = r; break; }
          }
        }
      } else {
        const text = (await ctx.stdin.readAll()).toString('utf8');
        const r = await sh.processInput(text, async (line) => {
          const x = await meta(line);
          await sh.afterCommand();
          return x;
        });
        rc = r === 2 ? 0 : r;
      }
      await sh.endRedirect();
      sh.finish();
    } catch (e) {
      sh.discard();
      throw e;
    }
    return rc;
  },
});
