/**
 * Helpers shared by listing commands (ls, stat, tree): symlink targets and what they
 * point to, without ever following a symlink the zone policy does not follow.
 */
import type { Stats } from 'node:fs';
import type { Vfs } from '../vfs/index.js';
import { joinPath } from './format.js';

const MAX_HOPS = 40;

/** Parent directory of a path as written ('a' -> '.', 'd/x' -> 'd', '/x' -> '/'). */
export function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const i = trimmed.lastIndexOf('/');
  if (i < 0) return '.';
  if (i === 0) return '/';
  return trimmed.slice(0, i);
}

/** A symlink's target text (masked by the Vfs when it leaves the zone); null when unreadable. */
export function linkText(vfs: Vfs, path: string, cwd: string): string | null {
  try {
    return vfs.readlink(path, cwd);
  } catch {
    return null;
  }
}

/**
 * What a symlink points to, for display only (ls -l/-F, tree, stat %F of the target):
 * the stat of the final target inside the zone, or null when dangling, outside the zone
 * or not resolvable (a target written with a trailing '/' that is not a directory is
 * ENOTDIR, as for the kernel). Only metadata is read; nothing is opened through the link.
 */
export function linkTargetStat(vfs: Vfs, path: string, cwd: string): Stats | null {
  try {
    let cur = path;
    let needDir = false;
    for (let i = 0; i < MAX_HOPS; i++) {
      const r = vfs.resolveExisting(cur, cwd);
      if (!r.stat.isSymbolicLink()) return needDir && !r.stat.isDirectory() ? null : r.stat;
      const target = vfs.readlink(cur, cwd);
      if (target === '(outside the zone)') return null;
      needDir ||= target.endsWith('/');
      cur = target.startsWith('/') ? target : joinPath(parentOf(r.vpath), target);
    }
  } catch {
    return null;
  }
  return null;
}
