import * as fs from 'node:fs';
import * as path from 'node:path';
import { forEachFile } from './quota.js';
import { isTempName, tempOwnerAlive } from '../vfs/temp-name.js';

/**
 * Remove session zones unused for longer than ttlSeconds; returns their ids. Asynchronous:
 * it runs in the serving thread, where listing 100 000 sessions and removing big ones
 * synchronously blocked every caller.
 */
export async function expireSessions(base: string, ttlSeconds: number, now = Date.now()): Promise<string[]> {
  const dir = path.join(base, 'sessions');
  const removed: string[] = [];
  let handle: fs.Dir;
  try {
    handle = await fs.promises.opendir(dir, { bufferSize: 256 });
  } catch {
    return removed;
  }
  const ids: string[] = [];
  try {
    for await (const d of handle) if (d.isDirectory()) ids.push(d.name);
  } catch { /* vanished */ }
  for (const id of ids) {
    const p = path.join(dir, id);
    try {
      const st = await fs.promises.lstat(p);
      if (st.isDirectory() && now - st.mtimeMs > ttlSeconds * 1000) {
        await fs.promises.rm(p, { recursive: true, force: true });
        await fs.promises.rm(path.join(base, 'session-owners', id), { force: true });
        removed.push(id);
      }
    } catch { /* raced with another cleanup */ }
  }
  return removed;
}

/** Age past which a temp file whose name carries no owner (an older nosh made it) is stale. */
export const STALE_TEMP_SECONDS = 3600;

/**
 * Remove the temp files of interrupted writes (.nosh-tmp-*) below the folders: at once those
 * whose owning process is gone (killed mid-write: see src/vfs/temp-name.ts), never those of a
 * running process (a write under way), and those of an older nosh, whose names carry no
 * owner, once older than maxAgeSeconds. Returns how many were removed.
 */
export async function removeStaleTemps(folders: string | string[], maxAgeSeconds: number, now = Date.now()): Promise<number> {
  const stale: string[] = [];
  for (const folder of typeof folders === 'string' ? [folders] : folders) {
    await forEachFile(folder, (p, st) => {
      const name = path.basename(p);
      if (!isTempName(name)) return;
      const alive = tempOwnerAlive(name);
      if (alive === false || (alive === null && now - st.mtimeMs > maxAgeSeconds * 1000)) stale.push(p);
    });
  }
  let count = 0;
  for (const p of stale) {
    try {
      await fs.promises.unlink(p);
      count++;
    } catch { /* gone */ }
  }
  return count;
}
