/** The Range header of a GET (RFC 9110 14.2), for one range; several ranges are not served. */

export type RangeAnswer =
  | { kind: 'whole' }
  | { kind: 'part'; start: number; end: number }
  | { kind: 'unsatisfiable' };

/**
 * `bytes=a-b`, `bytes=a-`, `bytes=-n` against a file of `size` bytes. A header that is not one
 * byte range (another unit, bad syntax, several ranges) is ignored: the whole file is sent, as
 * RFC 9110 allows. A range that starts at or past the end, or a suffix of 0, is unsatisfiable (416).
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const m = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'whole' };
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  if (!Number.isSafeInteger(start)) return { kind: 'unsatisfiable' };
  const end = m[2] === '' ? Infinity : Number(m[2]);
  if (end < start) return { kind: 'whole' }; // invalid: ignored
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: Math.min(end, size - 1) };
}
