import type { Outputs } from './outputs.js';

/**
 * split -n: the chunk modes over the input held whole (GNU reads a file by its size). They
 * follow split.c's loops with the whole input as one buffer.
 */

/** -n N and -n K/N: N pieces of size/N bytes, the last one taking the rest. */
export async function bytesChunks(data: Buffer, k: number, n: number, out: Outputs): Promise<void> {
  const size = data.length;
  const chunk = Math.floor(size / n);
  for (let i = 1; i <= n; i++) {
    if (k && i !== k) continue;
    const start = (i - 1) * chunk;
    const end = i === n ? size : i * chunk;
    if (k) {
      await out.stdout(data.subarray(start, end));
      return;
    }
    await out.cwrite(true, data.subarray(start, end));
  }
}

/** -n l/N and l/K/N: lines_chunk_split, each chunk ending at the first newline at or after its nominal end. */
export async function linesChunks(data: Buffer, k: number, n: number, eol: number, out: Outputs): Promise<void> {
  const fileSize = data.length;
  const chunkSize = Math.floor(fileSize / n);
  let chunkNo = 1;
  let chunkEnd = chunkSize - 1;
  let nWritten = 0;
  let newFile = true;
  let truncated = false;
  let bp = 0;
  if (k > 1 && fileSize > 0) {
    const start = (k - 1) * chunkSize - 1;
    bp = start;
    nWritten = start;
    chunkNo = k - 1;
    chunkEnd = start;
  }
  const eob = fileSize;
  while (bp !== eob) {
    let next = false;
    const nRead = eob - bp;
    const skip = Math.min(nRead, Math.max(0, chunkEnd - nWritten));
    let bpOut = data.indexOf(eol, bp + skip);
    if (bpOut >= 0) {
      bpOut++;
      next = true;
    } else bpOut = eob;
    const piece = data.subarray(bp, bpOut);
    if (k === chunkNo) await out.stdout(piece);
    else if (!k) await out.cwrite(newFile, piece);
    nWritten += piece.length;
    bp = bpOut;
    newFile = next;
    while (next || chunkEnd <= nWritten - 1) {
      if (!next && bp === eob) {
        truncated = true;
        break;
      }
      chunkNo++;
      if (k && chunkNo > k) return;
      if (chunkNo === n) chunkEnd = fileSize - 1;
      else chunkEnd += chunkSize;
      if (chunkEnd <= nWritten - 1) {
        if (!k) await out.cwrite(true, null);
      } else next = false;
    }
  }
  if (truncated) chunkNo++;
  while (!k && chunkNo++ <= n) await out.cwrite(true, null);
}

/** -n r/N and r/K/N: line i to file i mod N; every file is created (unless -e). */
export async function roundRobin(data: Buffer, k: number, n: number, eol: number, out: Outputs): Promise<void> {
  const files: Buffer[][] = Array.from({ length: n }, () => []);
  let at = 0;
  let i = 0;
  while (at < data.length) {
    let e = data.indexOf(eol, at);
    e = e < 0 ? data.length : e + 1;
    files[i]!.push(data.subarray(at, e));
    i = (i + 1) % n;
    at = e;
  }
  if (k) {
    await out.stdout(Buffer.concat(files[k - 1]!));
    return;
  }
  for (const f of files) await out.cwrite(true, Buffer.concat(f));
}
