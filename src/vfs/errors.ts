import type { ErrorCode } from '../errors.js';
import type { PathFailure } from '../runtime/error-body.js';

/** strerror(3) texts as glibc prints them, for GNU-faithful diagnostics. */
const STRERROR: Record<string, string> = {
  ENOENT: 'No such file or directory',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EEXIST: 'File exists',
  ENOTEMPTY: 'Directory not empty',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  EROFS: 'Read-only file system',
  EXDEV: 'Invalid cross-device link',
  EINVAL: 'Invalid argument',
  EFBIG: 'File too large',
  EDQUOT: 'Disk quota exceeded',
  ENOSPC: 'No space left on device',
  EBUSY: 'Device or resource busy',
  EMLINK: 'Too many links',
  EIO: 'Input/output error',
};

/** nosh-specific refusals keep an errno-like name so commands can print them uniformly. */
const NOSH_TEXT: Record<string, string> = {
  ESYMLINK: 'Symbolic link not followed (zone policy)',
  EBLOCKED: 'Permission denied (blocked by zone policy)',
  EESCAPE: 'Permission denied (path leaves the zone)',
  ESPECIAL: 'Permission denied (special file not opened)',
  EHARDLINK: 'Permission denied (file has several hard links; not written through)',
  EEXT: 'Permission denied (file extension not allowed in this zone)',
  // The file system's own quota (EDQUOT from the kernel): nosh's quota keeps 'EDQUOT'.
  EFSQUOT: 'Disk quota exceeded',
  ETOODEEP: 'Permission denied (folder nested too deep to follow)',
  // group ownership and locked edits (src/vfs/guard.ts): the details name the owner or holder
  EOWNER: 'Permission denied (file of another group member)',
  ELOCKED: 'File locked (a locked edit holds it)',
};

const CODE_OF: Record<string, ErrorCode> = {
  ENOENT: 'FILE_NOT_FOUND',
  EEXIST: 'FILE_EXISTS',
  EFBIG: 'FILE_TOO_LARGE',
  EROFS: 'ZONE_READONLY',
  EDQUOT: 'QUOTA_EXCEEDED',
  ENOTDIR: 'NOT_A_DIRECTORY',
  EISDIR: 'IS_A_DIRECTORY',
  ENAMETOOLONG: 'INVALID_ARGUMENT',
  EINVAL: 'INVALID_ARGUMENT',
  ESYMLINK: 'PATH_ESCAPE',
  EESCAPE: 'PATH_ESCAPE',
  EBLOCKED: 'BLOCKED_PATH',
  EEXT: 'BLOCKED_PATH',
  ENOSPC: 'NO_SPACE',
  EFSQUOT: 'NO_SPACE',
  ETOODEEP: 'INVALID_ARGUMENT',
  ELOCKED: 'FILE_LOCKED',
};

export function strerror(errno: string): string {
  return STRERROR[errno] ?? NOSH_TEXT[errno] ?? errno;
}

/** strerror, with the owner and mode of a file of another member, or the holder of a lock. */
function reasonText(errno: string, d: Record<string, unknown>): string {
  if (errno === 'EOWNER' && d.owner !== undefined) return `Permission denied (owned by ${d.owner}, mode ${d.mode})`;
  if (errno === 'ELOCKED' && d.holder !== undefined) return `File locked (by ${d.holder} since ${d.since}, until ${d.expires})`;
  return strerror(errno);
}

/** A filesystem error on a virtual path. `path` is always virtual, never a host path. */
export class VfsError extends Error implements PathFailure {
  readonly errno: string;
  readonly path: string;
  readonly code: ErrorCode;
  constructor(errno: string, path: string, details: Record<string, unknown> = {}) {
    super(`${path}: ${reasonText(errno, details)}`);
    this.name = 'VfsError';
    this.errno = errno;
    this.path = path;
    this.code = CODE_OF[errno] ?? 'PERMISSION_DENIED';
    this.details = details;
  }
  readonly details: Record<string, unknown>;
  /** The text after "cmd: path: ", as GNU tools print it. */
  get reason(): string {
    // the text is what a command reports: a refusal reported is one the audit log records
    if (refusalListener && REFUSING.has(this.errno)) refusalListener(this);
    return reasonText(this.errno, this.details);
  }
}

/** A write stopped by a limit (nosh's quota, a size limit, the disk's space or quota), not by its name. */
export function isLimitError(e: unknown): e is VfsError {
  return e instanceof VfsError && (e.errno === 'EDQUOT' || e.errno === 'EFBIG' || e.errno === 'ENOSPC' || e.errno === 'EFSQUOT');
}

/** errnos that mean the zone's policy (or quota) refused the access: the audit log's refusals. */
const REFUSING = new Set(['EBLOCKED', 'EEXT', 'EESCAPE', 'ESYMLINK', 'ESPECIAL', 'EHARDLINK', 'EROFS', 'EDQUOT', 'EOWNER', 'ELOCKED']);

let refusalListener: ((e: VfsError) => void) | undefined;

/**
 * Be told of every refusal (a VfsError of REFUSING) reported from now on (its `reason` taken:
 * what a command prints; the errors a command catches and handles are not told), or stop
 * (undefined); returns the previous listener. A worker runs one task at a time and listens
 * around it: commands report most refusals on stderr and go on, so the envelope does not
 * show them.
 */
export function listenForRefusals(listener: ((e: VfsError) => void) | undefined): ((e: VfsError) => void) | undefined {
  const prev = refusalListener;
  refusalListener = listener;
  return prev;
}

/** Wrap a Node fs error so that no host path leaks. */
export function fromNodeError(err: unknown, vpath: string): VfsError {
  const errno = (err as NodeJS.ErrnoException)?.code;
  if (errno === 'EDQUOT') return new VfsError('EFSQUOT', vpath); // the disk's quota, not nosh's (NO_SPACE)
  // Names (255 bytes) and zone paths (4096) are checked before any call: the kernel's
  // ENAMETOOLONG is the zone root's host path plus a deep path passing PATH_MAX.
  if (errno === 'ENAMETOOLONG') return new VfsError('ETOODEEP', vpath);
  if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) return new VfsError(errno, vpath);
  return new VfsError('EIO', vpath);
}
