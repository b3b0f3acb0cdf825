/**
 * git's output formats (git 2.39, LC_ALL=C TZ=UTC): dates, patches with git's headers and
 * hunk headings, --stat lines.
 */
import { structuredPatch } from 'diff';
import type { RepoAccess, RepoPerson } from '../../src/command/index.js';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');

export type DateMode = 'default' | 'iso' | 'iso-strict' | 'short' | 'raw' | 'unix' | 'relative';

function zone(offsetMin: number, colon = false): string {
  // isomorphic-git's timezoneOffset is minutes west of UTC (as JavaScript's), git's is east
  const east = -offsetMin;
  const sign = east < 0 ? '-' : '+';
  const a = Math.abs(east);
  return `${sign}${p2(Math.floor(a / 60))}${colon ? ':' : ''}${p2(a % 60)}`;
}

export function formatDate(p: RepoPerson, mode: DateMode, now = Date.now()): string {
  const d = new Date((p.timestamp - p.timezoneOffset * 60) * 1000);
  const Y = d.getUTCFullYear(), M = d.getUTCMonth(), D = d.getUTCDate(), h = d.getUTCHours(), m = d.getUTCMinutes(), s = d.getUTCSeconds();
  switch (mode) {
    case 'iso': return `${Y}-${p2(M + 1)}-${p2(D)} ${p2(h)}:${p2(m)}:${p2(s)} ${zone(p.timezoneOffset)}`;
    case 'iso-strict': return `${Y}-${p2(M + 1)}-${p2(D)}T${p2(h)}:${p2(m)}:${p2(s)}${p.timezoneOffset === 0 ? 'Z' : zone(p.timezoneOffset, true)}`;
    case 'short': return `${Y}-${p2(M + 1)}-${p2(D)}`;
    case 'raw': return `${p.timestamp} ${zone(p.timezoneOffset)}`;
    case 'unix': return String(p.timestamp);
    case 'relative': return relative(now / 1000 - p.timestamp);
    default: return `${DAYS[d.getUTCDay()]} ${MONTHS[M]} ${D} ${p2(h)}:${p2(m)}:${p2(s)} ${Y} ${zone(p.timezoneOffset)}`;
  }
}

function relative(sec: number): string {
  const r = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  if (sec < 0) return 'in the future';
  if (sec < 90) return r(Math.round(sec), 'second');
  const min = Math.round(sec / 60);
  if (min < 90) return r(min, 'minute');
  const hours = Math.round(min / 60);
  if (hours < 36) return r(hours, 'hour');
  const days = Math.round(hours / 24);
  if (days < 14) return r(days, 'day');
  if (days < 70) return r(Math.round(days / 7), 'week');
  if (days < 365) return r(Math.round(days / 30), 'month');
  return r(Math.round(days / 365), 'year');
}

export const ZERO = '0000000';
const abbrev = (oid: string | undefined) => (oid ? oid.slice(0, 7) : ZERO);

export function isBinary(b: Uint8Array): boolean {
  return b.subarray(0, 8000).includes(0);
}

export interface FileDiff {
  path: string;
  old?: { oid: string; mode: string; data: Uint8Array };
  new?: { oid: string; mode: string; data: Uint8Array };
  /** A rename: the old name and git's similarity score. */
  from?: { path: string; score: number };
}

/** The lines of a text as diff takes them. */
const text = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('latin1') : '');

/** Added and removed line counts of a diff (binary: undefined). */
export function counts(f: FileDiff, context = 3): { add: number; del: number } | undefined {
  if ((f.old && isBinary(f.old.data)) || (f.new && isBinary(f.new.data))) return undefined;
  let add = 0, del = 0;
  for (const h of hunks(f, context)) for (const l of h.lines) if (l[0] === '+') add++; else if (l[0] === '-') del++;
  return { add, del };
}

function hunks(f: FileDiff, context: number) {
  return structuredPatch('a', 'b', text(f.old?.data), text(f.new?.data), '', '', { context }).hunks;
}

