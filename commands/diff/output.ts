/**
 * diff's output formats, as GNU diffutils 3.8 prints them: normal, unified (-u), context
 * (-c) and side by side (-y). Lines are latin1 strings (one character a byte).
 */
import type { Change } from '../../src/gnulib/diffseq.js';
import { analyzeHunk, groupHunks, type DiffOptions, type TextFile } from './lines.js';

export interface Style {
  kind: 'normal' | 'unified' | 'context' | 'side';
  context: number;
  width: number;
  leftColumn: boolean;
  suppressCommon: boolean;
}

const NO_NEWLINE = '\\ No newline at end of file\n';

/** One line with its newline, or GNU's marker after an incomplete last line. */
function lineText(f: TextFile, i: number): string {
  const incomplete = f.missingNewline && i === f.lines.length - 1;
  return f.lines[i]! + '\n' + (incomplete ? NO_NEWLINE : '');
}

function ignorableOf(f0: TextFile, f1: TextFile, o: DiffOptions): (c: Change) => boolean {
  if (!o.ignoreBlank) return () => false;
  return (c) => {
    const h = analyzeHunk([c], f0, f1, o);
    return !h.old && !h.new;
  };
}

/** Whether any hunk shows (with -B, a script of blank lines only is no difference). */
export function hasChanges(script: readonly Change[], f0: TextFile, f1: TextFile, o: DiffOptions): boolean {
  if (!o.ignoreBlank) return script.length > 0;
  return script.some((c) => {
    const h = analyzeHunk([c], f0, f1, o);
    return h.old || h.new;
  });
}

function normalRange(a: number, b: number): string {
  // a, b 1-origin inclusive; an empty range prints the line before
  return b <= a ? String(b) : `${a},${b}`;
}

export function formatNormal(script: readonly Change[], f0: TextFile, f1: TextFile, o: DiffOptions): string {
  let out = '';
  for (const c of script) {
    const h = analyzeHunk([c], f0, f1, o);
    if (!h.old && !h.new) continue;
    const op = !h.old ? 'a' : !h.new ? 'd' : 'c';
    out += normalRange(h.first0 + 1, h.last0 + 1) + op + normalRange(h.first1 + 1, h.last1 + 1) + '\n';
    if (h.old) for (let i = h.first0; i <= h.last0; i++) out += '< ' + lineText(f0, i);
    if (h.old && h.new) out += '---\n';
    if (h.new) for (let i = h.first1; i <= h.last1; i++) out += '> ' + lineText(f1, i);
  }
  return out;
}

function unifiedRange(a: number, b: number): string {
  // 0-origin first and last
  const ta = a + 1;
  const tb = b + 1;
  if (tb <= ta) return tb < ta ? `${tb},0` : `${tb}`;
  return `${ta},${tb - ta + 1}`;
}

function contextRange(a: number, b: number): string {
  const ta = a + 1;
  const tb = b + 1;
  return tb <= ta ? `${tb}` : `${ta},${tb}`;
}

export function formatContext(script: readonly Change[], f0: TextFile, f1: TextFile, o: DiffOptions, style: Style, header: [string, string]): string {
  const unified = style.kind === 'unified';
  const ctx = style.context;
  let out = '';
  let headerDone = false;
  for (const hunk of groupHunks(script, ctx, ignorableOf(f0, f1, o))) {
    const h = analyzeHunk(hunk, f0, f1, o);
    if (!h.old && !h.new) continue;
    if (!headerDone) {
      out += unified ? `--- ${header[0]}\n+++ ${header[1]}\n` : `*** ${header[0]}\n--- ${header[1]}\n`;
      headerDone = true;
    }
    const first0 = Math.max(h.first0 - ctx, 0);
    const first1 = Math.max(h.first1 - ctx, 0);
    const last0 = h.last0 < f0.lines.length - ctx ? h.last0 + ctx : f0.lines.length - 1;
    const last1 = h.last1 < f1.lines.length - ctx ? h.last1 + ctx : f1.lines.length - 1;
    if (unified) {
      out += `@@ -${unifiedRange(first0, last0)} +${unifiedRange(first1, last1)} @@\n`;
      let k = 0;
      let i = first0;
      let j = first1;
      while (i <= last0 || j <= last1) {
        const next = hunk[k];
        if (!next || i < next.line0) {
          out += ' ' + lineText(f0, i);
          i++;
          j++;
        } else {
          for (let n = 0; n < next.deleted; n++) out += '-' + lineText(f0, i++);
          for (let n = 0; n < next.inserted; n++) out += '+' + lineText(f1, j++);
          k++;
        }
      }
    } else {
      out += `***************\n*** ${contextRange(first0, last0)} ****\n`;
      if (h.old) {
        let k = 0;
        for (let i = first0; i <= last0; i++) {
          while (hunk[k] && hunk[k]!.line0 + hunk[k]!.deleted <= i) k++;
          const n = hunk[k];
          const prefix = n && n.line0 <= i ? (n.inserted > 0 ? '!' : '-') : ' ';
          out += prefix + ' ' + lineText(f0, i);
        }
      }
      out += `--- ${contextRange(first1, last1)} ----\n`;
      if (h.new) {
        let k = 0;
        for (let j = first1; j <= last1; j++) {
          while (hunk[k] && hunk[k]!.line1 + hunk[k]!.inserted <= j) k++;
          const n = hunk[k];
          const prefix = n && n.line1 <= j ? (n.deleted > 0 ? '!' : '+') : ' ';
          out += prefix + ' ' + lineText(f1, j);
        }
      }
    }
  }
  return out;
}

