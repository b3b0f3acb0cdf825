// Over 700 lines on purpose: one class holds the security core's shared state (descriptors, eviction, quota), so every path operation is read and audited against the same resolve / verify steps.
import { addProgress } from '../runtime/progress.js';
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { VfsError, fromNodeError } from './errors.js';
import { noteBytes } from '../runtime/memory.js';
import { BlockMatcher, extensionOf, type ZonePolicy } from './policy.js';
import { MAX_NAME_BYTES, MAX_PATH_BYTES, splitVirtual } from './paths.js';
import { TMP_MARK, tempName } from './temp-name.js';
import { chargeOf, versionCost } from './charge.js';
import { HAVE_PROC_FD, PROC_FD, HeldDir, holdDir, inodeIn, lstatIn, mkdirIn, openIn, renameIn, rmdirIn, setMode, setTimes, unlinkIn } from './at.js';
import { checkGuard, checkGuardTree, guardIsEmpty, type FileGuard } from './guard.js';
import { nowMs, type ListedName, type ListingCache } from './content-cache.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = fs.constants;
const MAX_SYMLINK_HOPS = 40;
/** Zone roots resolved once per worker (a worker serves the same few zones over and over). */
const REALPATHS = new Map<string, string>();
/**
 * Directory descriptors walks keep open at once (per worker). Past it, the oldest handle
 * holding one gives it up (VfsDir.evict) and works by path until the walk comes back to it.
 */
const MAX_OPEN_DIRS = 128;
/** The handles holding a descriptor, oldest first. */
const openHandles = new Set<VfsDir>();

/** A descriptor is about to be opened: at the limit, the oldest handle but `keep` gives its up. */
function makeRoom(keep: VfsDir | null): void {
  if (openHandles.size < MAX_OPEN_DIRS) return;
  for (const h of openHandles) {
    if (h !== keep && h.pins === 0) {
      h.evict();
      return;
    }
  }
}
/** Permission bits a zone may set: never setuid/setgid (we may run as root; the host may exec zone files). */
const MODE_MASK = 0o1777;
/** Per compiled matcher: name -> bits (1 blocked as a file, 2 as a directory, 4 may end a multi-component pattern). */
const NAME_MEMO = new WeakMap<BlockMatcher, Map<string, number>>();

/** Where a virtual path landed: its components inside the zone and its host path. */
export interface Resolved {
  /** Normalised virtual path ('/a/b'). */
  vpath: string;
  parts: string[];
  host: string;
  /** lstat of the final component, or null when it does not exist. */
  stat: fs.Stats | null;
}

export interface ResolveOptions {
  /** Follow a symlink in the final component (only if the policy allows symlinks). */
  followFinal?: boolean;
}

/** A change a command made, reported to the main thread for quotas and versioning. */
export interface Change {
  op: 'write' | 'delete' | 'mkdir' | 'rename' | 'meta';
  path: string;
  to?: string;
  /** Size difference in bytes caused by the change (new size - old size). */
  delta: number;
}

/** A file opened for positioned reads (see Vfs.openRandom). */
export interface RandomReader {
  /** Size when opened. */
  readonly size: number;
  /** Read up to `length` bytes at `position` into `buffer`; returns the count (0 at end). */
  readAt(buffer: Uint8Array, position: number, length?: number): number;
  close(): void;
}

export interface DirEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
}

/**
 * Sort entries by name (UTF-16 code unit order, as the walks print them), in place. Node's
 * readdir (libuv's scandir) already returns names in strcmp order, and one pass that sees
 * that is several times cheaper than sort() calling a comparator for every pair.
 */
export function sortByName<T extends { name: string }>(entries: T[]): T[] {
  for (let i = 1; i < entries.length; i++) {
    if (!(entries[i - 1]!.name < entries[i]!.name)) return entries.sort(compareNames);
  }
  return entries;
}

const compareNames = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * An open, verified directory of the zone, for walking (grep -r, find): its children are
 * reached relative to the open descriptor (through /proc/self/fd/N/name, the openat(2) of
 * Node), so only the last component is looked up and checked, and the parent cannot be
 * swapped under the walk. Every check of a full resolution still applies to the child:
 * name blocked, extension hidden, symlinks not followed (lstat + O_NOFOLLOW), special
 * files refused, identity (dev, ino) of the opened file against its lstat, and the kernel's
 * location of the opened fd inside the root. Close it when done (see Vfs.openDir).
 */
export interface DirHandle {
  /** Normalised virtual path of the directory ('/a/b'). */
  readonly vpath: string;
  readonly parts: readonly string[];
  /** fstat of the directory when opened. */
  readonly stat: fs.Stats;
  /** Visible entries in readdir order (as Vfs.readdir). */
  entries(): DirEntry[];
  close(): void;
}

/** A resolved path's folder, held open (see at.ts), and what its final name is there now. */
interface Held {
  dir: HeldDir;
  name: string;
  vpath: string;
  stat: fs.Stats | null;
}

export interface WriteOptions {
  append?: boolean;
  /** Fail with EEXIST when the file exists (O_EXCL semantics). */
  exclusive?: boolean;
  /** Mode for a new file (default 0o666 & ~umask 022). */
  mode?: number;
  /**
   * Called after the bytes are on disk, just before the rename publishes them (a throw aborts
   * the write), and `afterRename` once it is done or failed: a compare-and-swap section
   * (the sqlite engine checks there that the file was not changed since it read it).
   */
  beforeRename?: () => void;
  afterRename?: () => void;
  /**
   * false: no fsync before the rename. Only for bytes whose final name holds nothing yet (unzip
   * and tar stage each new file, then move it there): a crash can lose those new bytes, never an
   * old file's. Default true: a crash leaves a replaced file's old or new content (DESIGN).
   */
  durable?: boolean;
  /**
   * Set on the open file before it is closed (fchmod, futimes), instead of a chmod and a utimes
   * by path after the rename: the mode (masked as chmod's) and the times in seconds (extraction).
   */
  finalMode?: number;
  finalTime?: number;
  /**
   * No temp file: the name itself is created (O_EXCL: it must not exist) and written, and abort
   * removes it. Only with createWriterAt in a private staging folder (unzip, tar -x): nothing
   * else looks at a name there before it is moved into place.
   */
  direct?: boolean;
}

