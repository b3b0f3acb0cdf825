import type { Stats } from 'node:fs';
import { VfsError, type Vfs } from '../vfs/index.js';
import { walk } from '../vfs/walk.js';

/**
 * A move that rename(2) refused with EXDEV (the two ends are on different file systems: a
 * mount inside the zone), done as GNU mv does then: copy the tree (modes and times kept),
 * then remove the source. Each file is written atomically; a failed copy (quota, disk full,
 * a file that cannot be read) removes what it had created and leaves the source whole.
 * Symbolic links and special files, which a zone never creates, make it refuse (EXDEV)
 * before anything is copied. `from` and `to` are resolved paths (the destination's parent
 * exists; an existing destination is a file to replace or an empty folder).
 */
export function moveAcross(vfs: Vfs, from: string, to: string): void {
  const top = vfs.resolveExisting(from).stat;
  const plan: { rel: string; st: Stats }[] = [];
  collect(vfs, from, '', top, plan);
  const created: { path: string; dir: boolean }[] = [];
  try {
    for (const { rel, st } of plan) {
      const dst = to + rel;
      if (st.isDirectory()) {
        const existing = vfs.resolve(dst).stat;
        if (!existing?.isDirectory()) {
          vfs.mkdir(dst, '/', 0o700);
          created.push({ path: dst, dir: true });
        }
      } else {
        const existed = vfs.resolve(dst).stat !== null;
        vfs.createWriter(dst, '/', { mode: st.mode & 0o7777 }).writeAll(vfs.readChunks(from + rel));
        if (!existed) created.push({ path: dst, dir: false });
        keepMeta(vfs, dst, st);
      }
    }
    // Folders last, deepest first: writing their entries changed their times.
    for (let i = plan.length - 1; i >= 0; i--) if (plan[i]!.st.isDirectory()) keepMeta(vfs, to + plan[i]!.rel, plan[i]!.st);
  } catch (e) {
    for (const c of created.reverse()) {
      try { if (c.dir) vfs.rmdir(c.path); else vfs.unlink(c.path); } catch { /* best effort */ }
    }
    throw e;
  }
  for (let i = plan.length - 1; i >= 0; i--) {
    const p = from + plan[i]!.rel;
    if (plan[i]!.st.isDirectory()) vfs.rmdir(p);
    else vfs.unlink(p);
  }
}

/** Entries below `path`, parents before children (the one walk, pre-order); anything but files and folders refuses the move. */
function collect(vfs: Vfs, path: string, rel: string, st: Stats, out: { rel: string; st: Stats }[]): void {
  if (!st.isDirectory() && !st.isFile()) throw new VfsError('EXDEV', path + rel);
  out.push({ rel, st });
  if (!st.isDirectory()) return;
  for (const ev of walk(vfs, path + rel, '/', { order: 'directory', includeStart: false })) {
    if (ev.kind === 'error') throw ev.error;
    if (ev.kind !== 'pre' && ev.kind !== 'file') continue;
    const child = `${rel}/${ev.rel}`;
    const cst = vfs.lstat(path + child);
    if (ev.kind === 'pre' && cst.isDirectory()) {
      out.push({ rel: child, st: cst });
      continue;
    }
    // Not what it was listed as (replaced meanwhile): taken as it is now.
    if (ev.kind === 'pre') ev.skip = true;
    collect(vfs, path, child, cst, out);
  }
}

function keepMeta(vfs: Vfs, path: string, st: Stats): void {
  vfs.chmod(path, st.mode & 0o7777);
  vfs.utimes(path, st.atimeMs / 1000, st.mtimeMs / 1000);
}
