/**
 * GNU diff's line matcher (diffutils 3.8 analyze.c + gnulib diffseq.h), written anew in
 * TypeScript so that hunks come out exactly as GNU's: lines are put in equivalence classes
 * (by a key the caller computes: -i, -b, -w fold it), the identical prefix and suffix are
 * set aside (keeping `horizon` lines of each, as GNU does), lines that match nothing in the
 * other file are discarded ("confusing lines"), Myers' O(ND) search runs with Eggert's
 * TOO_EXPENSIVE cutoff (minimal off by default), then shift_boundaries slides each run of
 * changes down as far as it goes and merges runs, and the script is read off the flags.
 */

/** One change: `deleted` lines of file 0 at `line0`, `inserted` lines of file 1 at `line1` (origin 0). */
export interface Change {
  line0: number;
  line1: number;
  deleted: number;
  inserted: number;
}

export interface DiffSeqOptions {
  /** Lines of the identical prefix and suffix kept in the comparison (GNU: the context, at least). */
  horizon?: number;
  /** --minimal: no discarding, no cutoff. */
  minimal?: boolean;
}


function floorLog2(n: number): number {
  let r = 0;
  while (n >= 2) {
    n = Math.floor(n / 2);
    r++;
  }
  return r;
}

/**
 * Compare two files given as lines: `exact0/1` decide the identical prefix and suffix (the
 * raw bytes, a last line without newline differing from one with), `key0/1` the equivalence
 * of lines inside (what -i -b -w leave of a line). Returns the edit script in file order.
 */
export function diffLines(exact0: readonly string[], exact1: readonly string[], key0: readonly string[], key1: readonly string[], opts: DiffSeqOptions = {}): Change[] {
  const n0 = exact0.length;
  const n1 = exact1.length;
  const horizon = opts.horizon ?? 0;
  const minimal = opts.minimal ?? false;
  // Identical prefix, less the horizon.
  let pre = 0;
  while (pre < n0 && pre < n1 && exact0[pre] === exact1[pre]) pre++;
  pre = Math.max(0, pre - horizon);
  // Identical suffix (never into the prefix), less the horizon.
  let suf = 0;
  while (suf < n0 - pre && suf < n1 - pre && exact0[n0 - 1 - suf] === exact1[n1 - 1 - suf]) suf++;
  suf = Math.max(0, suf - horizon);
  const len0 = n0 - pre - suf;
  const len1 = n1 - pre - suf;
  // Equivalence classes, numbered from 1.
  const classes = new Map<string, number>();
  const eq0 = new Int32Array(len0);
  const eq1 = new Int32Array(len1);
  for (let i = 0; i < len0; i++) {
    const k = key0[pre + i]!;
    let c = classes.get(k);
    if (c === undefined) classes.set(k, (c = classes.size + 1));
    eq0[i] = c;
  }
  for (let i = 0; i < len1; i++) {
    const k = key1[pre + i]!;
    let c = classes.get(k);
    if (c === undefined) classes.set(k, (c = classes.size + 1));
    eq1[i] = c;
  }
  return diffClasses(eq0, eq1, classes.size + 1, pre, minimal);
}

/**
 * The matcher on lines given by class (equal numbers: equivalent lines, numbered from 1 below
 * `nclasses`): eq0 and eq1 are the lines between the identical prefix (`pre` lines, set aside
 * by the caller less the horizon) and suffix. Returns the edit script in file order.
 */
