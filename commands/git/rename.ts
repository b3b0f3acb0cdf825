/**
 * Whole-file renames, as git finds them (log, show, diff, --follow, blame): a file that a commit
 * adds came from a file the same commit deleted when their contents are the same (exact
 * rename) or similar enough (git's default threshold, 50%). git scores similarity on
 * 64-byte chunks of the two blobs; nosh scores on lines (bytes of the lines the two have in
 * common over the larger size), which agrees with git for text edited by lines.
 */
import type { RepoAccess, RepoEntry, RepoFileChange } from '../../src/command/index.js';
import type { FileDiff } from './format.js';

const THRESHOLD = 0.5;
/** Pairs scored for inexact renames at most (git's diff.renameLimit is 1000 files a side). */
const PAIR_LIMIT = 1000 * 1000;

export interface RenameSide { path: string; oid: string }
export type Renamed = { path: string; score: number };

/**
 * git's rename pairing (diffcore-rename) of the files a diff deletes and adds: exact renames
 * first (same blob), then the remaining pairs scored >= 50%, best score first, each file in
 * one pair at most. Returns, per added path, the deleted file it came from and the score in
 * percent (100 only for an exact rename).
 */
export async function findRenames(deleted: RenameSide[], added: RenameSide[], read: (oid: string) => Promise<Uint8Array>): Promise<Map<string, Renamed>> {
  const out = new Map<string, Renamed>();
  const used = new Set<string>();
  for (const a of added) {
    const d = deleted.find((x) => !used.has(x.path) && x.oid === a.oid);
    if (d) { used.add(d.path); out.set(a.path, { path: d.path, score: 100 }); }
  }
  const restA = added.filter((a) => !out.has(a.path));
  const restD = deleted.filter((d) => !used.has(d.path));
  if (restA.length === 0 || restD.length === 0 || restA.length * restD.length > PAIR_LIMIT) return out;
  const blobs = new Map<string, Uint8Array>();
  const blob = async (oid: string) => blobs.get(oid) ?? blobs.set(oid, await read(oid)).get(oid)!;
  const pairs: { a: number; d: number; score: number }[] = [];
  for (const [ai, a] of restA.entries()) {
    const target = await blob(a.oid);
    for (const [di, d] of restD.entries()) {
      const src = await blob(d.oid);
      if (Math.min(src.length, target.length) < THRESHOLD * Math.max(src.length, target.length)) continue; // cannot reach the threshold
      const score = similarity(src, target);
      if (score >= THRESHOLD) pairs.push({ a: ai, d: di, score });
    }
  }
  pairs.sort((x, y) => y.score - x.score || x.a - y.a || x.d - y.d);
  const takenA = new Set<number>();
  for (const p of pairs) {
    const d = restD[p.d]!;
    if (takenA.has(p.a) || used.has(d.path)) continue;
    takenA.add(p.a);
    used.add(d.path);
    out.set(restA[p.a]!.path, { path: d.path, score: Math.min(99, Math.floor(p.score * 100)) });
  }
  return out;
}

/** The deleted file of `before` that became the blob `oid` of `after`, with its score in percent (log --follow, blame). */
export async function renameSource(repo: RepoAccess, before: string, after: string, oid: string): Promise<(RepoEntry & { score: number }) | undefined> {
  const changes = await repo.diffTrees(before, after);
  const deleted = changes.filter((c) => c.status === 'D' && c.oldOid !== undefined);
  if (deleted.length === 0) return undefined;
  const found = (await findRenames(deleted.map((d) => ({ path: d.path, oid: d.oldOid! })), [{ path: '\0', oid }], (o) => repo.readBlob(o))).get('\0');
  const d = found && deleted.find((x) => x.path === found.path);
  return d && { mode: d.oldMode!, path: d.path, oid: d.oldOid!, type: 'blob', score: found!.score };
}

/** A change of a diff, with the file it was renamed from. */
export type MaybeRenamed = RepoFileChange & { from?: Renamed };

/** Tree changes with renames paired as git 2.39 does by default (diff.renames): an added file that came from a deleted one is one change. */
export async function withRenames<T extends MaybeRenamed>(repo: RepoAccess, changes: T[]): Promise<T[]> {
  const del = changes.filter((c) => c.status === 'D' && c.oldOid !== undefined);
  const add = changes.filter((c) => c.status === 'A' && c.newOid !== undefined);
  if (del.length === 0 || add.length === 0) return changes;
  const found = await findRenames(del.map((c) => ({ path: c.path, oid: c.oldOid! })), add.map((c) => ({ path: c.path, oid: c.newOid! })), (o) => repo.readBlob(o));
  if (found.size === 0) return changes;
  const gone = new Set([...found.values()].map((f) => f.path));
  return changes.filter((c) => !(c.status === 'D' && gone.has(c.path))).map((c) => {
    const f = c.status === 'A' ? found.get(c.path) : undefined;
    if (!f) return c;
    const d = del.find((x) => x.path === f.path)!;
    return { ...c, status: 'M', oldOid: d.oldOid, oldMode: d.oldMode, from: f };
  });
}

/** The same pairing for diffs whose contents are loaded (git diff against the work tree). */
export async function fileDiffRenames(diffs: FileDiff[]): Promise<FileDiff[]> {
  const del = diffs.filter((d) => d.old && !d.new);
  const add = diffs.filter((d) => d.new && !d.old);
  if (del.length === 0 || add.length === 0) return diffs;
  const data = new Map<string, Uint8Array>();
  for (const d of [...del.map((x) => x.old!), ...add.map((x) => x.new!)]) data.set(d.oid, d.data);
  const found = await findRenames(del.map((d) => ({ path: d.path, oid: d.old!.oid })), add.map((d) => ({ path: d.path, oid: d.new!.oid })), async (o) => data.get(o)!);
  if (found.size === 0) return diffs;
  const gone = new Set([...found.values()].map((f) => f.path));
  return diffs.filter((d) => !(d.old && !d.new && gone.has(d.path))).map((d) => {
    const f = d.new && !d.old ? found.get(d.path) : undefined;
    return f ? { ...d, old: del.find((x) => x.path === f.path)!.old, from: f } : d;
  });
}

function similarity(a: Uint8Array, b: Uint8Array): number {
  const max = Math.max(a.length, b.length);
  if (max === 0) return 1;
  const count = new Map<string, number>();
  for (const l of splitLines(a)) count.set(l, (count.get(l) ?? 0) + 1);
  let common = 0;
  for (const l of splitLines(b)) {
    const n = count.get(l);
    if (n) { common += l.length; count.set(l, n - 1); }
  }
  return common / max;
}

function splitLines(b: Uint8Array): string[] {
  return Buffer.from(b).toString('latin1').match(/[^\n]*\n|[^\n]+$/g) ?? [];
}
