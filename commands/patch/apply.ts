/**
 * Applying hunks as GNU patch 2.7 does: each hunk is looked for at its line plus the offset
 * of the hunk before, then at growing offsets (after first, then before), with fuzz 0, 1, 2
 * (context lines left unchecked at its start and end; a hunk with less leading or trailing
 * context than the other side is anchored to the start or end of the file); hunks never
 * apply before the end of the previous one.
 */
import type { Hunk } from './parse.js';

export interface FileText {
  lines: string[];
  missingNewline: boolean;
}

export interface HunkResult {
  /** 0-origin line of the old text where the hunk applied, or -1. */
  where: number;
  fuzz: number;
  offset: number;
  /** Trailing context lines left unchecked (they stay unfrozen: the next hunk may use them). */
  sfz?: number;
}

export class Applier {
  out: string[] = [];
  /** Old lines consumed so far. */
  private frozen = 0;
  lastOffset = 0;
  /** Lines added less lines removed by the hunks applied so far (GNU's out_offset). */
  outOffset = 0;
  outMissingNewline = false;
  constructor(readonly file: FileText, readonly maxFuzz: number) {}

  /** Find where a hunk applies (does not apply it). */
  locate(h: Hunk, only?: number): HunkResult {
    const pat = h.lines.filter((l) => l.t !== '+').map((l) => l.text);
    let prefixCtx = 0;
    while (prefixCtx < h.lines.length && h.lines[prefixCtx]!.t === ' ') prefixCtx++;
    let suffixCtx = 0;
    while (suffixCtx < h.lines.length && h.lines[h.lines.length - 1 - suffixCtx]!.t === ' ') suffixCtx++;
    if (prefixCtx === h.lines.length) suffixCtx = 0;
    const context = Math.max(prefixCtx, suffixCtx);
    const input = this.file.lines;
    const firstGuess = (h.oldCount === 0 ? h.oldStart : h.oldStart - 1) + this.lastOffset;
    for (let fuzz = only ?? 0; fuzz <= (only ?? this.maxFuzz) && fuzz <= context; fuzz++) {
      let pfz = fuzz + prefixCtx - context;
      let sfz = fuzz + suffixCtx - context;
      const atStart = pfz < 0 && h.oldStart <= 1;
      const atEnd = sfz < 0;
      if (pfz < 0) pfz = 0;
      if (sfz < 0) sfz = 0;
      const match = (base: number): boolean => {
        if (base < this.frozen || base + pat.length > input.length) return false;
        if (atStart && pfz === 0 && prefixCtx < context && base !== 0) return false;
        if (atEnd && base + pat.length !== input.length) return false;
        for (let k = pfz; k < pat.length - sfz; k++) if (input[base + k] !== pat[k]) return false;
        // a last line without newline matches only a pattern line marked so (and the reverse)
        const end = base + pat.length === input.length;
        if (pat.length && pat.length - sfz === pat.length && (end && this.file.missingNewline) !== (h.oldNoEol && end)) return false;
        if (pat.length && h.oldNoEol && !end) return false;
        return true;
      };
      const maxPos = input.length - firstGuess - pat.length;
      const maxNeg = firstGuess - this.frozen;
      if (match(firstGuess)) return { where: firstGuess, fuzz, offset: this.lastOffset, sfz };
      for (let off = 1; off <= maxPos || off <= maxNeg; off++) {
        if (off <= maxPos && match(firstGuess + off)) return { where: firstGuess + off, fuzz, offset: this.lastOffset + off, sfz };
        if (off <= maxNeg && match(firstGuess - off)) return { where: firstGuess - off, fuzz, offset: this.lastOffset - off, sfz };
      }
    }
    return { where: -1, fuzz: 0, offset: this.lastOffset };
  }

