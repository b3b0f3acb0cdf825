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
