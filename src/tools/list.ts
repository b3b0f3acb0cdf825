import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';
import { Glob, isoTime, walk, PAGE_CURSOR, type WalkEntry } from './common.js';

/** Entries examined at most by one recursive listing. */
const SCAN_CAP = 200_000;

const Input = z.object({
  path: z.string().min(1).optional().describe('Folder to list (default: the working directory).'),
  pattern: z.string().min(1).optional().describe("Glob filter, e.g. '*.ts' (matches names) or 'src/**/*.test.ts' (matches paths relative to the folder)."),
  recursive: z.boolean().optional().describe('List everything below the folder, not only its direct entries.'),
  hidden: z.boolean().optional().describe('Include names starting with a dot (default false).'),
  details: z.boolean().optional().describe('Also give each entry its size (bytes) and mtime (ISO time). Default false: name and type only.'),
  sort: z.enum(['name', 'size', 'mtime']).optional().describe('Order of entries (default name). size and mtime sort largest/newest first (and give size and mtime as details does).'),
  reverse: z.boolean().optional().describe('Reverse the order.'),
  limit: z.number().int().min(1).max(10_000).optional().describe('Entries per page (default 500).'),
  cursor: z.string().optional().describe('next_cursor from the previous page, to get the following entries.'),
}).strict();

export default defineTool({
  name: 'list',
  description: 'List a folder: name (path relative to the folder when recursive) and type; size and mtime with details. Glob pattern filter, ' +
    'recursive, hidden files, sort by name/size/mtime, paging with limit and next_cursor. For a quick overview of a ' +
    'project use tree; to locate files by name use find.',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run(ctx, args) {
    const dir = args.path ?? '.';
    const base = ctx.fs.resolveExisting(dir, ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks });
    if (!base.stat.isDirectory()) throw new NoshError('NOT_A_DIRECTORY', `list: ${base.vpath} is not a folder`, 'Use stat for one file, or list its parent folder.', { path: base.vpath });
    let offset = 0;
    if (args.cursor !== undefined) {
      const m = PAGE_CURSOR.exec(args.cursor);
      if (!m) throw new NoshError('INVALID_ARGUMENT', 'list: bad cursor', 'Pass next_cursor exactly as the previous page returned it.');
      offset = Number(m[1]);
    }
    const glob = new Glob(args.pattern ? [args.pattern] : [], 'pattern');
    const sort = args.sort ?? 'name';
    const limit = args.limit ?? 500;
    // Sizes and times only when asked for (details, or an order by them): names and types come
    // from the folder's listing (readdir's d_type), with no stat per entry.
    const stats = !!args.details || sort !== 'name';
    // Not recursive and sorted by name: the walk yields the rows in their final order (its
    // name order is cmp's), so only the page's rows are stat'ed; the others are not returned.
    const pageOnly = sort === 'name' && !args.recursive && !args.reverse;
    // mtime stays a number until the page is cut: formatting it costs more than the lstat.
    const rows: { name: string; type: WalkEntry['type']; size: number | null; mtime: number | null }[] = [];
    let scanned = 0;
    let incomplete = false;
    walk(ctx.fs, base.vpath, '/', {
      maxDepth: args.recursive ? Infinity : 1,
      hidden: !!args.hidden,
      signal: ctx.signal,
      visit(e) {
        if (++scanned > SCAN_CAP) { incomplete = true; return false; }
        if (!glob.empty && !glob.matches(e.rel)) return;
        let st: { size: number; mtimeMs: number } | null = null;
        const row = rows.length;
        if (stats && (!pageOnly || (row >= offset && row < offset + limit))) {
          try {
            st = ctx.fs.lstatAt(e.dir, e.name);
          } catch { /* vanished or swapped meanwhile */ }
        }
        rows.push({ name: e.rel, type: e.type, size: st ? st.size : null, mtime: st ? st.mtimeMs : null });
      },
    });
    rows.sort((a, b) => {
      if (sort === 'size') return (b.size ?? 0) - (a.size ?? 0) || cmp(a.name, b.name);
      if (sort === 'mtime') return (b.mtime ?? -Infinity) - (a.mtime ?? -Infinity) || cmp(a.name, b.name);
      return cmp(a.name, b.name);
    });
    if (args.reverse) rows.reverse();
    const page = rows.slice(offset, offset + limit).map((r) => (stats ? { ...r, mtime: r.mtime === null ? null : isoTime(r.mtime) } : { name: r.name, type: r.type }));
    const next = offset + limit < rows.length ? `o:${offset + limit}` : null;
    return {
      data: { path: base.vpath, entries: page, total: rows.length, next_cursor: next, ...(incomplete ? { incomplete: true } : {}) },
      message: `${page.length} of ${rows.length} entries` + (next ? `; more with cursor '${next}'` : '') + (incomplete ? `; stopped after ${SCAN_CAP} entries (narrow the folder or pattern)` : ''),
    };
  },
});

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
