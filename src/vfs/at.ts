// Changes relative to a held directory: the *at() system calls, as Linux lets Node reach them.
//
// Node has no openat/unlinkat/renameat/mkdirat. Linux's /proc/self/fd/N is a link to whatever
// descriptor N holds, so `/proc/self/fd/N/NAME` resolves NAME inside that very directory, never
// a path resolved again: a folder of the zone swapped for a symlink to the outside after its
// check cannot redirect the change. A held directory is opened O_DIRECTORY|O_NOFOLLOW and
// verified at once: the kernel's location of the descriptor must be exactly the host path the
// resolution checked (so no component on the way was a symlink, and it is inside the root).
// Every change then names one component inside it: unlink, rmdir, mkdir, rename (both ends),
// open(O_CREAT|O_EXCL|O_NOFOLLOW) of a temp file. Times and modes are set on the inode itself:
// an O_PATH|O_NOFOLLOW descriptor of the child (fstat-ed for its type and link count), reached
// through its own /proc/self/fd link, so the checked inode is the changed one.
//
// Without /proc (not Linux) the same calls fall back to host paths (the checks stay, the window
// between them and the change is open again).
import * as fs from 'node:fs';
import { VfsError, fromNodeError } from './errors.js';

export const HAVE_PROC_FD = (() => { try { return fs.existsSync('/proc/self/fd'); } catch { return false; } })();
/**
 * This process's descriptors by path: /proc/PID/fd when /proc shows this process under its
 * pid (the kernel then skips resolving the 'self' link: ~0.15 µs of every open and readlink
 * through it), else /proc/self/fd. Every thread of the process shares the one table.
 */
export const PROC_FD = (() => {
  try {
    if (fs.readlinkSync('/proc/self') === String(process.pid)) return `/proc/${process.pid}/fd`;
  } catch { /* no /proc: HAVE_PROC_FD is false and this is never used */ }
  return '/proc/self/fd';
})();

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;
/** O_PATH (Linux: same value on x86, arm and most others; Node does not export it). */
const O_PATH = 0o10000000;

/** A directory of the zone held open by descriptor; children are named through it (see file head). */
export class HeldDir {
  private open = true;

  /**
   * @param fd the descriptor (-1 without /proc: children are then reached by host path)
   * @param host the host path it was verified at
   * @param vpath its virtual path, for messages
   * @param lent a descriptor another holder owns (a DirHandle's, Vfs.createWriterAt): close()
   *   gives it back (calls `lent`) instead of closing it
   */
  constructor(readonly fd: number, readonly host: string, readonly vpath: string, private readonly lent?: () => void) {}

  /** A path naming `name` inside the held directory (one component, no slash). */
  child(name: string): string {
    // A closed descriptor's number may name another directory by now.
    if (!this.open) throw new Error('HeldDir used after close');
    return this.fd >= 0 ? `${PROC_FD}/${this.fd}/${name}` : `${this.host}/${name}`;
  }

  /** Is the held directory still exactly where it was verified? EESCAPE if not (moved or removed). */
  verify(): void {
    if (this.fd < 0) return;
    let real: string;
    try {
      real = fs.readlinkSync(`${PROC_FD}/${this.fd}`);
    } catch (e) {
      // Unknown location is not inside; ENAMETOOLONG: it is deeper than the kernel can name.
      throw new VfsError((e as NodeJS.ErrnoException).code === 'ENAMETOOLONG' ? 'ETOODEEP' : 'EESCAPE', this.vpath);
    }
    if (real !== this.host) throw new VfsError('EESCAPE', this.vpath);
  }

  get isOpen(): boolean {
    return this.open;
  }

  close(): void {
    if (this.open && this.fd >= 0) {
      if (this.lent) this.lent();
      else fs.closeSync(this.fd);
    }
    this.open = false;
  }
}

/**
 * Open the directory at `host` (a path whose every component the resolution checked) and hold
 * it. `path` names it in errors. A symlink there now is ESYMLINK; a descriptor the kernel places
 * anywhere else than `host` (a component on the way swapped for a symlink) is EESCAPE.
 */
