/**
 * Whole-file renames, as git finds them for blame and log --follow: a file that a commit
 * adds came from a file the same commit deleted when their contents are the same (exact
 * rename) or similar enough (git's default threshold, 50%). git scores similarity on
 * 64-byte chunks of the two blobs; nosh scores on lines (bytes of the lines the two have in
 * common over the larger size), which agrees with git for text edited by lines.
 */
import type { RepoAccess, RepoEntry } from '../../src/command/index.js';

const THRESHOLD = 0.5;

/** The deleted file of `before` that became the blob `oid` of `after`, with its score in percent. */
export async function renameSource(repo: RepoAccess, before: string, after: string, oid: string): Promise<(RepoEntry & { score: number }) | undefined> {
  const changes = await repo.diffTrees(before, after);
  const deleted = changes.filter((c) => c.status === 'D' && c.oldOid !== undefined);
  if (deleted.length === 0) return undefined;
  const exact = deleted.find((c) => c.oldOid === oid);
  if (exact) return { mode: exact.oldMode!, path: exact.path, oid: exact.oldOid!, type: 'blob', score: 100 };
  const target = await repo.readBlob(oid);
  let best: (RepoEntry & { score: number }) | undefined;
  for (const d of deleted) {
    const score = similarity(await repo.readBlob(d.oldOid!), target);
    if (score >= THRESHOLD && (!best || score * 100 > best.score)) {
      best = { mode: d.oldMode!, path: d.path, oid: d.oldOid!, type: 'blob', score: Math.floor(score * 100) };
    }
  }
  return best;
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
