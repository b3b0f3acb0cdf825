/**
 * diff's view of a file: its lines (bytes as latin1 characters, each with its newline but
 * the last one when the file lacks it), the key each line compares by under -i -b -w -Z
 * (GNU's equivalence classes), and GNU's analysis of a hunk for -B.
 */
import { diffClasses, type Change } from '../../src/gnulib/diffseq.js';

export interface DiffOptions {
  ignoreCase: boolean;
  /** 0 none, 'Z' trailing space, 'b' space change, 'w' all space. */
  white: '' | 'Z' | 'b' | 'w';
  ignoreBlank: boolean;
  stripCr: boolean;
}

/**
 * A file as lines on its bytes (no text made until a line is shown): line i is
 * data[starts[i], starts[i + 1] - 1), its newline left out.
 */
export class TextFile {
  constructor(readonly data: Buffer, private readonly starts: Int32Array, readonly count: number,
    /** The last line has no newline. */
    readonly missingNewline: boolean) {}
  /** Line i without its newline (latin1: one character a byte). */
  line(i: number): string {
    return (this.data as unknown as { latin1Slice(s: number, e: number): string }).latin1Slice(this.starts[i]!, this.starts[i + 1]! - 1);
  }
  start(i: number): number {
    return this.starts[i]!;
  }
  end(i: number): number {
    return this.starts[i + 1]! - 1;
  }
}

/** C-locale isspace, without the newline (a line never holds one). */
const SPACE = /[ \t\v\f\r]/;
const SPACE_RUN = /[ \t\v\f\r]+/g;
const TRAILING = /[ \t\v\f\r]+$/;

/** The bytes with each CR before a newline taken out (--strip-trailing-cr). */
function stripCrLf(d: Buffer): Buffer {
  if (d.indexOf(13) < 0) return d;
  const out = Buffer.allocUnsafe(d.length);
  let n = 0;
  for (let i = 0; i < d.length; i++) {
    const c = d[i]!;
    if (c === 13 && d[i + 1] === 10) continue;
    out[n++] = c;
  }
  return out.subarray(0, n);
}

export function splitLines(data: Buffer, stripCr: boolean): TextFile {
  const d = stripCr ? stripCrLf(data) : data;
  let starts = new Int32Array(1024);
  let n = 0;
  let p = 0;
  let missing = false;
  const len = d.length;
  // a loop on the bytes: indexOf is a call into C++ per line, slower for lines this short
  while (p < len) {
    if (n + 2 > starts.length) {
      const g = new Int32Array(starts.length * 2);
      g.set(starts);
      starts = g;
    }
    starts[n++] = p;
    while (p < len && d[p] !== 10) p++;
    if (p >= len) { missing = true; break; }
    p++;
  }
  // one past the end for a last line without newline, so that end(i) is always starts[i + 1] - 1
  starts[n] = missing ? d.length + 1 : p;
  return new TextFile(d, starts, n, missing);
}

/** The exact form (prefix and suffix are found on bytes: a last line without newline is its own). */
export function exactKeys(f: TextFile): string[] {
  const keys: string[] = [];
  for (let i = 0; i < f.count; i++) keys.push(f.line(i) + '\n');
  if (f.missingNewline && keys.length) keys[keys.length - 1] = f.line(f.count - 1);
  return keys;
}

/** The equivalence key of each line under the options. */
export function lineKeys(f: TextFile, o: DiffOptions): string[] {
  const keys: string[] = [];
  for (let i = 0; i < f.count; i++) {
    let k = f.line(i);
    if (o.white === 'w') k = k.replace(SPACE_RUN, '');
    else if (o.white === 'b') k = k.replace(TRAILING, '').replace(SPACE_RUN, ' ');
    else if (o.white === 'Z') k = k.replace(TRAILING, '');
    if (o.ignoreCase) k = k.replace(/[A-Z]+/g, (m) => m.toLowerCase());
    keys.push(k);
  }
  // An incomplete last line equals only the other file's incomplete line (unless -Z -b -w).
  if (f.missingNewline && keys.length && o.white === '') keys[keys.length - 1] = '\u0100' + keys[keys.length - 1];
  return keys;
}

/**
 * Both files' lines numbered by their bytes (equal numbers: the same bytes, and both or neither
 * the incomplete last line), from 1: a hash of each line's bytes into an open-addressed table,
 * no text made. What -i -b -w -Z do not change: the class is then also the exact form.
 */
export function classify(f0: TextFile, f1: TextFile): { eq0: Int32Array; eq1: Int32Array; nclasses: number } {
  const total = f0.count + f1.count;
  let size = 1024;
  while (size < 1.5 * total) size *= 2;
  const mask = size - 1;
  // slot k: [2k] the hash, [2k + 1] the class (0: empty), side by side (one cache line per probe)
  const table = new Int32Array(2 * size);
  // per class (from 1): the file and line it was first seen at
  const cFile = new Uint8Array(total + 1);
  const cLine = new Int32Array(total + 1);
  const files = [f0, f1];
  let next = 1;
  const eqs: Int32Array[] = [];
  for (let f = 0; f < 2; f++) {
    const tf = files[f]!;
    const d = tf.data;
    const n = tf.count;
    const eq = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const s = tf.start(i), e = tf.end(i);
      const incomplete = tf.missingNewline && i === n - 1;
      let h = incomplete ? 0x2c9277b5 : 0x811c9dc5;
      for (let p = s; p < e; p++) h = Math.imul(h ^ d[p]!, 16777619);
      h ^= h >>> 15;
      let slot = h & mask;
      let c: number;
      for (;;) {
        c = table[2 * slot + 1]!;
        if (c === 0) {
          c = next++;
          table[2 * slot] = h;
          table[2 * slot + 1] = c;
          cFile[c] = f; cLine[c] = i;
          break;
        }
        if (table[2 * slot] === h) {
          const of = files[cFile[c]!]!, ol = cLine[c]!;
          const os = of.start(ol), oe = of.end(ol);
          if (oe - os === e - s && (of.missingNewline && ol === of.count - 1) === incomplete) {
            const od = of.data;
            let q = 0;
            const len = e - s;
            while (q < len && od[os + q] === d[s + q]) q++;
            if (q === len) break;
          }
        }
        slot = (slot + 1) & mask;
      }
      eq[i] = c;
    }
    eqs.push(eq);
  }
  return { eq0: eqs[0]!, eq1: eqs[1]!, nclasses: next };
}

/** diffLines for the default comparison (no -i -b -w -Z): lines compared by their bytes. */
export function diffFiles(f0: TextFile, f1: TextFile, opts: { horizon: number; minimal: boolean }): Change[] {
  const { eq0, eq1, nclasses } = classify(f0, f1);
  const n0 = eq0.length, n1 = eq1.length;
  let pre = 0;
  while (pre < n0 && pre < n1 && eq0[pre] === eq1[pre]) pre++;
  pre = Math.max(0, pre - opts.horizon);
  let suf = 0;
  while (suf < n0 - pre && suf < n1 - pre && eq0[n0 - 1 - suf] === eq1[n1 - 1 - suf]) suf++;
  suf = Math.max(0, suf - opts.horizon);
  return diffClasses(eq0.subarray(pre, n0 - suf), eq1.subarray(pre, n1 - suf), nclasses, pre, opts.minimal);
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
  const l = f.line(i);
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