  /** Apply a located hunk: copy the lines before it, then its new side (fuzzed context from the file). */
  apply(h: Hunk, r: HunkResult): void {
    const input = this.file.lines;
    for (; this.frozen < r.where; this.frozen++) this.out.push(input[this.frozen]!);
    let lastFromInput = false;
    const n = h.lines.length - (r.sfz ?? 0);
    for (let k = 0; k < n; k++) {
      const l = h.lines[k]!;
      if (l.t === ' ') {
        this.out.push(input[this.frozen++]!);
        lastFromInput = true;
      } else if (l.t === '-') this.frozen++;
      else {
        this.out.push(l.text);
        lastFromInput = false;
      }
    }
    this.lastOffset = r.offset;
    this.outOffset += h.newCount - h.oldCount;
    if (this.frozen === input.length) this.outMissingNewline = lastFromInput ? this.file.missingNewline : h.newNoEol;
  }

  /** The patched text: the rest of the file copied. */
  finish(): Buffer {
    const input = this.file.lines;
    let tailNoEol = this.outMissingNewline;
    if (this.frozen < input.length) {
      for (; this.frozen < input.length; this.frozen++) this.out.push(input[this.frozen]!);
      tailNoEol = this.file.missingNewline;
    }
    if (!this.out.length) return Buffer.alloc(0);
    return Buffer.from(this.out.join('\n') + (tailNoEol ? '' : '\n'), 'latin1');
  }
}

export function splitText(data: Buffer): FileText {
  const s = data.toString('latin1');
  if (s === '') return { lines: [], missingNewline: false };
  const missingNewline = !s.endsWith('\n');
  const lines = s.split('\n');
  if (!missingNewline) lines.pop();
  return { lines, missingNewline };
}

function uniRange(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}

/** A rejected hunk as GNU writes it in FILE.rej (unified input: unified; context: context). */
export function rejectText(h: Hunk, format: 'unified' | 'context', offset: number): string {
  const os = h.oldStart + (h.oldCount ? offset : offset);
  const ns = h.newStart + offset;
  if (format === 'unified') {
    let s = `@@ -${uniRange(os, h.oldCount)} +${uniRange(ns, h.newCount)} @@\n`;
    const lastOld = h.lines.reduce((a, l, i) => (l.t !== '+' ? i : a), -1);
    const lastNew = h.lines.reduce((a, l, i) => (l.t !== '-' ? i : a), -1);
    h.lines.forEach((l, i) => {
      // GNU writes a line without newline as it is: no newline, no marker
      const noEol = (i === lastOld && h.oldNoEol && l.t !== '+') || (i === lastNew && h.newNoEol && l.t !== '-');
      s += l.t + l.text + (noEol ? '' : '\n');
    });
    return s;
  }
  const range = (start: number, count: number) => (count <= 1 ? `${count === 0 ? start : start}` : `${start},${start + count - 1}`);
  let s = `***************\n*** ${range(os, h.oldCount)} ****\n`;
  const oldHas = h.lines.some((l) => l.t === '-');
  const newHas = h.lines.some((l) => l.t === '+');
  const mark = (i: number, side: '-' | '+'): string => {
    const l = h.lines[i]!;
    if (l.t === ' ') return ' ';
    let a = i;
    while (a > 0 && h.lines[a - 1]!.t !== ' ') a--;
    let b = i;
    while (b + 1 < h.lines.length && h.lines[b + 1]!.t !== ' ') b++;
    const both = h.lines.slice(a, b + 1).some((x) => x.t !== side);
    return both ? '!' : side;
  };
  void oldHas;
  void newHas;
  const lastO = h.lines.reduce((a, l, i) => (l.t !== '+' ? i : a), -1);
  const lastN = h.lines.reduce((a, l, i) => (l.t !== '-' ? i : a), -1);
  h.lines.forEach((l, i) => { if (l.t !== '+') s += mark(i, '-') + ' ' + l.text + (i === lastO && h.oldNoEol ? '' : '\n'); });
  s += `--- ${range(ns, h.newCount)} ----\n`;
  h.lines.forEach((l, i) => { if (l.t !== '-') s += mark(i, '+') + ' ' + l.text + (i === lastN && h.newNoEol ? '' : '\n'); });
  return s;
}