export function diffClasses(eq0: Int32Array, eq1: Int32Array, nclasses: number, pre: number, minimal: boolean): Change[] {
  const len0 = eq0.length;
  const len1 = eq1.length;
  // changed flags with a false sentinel at each end: index i of the file is [i + 1].
  const changed0 = new Uint8Array(len0 + 2);
  const changed1 = new Uint8Array(len1 + 2);
  const { undiscarded: x, realindex: rx, undiscarded1: y, realindex1: ry } = discardConfusingLines(eq0, eq1, changed0, changed1, nclasses, minimal);
  const nx = x.length;
  const ny = y.length;
  const diags = nx + ny + 3;
  const fd = new Int32Array(diags);
  const bd = new Int32Array(diags);
  const off = ny + 1;
  const tooExpensive = Math.max(4096, 2 ** ((floorLog2(diags) >> 1) + 1));
  const ctx: SeqContext = { x, y, fd, bd, off, tooExpensive, del: (i) => { changed0[rx[i]! + 1] = 1; }, ins: (j) => { changed1[ry[j]! + 1] = 1; } };
  compareseq(0, nx, 0, ny, minimal, ctx);
  shiftBoundaries(eq0, changed0, changed1);
  shiftBoundaries(eq1, changed1, changed0);
  // build_script
  const script: Change[] = [];
  let i0 = 0;
  let i1 = 0;
  while (i0 < len0 || i1 < len1) {
    if (changed0[i0 + 1] || changed1[i1 + 1]) {
      const l0 = i0;
      const l1 = i1;
      while (changed0[i0 + 1]) i0++;
      while (changed1[i1 + 1]) i1++;
      script.push({ line0: l0 + pre, line1: l1 + pre, deleted: i0 - l0, inserted: i1 - l1 });
    }
    i0++;
    i1++;
  }
  return script;
}

function discardConfusingLines(eq0: Int32Array, eq1: Int32Array, changed0: Uint8Array, changed1: Uint8Array, nclasses: number, minimal: boolean) {
  const eqs = [eq0, eq1];
  const counts = [new Int32Array(nclasses), new Int32Array(nclasses)];
  for (let f = 0; f < 2; f++) {
    const e = eqs[f]!, c = counts[f]!;
    for (let i = 0; i < e.length; i++) c[e[i]!]!++;
  }
  const discarded = [new Uint8Array(eq0.length), new Uint8Array(eq1.length)];
  for (let f = 0; f < 2; f++) {
    const end = eqs[f]!.length;
    const discards = discarded[f]!;
    const other = counts[1 - f]!;
    const equivs = eqs[f]!;
    let many = 5;
    if (end >= 64) many *= 2 ** ((floorLog2(end) >> 1) - 3);
    for (let i = 0; i < end; i++) {
      const nmatch = other[equivs[i]!]!;
      if (nmatch === 0) discards[i] = 1;
      else if (nmatch > many) discards[i] = 2;
    }
  }
  for (let f = 0; f < 2; f++) {
    const end = eqs[f]!.length;
    const discards = discarded[f]!;
    for (let i = 0; i < end; i++) {
      if (discards[i] === 2) discards[i] = 0;
      else if (discards[i] !== 0) {
        let provisional = 0;
        let j: number;
        for (j = i; j < end; j++) {
          if (discards[j] === 0) break;
          if (discards[j] === 2) ++provisional;
        }
        while (j > i && discards[j - 1] === 2) {
          discards[--j] = 0;
          --provisional;
        }
        const length = j - i;
        if (length >> 2 < provisional) {
          while (j > i) if (discards[--j] === 2) discards[j] = 0;
        } else {
          const minimum = length < 4 ? 2 : 2 ** ((floorLog2(length) >> 1) - 1) + 1;
          let consec = 0;
          for (j = 0; j < length; j++) {
            if (discards[i + j] !== 2) consec = 0;
            else if (minimum === ++consec) j -= consec;
            else if (minimum < consec) discards[i + j] = 0;
          }
          for (j = 0, consec = 0; j < length; j++) {
            if (j >= 8 && discards[i + j] === 1) break;
            if (discards[i + j] === 2) {
              consec = 0;
              discards[i + j] = 0;
            } else if (discards[i + j] === 0) consec = 0;
            else consec++;
            if (consec === 3) break;
          }
          i += length - 1;
          for (j = 0, consec = 0; j < length; j++) {
            if (j >= 8 && discards[i - j] === 1) break;
            if (discards[i - j] === 2) {
              consec = 0;
              discards[i - j] = 0;
            } else if (discards[i - j] === 0) consec = 0;
            else consec++;
            if (consec === 3) break;
          }
        }
      }
    }
  }
  const out: Array<{ und: Int32Array; real: Int32Array }> = [];
  const changed = [changed0, changed1];
  for (let f = 0; f < 2; f++) {
    const discards = discarded[f]!;
    const equivs = eqs[f]!;
    const ch = changed[f]!;
    const und = new Int32Array(equivs.length);
    const real = new Int32Array(equivs.length);
    let k = 0;
    for (let i = 0; i < equivs.length; i++) {
      if (minimal || discards[i] === 0) {
        und[k] = equivs[i]!;
        real[k++] = i;
      } else ch[i + 1] = 1;
    }
    out.push({ und: und.subarray(0, k), real: real.subarray(0, k) });
  }
  return { undiscarded: out[0]!.und, realindex: out[0]!.real, undiscarded1: out[1]!.und, realindex1: out[1]!.real };
}

