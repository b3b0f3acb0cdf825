import type { Readable } from 'node:stream';

/**
 * Newline-delimited messages from a stream, with a cap on one line's size: an over-long line
 * is reported once (onOversize) and skipped up to its newline, never buffered whole.
 */
export async function* readLines(input: Readable, maxLineBytes: number, onOversize: () => void): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      if (!skipping) {
        size += end - start;
        if (size > maxLineBytes) {
          skipping = true;
          parts = [];
          onOversize();
        } else parts.push(chunk.subarray(start, end));
      }
      if (nl < 0) break;
      if (!skipping) {
        const line = Buffer.concat(parts).toString('utf8').replace(/\r$/, '');
        if (line.trim() !== '') yield line;
      }
      parts = [];
      size = 0;
      skipping = false;
      start = nl + 1;
    }
  }
  if (!skipping && parts.length > 0) {
    const line = Buffer.concat(parts).toString('utf8');
    if (line.trim() !== '') yield line;
  }
}
