export { Vfs, AtomicWriter, WalkFile, readFdChunks, typeOfStats, listedOrClosed, sortByName } from './vfs.js';
export type { QuotaCounter, Resolved, ResolveOptions, Change, DirEntry, DirHandle, WriteOptions, RandomReader } from './vfs.js';
export { VfsError, strerror, fromNodeError, isLimitError } from './errors.js';
export { defaultPolicy, DEFAULT_BLOCKED_PATTERNS, BlockMatcher, extensionOf } from './policy.js';
export type { ZonePolicy } from './policy.js';
export { normalizeVirtual, splitVirtual, joinVirtual, baseName, dirName, MAX_NAME_BYTES, MAX_PATH_BYTES } from './paths.js';
export type { FileGuard, GuardRule, GuardLock } from './guard.js';
