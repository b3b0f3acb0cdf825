/**
 * gnulib canonicalize_filename_mode inside the zone: realpath and readlink -f/-e/-m. Every
 * step goes through the Vfs (resolve: blocked names; linkTarget: a symlink's target as
 * virtual components, EESCAPE when it leaves the zone), so the result is a virtual path and
 * never a host path.
 */
import { VfsError, type Vfs } from '../vfs/index.js';

/** 'existing' (-e): every component exists; 'all-but-last' (-f, realpath's default); 'missing' (-m): none need to. */
export type CanonMode = 'existing' | 'all-but-last' | 'missing';

const MAX_HOPS = 40;

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/**
 * The canonical virtual path of `path`. `follow` false (-s): symlinks are kept as they are
 * (names are still checked for existence as `mode` says). `logical` (-L): '..' is applied to
 * the name as written, before symlinks. Throws VfsError (errno) as GNU would fail.
 */
export function canonicalize(fs: Vfs, path: string, cwd: string, mode: CanonMode, follow = true, logical = false): string {
  if (path === '') throw new VfsError('ENOENT', path);
  let queue = [...(path.startsWith('/') ? [] : split(cwd)), ...split(path)];
  if (logical) {
    const out: string[] = [];
    for (const seg of queue) {
      if (seg === '..') out.pop();
      else if (seg !== '.') out.push(seg);
    }
    queue = out;
  }
  const cur: string[] = [];
  let hops = 0;
  // The last component reached: is it a directory (null: missing)?
  let isDir: boolean | null = true;
  for (let i = 0; i < queue.length; i++) {
    const seg = queue[i]!;
    const more = queue.slice(i + 1).length > 0;
    if (seg === '.' || seg === '..') {
      if (isDir === false && mode !== 'missing') throw new VfsError('ENOTDIR', path);
      if (seg === '..') cur.pop();
      isDir = seg === '..' ? true : isDir;
      continue;
    }
    if (isDir === false && mode !== 'missing') throw new VfsError('ENOTDIR', path);
    if (isDir === null && mode !== 'missing') throw new VfsError('ENOENT', path);
    const candidate = '/' + [...cur, seg].join('/');
    let stat;
    try {
      // -s keeps the links in the name; whether it exists is asked of where they lead.
      // (lstat: the last one is not followed; the links before it are, inside the zone).
      const at = follow || cur.length === 0 ? candidate : `${canonicalize(fs, '/' + cur.join('/'), '/', 'missing', true).replace(/\/$/, '')}/${seg}`;
      stat = isDir === true ? fs.resolve(at, '/').stat : null;
    } catch (e) {
      if (mode === 'missing' && e instanceof VfsError && (e.errno === 'ENOENT' || e.errno === 'ENOTDIR')) stat = null;
      else throw e;
    }
    if (!stat) {
      if (mode === 'existing' || (mode === 'all-but-last' && more)) throw new VfsError('ENOENT', path);
      cur.push(seg);
      isDir = null;
      continue;
    }
    if (follow && stat.isSymbolicLink()) {
      if (++hops > MAX_HOPS) throw new VfsError('ELOOP', path);
      queue = [...fs.linkTarget(candidate, '/'), ...queue.slice(i + 1)];
      i = -1;
      cur.length = 0;
      isDir = true;
      continue;
    }
    cur.push(seg);
    // -s: a link counts as a directory here; what follows it is looked up through it.
    isDir = stat.isDirectory() || stat.isSymbolicLink();
  }
  return '/' + cur.join('/');
}

/** gnulib/coreutils relpath: `path` relative to the directory `base` (both canonical). */
export function relativePath(path: string, base: string): string {
  const p = split(path);
  const b = split(base);
  let common = 0;
  while (common < p.length && common < b.length && p[common] === b[common]) common++;
  const parts = [...b.slice(common).map(() => '..'), ...p.slice(common)];
  return parts.length === 0 ? '.' : parts.join('/');
}

/** Is `prefix` (canonical) the path itself or one of its ancestors, component-wise? */
export function isPathPrefix(prefix: string, path: string): boolean {
  const a = split(prefix);
  const b = split(path);
  return a.length <= b.length && a.every((s, i) => s === b[i]);
}
