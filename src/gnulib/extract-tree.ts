// The destination of an extraction (unzip, tar -x), held open: its folders are reached and made
// one component at a time relative to open, verified directories (Vfs.openDirAt / mkdirAt),
// never by resolving each entry's path from the zone root again (that cost ~36 lstats per
// extracted file). A symbolic link on the way is never followed: the walk says where it is.
// The staging folder of "all or nothing" is a hidden child of the destination, held open too:
// files are written there (Vfs.createWriterAt) and moved into their folder (Vfs.renameAt).
import { randomBytes } from 'node:crypto';
import type { DirHandle, Vfs } from '../vfs/vfs.js';
import { VfsError } from '../vfs/errors.js';

/** Held folders kept open at most (the most recently used; a walk past them opens again). */
const KEEP = 48;

export type Reached = { dir: DirHandle; created: boolean } | { link: string } | { missing: string };

/** `rel` as components: '' and '.' dropped ('..' was refused before: names.ts, safeEntryPath). */
export function components(rel: string): string[] {
  return rel.split('/').filter((p) => p !== '' && p !== '.');
}

export class DestTree {
  /** Held folders by their path below the base ('a/b'), least recently used first. */
  private readonly held = new Map<string, DirHandle>();
  private closed = false;

  private constructor(private readonly fs: Vfs, readonly base: DirHandle) {}

  /** Hold the destination folder `path` (it must exist). */
  static open(fs: Vfs, path: string, cwd: string): DestTree {
    // a link where the zone does not follow links is refused as a link, not as "not a directory"
    if (!fs.policy.followSymlinks && fs.lstat(path, cwd).isSymbolicLink()) throw new VfsError('ESYMLINK', path);
    return new DestTree(fs, fs.openDir(path, cwd));
  }

  /** Hold the folders below `base`, an open folder this tree now owns (closes). */
  static over(fs: Vfs, base: DirHandle): DestTree {
    return new DestTree(fs, base);
  }

  /**
   * The held folder `rel` below the base: made where missing when `create` (each one made is
   * told to `made`, its path below the base), else { missing } at the first missing component.
   * { link } names the first component that is a symbolic link; a component that is another
   * kind of file is ENOTDIR. `created`: the last component was made by this call.
   */
  reach(rel: string, create: boolean, made?: (rel: string) => void): Reached {
    const parts = components(rel);
    let i = parts.length;
    let dir: DirHandle | undefined;
    // the deepest folder on the way already held
    for (; i > 0; i--) {
      dir = this.held.get(parts.slice(0, i).join('/'));
      if (dir) break;
    }
    if (!dir) {
      dir = this.base;
      i = 0;
    } else {
      const key = parts.slice(0, i).join('/');
      this.held.delete(key); // most recently used now
      this.held.set(key, dir);
    }
    let created = false;
    for (; i < parts.length; i++) {
      const name = parts[i]!;
      const sub = parts.slice(0, i + 1).join('/');
      const st = this.fs.lstatAt(dir, name);
      created = false;
      if (st === null) {
        if (!create) return { missing: sub };
        this.fs.mkdirAt(dir, name);
        made?.(sub);
        created = true;
      } else if (st.isSymbolicLink()) return { link: sub };
      else if (!st.isDirectory()) throw new VfsError('ENOTDIR', `${this.base.vpath === '/' ? '' : this.base.vpath}/${sub}`);
      dir = this.fs.openDirAt(dir, name);
      this.keep(sub, dir);
    }
    return { dir, created };
  }

  /** Let go of the held folders `rel` and below (moved away: never reached through this tree again). */
  forget(rel: string): void {
    for (const [key, h] of [...this.held]) {
      if (key === rel || key.startsWith(rel + '/')) {
        h.close();
        this.held.delete(key);
      }
    }
  }

  private keep(key: string, dir: DirHandle): void {
    this.held.get(key)?.close();
    this.held.set(key, dir);
    while (this.held.size > KEEP) {
      const [oldest, h] = this.held.entries().next().value as [string, DirHandle];
      h.close();
      this.held.delete(oldest);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.held.values()) h.close();
    this.held.clear();
    this.base.close();
  }
}

/** 'a/b/c' -> ['a/b', 'c']; 'c' -> ['', 'c']. */
export function splitLast(rel: string): [string, string] {
  const slash = rel.lastIndexOf('/');
  return slash < 0 ? ['', rel] : [rel.slice(0, slash), rel.slice(slash + 1)];
}

/** The top folder an entry `rel` below the destination goes into: null for a file of the destination itself. */
export function topOf(rel: string, isDir: boolean): string | null {
  const parts = components(rel);
  return parts.length > 1 || (isDir && parts.length === 1) ? parts[0]! : null;
}

