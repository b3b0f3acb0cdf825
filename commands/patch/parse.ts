/**
 * Reading a patch as GNU patch 2.7 does: unified and context diffs, with their "---"/"+++"
 * (or "***"/"---") headers, "Index:" lines and git-style headers (diff --git, new/deleted
 * file mode, rename from/to, old/new mode). Context hunks are turned into one line list
 * (' ' context, '-' old only, '+' new only), as unified ones are.
 */

export interface HunkLine {
  t: ' ' | '-' | '+';
  text: string;
}

export interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  lines: HunkLine[];
  /** The old (new) side's last line has no newline. */
  oldNoEol: boolean;
  newNoEol: boolean;
}

export interface FilePatch {
  format: 'unified' | 'context' | 'git';
  oldName?: string;
  newName?: string;
  indexName?: string;
  /** The header lines as they came (the reject file starts with them). */
  headerOld?: string;
  headerNew?: string;
  gitOld?: string;
  gitNew?: string;
  newFileMode?: string;
  deletedFileMode?: string;
  renameFrom?: string;
  renameTo?: string;
  hunks: Hunk[];
  /** Input line (1-origin) where the hunks start, and the text leading up to it. */
  line: number;
  leading: string[];
}

export class PatchSyntaxError extends Error {}

/** The file name of a header line: up to a tab (or the end); quoted names unquoted. */
function headerName(rest: string): string {
  let s = rest;
  const tab = s.indexOf('\t');
  if (tab >= 0) s = s.slice(0, tab);
  else {
    // "name  2024-01-02 ..." (a date after spaces): GNU takes the name up to the date
    const m = /^(.*?)\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/.exec(s);
    if (m) s = m[1]!;
  }
  if (s.startsWith('"') && s.endsWith('"') && s.length >= 2) s = JSON.parse(s) as string;
  return s.replace(/\s+$/, '');
}

const UNI = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const CTX_OLD = /^\*\*\* (\d+)(?:,(\d+))? \*\*\*\*/;
const CTX_NEW = /^--- (\d+)(?:,(\d+))? ----/;

export function parsePatch(text: string): FilePatch[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const out: FilePatch[] = [];
  let i = 0;
  let leading: string[] = [];
  let git: Partial<FilePatch> | null = null;
  let index: string | undefined;
  const flushGit = () => {
    if (git && (git.renameFrom || git.newFileMode || git.deletedFileMode)) {
      out.push({ format: 'git', hunks: [], line: i, leading, ...git } as FilePatch);
      leading = [];
    }
    git = null;
  };
  while (i < lines.length) {
    const l = lines[i]!;
    if (l.startsWith('diff --git ')) {
      flushGit();
      const m = /^diff --git (\S+) (\S+)$/.exec(l);
      git = { gitOld: m?.[1], gitNew: m?.[2] };
      leading.push(l);
      i++;
      continue;
    }
    if (git) {
      let m: RegExpExecArray | null;
      if ((m = /^new file mode (\d+)/.exec(l))) git.newFileMode = m[1];
      else if ((m = /^deleted file mode (\d+)/.exec(l))) git.deletedFileMode = m[1];
      else if ((m = /^rename from (.*)$/.exec(l))) git.renameFrom = m[1];
      else if ((m = /^rename to (.*)$/.exec(l))) git.renameTo = m[1];
    }
    if (l.startsWith('Index: ')) index = l.slice(7).trim();
    const next = lines[i + 1];
    if (l.startsWith('--- ') && next?.startsWith('+++ ') && UNI.test(lines[i + 2] ?? '')) {
      const fp: FilePatch = { format: 'unified', oldName: headerName(l.slice(4)), newName: headerName(next.slice(4)), headerOld: l, headerNew: next, indexName: index, hunks: [], line: i + 3, leading: [...leading, l, next], ...(git ?? {}) };
      git = null;
      index = undefined;
      leading = [];
      i += 2;
      while (i < lines.length && UNI.test(lines[i]!)) i = readUnified(lines, i, fp);
      out.push(fp);
      continue;
    }
    if (l.startsWith('*** ') && next?.startsWith('--- ') && (lines[i + 2] ?? '').startsWith('***************')) {
      const fp: FilePatch = { format: 'context', oldName: headerName(l.slice(4)), newName: headerName(next.slice(4)), headerOld: l, headerNew: next, indexName: index, hunks: [], line: i + 3, leading: [...leading, l, next], ...(git ?? {}) };
      git = null;
      index = undefined;
      leading = [];
      i += 2;
      while (i < lines.length && lines[i]!.startsWith('***************')) i = readContext(lines, i + 1, fp);
      out.push(fp);
      continue;
    }
    leading.push(l);
    i++;
  }
  flushGit();
  return out;
}