interface SeqContext {
  x: Int32Array;
  y: Int32Array;
  fd: Int32Array;
  bd: Int32Array;
  /** Index of diagonal 0 in fd / bd. */
  off: number;
  tooExpensive: number;
  del(i: number): void;
  ins(j: number): void;
}

interface Partition {
  xmid: number;
  ymid: number;
  loMinimal: boolean;
  hiMinimal: boolean;
}

const OFFSET_MAX = 0x7fffffff;

function diag(xoff: number, xlim: number, yoff: number, ylim: number, findMinimal: boolean, ctx: SeqContext): Partition {
  const { x: xv, y: yv, fd, bd, off } = ctx;
  const dmin = xoff - ylim;
  const dmax = xlim - yoff;
  const fmid = xoff - yoff;
  const bmid = xlim - ylim;
  let fmin = fmid;
  let fmax = fmid;
  let bmin = bmid;
  let bmax = bmid;
  const odd = ((fmid - bmid) & 1) !== 0;
  fd[off + fmid] = xoff;
  bd[off + bmid] = xlim;
  for (let c = 1; ; ++c) {
    if (fmin > dmin) fd[off + --fmin - 1] = -1;
    else ++fmin;
    if (fmax < dmax) fd[off + ++fmax + 1] = -1;
    else --fmax;
    for (let d = fmax; d >= fmin; d -= 2) {
      const tlo = fd[off + d - 1]!;
      const thi = fd[off + d + 1]!;
      const x0 = tlo < thi ? thi : tlo + 1;
      let x = x0;
      let y = x0 - d;
      while (x < xlim && y < ylim && xv[x] === yv[y]) {
        x++;
        y++;
      }
      fd[off + d] = x;
      if (odd && bmin <= d && d <= bmax && bd[off + d]! <= x) return { xmid: x, ymid: y, loMinimal: true, hiMinimal: true };
    }
    if (bmin > dmin) bd[off + --bmin - 1] = OFFSET_MAX;
    else ++bmin;
    if (bmax < dmax) bd[off + ++bmax + 1] = OFFSET_MAX;
    else --bmax;
    for (let d = bmax; d >= bmin; d -= 2) {
      const tlo = bd[off + d - 1]!;
      const thi = bd[off + d + 1]!;
      const x0 = tlo < thi ? tlo : thi - 1;
      let x = x0;
      let y = x0 - d;
      while (xoff < x && yoff < y && xv[x - 1] === yv[y - 1]) {
        x--;
        y--;
      }
      bd[off + d] = x;
      if (!odd && fmin <= d && d <= fmax && x <= fd[off + d]!) return { xmid: x, ymid: y, loMinimal: true, hiMinimal: true };
    }
    if (findMinimal) continue;
    if (c >= ctx.tooExpensive) {
      let fxybest = -1;
      let fxbest = 0;
      for (let d = fmax; d >= fmin; d -= 2) {
        let x = Math.min(fd[off + d]!, xlim);
        let y = x - d;
        if (ylim < y) {
          x = ylim + d;
          y = ylim;
        }
        if (fxybest < x + y) {
          fxybest = x + y;
          fxbest = x;
        }
      }
      let bxybest = OFFSET_MAX;
      let bxbest = 0;
      for (let d = bmax; d >= bmin; d -= 2) {
        let x = Math.max(xoff, bd[off + d]!);
        let y = x - d;
        if (y < yoff) {
          x = yoff + d;
          y = yoff;
        }
        if (x + y < bxybest) {
          bxybest = x + y;
          bxbest = x;
        }
      }
      if (xlim + ylim - bxybest < fxybest - (xoff + yoff)) return { xmid: fxbest, ymid: fxybest - fxbest, loMinimal: true, hiMinimal: false };
      return { xmid: bxbest, ymid: bxybest - bxbest, loMinimal: false, hiMinimal: true };
    }
  }
}

