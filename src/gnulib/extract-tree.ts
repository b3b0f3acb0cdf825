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

/**
 * The hidden staging folder, a child of the destination, held open. `pending` are the staged
 * names not yet moved into place: remove() takes them and the folder away.
 */
export class StagingFolder {
  readonly pending = new Set<string>();
  private constructor(private readonly fs: Vfs, private readonly parent: DirHandle, readonly name: string, readonly dir: DirHandle) {}

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

  /** Move a staged file into `dir` as `name` (Vfs.renameAt); it is no longer pending. */
  publish(staged: string, dir: DirHandle, name: string): void {
    this.fs.renameAt(this.dir, staged, dir, name);
    this.pending.delete(staged);
  }

  /** Unlink the staged files still pending, close and remove the folder (best effort). */
  remove(): void {
    for (const n of this.pending) try { this.fs.unlinkAt(this.dir, n); } catch { /* gone already */ }
    this.pending.clear();
    this.dir.close();
    try { this.fs.rmdirAt(this.parent, this.name); } catch { /* not empty: left for the temp sweep */ }
  }
}
