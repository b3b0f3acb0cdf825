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
  const incomplete = f.missingNewline && i === f.count - 1;
  return f.line(i) + '\n' + (incomplete ? NO_NEWLINE : '');
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
    const last0 = h.last0 < f0.count - ctx ? h.last0 + ctx : f0.count - 1;
    const last1 = h.last1 < f1.count - ctx ? h.last1 + ctx : f1.count - 1;
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

/** Side by side (-y): GNU's side.c, tabs of 8 kept as tabs. */
export function formatSide(script: readonly Change[], f0: TextFile, f1: TextFile, o: DiffOptions, style: Style): string {
  const ts = 8;
  const w = style.width;
  const tPlusG = ts + 3;
  const unaligned = (w >> 1) + (tPlusG >> 1) + (w & tPlusG & 1);
  const off = unaligned - (unaligned % ts);
  const hw = Math.max(0, Math.min(off - 3, w - off));
  const c2o = hw ? off : w;
  let out = '';
  const tabFromTo = (from: number, to: number): number => {
    for (let tab = from + ts - (from % ts); tab <= to; tab += ts) {
      out += '\t';
      from = tab;
    }
    while (from++ < to) out += ' ';
    return to;
  };
  const halfLine = (text: string, indent: number, bound: number): number => {
    let inPos = 0;
    let outPos = 0;
    for (const c of text) {
      const code = c.charCodeAt(0);
      if (c === '\t') {
        const tabstop = inPos + ts - (inPos % ts);
        if (inPos === outPos && tabstop < bound) {
          outPos = tabstop;
          out += c;
        }
        inPos = tabstop;
      } else if (c === '\r') {
        out += c;
        tabFromTo(0, indent);
        inPos = outPos = 0;
      } else if (c === '\b') {
        if (inPos !== 0 && --inPos < bound) {
          if (outPos <= inPos) for (; outPos < inPos; outPos++) out += ' ';
          else {
            outPos = inPos;
            out += c;
          }
        }
      } else {
        if ((code >= 0x20 && code < 0x7f) || code >= 0x80) inPos++;
        if (inPos <= bound) {
          if ((code >= 0x20 && code < 0x7f) || code >= 0x80) outPos = inPos;
          out += c;
        }
      }
    }
    return outPos;
  };
  const hasNl = (f: TextFile, i: number) => !(f.missingNewline && i === f.count - 1);
  const line1 = (l: number | undefined, sep: string, r: number | undefined): void => {
    let col = 0;
    let nl = false;
    if (l !== undefined) {
      nl ||= hasNl(f0, l);
      col = halfLine(f0.line(l), 0, hw);
    }
    if (sep !== ' ') {
      col = tabFromTo(col, (hw + c2o - 1) >> 1) + 1;
      if (sep === '|' && nl !== hasNl(f1, r!)) sep = nl ? '/' : '\\';
      out += sep;
    }
    if (r !== undefined) {
      nl ||= hasNl(f1, r);
      if (f1.line(r) !== '' || !hasNl(f1, r)) {
        col = tabFromTo(col, c2o);
        halfLine(f1.line(r), col, hw);
      }
    }
    if (nl) out += '\n';
  };
  let next0 = 0;
  let next1 = 0;
  const common = (limit0: number, limit1: number) => {
    let i0 = next0;
    let i1 = next1;
    if (!style.suppressCommon && (i0 !== limit0 || i1 !== limit1)) {
      if (!style.leftColumn) {
        while (i0 !== limit0 && i1 !== limit1) line1(i0++, ' ', i1++);
        while (i1 !== limit1) line1(undefined, ')', i1++);
      }
      while (i0 !== limit0) line1(i0++, '(', undefined);
    }
    next0 = limit0;
    next1 = limit1;
  };
  for (const c of script) {
    const h = analyzeHunk([c], f0, f1, o);
    if (!h.old && !h.new) continue;
    let { first0, first1 } = h;
    common(first0, first1);
    let old = h.old;
    let neu = h.new;
    if (old && neu) {
      let i = first0;
      let j = first1;
      for (; i <= h.last0 && j <= h.last1; i++, j++) line1(i, '|', j);
      old = i <= h.last0;
      neu = j <= h.last1;
      next0 = first0 = i;
      next1 = first1 = j;
    }
    if (neu) {
      let j = first1;
      for (; j <= h.last1; ++j) line1(undefined, '>', j);
      next1 = j;
    }
    if (old) {
      let i = first0;
      for (; i <= h.last0; ++i) line1(i, '<', undefined);
      next0 = i;
    }
  }
  common(f0.count, f1.count);
  return out;
}
