import { randomBytes } from 'node:crypto';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';

/**
 * gnulib randint and randperm over a byte source, as GNU shuf uses them: with
 * --random-source=FILE the bytes of FILE are consumed in order, so a given file gives GNU's
 * exact output; without it, bytes come from node:crypto.
 */
const MASK = (1n << 64n) - 1n;
const shl = (x: bigint) => (x << 8n) & MASK;

export class RandomSourceError extends Error {}

export class ByteSource {
  private at = 0;
  /** `bytes` null: node:crypto. */
  constructor(private readonly bytes: Buffer | null, private readonly name: string) {}

  read(n: number): Buffer {
    if (!this.bytes) return randomBytes(n);
    if (this.at + n > this.bytes.length) throw new RandomSourceError(`${gnuQuote(this.name)}: end of file`);
    const b = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }
}

export class RandInt {
  private randnum = 0n;
  private randmax = 0n;
  constructor(private readonly src: ByteSource) {}

  /** randint_genmax: a number in [0, genmax]. */
  genmax(genmax: bigint): bigint {
    let randnum = this.randnum;
    let randmax = this.randmax;
    const choices = genmax + 1n;
    for (;;) {
      if (randmax < genmax) {
        let i = 0;
        let rmax = randmax;
        do {
          rmax = shl(rmax) + 255n;
          i++;
        } while (rmax < genmax);
        const buf = this.src.read(i);
        i = 0;
        do {
          randnum = shl(randnum) + BigInt(buf[i]!);
          randmax = shl(randmax) + 255n;
          i++;
        } while (randmax < genmax);
      }
      if (randmax === genmax) {
        this.randnum = this.randmax = 0n;
        return randnum;
      }
      const excess = randmax - genmax;
      const unusable = excess % choices;
      const lastUsable = randmax - unusable;
      const reduced = randnum % choices;
      if (randnum <= lastUsable) {
        this.randnum = randnum / choices;
        this.randmax = excess / choices;
        return reduced;
      }
      randnum = reduced;
      randmax = unusable - 1n;
    }
  }

  choose(choices: number): number {
    return Number(this.genmax(BigInt(choices) - 1n));
  }
}

/** randperm_new: the first h of a random permutation of 0..n-1, drawn one by one (a sparse virtual array). */
export function* randperm(r: RandInt, h: number, n: number): Generator<number> {
  if (h === 0) return;
  if (h === 1) {
    yield r.choose(n);
    return;
  }
  const v = new Map<number, number>();
  const get = (i: number) => v.get(i) ?? i;
  for (let i = 0; i < h; i++) {
    const j = i + r.choose(n - i);
    const vi = get(i);
    const vj = get(j);
    v.delete(i); // never read again
    v.set(j, vi);
    yield vj;
  }
}
