/**
 * Maintenance of versioned zones: every change adds loose objects (a file per blob, tree and
 * commit), so a zone with a long history holds tens of thousands of small files. Once a
 * git directory has `min` loose objects they are written into one pack (isomorphic-git's
 * packObjects and indexPack, what `git gc` would do minus delta compression) and then
 * removed. Safe beside commits: a loose object is removed only after the pack and its index
 * holding it are on disk, and readers look in packs for what is not loose.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadGit } from './repo.js';

/** Loose objects a git directory may hold before maintenance packs them. */
export const PACK_LOOSE_MIN = 1000;

/** Every git directory under <base>/versions (one per versioned zone). */
export async function gitdirsUnder(versions: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let names: fs.Dirent[];
    try { names = await fs.promises.readdir(dir, { withFileTypes: true }); } catch { return; }
    for (const d of names) {
      if (!d.isDirectory()) continue;
      const p = path.join(dir, d.name);
      if (d.name.endsWith('.git') && fs.existsSync(path.join(p, 'HEAD'))) out.push(p);
      else if (depth < 4) await walk(p, depth + 1);
    }
  };
  await walk(versions, 0);
  return out.sort();
}

async function looseObjects(gitdir: string): Promise<string[]> {
  const objects = path.join(gitdir, 'objects');
  const out: string[] = [];
  for (const d of await fs.promises.readdir(objects).catch(() => [] as string[])) {
    if (!/^[0-9a-f]{2}$/.test(d)) continue;
    for (const f of await fs.promises.readdir(path.join(objects, d)).catch(() => [] as string[])) {
      if (/^[0-9a-f]{38}$/.test(f)) out.push(d + f);
    }
  }
  return out;
}

/** Pack the loose objects of one git directory when there are at least `min`; returns how many were packed. */
export async function packLoose(gitdir: string, min = PACK_LOOSE_MIN): Promise<number> {
  const loose = await looseObjects(gitdir);
  if (loose.length < min || loose.length === 0) return 0;
  const git = await loadGit();
  const { filename } = await git.packObjects({ fs, gitdir, oids: loose, write: true });
  const rel = path.join('objects', 'pack', filename);
  await git.indexPack({ fs, dir: gitdir, gitdir, filepath: rel });
  const idx = path.join(gitdir, rel.replace(/\.pack$/, '.idx'));
  if (!fs.existsSync(idx)) return 0; // keep every loose object when the index is not there
  for (const oid of loose) await fs.promises.unlink(path.join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2))).catch(() => {});
  for (const d of new Set(loose.map((o) => o.slice(0, 2)))) await fs.promises.rmdir(path.join(gitdir, 'objects', d)).catch(() => {});
  return loose.length;
}
