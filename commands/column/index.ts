import { defineCommand, OptionError, type CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { OutBuffer } from '../../src/gnulib/text-lines.js';

/**
 * util-linux column 2.38.1 in the C locale, output not a terminal (80 columns unless -c).
 * Fill modes (columns first, -x rows first) pad with tabs as column does; -t builds a table
 * (libsmartcols: every column as wide as its widest cell or name, the last visible one not
 * padded; a table wider than -c is not shrunk, as libsmartcols does without -T/-W); -J
 * prints it as JSON. A byte >= 0x80 is not a character in the C locale: it is shown as
 * `\xHH` (4 columns), as column does. Input is held whole (bounded by maxBufferBytes).
 * Not offered: -T, -W, -E (truncation and wrapping), -e (no pages), -r/-i/-p (trees).
 */
export default defineCommand({
  name: 'column',
  summary: 'Columnate lists.',
  usage: '[options] [<file>...]',
  mutates: false,
  usageStatus: 1,
  reference: 'util-linux 2.38.1',
  flags: [
    { key: 't', short: 't', long: 'table', help: 'create a table' },
    { key: 'n', short: 'n', long: 'table-name', kind: 'string', arg: '<name>', help: 'table name for JSON output' },
    { key: 'O', short: 'O', long: 'table-order', kind: 'string', arg: '<columns>', help: 'specify order of output columns' },
    { key: 'N', short: 'N', long: 'table-columns', kind: 'string', arg: '<names>', help: 'comma separated columns names' },
    { key: 'H', short: 'H', long: 'table-hide', kind: 'string', arg: '<columns>', help: "don't print the columns" },
    { key: 'R', short: 'R', long: 'table-right', kind: 'string', arg: '<columns>', help: 'right align text in these columns' },
    { key: 'J', short: 'J', long: 'json', help: 'use JSON output format for table' },
    { key: 'c', short: 'c', long: 'output-width', kind: 'string', arg: '<width>', parse: parseWidth, help: 'width of output in number of characters' },
    { key: 'c', long: 'columns', kind: 'string', arg: '<width>', parse: parseWidth, help: 'same as --output-width (deprecated)' },
    { key: 'o', short: 'o', long: 'output-separator', kind: 'string', arg: '<string>', help: 'columns separator for table output (default is two spaces)' },
    { key: 's', short: 's', long: 'separator', kind: 'string', arg: '<string>', help: 'possible table delimiters' },
    { key: 'x', short: 'x', long: 'fillrows', help: 'fill rows before columns' },
    { key: 'help', short: 'h', help: 'display this help' },
    { key: 'version', short: 'V', help: 'display version' },
  ],
  gnuLongOptions: ['columns', 'fillrows', 'help', 'json', 'output-separator', 'output-width', 'separator', 'table', 'table-columns',
    'table-hide', 'table-name', 'table-noextreme', 'table-order', 'table-right', 'table-truncate', 'table-wrap', 'table-header-repeat',
    'tree', 'tree-id', 'tree-parent', 'version'],
  async run(ctx) {
    const v = ctx.values;
    let mode: 'cols' | 'rows' | 'table' = 'cols';
    // util-linux's exclusive groups {J,x} and {t,x}, checked as each option is met.
    const seen = new Set<string>();
    for (const o of ctx.opts.order) {
      for (const [a, b, an] of [['J', 'x', '--json'], ['t', 'x', '--table']] as const) {
        if ((o.key === a && seen.has(b)) || (o.key === b && seen.has(a))) {
          await ctx.warn(`mutually exclusive arguments: ${an} --fillrows`);
          return 1;
        }
      }
      seen.add(o.key);
      if (o.key === 't' || o.key === 'J') mode = 'table';
      else if (o.key === 'x') mode = 'rows';
    }
    const termwidth = v.c ?? 80;
    if (mode !== 'table' && (v.O !== undefined || v.n !== undefined || v.H !== undefined || v.R !== undefined || v.N !== undefined)) {
      await ctx.warn('option --table required for all --table-*');
      return 1;
    }
    const names = v.N !== undefined ? v.N.split(',').filter((s) => s !== '') : null;
    if (!names && v.J) {
      await ctx.warn('option --table-columns required for --json');
      return 1;
    }
    const inSep = v.s ?? '\t ';
    const greedy = v.s === undefined;
    let status = 0;
    const ents: string[] = [];
    const rows: string[][] = [];
    const sources = ctx.operands.length ? ctx.operands : [null];
    for (const name of sources) {
      let data: Buffer;
      try {
        data = name === null ? await ctx.stdin.readAll() : ctx.fs.readFile(name, ctx.cwd);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        if (e.errno === 'EISDIR') {
          await ctx.warn(`read failed: ${e.reason}`);
          return 1;
        }
        await ctx.warn(`${name}: ${e.reason}`);
        status = 1;
        continue;
      }
      const lines = data.toString('latin1').split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      for (const raw of lines) {
        const line = raw.split('\0')[0]!;
        if (!/[^ \t\n\v\f\r]/.test(line)) continue;
        const text = line.replace(/[\x80-\xff]/g, (c) => `\\x${c.charCodeAt(0).toString(16)}`);
        if (mode !== 'table') {
          ents.push(text);
          continue;
        }
        const cells = tokens(text, inSep, greedy);
        if (v.J && names && cells.length > names.length) {
          await ctx.warn(`line ${rows.length + 2}: for JSON the name of the column ${names.length + 1} is required`);
          return 1;
        }
        rows.push(cells);
      }
    }
    const out = new OutBuffer(ctx.stdout);
    if (mode === 'table') {
      if (rows.length) {
        const r = await table(ctx, rows, names, v, out);
        if (r !== 0) return r;
      }
    } else if (ents.length) {
      const maxlength = Math.max(...ents.map(width));
      if (maxlength >= termwidth) for (const e of ents) await out.push(Buffer.from(e + '\n', 'latin1'));
      else await fill(ents, maxlength, termwidth, mode === 'rows', out);
    }
    await out.flush();
    return status;
  },
});

function parseWidth(value: string): number {
  const m = /^[ \t\n\v\f\r]*\+?([0-9]+)$/.exec(value);
  if (!m || Number(m[1]) > 0xffffffff) throw new OptionError(`invalid columns argument: '${value}'`, false);
  return Number(m[1]);
}

/** Display width in the C locale: printable ASCII only (wcwidth of the rest is -1 or 0). */
function width(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) n++;
  }
  return n;
}

