/**
 * diff's view of a file: its lines (bytes as latin1 characters, each with its newline but
 * the last one when the file lacks it), the key each line compares by under -i -b -w -Z
 * (GNU's equivalence classes), and GNU's analysis of a hunk for -B.
 */
import type { Change } from '../../src/gnulib/diffseq.js';

export interface DiffOptions {
  ignoreCase: boolean;
  /** 0 none, 'Z' trailing space, 'b' space change, 'w' all space. */
  white: '' | 'Z' | 'b' | 'w';
  ignoreBlank: boolean;
  stripCr: boolean;
}

export interface TextFile {
  /** Lines without their newline. */
  lines: string[];
  /** The last line has no newline. */
  missingNewline: boolean;
}

/** C-locale isspace, without the newline (a line never holds one). */
const SPACE = /[ \t\v\f\r]/;
const SPACE_RUN = /[ \t\v\f\r]+/g;
const TRAILING = /[ \t\v\f\r]+$/;

export function splitLines(data: Buffer, stripCr: boolean): TextFile {
  let s = data.toString('latin1');
  if (stripCr) s = s.replace(/\r\n/g, '\n');
  if (s === '') return { lines: [], missingNewline: false };
  const missingNewline = !s.endsWith('\n');
  const lines = s.split('\n');
  if (!missingNewline) lines.pop();
  return { lines, missingNewline };
}

/** The exact form (prefix and suffix are found on bytes: a last line without newline is its own). */
export function exactKeys(f: TextFile): string[] {
  const keys = f.lines.map((l) => l + '\n');
  if (f.missingNewline && keys.length) keys[keys.length - 1] = f.lines[f.lines.length - 1]!;
  return keys;
}

/** The equivalence key of each line under the options. */
export function lineKeys(f: TextFile, o: DiffOptions): string[] {
  const keys = f.lines.map((l) => {
    let k = l;
    if (o.white === 'w') k = k.replace(SPACE_RUN, '');
    else if (o.white === 'b') k = k.replace(TRAILING, '').replace(SPACE_RUN, ' ');
    else if (o.white === 'Z') k = k.replace(TRAILING, '');
    if (o.ignoreCase) k = k.replace(/[A-Z]+/g, (m) => m.toLowerCase());
    return k;
  });
  // An incomplete last line equals only the other file's incomplete line (unless -Z -b -w).
  if (f.missingNewline && keys.length && o.white === '') keys[keys.length - 1] = '\u0100' + keys[keys.length - 1];
  return keys;
}

export function isSpace(c: string): boolean {
  return SPACE.test(c);
}

/** analyze_hunk: the hunk's extent, and whether it shows old / new lines (-B hides blank-only ones). */
export interface HunkInfo {
  first0: number;
  last0: number;
  first1: number;
  last1: number;
  old: boolean;
  new: boolean;
}

export function analyzeHunk(hunk: readonly Change[], f0: TextFile, f1: TextFile, o: DiffOptions): HunkInfo {
  let showFrom = 0;
  let showTo = 0;
  let trivial = o.ignoreBlank;
  const first = hunk[0]!;
  const lastC = hunk[hunk.length - 1]!;
  for (const c of hunk) {
    showFrom += c.deleted;
    showTo += c.inserted;
    for (let i = c.line0; i < c.line0 + c.deleted && trivial; i++) if (!blank(f0, i, o)) trivial = false;
    for (let i = c.line1; i < c.line1 + c.inserted && trivial; i++) if (!blank(f1, i, o)) trivial = false;
  }
  if (trivial) showFrom = showTo = 0;
  return {
    first0: first.line0,
    last0: lastC.line0 + lastC.deleted - 1,
    first1: first.line1,
    last1: lastC.line1 + lastC.inserted - 1,
    old: showFrom > 0,
    new: showTo > 0,
  };
}

/** A line GNU's -B counts as blank: nothing on it, or (with -Z -b -w) only white space. */
function blank(f: TextFile, i: number, o: DiffOptions): boolean {
  const l = f.lines[i]!;
  return l === '' || (o.white !== '' && /^[ \t\v\f\r]*$/.test(l));
}

/** find_hunk: changes grouped into one hunk while the gap is under the threshold. */
export function groupHunks(script: readonly Change[], context: number, ignorable: (c: Change) => boolean): Change[][] {
  const hunks: Change[][] = [];
  let i = 0;
  while (i < script.length) {
    const hunk = [script[i]!];
    for (;;) {
      const prev = hunk[hunk.length - 1]!;
      const next = script[i + hunk.length];
      if (!next) break;
      const thresh = ignorable(next) ? context : 2 * context + 1;
      if (next.line0 - (prev.line0 + prev.deleted) < thresh) hunk.push(next);
      else break;
    }
    i += hunk.length;
    hunks.push(hunk);
  }
  return hunks;
}
