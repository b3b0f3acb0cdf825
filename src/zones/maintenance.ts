import * as fs from 'node:fs';
import * as path from 'node:path';
import { forEachFile } from './quota.js';

/** Remove session zones unused for longer than ttlSeconds; returns their ids. */
export function expireSessions(base: string, ttlSeconds: number, now = Date.now()): string[] {
  const dir = path.join(base, 'sessions');
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return removed;
  }
  for (const id of names) {
    const p = path.join(dir, id);
    try {
      const st = fs.lstatSync(p);
      if (st.isDirectory() && now - st.mtimeMs > ttlSeconds * 1000) {
        fs.rmSync(p, { recursive: true, force: true });
        fs.rmSync(path.join(base, 'session-owners', id), { force: true });
        removed.push(id);
      }
    } catch { /* raced with another cleanup */ }
  }
  return removed;
}

/** Remove temporary files of interrupted writes (.nosh-tmp-*) older than maxAgeSeconds. */
export function removeStaleTemps(base: string, maxAgeSeconds: number, now = Date.now()): number {
  let count = 0;
  forEachFile(base, (p, st) => {
    if (path.basename(p).includes('.nosh-tmp-') && now - st.mtimeMs > maxAgeSeconds * 1000) {
      try {
        fs.unlinkSync(p);
        count++;
      } catch { /* gone */ }
    }
  });
  return count;
}