/** Side by side (-y): GNU's column arithmetic with tabs of 8. */
export function formatSide(script: readonly Change[], f0: TextFile, f1: TextFile, o: DiffOptions, style: Style): string {
  const tab = 8;
  const w = style.width;
  const tPlusG = tab + 3;
  const unaligned = (w >> 1) + (tPlusG >> 1) + (w & tPlusG & 1);
  const off = unaligned - (unaligned % tab);
  const half = Math.max(0, Math.min(off - 3, w - off));
  const col2 = half ? off : w;
  let out = '';
  /** print_half_line: expand tabs to the column, cut at half width; returns the column reached. */
  const half_ = (s: string, limit: number): [string, number] => {
    let col = 0;
    let r = '';
    for (const ch of s) {
      if (ch === '\t') {
        const to = Math.min(limit, col + tab - (col % tab));
        if (to <= col) break;
        r += '\t';
        col = col + tab - (col % tab);
        if (col > limit) col = limit;
        continue;
      }
      if (ch === '\r' || ch === '\b' || ch === '\v' || ch === '\f' || ch === '\0' || ch === '\x07') {
        if (ch === '\b') {
          if (col > 0) col--;
        } else if (ch === '\r') col = 0;
        r += ch;
        continue;
      }
      const printable = ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) < 0x7f;
      if (printable) {
        if (col + 1 > limit) break;
        col++;
      }
      r += ch;
    }
    return [r, col];
  };
  const tabTo = (from: number, to: number): string => {
    let s = '';
    let c = from;
    while (c < to) {
      const next = c + tab - (c % tab);
      if (next <= to) {
        s += '\t';
        c = next;
      } else {
        s += ' ';
        c++;
      }
    }
    return s;
  };
  const line = (left: string | undefined, sep: string, right: string | undefined): void => {
    let col = 0;
    let s = '';
    if (left !== undefined) {
      const [t, c] = half_(left, half);
      s += t;
      col = c;
    }
    if (sep !== ' ' || right !== undefined) {
      s += tabTo(col, (w - 3 >> 1) === -1 ? 0 : half) ;
      col = half;
    }
    if (sep === ' ' && right === undefined) {
      out += s + '\n';
      return;
    }
    s += ' ' + sep;
    col += 2;
    if (right !== undefined && right !== '') {
      s += tabTo(col, col2);
      s += half_(right, w - col2)[0];
    }
    out += s + '\n';
  };
  let i = 0;
  let j = 0;
  const common = (n: number) => {
    for (let k = 0; k < n; k++, i++, j++) {
      if (style.suppressCommon) continue;
      if (style.leftColumn) line(f0.lines[i]!, '(', undefined);
      else line(f0.lines[i]!, ' ', f1.lines[j]!);
    }
  };
  for (const c of script) {
    common(c.line0 - i);
    const h = analyzeHunk([c], f0, f1, o);
    const ignored = !h.old && !h.new;
    const both = Math.min(c.deleted, c.inserted);
    for (let k = 0; k < both; k++) line(f0.lines[i++]!, ignored ? ' ' : '|', f1.lines[j++]!);
    for (let k = both; k < c.deleted; k++) line(f0.lines[i++]!, ignored ? ' ' : '<', undefined);
    for (let k = both; k < c.inserted; k++) line(undefined, ignored ? ' ' : '>', f1.lines[j++]!);
  }
  common(f0.lines.length - i);
  return out;
}
