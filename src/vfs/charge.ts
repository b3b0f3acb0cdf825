/**
 * What a regular file costs against a quota: its allocated size or its apparent size,
 * whichever is larger (a 1-byte file takes a block; a sparse file counts its whole length).
 */
export function chargeOf(st: { size: number; blocks: number }): number {
  return Math.max(st.size, st.blocks * 512);
}