export function typeOfStats(st: fs.Stats): DirEntry['type'] {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'dir';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

/**
 * The virtual root of one zone. Every access is resolved component by component with
 * lstat; '..' never rises above the root; symlinks are followed only when the policy
 * allows it and their target stays inside; the final open uses O_NOFOLLOW and checks
 * that the opened file is the one resolved. Synchronous on purpose: it runs inside a
 * worker thread, where blocking calls are the fastest path and block nobody else.
 */
export class Vfs {
  readonly rootHost: string;
  readonly policy: ZonePolicy;
  readonly changes: Change[] = [];
  private readonly blocked: BlockMatcher;
  /** NAME_MEMO's map for `blocked`, once looked up. */
  private memo: Map<string, number> | null = null;
  private rootStatTaken: fs.Stats | undefined;
  /**
   * Set by a repeated search (grep -r with the content cache) for its walk: listDir keeps an
   * unchanged directory's names there (src/vfs/content-cache.ts). Null: every listing is read.
   */
  listingCache: ListingCache | null = null;

  /** Shared usage counter of the quota this zone counts against (absent: no quota). */
  readonly quota: QuotaCounter | undefined;

  /** Group ownership and locks of others (src/vfs/guard.ts): checked on every change of a file. */
  private guard: FileGuard | undefined;

  constructor(root: string, policy: ZonePolicy, quota?: QuotaCounter) {
    this.quota = quota;
    let real = REALPATHS.get(root);
    if (real === undefined) {
      real = fs.realpathSync(root);
      if (REALPATHS.size > 1024) REALPATHS.clear();
      REALPATHS.set(root, real);
    }
    this.rootHost = real;
    this.policy = policy;
    this.blocked = BlockMatcher.for(policy.blockedPatterns);
  }

  /**
   * The root's stat, taken once per Vfs (one task) when first asked: for a path that ends at
   * the root. A task that only reaches what is below the root never needs it (its first
   * lstat there fails if the root is gone).
   */
  private get rootStat(): fs.Stats {
    if (!this.rootStatTaken) {
      let st: fs.Stats;
      try {
        st = fs.statSync(this.rootHost);
      } catch (e) {
        throw fromNodeError(e, '/');
      }
      if (!st.isDirectory()) throw new VfsError('ENOTDIR', '/');
      this.rootStatTaken = st;
    }
    return this.rootStatTaken;
  }

  // ---- resolution -------------------------------------------------------------------

  /** Resolve a virtual path (relative to `cwd`). The final component may be missing. */
  resolve(path: string, cwd = '/', opts: ResolveOptions = {}): Resolved {
    checkPathText(path);
    // The cwd reaches the host path too: a NUL in it must be EINVAL, not a Node TypeError (EIO).
    if (cwd.includes('\0') || LONE_SURROGATE.test(cwd)) throw new VfsError('EINVAL', path);
    const queue = path.startsWith('/') ? [] : splitRaw(cwd);
    queue.push(...splitRaw(path));
    // A trailing slash on a symlink means its directory, as for the kernel: the link is
    // traversed (followed under the policy, else refused) instead of being acted on itself,
    // so `mv f link/` cannot silently replace the link.
    const slash = path.endsWith('/');
    const parts: string[] = [];
    let hops = 0;
    // undefined: the root, whose stat is taken only if the path ends there.
    let stat: fs.Stats | null | undefined;
    let stale = false;
    for (let i = 0; i < queue.length; i++) {
      const seg = queue[i]!;
      if (seg === '.' || seg === '..') {
        if (stat && !stat.isDirectory()) throw new VfsError('ENOTDIR', path);
        if (seg === '..') {
          parts.pop();
          stale = true;
        }
        continue;
      }
      if (stale) {
        stat = parts.length === 0 ? undefined : this.lstatHost(this.hostOf(parts), path);
        stale = false;
      }
      if (Buffer.byteLength(seg) > MAX_NAME_BYTES) throw new VfsError('ENAMETOOLONG', path);
      if (stat && !stat.isDirectory() && parts.length > 0) throw new VfsError('ENOTDIR', path);
      const isLast = i === queue.length - 1;
      const host = this.hostOf(parts) + '/' + seg;
      const st = this.lstatHost(host, path);
      if (st === null) {
        if (!isLast && queue.slice(i + 1).some((s) => s !== '.' && s !== '')) throw new VfsError('ENOENT', path);
        // Checked as a directory too: mkdir or rename may make it one ('.ssh/' patterns).
        this.checkBlocked(parts, seg, true, path);
        parts.push(seg);
        stat = null;
        continue;
      }
      if (st.isSymbolicLink() && (!isLast || opts.followFinal || slash)) {
        if (!this.policy.followSymlinks) throw new VfsError('ESYMLINK', path);
        // A link hidden from readdir by its own name is not reachable through that name either.
        this.checkBlocked(parts, seg, false, path);
        if (++hops > MAX_SYMLINK_HOPS) throw new VfsError('ELOOP', path);
        const target = this.linkTargetParts(host, parts, path);
        if (isLast && slash) target.push('.'); // the target must be a directory (else ENOTDIR)
        queue.splice(i + 1, 0, ...target);
        parts.length = 0;
        stat = undefined;
        continue;
      }
      this.checkBlocked(parts, seg, st.isDirectory(), path);
      parts.push(seg);
      stat = st;
    }
    if (parts.length === 0) stat = this.rootStat;
    else if (stale) stat = this.lstatHost(this.hostOf(parts), path);
    // 'file/' names a directory: reading, stat-ing or removing a file through it is ENOTDIR.
    if (slash && stat && !stat.isDirectory()) throw new VfsError('ENOTDIR', path);
    // A file hidden from readdir by allowedExtensions is refused by every operation (stat,
    // exists, rename, unlink...), not only by open: otherwise rename could unhide it.
    if (stat && !stat.isDirectory() && parts.length > 0) this.checkExtension(parts[parts.length - 1]!, path);
    const vpath = '/' + parts.join('/');
    if (Buffer.byteLength(vpath) > MAX_PATH_BYTES) throw new VfsError('ENAMETOOLONG', path);
    return { vpath, parts, host: this.hostOf(parts), stat: stat ?? null };
  }

  /** Resolve and require existence. */
  resolveExisting(path: string, cwd = '/', opts: ResolveOptions = {}): Resolved & { stat: fs.Stats } {
    const r = this.resolve(path, cwd, opts);
    if (!r.stat) throw new VfsError('ENOENT', path);
    return r as Resolved & { stat: fs.Stats };
  }

  /** Symlink target as virtual components from the root; refuses targets outside the zone. */
  private linkTargetParts(host: string, parentParts: string[], path: string): string[] {
    let target: string;
    try {
      target = fs.readlinkSync(host);
    } catch (e) {
      throw fromNodeError(e, path);
    }
    let out: string[];
    let rest: string;
    if (target.startsWith('/')) {
      if (target !== this.rootHost && !target.startsWith(this.rootHost + '/')) throw new VfsError('EESCAPE', path);
      out = [];
      rest = target.slice(this.rootHost.length);
    } else {
      out = [...parentParts];
      rest = target;
    }
    // '..' above the root is an escape, not a clamp (the host would go there). This holds
    // for absolute targets too: `${root}/../outside` must not be clamped to /outside.
    for (const seg of splitRaw(rest)) {
      if (seg === '.') continue;
      if (seg === '..') {
        if (out.length === 0) throw new VfsError('EESCAPE', path);
        out.pop();
      } else out.push(seg);
    }
    // A target written 'name/' must be a directory, as for the kernel (the '.' checks it).
    if (rest.endsWith('/') && out.length > 0) out.push('.');
    return out;
  }

  private hostOf(parts: readonly string[]): string {
    return parts.length === 0 ? this.rootHost : this.rootHost + '/' + parts.join('/');
  }

  private lstatHost(host: string, vpath: string): fs.Stats | null {
    try {
      return fs.lstatSync(host, { throwIfNoEntry: false }) ?? null;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      throw fromNodeError(e, vpath);
    }
  }

  private checkBlocked(parents: readonly string[], name: string, isDir: boolean, path: string): void {
    if (name.includes(TMP_MARK)) throw new VfsError('EBLOCKED', path);
    if (!this.blocked.empty && this.isBlocked(parents, name, isDir)) throw new VfsError('EBLOCKED', path);
  }

  /**
   * blocked.blocksComponent, memoized per name (a walk meets the same names again and again).
   * What a name alone decides (single-name and 'dir/' patterns) is cached; a name that is
   * the last part of a multi-component pattern always takes the full check.
   */
  private isBlocked(parents: readonly string[], name: string, isDir: boolean): boolean {
    if (!this.blocked.mayBlock(name)) return false;
    const memo = this.nameMemo();
    const bits = memo.get(name) ?? this.nameBits(memo, name);
    if (bits & (isDir ? 2 : 1)) return true;
    // Bit 4: a multi-component pattern may end in this name: its parents decide.
    return (bits & 4) !== 0 && this.blocked.blocksComponent(parents, name, isDir);
  }

  private nameMemo(): Map<string, number> {
    if (this.memo) return this.memo;
    let memo = NAME_MEMO.get(this.blocked);
    if (!memo) {
      memo = new Map();
      NAME_MEMO.set(this.blocked, memo);
    }
    return (this.memo = memo);
  }

  /** What the name alone says (see NAME_MEMO), computed and remembered. */
  private nameBits(memo: Map<string, number>, name: string): number {
    const bits = this.blocked.nameBits(name);
    // Full: names are not remembered any more (clearing would churn on a tree of distinct names).
    if (memo.size < 8192) memo.set(name, bits);
    return bits;
  }

  private checkExtension(name: string, path: string): void {
    const allowed = this.policy.allowedExtensions;
    if (allowed && !allowed.includes(extensionOf(name))) throw new VfsError('EEXT', path);
  }

  /** Is this entry visible in listings (not blocked, extension allowed for files)? */
  visible(parentParts: readonly string[], name: string, type: DirEntry['type']): boolean {
    if (name.includes(TMP_MARK)) return false;
    if (!this.blocked.empty && this.isBlocked(parentParts, name, type === 'dir')) return false;
    if (type !== 'dir' && this.policy.allowedExtensions && !this.policy.allowedExtensions.includes(extensionOf(name))) return false;
    return true;
  }

  // ---- reading ----------------------------------------------------------------------

  /** lstat (final symlink not followed). */
  lstat(path: string, cwd = '/'): fs.Stats {
    return this.resolveExisting(path, cwd).stat;
  }

  /** stat, following a final symlink only when the policy allows and it stays inside. */
  stat(path: string, cwd = '/'): fs.Stats {
    const r = this.resolveExisting(path, cwd, { followFinal: this.policy.followSymlinks });
    return r.stat;
  }

  /** Times in nanoseconds (stat, ls --full-time): the Stats doubles lose the last digits. */
  timesNs(path: string, cwd = '/', follow = false): { atime: bigint; mtime: bigint; ctime: bigint; birthtime: bigint } {
    const r = this.resolveExisting(path, cwd, { followFinal: follow && this.policy.followSymlinks });
    try {
      const b = fs.lstatSync(r.host, { bigint: true });
      if (b.ino !== BigInt(r.stat.ino) || b.dev !== BigInt(r.stat.dev)) throw new VfsError('EESCAPE', path);
      return { atime: b.atimeNs, mtime: b.mtimeNs, ctime: b.ctimeNs, birthtime: b.birthtimeNs };
    } catch (e) {
      throw e instanceof VfsError ? e : fromNodeError(e, path);
    }
  }

  /** timesNs of a child of an open directory (not followed), with lstatAt's name checks. */
  timesNsAt(dir: DirHandle, name: string): { atime: bigint; mtime: bigint; ctime: bigint; birthtime: bigint } {
    const d = this.own(dir);
    if (d.fd < 0) return this.timesNs(this.childPath(d, name));
    const { st, vpath } = this.childStat(d, name);
    if (!st) throw new VfsError('ENOENT', vpath);
    try {
      const b = fs.lstatSync(`${PROC_FD}/${d.fd}/${name}`, { bigint: true });
      if (b.ino !== BigInt(st.ino) || b.dev !== BigInt(st.dev)) throw new VfsError('EESCAPE', vpath);
      return { atime: b.atimeNs, mtime: b.mtimeNs, ctime: b.ctimeNs, birthtime: b.birthtimeNs };
    } catch (e) {
      throw e instanceof VfsError ? e : fromNodeError(e, vpath);
    }
  }

  exists(path: string, cwd = '/'): boolean {
    try {
      return this.resolve(path, cwd).stat !== null;
    } catch {
      return false;
    }
  }

  /** Open a regular file for reading; the caller must closeSync(fd). */
  openRead(path: string, cwd = '/'): { fd: number; stat: fs.Stats; vpath: string } {
    const fast = this.openReadPlain(path, cwd);
    if (fast) {
      this.sizeChecked(fast.fd, fast.stat.size, path);
      return fast;
    }
    const r = this.resolveExisting(path, cwd, { followFinal: this.policy.followSymlinks });
    if (r.stat.isDirectory()) throw new VfsError('EISDIR', path);
    if (r.stat.isSymbolicLink()) throw new VfsError('ESYMLINK', path);
    if (!r.stat.isFile()) throw new VfsError('ESPECIAL', path);
    this.checkExtension(r.parts[r.parts.length - 1] ?? '', path);
    const opened = this.openVerified(r.host, r.stat, path);
    this.sizeChecked(opened.fd, opened.stat.size, path);
    return { ...opened, vpath: r.vpath };
  }

  /**
   * The zone's maxFileSize holds for reading too: every content read opens its file through
   * openRead, openReadAt or openListedFileAt, and each checks the opened file's size here.
   * A larger file is refused with EFBIG (FILE_TOO_LARGE); stat and listings are not content
   * reads and still show it.
   */
  private checkReadSize(size: number, vpath: string): void {
    if (size > this.policy.maxFileSize) throw new VfsError('EFBIG', vpath, { size, limit: this.policy.maxFileSize, operation: 'read' });
  }

  /** checkReadSize of an opened file, closed when refused. */
  private sizeChecked(fd: number, size: number, vpath: string): void {
    try {
      this.checkReadSize(size, vpath);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  /**
   * openRead of the common case in fewer syscalls: a path without '..' naming a regular file
   * through plain directories. resolve() lstats every component to see symlinks; here the
   * kernel walks the directories, and the fd's real path (which checkFdInside reads anyway)
   * proves afterwards that no component was a symlink: it must be exactly the lexical host
   * path. The name checks are resolve()'s for that walk (directories, then a file). Anything
   * else (a symlink on the way or at the end, no such file, a refused name) gives null, and
   * the full resolution takes it and reports the exact error.
   */
  private openReadPlain(path: string, cwd: string): { fd: number; stat: fs.Stats; vpath: string } | null {
    if (!HAVE_PROC_FD || path.endsWith('/')) return null;
    checkPathText(path);
    if (cwd.includes('\0') || LONE_SURROGATE.test(cwd)) return null;
    const parts = path.startsWith('/') ? splitRaw(path) : splitRaw(cwd).concat(splitRaw(path));
    const last = parts.length - 1;
    if (last < 0) return null;
    for (let i = 0; i <= last; i++) {
      const seg = parts[i]!;
      if (seg === '.' || seg === '..' || Buffer.byteLength(seg) > MAX_NAME_BYTES) return null;
      if (!this.visible(parts.slice(0, i), seg, i < last ? 'dir' : 'file')) return null;
    }
    const vpath = '/' + parts.join('/');
    if (Buffer.byteLength(vpath) > MAX_PATH_BYTES) return null;
    const host = this.rootHost + vpath;
    let fd: number;
    let st: fs.Stats;
    try {
      const lst = fs.lstatSync(host, { throwIfNoEntry: false });
      if (!lst?.isFile()) return null;
      fd = fs.openSync(host, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      try {
        st = fs.fstatSync(fd);
        if (st.dev === lst.dev && st.ino === lst.ino && st.isFile() && fs.readlinkSync(`${PROC_FD}/${fd}`) === host) return { fd, stat: st, vpath };
      } catch { /* below */ }
      fs.closeSync(fd);
    } catch { /* the full resolution says why */ }
    return null;
  }

  /** open(O_NOFOLLOW|O_NONBLOCK), then the fd must be the lstat-ed regular file, inside the root. */
  private openVerified(host: string, lst: fs.Stats, path: string): { fd: number; stat: fs.Stats } {
    let fd: number;
    try {
      fd = fs.openSync(host, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (e) {
      throw fromNodeError(e, path);
    }
    try {
      const st = fs.fstatSync(fd);
      if (st.dev !== lst.dev || st.ino !== lst.ino || !st.isFile()) throw new VfsError('EESCAPE', path);
      this.checkFdInside(fd, path);
      return { fd, stat: st };
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  /** On Linux, ask the kernel where the fd really is: a swapped directory cannot move us out. */
  checkFdInside(fd: number, path: string): void {
    if (!HAVE_PROC_FD) return;
    let real: string;
    try {
      real = fs.readlinkSync(`${PROC_FD}/${fd}`);
    } catch (e) {
      // Unknown location is not inside: the kernel fails this readlink (ENAMETOOLONG) when
      // the fd's path passes PATH_MAX, e.g. a walked directory moved out to a deep place.
      // Inside paths that long are unreachable by path anyway (lstat fails the same way).
      // Refused either way, but said as what it is: a folder too deep to follow.
      throw new VfsError((e as NodeJS.ErrnoException).code === 'ENAMETOOLONG' ? 'ETOODEEP' : 'EESCAPE', path);
    }
    if (real !== this.rootHost && !real.startsWith(this.rootHost + '/')) throw new VfsError('EESCAPE', path);
  }

  readFile(path: string, cwd = '/'): Buffer {
    const { fd } = this.openRead(path, cwd);
    try {
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Read a file in chunks (streaming; memory stays at one chunk). With `reuse` every chunk is
   * read into the same buffer: the caller keeps nothing of a chunk past its next step (fresh
   * 256 KiB buffers are fresh pages: 0.03-0.4 s of page faults per 100 MB on a busy host).
   */
  *readChunks(path: string, cwd = '/', chunkSize = 256 * 1024, reuse = false): Generator<Buffer> {
    const { fd, stat } = this.openRead(path, cwd);
    try {
      // A small file gets a buffer its size (plus one byte to see the end in one read).
      yield* readFdChunks(fd, Math.max(1024, Math.min(chunkSize, stat.size + 1)), true, reuse);
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Open a regular file for positioned reads (tail reads from the end). Same checks as
   * openRead; the caller must close() the reader.
   */
  openRandom(path: string, cwd = '/'): RandomReader {
    const { fd, stat } = this.openRead(path, cwd);
    let open = true;
    return {
      size: stat.size,
      readAt(buffer: Uint8Array, position: number, length = buffer.length): number {
        let n = 0;
        while (n < length) {
          const got = fs.readSync(fd, buffer, n, length - n, position + n);
          if (got === 0) break;
          n += got;
        }
        return n;
      },
      close(): void {
        if (open) fs.closeSync(fd);
        open = false;
      },
    };
  }

  /** Directory entries, blocked and hidden-by-policy entries removed, in readdir order. */
  readdir(path: string, cwd = '/'): DirEntry[] {
    const r = this.resolveExisting(path, cwd, { followFinal: this.policy.followSymlinks });
    if (!r.stat.isDirectory()) throw new VfsError('ENOTDIR', path);
    let fd: number;
    try {
      fd = fs.openSync(r.host, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (e) {
      throw fromNodeError(e, path);
    }
    let dirents: fs.Dirent[];
    try {
      this.checkFdInside(fd, path);
      const st = fs.fstatSync(fd);
      if (st.ino !== r.stat.ino || st.dev !== r.stat.dev) throw new VfsError('EESCAPE', path);
      // List through the verified fd, not the host path: a directory swapped for a symlink
      // after the check must not be listed in its place.
      try {
        dirents = fs.readdirSync(HAVE_PROC_FD ? `${PROC_FD}/${fd}` : r.host, { withFileTypes: true });
      } catch (e) {
        throw fromNodeError(e, path);
      }
    } finally {
      fs.closeSync(fd);
    }
    return this.visibleEntries(r.parts, dirents);
  }

  // ---- walking: children of an open, verified directory ----------------------------

  /** Open a directory for walking (resolved like readdir: a final symlink only if the policy follows). */
  openDir(path: string, cwd = '/'): DirHandle {
    const r = this.resolveExisting(path, cwd, { followFinal: this.policy.followSymlinks });
    if (!r.stat.isDirectory()) throw new VfsError('ENOTDIR', path);
    return this.openDirHost(r.host, r.vpath, r.parts, r.stat, path);
  }

  /** openDir and its entries(), closed again if listing fails; the caller closes `dir`. */
  openListed(path: string, cwd = '/'): { dir: DirHandle; entries: DirEntry[] } {
    return listedOrClosed(this.openDir(path, cwd));
  }

  /** A child directory of `dir`, never through a symlink (openDir on its path follows where allowed). */
  openDirAt(dir: DirHandle, name: string): DirHandle {
    const d = this.own(dir);
    if (d.fd < 0) {
      const vpath = this.childPath(d, name);
      const st = this.resolveExisting(vpath).stat;
      if (st.isSymbolicLink()) throw new VfsError('ESYMLINK', vpath);
      return this.openDir(vpath);
    }
    const { st, vpath } = this.childStat(d, name);
    if (!st) throw new VfsError('ENOENT', vpath);
    if (st.isSymbolicLink()) throw new VfsError('ESYMLINK', vpath);
    if (!st.isDirectory()) throw new VfsError('ENOTDIR', vpath);
    return this.openDirHost(`${PROC_FD}/${d.fd}/${name}`, vpath, [...d.parts, name], st, vpath, d);
  }

  /** lstat of a child of `dir` (null when it does not exist); blocked and hidden names refused. */
  lstatAt(dir: DirHandle, name: string): fs.Stats | null {
    const d = this.own(dir);
    if (d.fd < 0) return this.resolve(this.childPath(d, name)).stat;
    return this.childStat(d, name).st;
  }

  /** Open a regular file child of `dir` for reading, with openRead's checks; the caller closes fd. */
  openReadAt(dir: DirHandle, name: string): { fd: number; stat: fs.Stats; vpath: string } {
    const d = this.own(dir);
    // A followed final symlink needs the full resolution (its target is checked component by component).
    if (d.fd < 0 || this.policy.followSymlinks) return this.openRead(this.childPath(d, name));
    const { st, vpath } = this.childStat(d, name);
    if (!st) throw new VfsError('ENOENT', vpath);
    if (st.isDirectory()) throw new VfsError('EISDIR', vpath);
    if (st.isSymbolicLink()) throw new VfsError('ESYMLINK', vpath);
    if (!st.isFile()) throw new VfsError('ESPECIAL', vpath);
    const opened = this.openVerified(`${PROC_FD}/${d.fd}/${name}`, st, vpath);
    this.sizeChecked(opened.fd, opened.stat.size, vpath);
    return { ...opened, vpath };
  }

  /** Chunks of a regular file child of `dir` (as readChunks). */
  *readChunksAt(dir: DirHandle, name: string, chunkSize = 256 * 1024): Generator<Buffer> {
    const { fd, stat } = this.openReadAt(dir, name);
    try {
      yield* readFdChunks(fd, Math.max(1024, Math.min(chunkSize, stat.size + 1)), true);
    } finally {
      fs.closeSync(fd);
    }
  }

  // ---- the fast walk: children a listing showed -------------------------------------
  //
  // A walk (grep -r, find) knows each child's type from entries() (readdir's d_type), so it
  // need not lstat it first: the single-component open relative to the verified directory
  // fd, with O_NOFOLLOW (and O_DIRECTORY for directories), refuses whatever else is there
  // now, and the fstat of the opened file refuses anything but a regular file before a byte
  // is read. Where the directory is (it may be moved out of the zone after its listing) is
  // checked once per directory instead of once per file: entries() checks it after listing,
  // and the walker calls verifyDir after reading files through it, before anything it read
  // leaves the worker (see grep's GrepRun.settle). Name checks (blocked, hidden extension,
  // temp files) are the same as everywhere.

  /** Open a child that `dir`'s entries() listed as a directory (never through a symlink). */
  openListedDirAt(dir: DirHandle, name: string): DirHandle {
    const d = this.own(dir);
    if (d.fd < 0) return this.openDirAt(dir, name);
    const vpath = this.childPath(d, name);
    this.checkBlocked(d.parts, name, true, vpath);
    makeRoom(d);
    const fd = this.openChild(d, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, vpath);
    // Not located yet: its entries() checks the location before returning a name. Its stat
    // is taken when asked (find -name never asks).
    return new VfsDir(this, fd, vpath, [...d.parts, name], null, false, d);
  }

  /**
   * Open a child that `dir`'s entries() listed as a regular file, for reading. The caller
   * must call verifyDir(dir) after reading and before using what it read.
   */
  openListedFileAt(dir: DirHandle, name: string): WalkFile {
    const d = this.own(dir);
    if (d.fd < 0 || !d.located) {
      const { fd, stat, vpath } = this.openReadAt(dir, name);
      return new WalkFile(fd, stat.size, vpath, stat);
    }
    const vpath = this.childPath(d, name);
    this.checkBlocked(d.parts, name, false, vpath);
    this.checkExtension(name, vpath);
    const fd = this.openChild(d, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, vpath);
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new VfsError(st.isDirectory() ? 'EISDIR' : 'ESPECIAL', vpath);
      this.checkReadSize(st.size, vpath);
      return new WalkFile(fd, st.size, vpath, st);
    } catch (e) {
      fs.closeSync(fd);
      throw e instanceof VfsError ? e : fromNodeError(e, vpath);
    }
  }

  /**
   * The identity (lstat: dev, ino, size, mtimeMs, ctimeMs) of a child that `dir`'s entries() listed as a regular
   * file, with openListedFileAt's name and size checks, for the content cache
   * (src/vfs/content-cache.ts); null when that is not a readable regular file now (the
   * caller then opens it and reports what is wrong). As after openListedFileAt, the caller
   * must call verifyDir(dir) before using what it takes from the cache.
   */
  identityAt(dir: DirHandle, name: string): fs.Stats | null {
    const d = this.own(dir);
    if (d.fd < 0 || !d.located) return null;
    try {
      const vpath = this.childPath(d, name);
      this.checkBlocked(d.parts, name, false, vpath);
      this.checkExtension(name, vpath);
      const st = fs.lstatSync(`${PROC_FD}/${d.fd}/${name}`, { throwIfNoEntry: false });
      if (!st || !st.isFile()) return null;
      this.checkReadSize(st.size, vpath);
      return st;
    } catch {
      return null;
    }
  }

  /**
   * For a second thread reading a walk's files (grep -r, commands/grep/parallel.ts): the name
   * checks of openListedFileAt, then the path through the open, located directory that thread
   * opens exactly as openListedFileAt does (O_NOFOLLOW | O_NONBLOCK, fstat: a regular file of
   * at most `maxSize`); null where openListedFileAt would take the full resolution (the caller
   * then calls it). The caller must keep `dir` open until that thread is done with it and call
   * verifyDir(dir) after its opens, before using what it read.
   */
  listedFileTarget(dir: DirHandle, name: string): { path: string; maxSize: number } | null {
    const d = this.own(dir);
    if (d.fd < 0 || !d.located) return null;
    const vpath = this.childPath(d, name);
    this.checkBlocked(d.parts, name, false, vpath);
    this.checkExtension(name, vpath);
    return { path: `${PROC_FD}/${d.fd}/${name}`, maxSize: this.policy.maxFileSize };
  }

  /** Is the directory of this handle still inside the zone? EESCAPE if not. */
  verifyDir(dir: DirHandle): void {
    const d = this.own(dir);
    if (d.fd >= 0) this.checkFdInside(d.fd, d.vpath);
  }

  /** open(2) of one component relative to an open directory; a symlink there is ESYMLINK. */
  private openChild(d: VfsDir, name: string, flags: number, vpath: string): number {
    try {
      return fs.openSync(`${PROC_FD}/${d.fd}/${name}`, flags);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new VfsError('ESYMLINK', vpath);
      throw fromNodeError(e, vpath);
    }
  }

  /** A handle this Vfs opened: another zone's handle (or any object with an fd) would walk that zone. */
  private own(dir: DirHandle): VfsDir {
    if (!(dir instanceof VfsDir) || !dir.isOf(this)) throw new VfsError('EINVAL', typeof dir?.vpath === 'string' ? dir.vpath : '?');
    return dir;
  }

  private childPath(d: VfsDir, name: string): string {
    checkChildName(name, d.vpath);
    const vpath = d.vpath === '/' ? '/' + name : d.vpath + '/' + name;
    if (Buffer.byteLength(vpath) > MAX_PATH_BYTES) throw new VfsError('ENAMETOOLONG', vpath);
    return vpath;
  }

  /** Name checks of one more component, then its lstat relative to the open directory. */
  private childStat(d: VfsDir, name: string): { st: fs.Stats | null; vpath: string } {
    const vpath = this.childPath(d, name);
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(`${PROC_FD}/${d.fd}/${name}`, { throwIfNoEntry: false });
    } catch (e) {
      throw fromNodeError(e, vpath);
    }
    if (!st) {
      this.checkBlocked(d.parts, name, true, vpath);
      return { st: null, vpath };
    }
    this.checkBlocked(d.parts, name, st.isDirectory(), vpath);
    if (!st.isDirectory()) this.checkExtension(name, vpath);
    return { st, vpath };
  }

  private openDirHost(host: string, vpath: string, parts: readonly string[], st: fs.Stats, path: string, parent: VfsDir | null = null): DirHandle {
    if (!HAVE_PROC_FD) return new VfsDir(this, -1, vpath, parts, st);
    makeRoom(parent);
    let fd: number;
    try {
      fd = fs.openSync(host, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (e) {
      throw fromNodeError(e, path);
    }
    try {
      const fst = fs.fstatSync(fd);
      if (fst.ino !== st.ino || fst.dev !== st.dev) throw new VfsError('EESCAPE', path);
      this.checkFdInside(fd, path);
      return new VfsDir(this, fd, vpath, parts, fst, true, parent);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  /** Entries of an open directory, listed through its fd (as readdir). */
  listDir(dir: DirHandle): DirEntry[] {
    const d = this.own(dir);
    if (d.fd < 0) return this.readdir(d.vpath);
    if (this.listingCache) return this.listDirCached(d, this.listingCache);
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(`${PROC_FD}/${d.fd}`, { withFileTypes: true });
    } catch (e) {
      throw fromNodeError(e, d.vpath);
    }
    // As readdir: names only of a directory that is inside (it may have been moved out since
    // it was opened). Checked after listing, so a move before or during the listing is seen.
    this.checkFdInside(d.fd, d.vpath);
    d.located = true;
    return this.visibleEntries(d.parts, dirents);
  }

  /**
   * listDir through the listing cache: the names kept for the directory's identity (fstat of
   * the descriptor, taken before any listing) or read now; then, as always, the location check
   * and the policy's name checks.
   */
  private listDirCached(d: VfsDir, cache: ListingCache): DirEntry[] {
    let names: readonly ListedName[] | null;
    try {
      const start = nowMs();
      const st = fs.fstatSync(d.fd);
      names = cache.listing(st);
      if (!names) {
        const read = fs.readdirSync(`${PROC_FD}/${d.fd}`, { withFileTypes: true }).map((e): ListedName => ({ name: e.name, type: direntType(e) }));
        cache.putListing(st, start, read);
        names = read;
      }
    } catch (e) {
      throw fromNodeError(e, d.vpath);
    }
    this.checkFdInside(d.fd, d.vpath);
    d.located = true;
    const out: DirEntry[] = [];
    for (const e of names) if (this.visible(d.parts, e.name, e.type)) out.push({ name: e.name, type: e.type });
    return out;
  }

  /** Drop the descriptor of a handle (idempotent); a walk returns to its parent, which gets one back if it gave it up. */
  closeDir(dir: DirHandle): void {
    const d = this.own(dir);
    d.evicted = false; // closed: never given a descriptor back
    if (d.fd >= 0) {
      if (d.parent?.evicted) this.reclaim(d.parent, d);
      fs.closeSync(d.fd);
      d.fd = -1;
      openHandles.delete(d);
    }
  }

  /**
   * A descriptor again for an evicted handle, as the walk leaves its child: `..` of the
   * child's descriptor, kept only if it is the same directory (dev, ino) and still inside the
   * root. Otherwise the handle goes on by path, whose resolution checks every component.
   */
  private reclaim(p: VfsDir, child: VfsDir): void {
    const known = p.evictedAs;
    p.evicted = false;
    if (!known) return;
    let fd: number;
    try {
      fd = fs.openSync(`${PROC_FD}/${child.fd}/..`, O_RDONLY | O_DIRECTORY);
    } catch {
      return;
    }
    try {
      const st = fs.fstatSync(fd);
      if (st.dev !== known.dev || st.ino !== known.ino) throw new VfsError('EESCAPE', p.vpath);
      this.checkFdInside(fd, p.vpath);
    } catch {
      fs.closeSync(fd);
      return;
    }
    p.adopt(fd);
  }

  private visibleEntries(parts: readonly string[], dirents: fs.Dirent[]): DirEntry[] {
    const out: DirEntry[] = [];
    for (const d of dirents) {
      const type = direntType(d);
      if (this.visible(parts, d.name, type)) out.push({ name: d.name, type });
    }
    return out;
  }

  /**
   * A symlink's target as text safe to show: relative targets that stay inside are shown
   * as written; anything else is masked so host paths never appear.
   */
  readlink(path: string, cwd = '/'): string {
    const r = this.resolveExisting(path, cwd);
    if (!r.stat.isSymbolicLink()) throw new VfsError('EINVAL', path);
    let target: string;
    try {
      target = fs.readlinkSync(r.host);
    } catch (e) {
      throw fromNodeError(e, path); // a raw Node error would carry the host path
    }
    try {
      this.linkTargetParts(r.host, r.parts.slice(0, -1), path);
    } catch {
      return '(outside the zone)';
    }
    if (target.startsWith('/')) return target.slice(this.rootHost.length) || '/';
    return target;
  }

  /**
   * A symlink's target as virtual components from the root ('.' last for a target written
   * 'dir/'), for realpath and readlink -f; a target that leaves the zone is EESCAPE. Never
   * the host path.
   */
  linkTarget(path: string, cwd = '/'): string[] {
    const r = this.resolveExisting(path, cwd);
    if (!r.stat.isSymbolicLink()) throw new VfsError('EINVAL', path);
    return this.linkTargetParts(r.host, r.parts.slice(0, -1), path);
  }

  // ---- writing ----------------------------------------------------------------------

  private assertWritable(path: string): void {
    if (this.policy.readonly) throw new VfsError('EROFS', path);
  }

  /** Set the ownership rules and locks this task must respect (undefined: none). */
  setGuard(guard: FileGuard | undefined): void {
    this.guard = guardIsEmpty(guard) ? undefined : guard;
  }

  /** A change of the file at vpath ('/a/b'): refused by the guard when another member owns it or holds its lock. */
  private guarded(vpath: string, tree = false): void {
    if (this.guard) (tree ? checkGuardTree : checkGuard)(this.guard, vpath);
  }

  /**
   * Resolve a path to be created or replaced and hold its folder (which must be an existing
   * directory): the checks are of what is in the held folder now. The caller closes `dir`.
   */
  private resolveForWrite(path: string, cwd: string): { r: Resolved; held: Held } {
    this.assertWritable(path);
    // Resolved without its trailing slashes: 'name/' is refused below, as open(2) with O_CREAT does.
    const slash = path.length > 1 && path.endsWith('/');
    const r = this.resolve(slash ? path.replace(/\/+$/, '') || '/' : path, cwd, { followFinal: this.policy.followSymlinks });
    if (r.parts.length === 0) throw new VfsError('EISDIR', path);
    const held = this.holdParent(r, path);
    try {
      const st = held.stat;
      if (st) {
        if (st.isDirectory()) throw new VfsError('EISDIR', path);
        if (st.isSymbolicLink()) throw new VfsError('ESYMLINK', path);
        if (!st.isFile()) throw new VfsError('ESPECIAL', path);
        if (st.nlink > 1) throw new VfsError('EHARDLINK', path);
      }
      if (slash) throw new VfsError('EISDIR', path);
      this.checkExtension(held.name, path);
      this.guarded(r.vpath);
      return { r: { ...r, stat: st }, held };
    } catch (e) {
      held.dir.close();
      throw e;
    }
  }

  /** Start an atomic write: bytes go to a temp file in the same (held) folder, renamed on commit. */
  createWriter(path: string, cwd = '/', opts: WriteOptions = {}): AtomicWriter {
    const { r, held } = this.resolveForWrite(path, cwd);
    if (opts.exclusive && r.stat) {
      held.dir.close();
      throw new VfsError('EEXIST', path);
    }
    try {
      return new AtomicWriter(this, r, path, opts, held.dir);
    } catch (e) {
      held.dir.close(); // a refusal before the writer took it (the quota's file count)
      throw e;
    }
  }

  writeFile(path: string, data: Uint8Array | string, cwd = '/', opts: WriteOptions = {}): void {
    this.createWriter(path, cwd, opts).writeAll([typeof data === 'string' ? Buffer.from(data) : data]);
  }

  /**
   * Record a change; a negative delta gives its bytes back to the quota unless the caller
   * `settled` the quota itself (AtomicWriter).
   */
  recordChange(change: Change, settled = false): void {
    this.changes.push(change);
    if (change.delta < 0 && !settled) this.releaseQuota(-change.delta);
  }

  /** Reserve bytes of quota before writing them; EDQUOT (QUOTA_EXCEEDED) if it would pass the limit. */
  reserveQuota(bytes: number, path: string): void {
    const q = this.quota;
    if (!q || bytes <= 0) return;
    const after = Atomics.add(q.counters, q.index, BigInt(bytes)) + BigInt(bytes);
    if (after > BigInt(q.limit)) {
      Atomics.sub(q.counters, q.index, BigInt(bytes));
      throw new VfsError('EDQUOT', path, { quota: q.name, used: Number(after) - bytes, limit: q.limit, requested: bytes });
    }
  }

  /**
   * In a versioned zone, a file of `size` bytes `dirs` folders deep is written only if its
   * commit fits too (blob, trees, commit: see versionCost), the main thread's commit counting
   * the objects it really wrote. Far from the limit, zlib's bound of the blob decides; near it,
   * the blob's real deflated size (`content`, read only then; up to 64 MiB). Checked, not held:
   * the file's own bytes are reserved already.
   */
  checkVersionRoom(size: number, dirs: number, path: string, content?: () => Uint8Array | undefined): void {
    const q = this.quota;
    if (!q || !this.policy.versioned) return;
    const free = BigInt(q.limit) - Atomics.load(q.counters, q.index);
    let extra = versionCost(size, dirs);
    if (BigInt(extra) <= free) return;
    const data = size <= 64 * 1024 * 1024 ? content?.() : undefined;
    if (data) extra = versionCost(size, dirs, zlib.deflateSync(Buffer.concat([Buffer.from(`blob ${data.length}\0`), data])).length);
    if (BigInt(extra) > free) {
      throw new VfsError('EDQUOT', path, { quota: q.name, used: q.limit - Number(free), limit: q.limit, requested: extra, versions: extra });
    }
  }

  releaseQuota(bytes: number): void {
    const q = this.quota;
    if (q && bytes > 0) Atomics.sub(q.counters, q.index, BigInt(bytes));
  }

  /**
   * Reserve `n` files or folders (entries) of the quota before creating them: empty files cost
   * no bytes, yet a byte quota alone let a caller plant millions of them.
   */
  reserveFiles(n: number, path: string): void {
    const q = this.quota;
    if (!q || n <= 0) return;
    const after = Atomics.add(q.counters, q.index + 1, BigInt(n)) + BigInt(n);
    if (after > BigInt(q.maxFiles)) {
      Atomics.sub(q.counters, q.index + 1, BigInt(n));
      throw new VfsError('EDQUOT', path, { quota: q.name, files: Number(after) - n, max_files: q.maxFiles });
    }
  }

  releaseFiles(n: number): void {
    const q = this.quota;
    if (q && n > 0) Atomics.sub(q.counters, q.index + 1, BigInt(n));
  }

  /**
   * Hold the folder of a resolved path (see at.ts) and lstat its final component again through
   * it: a change then acts on that name in that directory, whatever happens to the path. The
   * name checks of resolve() are repeated for what is there now. The caller closes `dir`.
   */
  private holdParent(r: Resolved, path: string): Held {
    const parts = r.parts.slice(0, -1);
    const name = r.parts[r.parts.length - 1]!;
    const dir = holdDir(this.hostOf(parts), '/' + parts.join('/'), path);
    try {
      const stat = lstatIn(dir, name, path);
      this.checkBlocked(parts, name, stat ? stat.isDirectory() : true, path);
      if (stat && !stat.isDirectory()) this.checkExtension(name, path);
      return { dir, name, vpath: r.vpath, stat };
    } catch (e) {
      dir.close();
      throw e;
    }
  }

  /** holdParent, `fn` on it, the folder closed again. */
  private inParent<T>(r: Resolved, path: string, fn: (h: Held) => T): T {
    const h = this.holdParent(r, path);
    try {
      return fn(h);
    } finally {
      h.dir.close();
    }
  }

  mkdir(path: string, cwd = '/', mode = 0o777): void {
    this.assertWritable(path);
    const r = this.resolve(path, cwd);
    if (r.parts.length === 0 || r.stat) throw new VfsError('EEXIST', path);
    this.reserveFiles(1, path);
    try {
      this.inParent(r, path, (h) => {
        if (h.stat) throw new VfsError('EEXIST', path);
        mkdirIn(h.dir, h.name, mode, path);
      });
    } catch (e) {
      this.releaseFiles(1);
      throw e;
    }
    this.recordChange({ op: 'mkdir', path: r.vpath, delta: 0 });
  }

  private assertDeletable(path: string): void {
    if (this.policy.readonly && !this.policy.allowDelete) throw new VfsError('EROFS', path);
  }

  rmdir(path: string, cwd = '/'): void {
    this.assertDeletable(path);
    const r = this.resolveExisting(path, cwd);
    if (r.parts.length === 0) throw new VfsError('EBUSY', path);
    if (!r.stat.isDirectory()) throw new VfsError('ENOTDIR', path);
    this.guarded(r.vpath);
    this.inParent(r, path, (h) => {
      if (!h.stat) throw new VfsError('ENOENT', path);
      if (!h.stat.isDirectory()) throw new VfsError('ENOTDIR', path);
      rmdirIn(h.dir, h.name, path);
    });
    this.releaseFiles(1);
    this.recordChange({ op: 'delete', path: r.vpath, delta: 0 });
  }

  /** Remove a non-directory (a symlink itself, never its target). */
  unlink(path: string, cwd = '/'): void {
    this.assertDeletable(path);
    const r = this.resolveExisting(path, cwd);
    if (r.stat.isDirectory()) throw new VfsError('EISDIR', path);
    this.guarded(r.vpath);
    const st = this.inParent(r, path, (h) => {
      if (!h.stat) throw new VfsError('ENOENT', path);
      if (h.stat.isDirectory()) throw new VfsError('EISDIR', path);
      unlinkIn(h.dir, h.name, path);
      return h.stat;
    });
    const last = !st.isFile() || st.nlink <= 1;
    if (last) this.releaseFiles(1);
    if (last && st.isFile()) this.releaseQuota(chargeOf(st));
    this.recordChange({ op: 'delete', path: r.vpath, delta: st.isFile() && last ? -st.size : 0 }, true);
  }

  /**
   * unlink of a child of an open directory (find -delete, rm -r): unlink's checks for one
   * component, relative to the directory's descriptor, which must still be inside the root.
   * A walk deep in a tree removes a file in a few syscalls where a path costs one per level.
   */
  unlinkAt(dir: DirHandle, name: string): void {
    this.removeAt(dir, name, false);
  }

  /** rmdir of a child of an open directory, as unlinkAt. */
  rmdirAt(dir: DirHandle, name: string): void {
    this.removeAt(dir, name, true);
  }

  private removeAt(dir: DirHandle, name: string, isDir: boolean): void {
    const d = this.own(dir);
    if (d.fd < 0) return isDir ? this.rmdir(this.childPath(d, name)) : this.unlink(this.childPath(d, name));
    this.assertDeletable(this.childPath(d, name));
    const { st, vpath } = this.childStat(d, name);
    if (!st) throw new VfsError('ENOENT', vpath);
    if (st.isDirectory() !== isDir) throw new VfsError(isDir ? 'ENOTDIR' : 'EISDIR', vpath);
    this.guarded(vpath);
    this.checkFdInside(d.fd, d.vpath);
    try {
      if (isDir) fs.rmdirSync(`${PROC_FD}/${d.fd}/${name}`);
      else fs.unlinkSync(`${PROC_FD}/${d.fd}/${name}`);
    } catch (e) {
      throw fromNodeError(e, vpath);
    }
    const last = isDir || !st.isFile() || st.nlink <= 1;
    if (last) this.releaseFiles(1);
    if (last && !isDir && st.isFile()) this.releaseQuota(chargeOf(st));
    this.recordChange({ op: 'delete', path: vpath, delta: !isDir && st.isFile() && last ? -st.size : 0 }, true);
  }

  // ---- changes relative to an open directory (extraction: unzip, tar -x) -------------
  //
  // The folder was resolved and verified once (openDir / openDirAt); each change names one
  // component in it with the checks of its path form (names, extension, guard, quota), and the
  // folder's location is checked inside the root before anything is created or published
  // there. A handle without a descriptor (no /proc, or given up) takes the path form.

  /** mkdir of a child of an open directory (mkdir's checks for one component). */
  mkdirAt(dir: DirHandle, name: string, mode = 0o777): void {
    const d = this.own(dir);
    const vpath = this.childPath(d, name);
    if (d.fd < 0) return this.mkdir(vpath, '/', mode);
    this.assertWritable(vpath);
    const { st } = this.childStat(d, name);
    if (st) throw new VfsError('EEXIST', vpath);
    this.checkFdInside(d.fd, d.vpath);
    this.reserveFiles(1, vpath);
    try {
      fs.mkdirSync(`${PROC_FD}/${d.fd}/${name}`, { mode });
    } catch (e) {
      this.releaseFiles(1);
      throw fromNodeError(e, vpath);
    }
    this.recordChange({ op: 'mkdir', path: vpath, delta: 0 });
  }

  /**
   * createWriter of a child of an open directory: the temp file is made and renamed in that
   * directory (its descriptor lent to the writer, which keeps it from being given up).
   */
  createWriterAt(dir: DirHandle, name: string, opts: WriteOptions = {}): AtomicWriter {
    const d = this.own(dir);
    const vpath = this.childPath(d, name);
    if (d.fd < 0) return this.createWriter(vpath, '/', opts);
    this.assertWritable(vpath);
    // direct: the exclusive creation refuses whatever is there (a link too), no lstat first;
    // the name is checked as a missing one is
    const { st } = opts.direct ? { st: null } : this.childStat(d, name);
    if (opts.direct) this.checkBlocked(d.parts, name, true, vpath);
    if (st) {
      if (st.isDirectory()) throw new VfsError('EISDIR', vpath);
      if (st.isSymbolicLink()) throw new VfsError('ESYMLINK', vpath);
      if (!st.isFile()) throw new VfsError('ESPECIAL', vpath);
      if (st.nlink > 1) throw new VfsError('EHARDLINK', vpath);
      if (opts.exclusive || opts.direct) throw new VfsError('EEXIST', vpath);
    }
    this.checkBlocked(d.parts, name, false, vpath);
    this.checkExtension(name, vpath);
    this.guarded(vpath);
    const parts = [...d.parts, name];
    d.pins++;
    const held = new HeldDir(d.fd, this.hostOf(d.parts), d.vpath, () => { d.pins--; });
    try {
      return new AtomicWriter(this, { vpath, parts, host: this.hostOf(parts), stat: st }, vpath, opts, held);
    } catch (e) {
      held.close(); // a refusal before the writer took it (the quota's file count)
      throw e;
    }
  }

  /**
   * rename(2) of a regular file, child of one open directory, to a child of another (or the
   * same): rename's checks for both components; both folders must still be inside the root.
   */
  renameAt(from: DirHandle, fromName: string, to: DirHandle, toName: string): void {
    const a = this.own(from);
    const b = this.own(to);
    const va = this.childPath(a, fromName);
    const vb = this.childPath(b, toName);
    if (a.fd < 0 || b.fd < 0) return this.rename(va, vb);
    this.assertWritable(vb);
    const sa = this.childStat(a, fromName).st;
    if (!sa) throw new VfsError('ENOENT', va);
    if (!sa.isFile()) throw new VfsError(sa.isDirectory() ? 'EISDIR' : 'ESPECIAL', va);
    const sb = this.childStat(b, toName).st;
    if (sb?.isDirectory()) throw new VfsError('EISDIR', vb);
    if (sb?.isFile() && sb.nlink > 1) throw new VfsError('EHARDLINK', vb);
    this.checkBlocked(b.parts, toName, false, vb);
    this.checkExtension(toName, vb);
    this.guarded(va, true);
    this.guarded(vb, true);
    this.checkFdInside(a.fd, a.vpath);
    this.checkFdInside(b.fd, b.vpath);
    try {
      fs.renameSync(`${PROC_FD}/${a.fd}/${fromName}`, `${PROC_FD}/${b.fd}/${toName}`);
    } catch (e) {
      throw fromNodeError(e, (e as NodeJS.ErrnoException).code === 'ENOENT' ? vb : va);
    }
    const replaced = sb && !(sb.dev === sa.dev && sb.ino === sa.ino) ? sb : null;
    if (replaced) this.releaseFiles(1);
    if (replaced?.isFile()) this.releaseQuota(chargeOf(replaced));
    this.recordChange({ op: 'rename', path: va, to: vb, delta: replaced?.isFile() ? -replaced.size : 0 }, true);
  }

  /**
   * rename(2) of a folder, child of one open directory, to a name that does not exist in
   * another (extraction: a whole staged top folder moved into place at once). Nothing there is
   * ever replaced: whatever is at the destination (a link planted meanwhile too: rename(2)
   * does not follow it, and a folder cannot replace a non-folder) is EEXIST. Rename's folder
   * checks: the destination name is checked as a folder, and a name that anchors a
   * multi-component blocked pattern is refused (moving it changes what is blocked below it).
   */
  renameDirAt(from: DirHandle, fromName: string, to: DirHandle, toName: string): void {
    const a = this.own(from);
    const b = this.own(to);
    const va = this.childPath(a, fromName);
    const vb = this.childPath(b, toName);
    this.assertWritable(vb);
    if (a.fd < 0 || b.fd < 0) {
      if (this.resolve(vb).stat) throw new VfsError('EEXIST', vb);
      return this.rename(va, vb);
    }
    const sa = this.childStat(a, fromName).st;
    if (!sa) throw new VfsError('ENOENT', va);
    if (!sa.isDirectory()) throw new VfsError('ENOTDIR', va);
    if (this.childStat(b, toName).st) throw new VfsError('EEXIST', vb);
    if (this.blocked.anchorsBelow(fromName) || this.blocked.anchorsBelow(toName)) throw new VfsError('EBLOCKED', vb);
    this.guarded(va, true);
    this.guarded(vb, true);
    this.checkFdInside(a.fd, a.vpath);
    this.checkFdInside(b.fd, b.vpath);
    try {
      fs.renameSync(`${PROC_FD}/${a.fd}/${fromName}`, `${PROC_FD}/${b.fd}/${toName}`);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // something made at the destination since the check (a non-empty folder, a file, a link)
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') throw new VfsError('EEXIST', vb);
      throw fromNodeError(e, code === 'ENOENT' ? vb : va);
    }
    this.recordChange({ op: 'rename', path: va, to: vb, delta: 0 }, true);
  }

  /** rename(2) inside the zone, both folders held; neither end may be the root. */
  rename(from: string, to: string, cwd = '/'): void {
    this.assertWritable(to);
    const a = this.resolveExisting(from, cwd);
    const b = this.resolve(to, cwd);
    if (a.parts.length === 0 || b.parts.length === 0) throw new VfsError('EBUSY', a.parts.length === 0 ? from : to);
    this.guarded(a.vpath, true);
    this.guarded(b.vpath, true);
    const replaced = this.renameHeld(this, a, from, b, to, (sa, sb, nb) => {
      if (sb?.isFile() && sb.nlink > 1) throw new VfsError('EHARDLINK', to);
      // Moving a folder can change what a multi-component pattern ('.git/config') matches
      // below it: refuse when either name could be such an anchor (exposing or planting).
      const na = a.parts[a.parts.length - 1]!;
      if (sa.isDirectory() && (this.blocked.anchorsBelow(na) || this.blocked.anchorsBelow(nb))) {
        throw new VfsError('EBLOCKED', this.blocked.anchorsBelow(na) ? from : to);
      }
      if (!sa.isDirectory()) this.checkExtension(nb, to);
    });
    // a replaced file (one link: checked above) or empty folder is one entry less
    if (replaced) this.releaseFiles(1);
    if (replaced?.isFile()) this.releaseQuota(chargeOf(replaced));
    this.recordChange({ op: 'rename', path: a.vpath, to: b.vpath, delta: replaced?.isFile() ? -replaced.size : 0 }, true);
  }

  /**
   * rename(2) of a regular file of this zone to `to` in zone `dst` (same quota, same file system
   * or false: EXDEV), both folders held. The destination had the checks of a write (createWriter).
   */
  renameFileTo(from: string, cwd: string, dst: Vfs, to: string): boolean {
    const a = this.resolveExisting(from, cwd);
    const b = dst.resolve(to, '/');
    if (a.parts.length === 0 || b.parts.length === 0) throw new VfsError('EBUSY', a.parts.length === 0 ? from : to);
    this.guarded(a.vpath);
    dst.guarded(b.vpath);
    let replaced: fs.Stats | null;
    try {
      replaced = this.renameHeld(dst, a, from, b, to, (sa, sb) => {
        if (!sa.isFile()) throw new VfsError('ESPECIAL', from);
        if (sb && (!sb.isFile() || sb.nlink > 1)) throw new VfsError(sb.isDirectory() ? 'EISDIR' : sb.isFile() ? 'EHARDLINK' : 'ESPECIAL', to);
      });
    } catch (e) {
      if (e instanceof VfsError && e.errno === 'EXDEV') return false;
      throw e;
    }
    // The bytes stay in the same quota; a replaced destination file gives its bytes back.
    if (replaced) dst.releaseFiles(1);
    if (replaced?.isFile()) dst.releaseQuota(chargeOf(replaced));
    dst.recordChange({ op: 'write', path: b.vpath, delta: replaced?.isFile() ? -replaced.size : 0 }, true);
    this.recordChange({ op: 'delete', path: a.vpath, delta: 0 });
    return true;
  }

  /**
   * Hold both folders, `check` what is there now (source, destination or null, its name), rename;
   * what was replaced at the destination (null: nothing).
   */
  private renameHeld(dst: Vfs, a: Resolved, from: string, b: Resolved, to: string, check: (sa: fs.Stats, sb: fs.Stats | null, nb: string) => void): fs.Stats | null {
    return this.inParent(a, from, (ha) => dst.inParent(b, to, (hb) => {
      if (!ha.stat) throw new VfsError('ENOENT', from);
      check(ha.stat, hb.stat, hb.name);
      try {
        renameIn(ha.dir, ha.name, hb.dir, hb.name);
      } catch (e) {
        throw fromNodeError(e, (e as NodeJS.ErrnoException).code === 'ENOENT' ? to : from);
      }
      // what the rename replaced (not the source itself, under another link or name)
      const sb = hb.stat;
      return sb && !(sb.dev === ha.stat.dev && sb.ino === ha.stat.ino) ? sb : null;
    }));
  }

  /**
   * The inode a resolved path names now, held (see at.ts inodeIn) in its held folder, for a
   * change of its metadata: `fn` checks its fstat and changes it. The root is held itself.
   */
  private onInode(r: Resolved, path: string, fn: (dir: HeldDir, name: string, inode: { fd: number; stat: fs.Stats }) => void): void {
    if (r.parts.length === 0) {
      const root = holdDir(this.rootHost, '/', path);
      try {
        // Its own descriptor holds the root; without /proc, its path.
        fn(root, '.', { fd: root.fd >= 0 ? root.fd : -1, stat: root.fd >= 0 ? fs.fstatSync(root.fd) : this.rootStat });
      } finally {
        root.close();
      }
      return;
    }
    this.inParent(r, path, (h) => {
      const inode = inodeIn(h.dir, h.name, path);
      try {
        fn(h.dir, h.name, inode);
      } finally {
        if (inode.fd >= 0) fs.closeSync(inode.fd);
      }
    });
  }

  /** Set access and modification times (seconds, fractional allowed). Symlinks are not followed. */
  utimes(path: string, atime: number, mtime: number, cwd = '/'): void {
    this.assertWritable(path);
    const r = this.resolveExisting(path, cwd, { followFinal: this.policy.followSymlinks });
    this.guarded(r.vpath);
    // Node takes a negative number of seconds for "now"; a Date keeps times before 1970.
    const a = atime < 0 ? new Date(atime * 1000) : atime;
    const m = mtime < 0 ? new Date(mtime * 1000) : mtime;
    this.onInode(r, path, (dir, name, inode) => {
      // Metadata of a shared inode is shared too: the other name may be outside the zone.
      if (inode.stat.isFile() && inode.stat.nlink > 1) throw new VfsError('EHARDLINK', path);
      setTimes(dir, name, inode, a, m, path);
    });
    this.recordChange({ op: 'meta', path: r.vpath, delta: 0 });
  }

  chmod(path: string, mode: number, cwd = '/'): void {
    this.assertWritable(path);
    const r = this.resolveExisting(path, cwd, { followFinal: this.policy.followSymlinks });
    this.guarded(r.vpath);
    this.onInode(r, path, (dir, name, inode) => {
      if (inode.stat.isSymbolicLink()) throw new VfsError('ESYMLINK', path);
      if (inode.stat.isFile() && inode.stat.nlink > 1) throw new VfsError('EHARDLINK', path);
      setMode(dir, name, inode, mode & MODE_MASK, path);
    });
    this.recordChange({ op: 'meta', path: r.vpath, delta: 0 });
  }

  /** Is this the zone root directory itself (after resolution)? */
  isRoot(path: string, cwd = '/'): boolean {
    return splitVirtual(path, cwd).length === 0;
  }

  /** Told the host path of every temp file this Vfs is about to create (setTempHook). */
  private tempHook: ((host: string) => void) | undefined;

  /**
   * Be told of every temp file's host path before it is created (the worker records it in its
   * lane's temp registry, so a stopped task's temps can be removed), or stop (undefined).
   */
  setTempHook(hook: ((host: string) => void) | undefined): void {
    this.tempHook = hook;
  }

  /** Temp name inside the same folder as `host`. */
  tempHostFor(host: string): string {
    const dir = host.slice(0, host.lastIndexOf('/'));
    const tmp = `${dir}/${tempName()}`;
    this.tempHook?.(tmp);
    return tmp;
  }
}

/**
 * A quota's usage lives in shared memory, so every worker sees and updates the same number:
 * growth is reserved with an atomic add before the bytes are written, and given back when
 * the write is aborted or something is removed. Concurrent writers can never pass the limit.
 */
export interface QuotaCounter {
  counters: BigInt64Array;
  index: number;
  limit: number;
  /** Files and folders the quota allows (counted at index + 1). */
  maxFiles: number;
  /** Name of the quota for messages (user, group, session). */
  name: string;
}

/**
 * A write in progress: temp file + fsync + rename on commit; abort removes the temp. The temp
 * file is created in the target's folder, held open since its resolution (see at.ts), and
 * renamed to the target's name there: a swap of any folder on the path cannot move either.
 */
export class AtomicWriter {
  private fd: number;
  /** The temp file's name in the held folder. */
  private readonly tmp: string;
  private readonly name: string;
  private size = 0;
  private done = false;
  private committed = false;
  /** Quota reserved so far for growth beyond the old file's charge. */
  private reserved = 0;
  /** What the old file counted against the quota (chargeOf). */
  private readonly oldSize: number;
  /** The old file's size, for the change reported. */
  private readonly oldBytes: number;
  /** A new name: one file of the quota's file limit, reserved until commit or abort. */
  private newEntry = false;

  private readonly hooks: Pick<WriteOptions, 'beforeRename' | 'afterRename'>;
  private readonly durable: boolean;
  private readonly final: Pick<WriteOptions, 'finalMode' | 'finalTime'>;
  private readonly direct: boolean;

  constructor(private readonly vfs: Vfs, private readonly target: Resolved, private readonly path: string, opts: WriteOptions, private readonly dir: HeldDir) {
    this.hooks = { beforeRename: opts.beforeRename, afterRename: opts.afterRename };
    this.durable = opts.durable !== false;
    this.final = { finalMode: opts.finalMode, finalTime: opts.finalTime };
    this.name = target.parts[target.parts.length - 1]!;
    this.direct = opts.direct === true && !target.stat;
    if (this.direct) this.tmp = this.name;
    else {
      const tmpHost = vfs.tempHostFor(target.host);
      this.tmp = tmpHost.slice(tmpHost.lastIndexOf('/') + 1);
    }
    const mode = (target.stat ? target.stat.mode : (opts.mode ?? 0o666) & ~0o022) & MODE_MASK;
    this.oldSize = target.stat ? chargeOf(target.stat) : 0;
    this.oldBytes = target.stat?.size ?? 0;
    if (!target.stat) {
      vfs.reserveFiles(1, path);
      this.newEntry = true;
    }
    try {
      this.fd = openIn(dir, this.tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW, mode, path);
    } catch (e) {
      if (this.newEntry) vfs.releaseFiles(1);
      this.newEntry = false;
      dir.close();
      throw e;
    }
    try {
      // The held folder may have been moved out of the root since it was verified: the temp
      // file must really be inside, or the rename on commit would publish it outside.
      vfs.checkFdInside(this.fd, path);
      if (target.stat) fs.fchmodSync(this.fd, mode);
    } catch (e) {
      this.abort();
      throw e instanceof VfsError ? e : fromNodeError(e, path);
    }
    if (opts.append && target.stat) {
      // Appending is copy-then-append into the temp file, so a crash never leaves a torn file.
      // A failed copy (EFBIG, or the file changed under us) must not leave the temp or its fd.
      try {
        for (const chunk of this.oldChunks(target.stat)) this.write(chunk);
      } catch (e) {
        this.abort();
        throw e;
      }
    }
  }

  /** The bytes written so far, read back from the temp file (the versioned zone's check near the quota). */
  private readBack(): Buffer | undefined {
    let fd: number;
    try { fd = openIn(this.dir, this.tmp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, undefined, this.path); } catch { return undefined; }
    try {
      return Buffer.concat([...readFdChunks(fd, Math.max(1024, Math.min(256 * 1024, this.size + 1)), true)]);
    } catch {
      return undefined;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The file being replaced, read through the held folder: the one that was checked (dev, ino). */
  private *oldChunks(st: fs.Stats): Generator<Buffer> {
    const fd = openIn(this.dir, this.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, undefined, this.path);
    try {
      const now = fs.fstatSync(fd);
      if (now.dev !== st.dev || now.ino !== st.ino || !now.isFile()) throw new VfsError('EESCAPE', this.path);
      yield* readFdChunks(fd, Math.max(1024, Math.min(256 * 1024, now.size + 1)), true);
    } finally {
      fs.closeSync(fd);
    }
  }

  get bytesWritten(): number {
    return this.size;
  }

  write(chunk: Uint8Array): void {
    if (this.done) throw new Error('write after commit');
    if (this.size + chunk.length > this.vfs.policy.maxFileSize) {
      this.abort();
      throw new VfsError('EFBIG', this.path, { limit: this.vfs.policy.maxFileSize });
    }
    const need = Math.max(0, this.size + chunk.length - this.oldSize) - this.reserved;
    if (need > 0) {
      try {
        this.vfs.reserveQuota(need, this.path);
      } catch (e) {
        this.abort();
        throw e;
      }
      this.reserved += need;
    }
    let off = 0;
    try {
      while (off < chunk.length) off += fs.writeSync(this.fd, chunk, off, chunk.length - off);
    } catch (e) {
      // Disk full (ENOSPC, EDQUOT: NO_SPACE) or an I/O error: no partial file, no temp left.
      this.abort();
      throw fromNodeError(e, this.path);
    }
    this.size += chunk.length;
  }

  /** Write every chunk, then commit; any failure (reading the source included) aborts: no partial file. */
  writeAll(chunks: Iterable<Uint8Array>): number {
    try {
      for (const chunk of chunks) this.write(chunk);
      this.commit();
    } catch (e) {
      this.abort();
      throw e;
    }
    return this.size;
  }

  commit(): void {
    if (this.done) return;
    // The quota counts the larger of the allocated and the written size (chargeOf), known
    // once the bytes are on disk: the reservation so far is brought to it before the rename.
    let delta: number;
    let over = 0;
    try {
      if (this.durable) fs.fsyncSync(this.fd);
      delta = chargeOf({ size: this.size, blocks: fs.fstatSync(this.fd).blocks }) - this.oldSize;
      over = delta - this.reserved;
      if (over > 0) {
        this.vfs.reserveQuota(over, this.path);
        this.reserved += over;
      }
      this.vfs.checkVersionRoom(this.size, this.target.parts.length - 1, this.path, () => this.readBack());
      const { finalMode, finalTime } = this.final;
      if (finalMode !== undefined) fs.fchmodSync(this.fd, finalMode & MODE_MASK);
      if (finalTime !== undefined && Number.isFinite(finalTime)) {
        const t = finalTime < 0 ? new Date(finalTime * 1000) : finalTime;
        fs.futimesSync(this.fd, t, t);
      }
      fs.closeSync(this.fd);
      this.done = true;
      // Published only in a folder still inside the root (it may have been moved out since).
      if (this.dir.fd >= 0) this.vfs.checkFdInside(this.dir.fd, this.path);
      if (this.direct) { /* written in place: nothing to rename */ } else if (this.hooks.beforeRename) {
        try {
          this.hooks.beforeRename();
          renameIn(this.dir, this.tmp, this.dir, this.name);
        } finally {
          this.hooks.afterRename?.();
        }
      } else renameIn(this.dir, this.tmp, this.dir, this.name);
      this.committed = true;
      this.dir.close();
    } catch (e) {
      this.abort();
      throw e instanceof VfsError ? e : fromNodeError(e, this.path);
    }
    if (over < 0) this.vfs.releaseQuota(-over);
    this.vfs.recordChange({ op: 'write', path: this.target.vpath, delta: this.size - this.oldBytes }, true);
  }

  abort(): void {
    if (!this.committed && this.reserved > 0) {
      this.vfs.releaseQuota(this.reserved);
      this.reserved = 0;
    }
    if (!this.committed && this.newEntry) {
      this.vfs.releaseFiles(1);
      this.newEntry = false;
    }
    if (!this.done) {
      this.done = true;
      try { fs.closeSync(this.fd); } catch { /* already closed */ }
    }
    if (!this.committed && this.dir.isOpen) {
      try { fs.unlinkSync(this.dir.child(this.tmp)); } catch { /* already removed */ }
    }
    this.dir.close();
  }
}

/**
 * Chunks of an open file. With `regular` (a regular file, as fstat said), a read shorter
 * than asked is its end: no second read(2) just to see 0 bytes (small files: one read).
 */
export function* readFdChunks(fd: number, chunkSize: number, regular = false, reuse = false): Generator<Buffer> {
  let kept: Buffer | null = null;
  for (;;) {
    const buf: Buffer = kept ?? Buffer.allocUnsafe(chunkSize);
    if (reuse) kept = buf;
    let n: number;
    try {
      n = fs.readSync(fd, buf, 0, chunkSize, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      throw e;
    }
    if (n === 0) return;
    noteBytes(n);
    addProgress(0, n);
    if (n === chunkSize) yield buf;
    else {
      yield buf.subarray(0, n);
      if (regular) return;
    }
  }
}

function splitRaw(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/** A lone UTF-16 surrogate: not text; on disk every one would become the same U+FFFD name. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function checkPathText(path: string): void {
  if (path.includes('\0')) throw new VfsError('EINVAL', path.replace(/\0/g, '\\0'));
  if (LONE_SURROGATE.test(path)) throw new VfsError('EINVAL', path.replace(/[\uD800-\uDFFF]/gu, '\uFFFD'));
  if (path === '') throw new VfsError('ENOENT', path);
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw new VfsError('ENAMETOOLONG', path.slice(0, 64) + '...');
}

class VfsDir implements DirHandle {
  /**
   * The kernel's location of the fd was checked inside the root (at open or after a listing):
   * files may be opened through it by name without a location check each (openListedFileAt).
   */
  located: boolean;

  /** Gave its descriptor up (makeRoom) and works by path until its walk returns (Vfs.reclaim). */
  evicted = false;
  /** The directory's identity when it gave its descriptor up: a reclaimed one must match it. */
  evictedAs: { dev: number; ino: number } | null = null;

  constructor(private readonly vfs: Vfs, public fd: number, readonly vpath: string, readonly parts: readonly string[], private st: fs.Stats | null,
    located = true, readonly parent: VfsDir | null = null) {
    this.located = located;
    if (fd >= 0) openHandles.add(this);
  }

  /** Writers holding the descriptor (Vfs.createWriterAt): never given up (evicted) meanwhile. */
  pins = 0;

  /** Give the descriptor up for a deeper walk (its identity is kept to take it back). */
  evict(): void {
    try {
      this.evictedAs = this.st ?? fs.fstatSync(this.fd);
    } catch {
      this.evictedAs = null;
    }
    fs.closeSync(this.fd);
    openHandles.delete(this);
    this.fd = -1;
    this.evicted = true;
  }

  /** A descriptor found again for this directory (Vfs.reclaim checked it). */
  adopt(fd: number): void {
    this.fd = fd;
    this.located = true;
    openHandles.add(this);
  }

  get stat(): fs.Stats {
    if (!this.st) {
      try {
        this.st = this.fd >= 0 ? fs.fstatSync(this.fd) : this.vfs.lstat(this.vpath);
      } catch (e) {
        throw e instanceof VfsError ? e : fromNodeError(e, this.vpath);
      }
    }
    return this.st;
  }

  isOf(vfs: Vfs): boolean {
    return this.vfs === vfs;
  }

  entries(): DirEntry[] {
    return this.vfs.listDir(this);
  }

  close(): void {
    this.vfs.closeDir(this);
  }
}

/** A handle and its entries; the handle closed when listing fails. */
export function listedOrClosed(dir: DirHandle): { dir: DirHandle; entries: DirEntry[] } {
  try {
    return { dir, entries: dir.entries() };
  } catch (e) {
    dir.close();
    throw e;
  }
}

function direntType(d: fs.Dirent): DirEntry['type'] {
  return d.isFile() ? 'file' : d.isDirectory() ? 'dir' : d.isSymbolicLink() ? 'symlink' : 'other';
}

/** A child name given to the *At methods: exactly one real component. */
function checkChildName(name: string, dir: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) throw new VfsError('EINVAL', dir);
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw new VfsError('ENAMETOOLONG', dir);
}

/** A regular file opened by a walk (Vfs.openListedFileAt). */
export class WalkFile {
  private open = true;

  /** `stat`: the open file's fstat (mode, times: zip -r takes them from it). */
  constructor(private readonly fd: number, readonly size: number, readonly vpath: string, readonly stat?: fs.Stats) {}

  /** One read(2) into buf[off, off + len): the count, 0 at the end. */
  read(buf: Uint8Array, off: number, len: number): number {
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(this.fd, buf, off, len, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        throw fromNodeError(e, this.vpath);
      }
      // Outside the try: MEMORY_LIMIT must end the task, not pass for this file's I/O error.
      noteBytes(n);
      addProgress(0, n);
      return n;
    }
  }

  /** fstat of the open file (the content cache's identity). */
  identity(): fs.Stats {
    return fs.fstatSync(this.fd);
  }

  close(): void {
    if (this.open) fs.closeSync(this.fd);
    this.open = false;
  }
}