/** git's patch of one file: `diff --git` header, mode lines, index line, hunks with headings. */
export function patch(f: FileDiff, context = 3): string {
  const out: string[] = [`diff --git a/${f.from?.path ?? f.path} b/${f.path}`];
  if (f.from) {
    out.push(`similarity index ${f.from.score}%`, `rename from ${f.from.path}`, `rename to ${f.path}`);
    if (f.old!.oid === f.new!.oid) return out.join('\n') + '\n';
  }
  if (!f.old) out.push(`new file mode ${f.new!.mode}`, `index ${ZERO}..${abbrev(f.new!.oid)}`);
  else if (!f.new) out.push(`deleted file mode ${f.old.mode}`, `index ${abbrev(f.old.oid)}..${ZERO}`);
  else if (f.old.mode !== f.new.mode) out.push(`old mode ${f.old.mode}`, `new mode ${f.new.mode}`, `index ${abbrev(f.old.oid)}..${abbrev(f.new.oid)}`);
  else out.push(`index ${abbrev(f.old.oid)}..${abbrev(f.new.oid)} ${f.old.mode}`);
  const a = f.old ? `a/${f.from?.path ?? f.path}` : '/dev/null';
  const b = f.new ? `b/${f.path}` : '/dev/null';
  if ((f.old && isBinary(f.old.data)) || (f.new && isBinary(f.new.data))) {
    out.push(`Binary files ${a} and ${b} differ`);
    return out.join('\n') + '\n';
  }
  if ((f.old?.data.length ?? 0) === 0 && (f.new?.data.length ?? 0) === 0) return out.join('\n') + '\n';
  out.push(`--- ${a}`, `+++ ${b}`);
  const oldLines = text(f.old?.data).split('\n');
  for (const h of hunks(f, context)) {
    const os = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart;
    const ns = h.newLines === 0 ? h.newStart - 1 : h.newStart;
    const range = (s: number, n: number) => (n === 1 ? `${s}` : `${s},${n}`);
    const heading = funcname(oldLines, h.oldStart - 1);
    out.push(`@@ -${range(os, h.oldLines)} +${range(ns, h.newLines)} @@${heading ? ' ' + heading : ''}`);
    for (const l of h.lines) out.push(l);
  }
  return Buffer.from(out.join('\n') + '\n', 'latin1').toString('latin1');
}

/** git's default hunk heading: the last line before the hunk that begins with a letter, '_' or '$'. */
function funcname(lines: string[], before: number): string {
  for (let i = Math.min(before, lines.length) - 1; i >= 0; i--) {
    const l = lines[i]!;
    if (/^[A-Za-z_$]/.test(l)) return l.replace(/\s+$/, '').slice(0, 80);
  }
  return '';
}

/** `git diff --stat` / `log --stat` lines for these files (no graph scaling past 80 columns). */
export function stat(files: FileDiff[]): string {
  if (files.length === 0) return '';
  const rows = files.map((f) => ({ f, c: counts(f), name: f.from ? renameName(f.from.path, f.path) : f.path }));
  const nameW = Math.max(...rows.map((r) => r.name.length));
  const totals = rows.map((r) => (r.c ? r.c.add + r.c.del : 0));
  const numW = Math.max(...rows.map((r, i) => (r.c ? String(totals[i]).length : 3)));
  let add = 0, del = 0;
  const lines = rows.map((r, i) => {
    const name = r.name.padEnd(nameW);
    if (!r.c) {
      const o = r.f.old?.data.length ?? 0, n = r.f.new?.data.length ?? 0;
      return ` ${name} | ${'Bin'.padStart(numW)} ${o} -> ${n} bytes`;
    }
    add += r.c.add; del += r.c.del;
    const graph = '+'.repeat(r.c.add) + '-'.repeat(r.c.del);
    return ` ${name} | ${String(totals[i]).padStart(numW)}${graph ? ' ' + graph : ''}`;
  });
  const n = files.length;
  let summary = ` ${n} file${n === 1 ? '' : 's'} changed`;
  if (add > 0 || del === 0) summary += `, ${add} insertion${add === 1 ? '' : 's'}(+)`;
  if (del > 0 || add === 0) summary += `, ${del} deletion${del === 1 ? '' : 's'}(-)`;
  return lines.join('\n') + '\n' + summary + '\n';
}

/**
 * A renamed file's name in --stat, as git's pprint_rename writes it: the common folder prefix
 * and suffix outside braces ("dir/{a.txt => b.txt}", "{old => new}/f.txt", "a.txt => b.txt").
 */
export function renameName(a: string, b: string): string {
  let pfx = 0;
  for (let i = 0; i < a.length && i < b.length && a[i] === b[i]; i++) if (a[i] === '/') pfx = i + 1;
  let sfx = 0;
  const adjust = pfx ? 1 : 0;
  for (let i = a.length, j = b.length; i >= pfx - adjust && j >= pfx - adjust && a[i] === b[j]; i--, j--) {
    if (a[i] === '/') sfx = a.length - i;
  }
  const am = Math.max(0, a.length - pfx - sfx), bm = Math.max(0, b.length - pfx - sfx);
  const mid = `${a.slice(pfx, pfx + am)} => ${b.slice(pfx, pfx + bm)}`;
  return pfx + sfx ? `${a.slice(0, pfx)}{${mid}}${a.slice(a.length - sfx)}` : mid;
}

/** The FileDiffs of tree changes, contents read from the repository. */
export async function loadDiffs(repo: RepoAccess, changes: { path: string; oldOid?: string; newOid?: string; oldMode?: string; newMode?: string; from?: { path: string; score: number } }[]): Promise<FileDiff[]> {
  const out: FileDiff[] = [];
  for (const c of changes) {
    out.push({
      path: c.path,
      ...(c.from ? { from: c.from } : {}),
      old: c.oldOid ? { oid: c.oldOid, mode: c.oldMode!, data: await repo.readBlob(c.oldOid) } : undefined,
      new: c.newOid ? { oid: c.newOid, mode: c.newMode!, data: await repo.readBlob(c.newOid) } : undefined,
    });
  }
  return out;
}
