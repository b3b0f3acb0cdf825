import * as crypto from 'node:crypto';
import * as fs from 'node:fs';

const MiB = 1024 * 1024;

/** 1 MiB of word lines from a small vocabulary (deflates about 3:1, under the 200:1 bomb ratio). */
function block(seed: number): Buffer {
  let x = seed;
  const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8);
  const words = Array.from({ length: 512 }, (_, i) => i.toString(36) + 'abcdefghij'.slice(0, 1 + (i % 9)));
  const parts: string[] = [];
  let n = 0;
  while (n < MiB) {
    const line = Array.from({ length: 1 + (rnd() % 12) }, () => words[rnd() % 512]).join(' ') + '\n';
    parts.push(line);
    n += line.length;
  }
  return Buffer.from(parts.join('')).subarray(0, MiB);
}

/**
 * A text file of `sizeMb` MiB for the archive streaming test and soak, written in 1 MiB chunks:
 * one block, each chunk with its own numbered header. Returns its sha256.
 */
export function writeBigText(file: string, sizeMb: number): string {
  const b = block(7);
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'w');
  for (let i = 0; i < sizeMb; i++) {
    const chunk = Buffer.from(b);
    chunk.write(`chunk ${i} of ${sizeMb}\n`, 0, 'latin1');
    fs.writeSync(fd, chunk);
    hash.update(chunk);
  }
  fs.closeSync(fd);
  return hash.digest('hex');
}

/** The sha256 of a file, read as a stream. */
export async function sha256File(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const c of fs.createReadStream(file, { highWaterMark: 4 * MiB })) hash.update(c as Buffer);
  return hash.digest('hex');
}
