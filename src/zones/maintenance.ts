import * as fs from 'node:fs';
import * as path from 'node:path';
import { forEachFile } from './quota.js';

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

/** Remove temporary files of interrupted writes (.nosh-tmp-*) older than maxAgeSeconds. */
export async function removeStaleTemps(base: string, maxAgeSeconds: number, now = Date.now()): Promise<number> {
  const stale: string[] = [];
  await forEachFile(base, (p, st) => {
    if (path.basename(p).includes('.nosh-tmp-') && now - st.mtimeMs > maxAgeSeconds * 1000) stale.push(p);
  });
  let count = 0;
  for (const p of stale) {
    try {
      await fs.promises.unlink(p);
      count++;
    } catch { /* gone */ }
  }
  return count;
}