function readUnified(lines: string[], i: number, fp: FilePatch): number {
  const m = UNI.exec(lines[i]!)!;
  const h: Hunk = { oldStart: +m[1]!, oldCount: m[2] === undefined ? 1 : +m[2], newStart: +m[3]!, newCount: m[4] === undefined ? 1 : +m[4], lines: [], oldNoEol: false, newNoEol: false };
  i++;
  let o = h.oldCount;
  let n = h.newCount;
  let last: HunkLine['t'] | null = null;
  while (i < lines.length && (o > 0 || n > 0 || lines[i]!.startsWith('\\'))) {
    const l = lines[i]!;
    if (l.startsWith('\\')) {
      if (last === '-' || last === ' ') h.oldNoEol = true;
      if (last === '+' || last === ' ') h.newNoEol = true;
      i++;
      continue;
    }
    const t = (l === '' ? ' ' : l[0]) as HunkLine['t'];
    if (t !== ' ' && t !== '-' && t !== '+') throw new PatchSyntaxError(`malformed patch at line ${i + 1}: ${l}`);
    h.lines.push({ t, text: l.slice(1) });
    if (t !== '+') o--;
    if (t !== '-') n--;
    last = t;
    i++;
  }
  if (o !== 0 || n !== 0) throw new PatchSyntaxError(`unexpected end of file in patch`);
  if (i < lines.length && lines[i]!.startsWith('\\')) i++;
  fp.hunks.push(h);
  return i;
}

function readContext(lines: string[], i: number, fp: FilePatch): number {
  const mo = CTX_OLD.exec(lines[i] ?? '');
  if (!mo) throw new PatchSyntaxError(`malformed patch at line ${i + 1}: ${lines[i] ?? ''}`);
  const oldStart = +mo[1]!;
  const oldEnd = mo[2] === undefined ? oldStart : +mo[2];
  i++;
  const old: Array<{ m: string; text: string }> = [];
  let oldNoEol = false;
  while (i < lines.length && !CTX_NEW.test(lines[i]!)) {
    const l = lines[i]!;
    if (l.startsWith('\\')) oldNoEol = true;
    else old.push({ m: l[0]!, text: l.slice(2) });
    i++;
  }
  const mn = CTX_NEW.exec(lines[i] ?? '');
  if (!mn) throw new PatchSyntaxError('unexpected end of file in patch');
  const newStart = +mn[1]!;
  const newEnd = mn[2] === undefined ? newStart : +mn[2];
  i++;
  const neu: Array<{ m: string; text: string }> = [];
  let newNoEol = false;
  const newCount = newStart === 0 && newEnd === 0 ? 0 : newEnd - newStart + 1;
  const oldCount = oldStart === 0 && oldEnd === 0 ? 0 : oldEnd - oldStart + 1;
  while (i < lines.length && !lines[i]!.startsWith('***************')) {
    const l = lines[i]!;
    if (l.startsWith('\\')) newNoEol = true;
    else if (/^[ +!-] /.test(l) || l === '' || l === ' ' || l === '+' || l === '!') neu.push({ m: l[0] ?? ' ', text: l.slice(2) });
    else break;
    i++;
  }
  // A side left out holds only the other side's context.
  const oldSide = old.length ? old : neu.filter((x) => x.m === ' ');
  const newSide = neu.length ? neu : old.filter((x) => x.m === ' ');
  const h: Hunk = { oldStart, oldCount, newStart, newCount, lines: [], oldNoEol, newNoEol };
  let a = 0;
  let b = 0;
  while (a < oldSide.length || b < newSide.length) {
    const x = oldSide[a];
    const y = newSide[b];
    if (x && x.m === '-') {
      h.lines.push({ t: '-', text: x.text });
      a++;
    } else if (y && y.m === '+') {
      h.lines.push({ t: '+', text: y.text });
      b++;
    } else if ((x && x.m === '!') || (y && y.m === '!')) {
      while (oldSide[a]?.m === '!') h.lines.push({ t: '-', text: oldSide[a++]!.text });
      while (newSide[b]?.m === '!') h.lines.push({ t: '+', text: newSide[b++]!.text });
    } else if (x && y) {
      h.lines.push({ t: ' ', text: x.text });
      a++;
      b++;
    } else throw new PatchSyntaxError('malformed context hunk');
  }
  fp.hunks.push(h);
  return i;
}

/** The hunk with its sides swapped (-R). */
export function reverseHunk(h: Hunk): Hunk {
  return {
    oldStart: h.newStart, oldCount: h.newCount, newStart: h.oldStart, newCount: h.oldCount,
    lines: regroup(h.lines.map((l) => ({ t: l.t === '+' ? '-' : l.t === '-' ? '+' : ' ', text: l.text }))),
    oldNoEol: h.newNoEol, newNoEol: h.oldNoEol,
  };
}

/** Each run of changed lines as its old lines, then its new ones. */
function regroup(lines: HunkLine[]): HunkLine[] {
  const out: HunkLine[] = [];
  let run: HunkLine[] = [];
  const flush = () => {
    out.push(...run.filter((l) => l.t === '-'), ...run.filter((l) => l.t === '+'));
    run = [];
  };
  for (const l of lines) {
    if (l.t === ' ') {
      flush();
      out.push(l);
    } else run.push(l);
  }
  flush();
  return out;
}
