/**
 * Group ownership and locked edits in the serving thread (issue #20): what a writing call may
 * not change (the guard sent with its task, checked by the worker's Vfs: src/vfs/guard.ts), and
 * the ownership rows its changes create, move and remove afterwards.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileGuard } from '../vfs/index.js';
import type { Change } from '../vfs/index.js';
import type { FileLock, MetaStore, WriteAccess } from '../meta/index.js';
import type { Zone } from '../zones/workspace.js';

/** Who makes a call: the user, and the conversation that may hold a locked edit. */
export interface Caller {
  user: string;
  conversation: string;
}

/** A zone-relative path of the store ('a/b') from a virtual path ('/a/b'). */
export function relOf(vpath: string): string {
  return vpath.replace(/^\/+/, '').replace(/\/+$/, '');
}

/**
 * The guard of a writing call in `zone` (key: its zoneKey): the group's rows that restrict the
 * caller (mode owner_ro, or mode owner of another user) and the live locks of another holder.
 * Undefined when nothing restricts it (the task carries nothing). `only`: the call changes
 * these files alone (write, edit): their rows and locks, not the whole zone's.
 */
export async function guardOf(meta: MetaStore, zone: Zone, key: string, caller: Caller, now = Date.now(), only?: readonly string[]): Promise<FileGuard | undefined> {
  const guard: FileGuard = { rules: {}, locks: {} };
  let any = false;
  if (zone.kind === 'group') {
    for (const r of only ? await meta.ownerships(key, only) : await meta.ownershipsUnder(key, '')) {
      if (r.mode === 'owner_ro' || (r.mode === 'owner' && r.owner !== caller.user)) {
        guard.rules['/' + r.path] = { owner: r.owner, mode: r.mode };
        any = true;
      }
    }
  }
  for (const l of only ? await meta.locks(key, only) : await meta.locksUnder(key, '')) {
    if (l.expiresAt <= now || (l.user === caller.user && l.conversation === caller.conversation)) continue;
    guard.locks['/' + l.path] = { user: l.user, conversation: l.conversation, takenAt: l.takenAt, expiresAt: l.expiresAt };
    any = true;
  }
  return any ? guard : undefined;
}

/**
 * The rows that a call's changes in a group zone make: a written file gets one (owner: the
 * caller, mode: the call's group_mode or the default; a file that has one keeps it), a rename
 * carries its rows along, a delete removes them. In the order the changes were made.
 */
export async function recordOwnership(meta: MetaStore, key: string, changes: readonly Change[], user: string, mode: WriteAccess): Promise<void> {
  let puts: { path: string; owner: string; mode: WriteAccess }[] = [];
  const flush = async () => {
    if (puts.length > 0) await meta.putOwnerships(key, puts);
    puts = [];
  };
  for (const c of changes) {
    const p = relOf(c.path);
    if (p === '') continue;
    if (c.op === 'write') puts.push({ path: p, owner: user, mode });
    else if (c.op === 'rename' && c.to !== undefined) {
      await flush();
      await meta.moveOwnerships(key, p, relOf(c.to));
    } else if (c.op === 'delete') {
      await flush();
      await meta.deleteOwnerships(key, [p]);
    }
  }
  await flush();
}

/** stat and list in a group zone: each file's owner and mode (null for a file nosh has no row for). */
export async function withOwnership(meta: MetaStore, key: string, tool: string, data: unknown): Promise<unknown> {
  if (tool === 'stat') {
    const d = data as { path: string; type: string };
    if (d.type !== 'file') return data;
    const [row] = await meta.ownerships(key, [relOf(d.path)]);
    return { ...d, owner: row?.owner ?? null, group_mode: row?.mode ?? null };
  }
  if (tool === 'list') {
    const d = data as { path: string; entries: { name: string; type: string }[] };
    const dir = relOf(d.path);
    const paths = d.entries.filter((e) => e.type === 'file').map((e) => (dir === '' ? e.name : `${dir}/${e.name}`));
    const rows = new Map((await meta.ownerships(key, paths)).map((r) => [r.path, r]));
    return { ...d, entries: d.entries.map((e) => {
      if (e.type !== 'file') return e;
      const row = rows.get(dir === '' ? e.name : `${dir}/${e.name}`);
      return { ...e, owner: row?.owner ?? null, group_mode: row?.mode ?? null };
    }) };
  }
  return data;
}

/**
 * Maintenance: the rows of group files that are gone (deleted or replaced by a folder behind
 * nosh's back) are removed. Returns how many. Groups are the folders under <base>/groups.
 */
export async function cleanOwnerships(meta: MetaStore, base: string): Promise<number> {
  let ids: string[];
  try {
    ids = (await fs.promises.readdir(path.join(base, 'groups'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const id of ids) {
    const key = `groups/${id}`;
    const root = path.join(base, 'groups', id);
    const gone: string[] = [];
    for (const r of await meta.ownershipsUnder(key, '')) {
      try {
        if (!(await fs.promises.lstat(path.join(root, ...r.path.split('/')))).isFile()) gone.push(r.path);
      } catch {
        gone.push(r.path);
      }
    }
    if (gone.length > 0) await meta.deleteOwnerships(key, gone);
    removed += gone.length;
  }
  return removed;
}

/** The editzone folder of one lock: named by the zone, the file and the holder. */
export function lockDir(base: string, l: Pick<FileLock, 'zone' | 'path' | 'user' | 'conversation'>): string {
  const id = crypto.createHash('sha256').update(JSON.stringify([l.zone, l.path, l.user, l.conversation])).digest('hex').slice(0, 32);
  return path.join(base, 'editzone', id);
}

/** Unlock and remove the working copy. */
export async function dropLock(engine: LockEngine, l: FileLock): Promise<void> {
  await engine.meta.releaseLock(l.zone, l.path);
  await fs.promises.rm(lockDir(engine.workspace.base, l), { recursive: true, force: true });
}

/**
 * Maintenance: expired locks are removed with their working copies, and so are editzone
 * folders whose lock is gone (a lock replaced after it expired). Returns how many locks.
 */
export async function expireLocks(engine: LockEngine, now = Date.now()): Promise<number> {
  const expired = await engine.meta.expiredLocks(now);
  for (const l of expired) await dropLock(engine, l);
  const root = path.join(engine.workspace.base, 'editzone');
  let ids: string[] = [];
  try { ids = await fs.promises.readdir(root); } catch { /* none */ }
  for (const id of ids) {
    const dir = path.join(root, id);
    try {
      if (now - (await fs.promises.stat(dir)).mtimeMs < 60_000) continue; // an open under way
    } catch { continue; }
    let l: FileLock | undefined;
    try { l = JSON.parse(await fs.promises.readFile(path.join(dir, 'lock.json'), 'utf8')) as FileLock; } catch { /* unreadable: orphan */ }
    const [live] = l ? await engine.meta.locks(l.zone, [l.path]) : [];
    const current = l && live && live.user === l.user && live.conversation === l.conversation && live.expiresAt > now;
    if (!current) await fs.promises.rm(dir, { recursive: true, force: true });
  }
  return expired.length;
}

/** What the lock helpers use of the engine. */
interface LockEngine {
  readonly meta: MetaStore;
  readonly workspace: { readonly base: string };
}
