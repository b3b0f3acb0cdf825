/**
 * The write rules of group ownership and locked edits, as a worker sees them (issue #20). The
 * main thread loads, before a writing call, the rows that restrict the caller (files of a group
 * zone in mode `owner` owned by someone else, files in mode `owner_ro`) and the locks of the
 * zone held by another user or conversation, and sends them with the task; the Vfs checks every
 * write, rename and delete against them. Plain data: structured-cloned into the worker.
 *
 * Keys are virtual paths with their leading '/' ('/docs/a.txt'; the store keeps 'docs/a.txt'), so
 * that no file name can be a special key of an object ('__proto__' would set the prototype).
 */
import { VfsError } from './errors.js';

export interface GuardRule {
  owner: string;
  mode: 'owner' | 'owner_ro';
}

export interface GuardLock {
  user: string;
  conversation: string;
  takenAt: number;
  expiresAt: number;
}

export interface FileGuard {
  /** Restricting ownership rows by path. */
  rules: Record<string, GuardRule>;
  /** Locks held by others, by path. */
  locks: Record<string, GuardLock>;
}

/** Whether the guard restricts anything. */
export function guardIsEmpty(g: FileGuard | undefined): boolean {
  if (!g) return true;
  for (const _ in g.rules) return false;
  for (const _ in g.locks) return false;
  return true;
}

function lockError(vpath: string, l: GuardLock): VfsError {
  return new VfsError('ELOCKED', vpath, {
    holder: l.user, conversation: l.conversation, since: new Date(l.takenAt).toISOString(), expires: new Date(l.expiresAt).toISOString(),
  });
}

function ruleError(vpath: string, r: GuardRule): VfsError {
  return new VfsError('EOWNER', vpath, { owner: r.owner, mode: r.mode });
}

/** Refuse a change of the file at `vpath` ('/a/b'): a lock of another holder, then an ownership rule. */
export function checkGuard(g: FileGuard, vpath: string): void {
  const key = '/' + vpath.replace(/^\/+/, '');
  // own keys only: a file named 'constructor' is not a rule of Object.prototype
  if (Object.hasOwn(g.locks, key)) throw lockError(vpath, g.locks[key]!);
  if (Object.hasOwn(g.rules, key)) throw ruleError(vpath, g.rules[key]!);
}

/** A folder being renamed: no file below it may be restricted (its rows and locks would move with it). */
export function checkGuardTree(g: FileGuard, vpath: string): void {
  checkGuard(g, vpath);
  const rel = vpath.replace(/^\/+/, '');
  const prefix = rel === '' ? '/' : '/' + rel + '/';
  for (const p of Object.keys(g.locks)) if (p.startsWith(prefix)) throw lockError(p, g.locks[p]!);
  for (const p of Object.keys(g.rules)) if (p.startsWith(prefix)) throw ruleError(p, g.rules[p]!);
}