export function holdDir(host: string, vpath: string, path: string): HeldDir {
  if (!HAVE_PROC_FD) return new HeldDir(-1, host, vpath);
  let fd: number;
  try {
    fd = fs.openSync(host, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (e) {
    // O_DIRECTORY|O_NOFOLLOW on a symlink fails ENOTDIR (ELOOP on some kernels): say what is there.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || (code === 'ENOTDIR' && isLink(host))) throw new VfsError('ESYMLINK', path);
    throw fromNodeError(e, path);
  }
  const held = new HeldDir(fd, host, vpath);
  try {
    held.verify();
  } catch (e) {
    held.close();
    throw e instanceof VfsError ? new VfsError(e.errno, path) : e;
  }
  return held;
}

function isLink(host: string): boolean {
  try {
    return fs.lstatSync(host).isSymbolicLink();
  } catch {
    return false;
  }
}

/** lstat of a child of a held directory; null when it does not exist. */
export function lstatIn(dir: HeldDir, name: string, vpath: string): fs.Stats | null {
  try {
    return fs.lstatSync(dir.child(name), { throwIfNoEntry: false }) ?? null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw fromNodeError(e, vpath);
  }
}

export function mkdirIn(dir: HeldDir, name: string, mode: number, vpath: string): void {
  try {
    fs.mkdirSync(dir.child(name), { mode });
  } catch (e) {
    throw fromNodeError(e, vpath);
  }
}

export function unlinkIn(dir: HeldDir, name: string, vpath: string): void {
  try {
    fs.unlinkSync(dir.child(name));
  } catch (e) {
    throw fromNodeError(e, vpath);
  }
}

export function rmdirIn(dir: HeldDir, name: string, vpath: string): void {
  try {
    fs.rmdirSync(dir.child(name));
  } catch (e) {
    throw fromNodeError(e, vpath);
  }
}

/** rename(2) from a child of one held directory to a child of another (or the same). Errors raw (the caller names the end). */
export function renameIn(from: HeldDir, fromName: string, to: HeldDir, toName: string): void {
  fs.renameSync(from.child(fromName), to.child(toName));
}

/** open(2) of a child of a held directory (pass O_NOFOLLOW); ELOOP (a symlink there) is ESYMLINK. */
export function openIn(dir: HeldDir, name: string, flags: number, mode: number | undefined, vpath: string): number {
  try {
    return fs.openSync(dir.child(name), flags, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new VfsError('ESYMLINK', vpath);
    throw fromNodeError(e, vpath);
  }
}

/**
 * The inode a child of a held directory names now, never followed (a symlink is the link
 * itself), held by an O_PATH descriptor, and its fstat: check the fstat, then change the inode
 * with setTimes / setMode. Close it with fs.closeSync. Without /proc: fd -1 and the lstat.
 */
export function inodeIn(dir: HeldDir, name: string, vpath: string): { fd: number; stat: fs.Stats } {
  if (dir.fd < 0) {
    const stat = lstatIn(dir, name, vpath);
    if (!stat) throw new VfsError('ENOENT', vpath);
    return { fd: -1, stat };
  }
  let fd: number;
  try {
    fd = fs.openSync(dir.child(name), O_PATH | O_NOFOLLOW);
  } catch (e) {
    throw fromNodeError(e, vpath);
  }
  try {
    return { fd, stat: fs.fstatSync(fd) };
  } catch (e) {
    fs.closeSync(fd);
    throw fromNodeError(e, vpath);
  }
}

/**
 * Set the times of an inode held by inodeIn. Its /proc link leads to that inode (a symlink
 * included: the link itself, not its target), whatever its name is now.
 */
export function setTimes(dir: HeldDir, name: string, inode: { fd: number; stat: fs.Stats }, atime: number | Date, mtime: number | Date, vpath: string): void {
  try {
    if (inode.fd >= 0) fs.utimesSync(`${PROC_FD}/${inode.fd}`, atime, mtime);
    else if (inode.stat.isSymbolicLink()) fs.lutimesSync(dir.child(name), atime, mtime);
    else fs.utimesSync(dir.child(name), atime, mtime);
  } catch (e) {
    throw fromNodeError(e, vpath);
  }
}

/** chmod of an inode held by inodeIn (never a symlink: the caller refuses those). */
export function setMode(dir: HeldDir, name: string, inode: { fd: number; stat: fs.Stats }, mode: number, vpath: string): void {
  try {
    fs.chmodSync(inode.fd >= 0 ? `${PROC_FD}/${inode.fd}` : dir.child(name), mode);
  } catch (e) {
    throw fromNodeError(e, vpath);
  }
}
