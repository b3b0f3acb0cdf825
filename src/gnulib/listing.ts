/**
 * Helpers shared by listing commands (ls, stat, tree): symlink targets and what they
 * point to, without ever following a symlink the zone policy does not follow.
 */
import type { Stats } from 'node:fs';
import type { Vfs } from '../vfs/index.js';
import { joinPath } from './format.js';

const MAX_HOPS = 40;

/** Parent directory of a path as written ('a' -> '.', 'd/x' -> 'd', '/x' -> '/'). */
export function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const i = trimmed.lastIndexOf('/');
  if (i < 0) return '.';
  if (i === 0) return '/';
  return trimmed.slice(0, i);
}

/** A symlink's target text (masked by the Vfs when it leaves the zone); null when unreadable. */
export function linkText(vfs: Vfs, path: string, cwd: string): string | null {
  try {
    return vfs.readlink(path, cwd);
  } catch {
    return null;
  }
}

/**
 * What a symlink points to, for display only (ls -l/-F, tree, stat %F of the target):
 * the stat of the final target inside the zone, or null when dangling, outside the zone
 * or not resolvable (a target written with a trailing '/' that is not a directory is
 * ENOTDIR, as for the kernel). Only metadata is read; nothing is opened through the link.
 */
export function linkTargetStat(vfs: Vfs, path: string, cwd: string): Stats | null {
  try {
    let cur = path;
    let needDir = false;
    for (let i = 0; i < MAX_HOPS; i++) {
      const r = vfs.resolveExisting(cur, cwd);
      if (!r.stat.isSymbolicLink()) return needDir && !r.stat.isDirectory() ? null : r.stat;
      const target = vfs.readlink(cur, cwd);
      if (target === '(outside the zone)') return null;
      needDir ||= target.endsWith('/');
      cur = target.startsWith('/') ? target : joinPath(parentOf(r.vpath), target);
    }
  } catch {
    return null;
  }
  return null;
}

/** One name of a listing as printed: its text and its width on a terminal (printable bytes in the C locale). */
export interface Cell {
  text: string;
  width: number;
}

/** GNU ls indent(): spaces from FROM to TO, a tab instead whenever one reaches a tab stop (TABSIZE 0: spaces only). */
function indent(from: number, to: number, tabsize: number): string {
  let s = '';
  while (from < to) {
    if (tabsize !== 0 && Math.floor(to / tabsize) > Math.floor((from + 1) / tabsize)) {
      s += '\t';
      from += tabsize - (from % tabsize);
    } else {
      s += ' ';
      from++;
    }
  }
  return s;
}

const MIN_COLUMN_WIDTH = 3;

/**
 * GNU ls calculate_columns(): the most columns whose widths (each the widest name in it plus
 * 2, the last without) keep a line shorter than LINE_LENGTH (0: no limit), and those widths.
 */
function calculateColumns(widths: number[], byColumns: boolean, lineLength: number): number[] {
  const n = widths.length;
  if (lineLength === 0) return widths.map((w, i) => Math.max(MIN_COLUMN_WIDTH, w + (i === n - 1 ? 0 : 2)));
  const maxIdx = Math.floor(lineLength / MIN_COLUMN_WIDTH) + (lineLength % MIN_COLUMN_WIDTH !== 0 ? 1 : 0);
  const maxCols = maxIdx > 0 && maxIdx < n ? maxIdx : n;
  // Column widths default to MIN_COLUMN_WIDTH (sparse arrays: a wide -w costs only what it touches).
  const info = Array.from({ length: maxCols }, (_, i) => ({ i, lineLen: (i + 1) * MIN_COLUMN_WIDTH, arr: [] as number[], valid: true }));
  let live = info.slice();
  for (let f = 0; f < n; f++) {
    let dropped = false;
    for (const c of live) {
      const i = c.i;
      const idx = byColumns ? Math.floor(f / Math.floor((n + i) / (i + 1))) : f % (i + 1);
      const real = widths[f]! + (idx === i ? 0 : 2);
      const cur = c.arr[idx] ?? MIN_COLUMN_WIDTH;
      if (cur < real) {
        c.lineLen += real - cur;
        c.arr[idx] = real;
        c.valid = c.lineLen < lineLength;
        if (!c.valid) dropped = true;
      }
    }
    if (dropped) live = live.filter((c) => c.valid);
  }
  let cols = maxCols;
  while (cols > 1 && !info[cols - 1]!.valid) cols--;
  const arr = info[cols - 1]!.arr;
  return Array.from({ length: cols }, (_, j) => arr[j] ?? MIN_COLUMN_WIDTH);
}

/** ls -C (byColumns: sorted down the columns) and -x (across the lines), GNU's layout byte for byte. */
export function columnsLayout(cells: Cell[], byColumns: boolean, lineLength: number, tabsize: number): string {
  const n = cells.length;
  if (n === 0) return '';
  const colArr = calculateColumns(cells.map((c) => c.width), byColumns, lineLength);
  const cols = colArr.length;
  const out: string[] = [];
  if (byColumns) {
    const rows = Math.floor(n / cols) + (n % cols !== 0 ? 1 : 0);
    for (let row = 0; row < rows; row++) {
      let col = 0;
      let filesno = row;
      let pos = 0;
      for (;;) {
        const f = cells[filesno]!;
        const max = colArr[col++]!;
        out.push(f.text);
        if (n - rows <= filesno) break;
        filesno += rows;
        out.push(indent(pos + f.width, pos + max, tabsize));
        pos += max;
      }
      out.push('\n');
    }
  } else {
    let pos = 0;
    let prev = cells[0]!;
    let max = colArr[0]!;
    out.push(prev.text);
    for (let filesno = 1; filesno < n; filesno++) {
      const col = filesno % cols;
      if (col === 0) {
        out.push('\n');
        pos = 0;
      } else {
        out.push(indent(pos + prev.width, pos + max, tabsize));
        pos += max;
      }
      prev = cells[filesno]!;
      out.push(prev.text);
      max = colArr[col]!;
    }
    out.push('\n');
  }
  return out.join('');
}

/**
 * ls -m: names separated by ", ", a line broken before a name that would reach LINE_LENGTH
 * (0: never). GNU's print_with_separator, also what -C and -x print with -w 0 (SEP ' ').
 */
export function commasLayout(cells: Cell[], lineLength: number, sep = ','): string {
  if (cells.length === 0) return '';
  const out: string[] = [];
  let pos = 0;
  cells.forEach((f, i) => {
    const len = lineLength ? f.width : 0;
    if (i !== 0) {
      if (!lineLength || pos + len + 2 < lineLength) {
        pos += 2;
        out.push(sep + ' ');
      } else {
        pos = 0;
        out.push(sep + '\n');
      }
    }
    out.push(f.text);
    pos += len;
  });
  out.push('\n');
  return out.join('');
}