/** wcstok (greedy: separators runs are one, leading ones skipped) or column's own strpbrk walk (-s). */
function tokens(s: string, sep: string, greedy: boolean): string[] {
  const isSep = (c: string) => sep.includes(c);
  const out: string[] = [];
  if (greedy) {
    let cur = '';
    for (const c of s) {
      if (isSep(c)) {
        if (cur) out.push(cur);
        cur = '';
      } else cur += c;
    }
    if (cur) out.push(cur);
    return out;
  }
  let cur = '';
  for (const c of s) {
    if (isSep(c)) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  // The state ends after the last separator: an empty field there is not one.
  if (cur || out.length === 0) out.push(cur);
  return out;
}

async function fill(ents: string[], maxlen: number, termwidth: number, byRows: boolean, out: OutBuffer): Promise<void> {
  const TAB = 8;
  const maxlength = (maxlen + TAB) & ~(TAB - 1);
  let numcols = Math.floor(termwidth / maxlength);
  const put = (s: string) => out.push(Buffer.from(s, 'latin1'));
  const pad = (chcnt: number, endcol: number): [string, number] => {
    let s = '';
    let cnt: number;
    while ((cnt = (chcnt + TAB) & ~(TAB - 1)) <= endcol) {
      s += '\t';
      chcnt = cnt;
    }
    return [s, chcnt];
  };
  if (byRows) {
    let chcnt = 0;
    let col = 0;
    let endcol = maxlength;
    for (let i = 0; ; i++) {
      let s = ents[i]!;
      chcnt += width(ents[i]!);
      if (i === ents.length - 1) {
        await put(s);
        break;
      }
      if (++col === numcols) {
        chcnt = col = 0;
        endcol = maxlength;
        s += '\n';
      } else {
        const [p, c] = pad(chcnt, endcol);
        s += p;
        chcnt = c;
        endcol += maxlength;
      }
      await put(s);
    }
    if (chcnt) await put('\n');
    return;
  }
  if (!numcols) numcols = 1;
  const numrows = Math.ceil(ents.length / numcols);
  for (let row = 0; row < numrows; row++) {
    let endcol = maxlength;
    let chcnt = 0;
    let s = '';
    for (let base = row, col = 0; col < numcols; col++) {
      s += ents[base]!;
      chcnt += width(ents[base]!);
      if ((base += numrows) >= ents.length) break;
      const [p, c] = pad(chcnt, endcol);
      s += p;
      chcnt = c;
      endcol += maxlength;
    }
    await put(s + '\n');
  }
}

interface TableValues { n?: string; O?: string; H?: string; R?: string; J?: true; o?: string }

async function table(ctx: CommandContext, rows: string[][], names: string[] | null, v: TableValues, out: OutBuffer): Promise<number> {
  const ncols = Math.max(names?.length ?? 0, ...rows.map((r) => r.length));
  /** A list of column names or numbers: null if a name is unknown (column's error). */
  const columns = async (list: string): Promise<number[] | null> => {
    const res: number[] = [];
    for (const one of list.split(',').filter((s) => s !== '')) {
      if (/^[0-9]+$/.test(one)) {
        res.push(Number(one) - 1);
        continue;
      }
      const i = (names ?? []).findIndex((n) => n.toLowerCase() === one.toLowerCase());
      if (i < 0) {
        await ctx.warn(`undefined column name '${one}'`);
        return null;
      }
      res.push(i);
    }
    return res;
  };
  const right = new Set<number>();
  const hidden = new Set<number>();
  if (v.R !== undefined) {
    const c = await columns(v.R);
    if (!c) return 1;
    c.forEach((i) => right.add(i));
  }
  if (v.H !== undefined) {
    const c = await columns(v.H);
    if (!c) return 1;
    c.forEach((i) => hidden.add(i));
  }
  let order = Array.from({ length: ncols }, (_, i) => i);
  if (v.O !== undefined) {
    const c = await columns(v.O);
    if (!c) return 1;
    // libsmartcols moves each wanted column after the previous one, the first to the front.
    let last = -1;
    for (const w of c) {
      if (w < 0 || w >= ncols) continue;
      const from = order.indexOf(w);
      order.splice(from, 1);
      const at = last < 0 ? 0 : order.indexOf(last) + 1;
      order.splice(at, 0, w);
      last = w;
    }
  }
  const put = (s: string) => out.push(Buffer.from(s, 'latin1'));
  if (v.J) {
    const tab = v.n ?? 'table';
    const keys = names!.map((n) => n.toLowerCase());
    let s = `{\n   ${json(tab)}: [\n`;
    rows.forEach((r, ri) => {
      s += ri === 0 ? '      {\n' : '      },{\n';
      const vis = order.filter((c) => !hidden.has(c));
      vis.forEach((c, k) => {
        const val = r[c];
        s += `         ${json(keys[c] ?? '')}: ${val === undefined ? 'null' : json(val)}${k < vis.length - 1 ? ',' : ''}\n`;
      });
    });
    s += '      }\n   ]\n}\n';
    await put(s);
    return 0;
  }
  const sep = v.o ?? '  ';
  const vis = order.filter((c) => !hidden.has(c));
  const widths = new Array<number>(ncols).fill(0);
  const all = names ? [names, ...rows] : rows;
  for (const r of all) for (let c = 0; c < ncols; c++) widths[c] = Math.max(widths[c]!, width(r[c] ?? ''));
  for (const r of all) {
    let s = '';
    vis.forEach((c, k) => {
      const cell = r[c] ?? '';
      const fillw = Math.max(0, widths[c]! - width(cell));
      const last = k === vis.length - 1;
      if (last && cell === '') s += '';
      else if (right.has(c)) s += ' '.repeat(fillw) + cell;
      else s += cell + (last ? '' : ' '.repeat(fillw));
      if (!last) s += sep;
    });
    await put(s + '\n');
  }
  return 0;
}

function json(s: string): string {
  let r = '"';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch === '"' || ch === '\\') r += '\\' + ch;
    else if (c < 0x20) r += `\\u${c.toString(16).padStart(4, '0')}`;
    else r += ch;
  }
  return r + '"';
}