/** compareseq, with an explicit stack instead of recursion (deep inputs). */
function compareseq(xoff0: number, xlim0: number, yoff0: number, ylim0: number, minimal0: boolean, ctx: SeqContext): void {
  const { x: xv, y: yv } = ctx;
  const stack: Array<[number, number, number, number, boolean]> = [[xoff0, xlim0, yoff0, ylim0, minimal0]];
  while (stack.length) {
    let [xoff, xlim, yoff, ylim, findMinimal] = stack.pop()!;
    while (xoff < xlim && yoff < ylim && xv[xoff] === yv[yoff]) {
      xoff++;
      yoff++;
    }
    while (xoff < xlim && yoff < ylim && xv[xlim - 1] === yv[ylim - 1]) {
      xlim--;
      ylim--;
    }
    if (xoff === xlim) for (; yoff < ylim; yoff++) ctx.ins(yoff);
    else if (yoff === ylim) for (; xoff < xlim; xoff++) ctx.del(xoff);
    else {
      const part = diag(xoff, xlim, yoff, ylim, findMinimal, ctx);
      // the low half first (pushed last): NOTE order does not matter, flags are set
      stack.push([part.xmid, xlim, part.ymid, ylim, part.hiMinimal]);
      stack.push([xoff, part.xmid, yoff, part.ymid, part.loMinimal]);
    }
  }
}

/** shift_boundaries for one file: `changed` and `other` carry a false sentinel at [0] and [len + 1]. */
function shiftBoundaries(equivs: Int32Array, changedS: Uint8Array, otherS: Uint8Array): void {
  // Index helpers: file index i is [i + 1].
  const ch = (i: number) => changedS[i + 1]!;
  const setCh = (i: number, v: number) => {
    changedS[i + 1] = v;
  };
  const oc = (j: number) => otherS[j + 1]!;
  let i = 0;
  let j = 0;
  const iEnd = equivs.length;
  for (;;) {
    while (i < iEnd && !ch(i)) {
      while (oc(j++));
      i++;
    }
    if (i === iEnd) break;
    let start = i;
    while (ch(++i));
    while (oc(j)) j++;
    let runlength: number;
    let corresponding: number;
    do {
      runlength = i - start;
      while (start && equivs[start - 1] === equivs[i - 1]) {
        setCh(--start, 1);
        setCh(--i, 0);
        while (ch(start - 1)) start--;
        while (oc(--j));
      }
      corresponding = oc(j - 1) ? i : iEnd;
      while (i !== iEnd && equivs[start] === equivs[i]) {
        setCh(start++, 0);
        setCh(i++, 1);
        while (ch(i)) i++;
        while (oc(++j)) corresponding = i;
      }
    } while (runlength !== i - start);
    while (corresponding < i) {
      setCh(--start, 1);
      setCh(--i, 0);
      while (oc(--j));
    }
  }
}
