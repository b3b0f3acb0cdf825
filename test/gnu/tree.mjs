// Builds a fixture tree on disk, the same way for GNU recording and for nosh tests.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Fixed time for every entry, so ls -l / stat / find -newer agree between runs. */
export const FIXTURE_TIME = Date.UTC(2024, 0, 2, 3, 4, 5) / 1000;

/**
 * tree: { "name": "content" | null (empty dir) | { content?, base64?, mode?, symlink?, dir?: true, mtime? } }
 * Names with '/' create parents. Directories get their time last, deepest first.
 */
export function buildTree(root, tree) {
  fs.mkdirSync(root, { recursive: true });
  const dirs = new Set([root]);
  const timed = [];
  for (const [name, spec] of Object.entries(tree ?? {})) {
    const p = path.join(root, name);
    let d = path.dirname(p);
    while (d.length > root.length) { dirs.add(d); d = path.dirname(d); }
    fs.mkdirSync(path.dirname(p), { recursive: true });
    if (spec === null || (typeof spec === 'object' && spec.dir)) {
      fs.mkdirSync(p, { recursive: true });
      dirs.add(p);
      if (spec && spec.mode) fs.chmodSync(p, parseInt(spec.mode, 8));
      if (spec && spec.mtime !== undefined) timed.push([p, spec.mtime]);
      continue;
    }
    if (typeof spec === 'string') {
      fs.writeFileSync(p, spec);
    } else if (spec.symlink !== undefined) {
      fs.symlinkSync(spec.symlink, p);
      // The link's own time (ls -l, stat, find -newer see it); never the target's.
      fs.lutimesSync(p, spec.mtime ?? FIXTURE_TIME, spec.mtime ?? FIXTURE_TIME);
      continue;
    } else {
      fs.writeFileSync(p, spec.base64 !== undefined ? Buffer.from(spec.base64, 'base64') : (spec.content ?? ''));
      if (spec.mode) fs.chmodSync(p, parseInt(spec.mode, 8));
    }
    timed.push([p, spec?.mtime ?? FIXTURE_TIME]);
  }
  for (const [p, t] of timed) fs.utimesSync(p, t, t);
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
    if (!timed.some(([p]) => p === d)) fs.utimesSync(d, FIXTURE_TIME, FIXTURE_TIME);
    else { const t = timed.find(([p]) => p === d)[1]; fs.utimesSync(d, t, t); }
  }
}

/** A listing of a tree after a command ran: path, type, size and content hash; sorted. */
export function snapshotTree(root) {
  const out = [];
  const walk = (dir, rel) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) { out.push(`${r}/`); walk(p, r); }
      else if (e.isSymbolicLink()) out.push(`${r} -> ${fs.readlinkSync(p)}`);
      else {
        const st = fs.statSync(p);
        out.push(`${r} ${(st.mode & 0o777).toString(8)} ${fs.readFileSync(p).toString('base64')}`);
      }
    }
  };
  walk(root, '');
  return out;
}