/**
 * The hidden staging folder, a child of the destination, held open. Files are staged two ways:
 * flat (`pending`: a unique name in the staging folder itself, moved into its folder by
 * publish()) when they join a folder that exists already; nested, when their top folder is new
 * to the destination (the common case: unpacking into a fresh folder): the top folder is built
 * here with its own structure (reach(), the files in `nested`) and moved into place with ONE
 * rename (moveTop: Vfs.renameDirAt, which never replaces anything); a top folder that cannot
 * move whole (made at the destination meanwhile) is moved file by file (publishNested).
 * remove() takes away what is still staged, the folders made here and the folder itself.
 */
export class StagingFolder {
  readonly pending = new Set<string>();
  /** Files staged below the staging folder's own folders (paths below it), not moved yet. */
  readonly nested = new Set<string>();
  /** Folders made below the staging folder (paths below it), not moved yet, in the order made. */
  private made: string[] = [];
  private readonly tree: DestTree;
  private constructor(private readonly fs: Vfs, private readonly parent: DirHandle, readonly name: string, dir: DirHandle) {
    this.tree = DestTree.over(fs, dir);
  }

  /** The staging folder itself, held. */
  get dir(): DirHandle {
    return this.tree.base;
  }

  /** mkdir PARENT/.nosh-<what>-<random> (0700), held. */
  static make(fs: Vfs, parent: DirHandle, what: string): StagingFolder {
    const name = `.nosh-${what}-${randomBytes(6).toString('hex')}`;
    fs.mkdirAt(parent, name, 0o700);
    try {
      return new StagingFolder(fs, parent, name, fs.openDirAt(parent, name));
    } catch (e) {
      try { fs.rmdirAt(parent, name); } catch { /* left for the temp sweep */ }
      throw e;
    }
  }

  /** The vpath of a staged name (for messages). */
  path(name: string): string {
    return `${this.dir.vpath}/${name}`;
  }

  /** The staged folder `rel` (below the staging folder), made where missing when `create`: as DestTree.reach. */
  reach(rel: string, create: boolean): Reached {
    return this.tree.reach(rel, create, (m) => this.made.push(m));
  }

  /** Move a staged file into `dir` as `name` (Vfs.renameAt); it is no longer pending. */
  publish(staged: string, dir: DirHandle, name: string): void {
    this.fs.renameAt(this.dir, staged, dir, name);
    this.pending.delete(staged);
  }

  /** Move the staged top folder `top` into `dest` under the same name, with one rename (Vfs.renameDirAt). */
  moveTop(top: string, dest: DirHandle): void {
    this.fs.renameDirAt(this.dir, top, dest, top);
    // gone from here: never reached (nor removed) through this tree again
    this.tree.forget(top);
    const under = (p: string) => p === top || p.startsWith(top + '/');
    for (const f of this.nested) if (under(f)) this.nested.delete(f);
    this.made = this.made.filter((d) => !under(d));
  }

  /** Move the nested staged file `rel` into `dir` as `name` (a top folder that could not move whole). */
  publishNested(rel: string, dir: DirHandle, name: string): void {
    const [from, base] = splitLast(rel);
    const r = this.reach(from, false);
    if (!('dir' in r)) throw new VfsError('ENOENT', this.path(rel));
    this.fs.renameAt(r.dir, base, dir, name);
    this.nested.delete(rel);
  }

  /** Unlink the nested staged file `rel` (a later entry of the same name replaces it). */
  unlinkNested(rel: string): void {
    const [from, base] = splitLast(rel);
    const r = this.reach(from, false);
    if ('dir' in r) this.fs.unlinkAt(r.dir, base);
    this.nested.delete(rel);
  }

  /** Unlink the staged files still there, remove the folders made here, close and remove the folder (best effort). */
  remove(): void {
    for (const n of this.pending) try { this.fs.unlinkAt(this.dir, n); } catch { /* gone already */ }
    this.pending.clear();
    for (const f of [...this.nested]) try { this.unlinkNested(f); } catch { /* gone already */ }
    this.nested.clear();
    for (const d of this.made.reverse()) {
      const [from, base] = splitLast(d);
      try {
        const r = this.tree.reach(from, false);
        this.tree.forget(d);
        if ('dir' in r) this.fs.rmdirAt(r.dir, base);
      } catch { /* not empty: left for the temp sweep */ }
    }
    this.made = [];
    this.tree.close();
    try { this.fs.rmdirAt(this.parent, this.name); } catch { /* not empty: left for the temp sweep */ }
  }
}
