/**
 * What a regular file costs against a quota: its allocated size or its apparent size,
 * whichever is larger (a 1-byte file takes a block; a sparse file counts its whole length).
 */
export function chargeOf(st: { size: number; blocks: number }): number {
  return Math.max(st.size, st.blocks * 512);
}

/**
 * What a worker needs to count against a quota (the SharedArrayBuffer is shared, not copied):
 * bytes at `index`, files and folders at `index + 1`.
 */
export interface QuotaHandle {
  sab: SharedArrayBuffer;
  index: number;
  limit: number;
  /** Files and folders (every entry below the quota's folders) the quota allows. */
  maxFiles: number;
  name: string;
}

/** Slot of a quota counter holding the bytes of git objects (included in the bytes at `index`). */
export const VERSIONS_SLOT = 2;

/** Count git objects written (negative: removed) against a quota: its bytes, and its versions apart (for stats). */
export function addVersionBytes(q: QuotaHandle | undefined, bytes: number): void {
  if (!q || bytes === 0) return;
  const c = new BigInt64Array(q.sab);
  if (c.length <= VERSIONS_SLOT) return;
  Atomics.add(c, q.index, BigInt(bytes));
  Atomics.add(c, VERSIONS_SLOT, BigInt(bytes));
}

const BLOCK = 4096;
const roundUp = (n: number): number => Math.ceil(n / BLOCK) * BLOCK;

/**
 * An upper bound of what the commit of one written file adds to a quota: its blob (zlib's
 * deflateBound of the content and git's header, or the `deflated` size when known, in whole
 * blocks as chargeOf counts a small file), one block per tree on its path (`dirs` folders below the root, and the root), and
 * the commit. A tree of a folder with hundreds of entries can pass one block: then the commit
 * passes the estimate, and the next write sees it.
 */
export function versionCost(size: number, dirs: number, deflated?: number): number {
  const blob = deflated ?? size + Math.floor(size / 4096) + Math.floor(size / 16384) + Math.floor(size / 33554432) + 13 + 32;
  return roundUp(blob) + BLOCK * (dirs + 1) + BLOCK;
}
