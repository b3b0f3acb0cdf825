import { describe, expect, it } from 'vitest';
import { sortLineIndexes } from '../../src/gnulib/line-sort.js';

/** Sort `lines` (each without its terminator) with sortLineIndexes; the lines in its order. */
function radixSorted(lines: Buffer[], eol = 0x0a): Buffer[] {
  const data = Buffer.concat(lines.flatMap((l) => [l, Buffer.from([eol])]));
  const starts = new Uint32Array(lines.length + 1);
  let at = 0;
  lines.forEach((l, i) => { starts[i] = at; at += l.length + 1; });
  starts[lines.length] = at;
  return [...sortLineIndexes(data, starts, lines.length)].map((i) => lines[i]!);
}

/** The reference: memcmp order, a line that is a prefix of another first (sort under LC_ALL=C). */
const byteOrder = (lines: Buffer[]) => [...lines].sort(Buffer.compare);

function random(seed: number) {
  return (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed % n;
  };
}

describe('sortLineIndexes: byte order of lines', () => {
  it('prefixes, empty lines, NUL and 0xff bytes, duplicates', () => {
    const lines = ['ab', 'a', '', 'a\0', 'a\xff', 'b', '', 'ab', 'A', 'a b', '\xff\xff', '\0'].map((s) => Buffer.from(s, 'latin1'));
    expect(radixSorted(lines)).toEqual(byteOrder(lines));
  });

  it('random lines over small alphabets and long shared prefixes, group sizes on both sides of the insertion-sort cut', () => {
    for (const [count, alphabet, prefix] of [[5, 3, 0], [24, 2, 0], [25, 2, 3], [200, 4, 10], [5000, 256, 0], [5000, 3, 40], [20000, 26, 5]] as const) {
      const rnd = random(count * 31 + alphabet);
      const lines = Array.from({ length: count }, () => {
        const len = rnd(prefix + 12);
        const b = Buffer.alloc(len);
        for (let i = 0; i < len; i++) b[i] = i < prefix && rnd(8) !== 0 ? 0x61 : (alphabet === 256 ? rnd(256) : 0x61 + rnd(alphabet));
        return b;
      });
      // A newline inside a line would split it: these lines use NUL as the terminator.
      expect(radixSorted(lines, 0).map((b) => b.toString('latin1'))).toEqual(byteOrder(lines).map((b) => b.toString('latin1')));
    }
  });

  it('no lines, one line', () => {
    expect(radixSorted([])).toEqual([]);
    expect(radixSorted([Buffer.from('x')])).toEqual([Buffer.from('x')]);
  });
});

describe('sortLineIndexes: the packed rounds (runs of more than 256 lines)', () => {
  it('short lines against longer ones with NUL bytes where the short ones end, empty lines, 0xff', () => {
    const rnd = random(7);
    const lines = Array.from({ length: 30_000 }, () => {
      const len = rnd(12);
      const b = Buffer.alloc(len);
      for (let i = 0; i < len; i++) b[i] = [0, 0x61, 0x62, 0xff][rnd(4)]!;
      return b;
    });
    expect(radixSorted(lines, 0x0a).map((b) => b.toString('latin1'))).toEqual(byteOrder(lines).map((b) => b.toString('latin1')));
  });
  it('many equal long lines (one round per 5 bytes of them) and near-equal ones', () => {
    const long = Buffer.alloc(12_000, 0x61);
    const lines: Buffer[] = [];
    for (let i = 0; i < 600; i++) lines.push(long);
    for (let i = 0; i < 600; i++) { const b = Buffer.from(long); b[(i * 997) % b.length] = 0x62; lines.push(b); }
    for (let i = 0; i < 300; i++) lines.push(long.subarray(0, (i * 131) % long.length));
    const got = radixSorted(lines);
    const want = byteOrder(lines);
    expect(got.length).toBe(want.length);
    expect(got.every((b, i) => b.equals(want[i]!))).toBe(true);
  });
});

describe('sortLineIndexes: the 8-byte prefix words', () => {
  it('groups equal in 8, 16, 24 bytes, lines ending inside a word, NUL bytes where padding would be', () => {
    const rnd = random(11);
    const heads = ['', 'abcdefgh', 'abcdefghijklmnop', 'abcdefghijklmnopqrstuvwx', 'abcd', 'abcdefg', 'abcdefgh\0', 'abc\0\0\0\0\0'];
    const tails = ['', '\0', '\0\0\0\0\0\0\0\0', 'a', 'b', '\xff', 'ijkl', 'ijklmnop', 'ijklmnopq', '\0\0\0\0\0\0\0\0\0x'];
    const lines = Array.from({ length: 40_000 }, () => Buffer.from(heads[rnd(heads.length)]! + tails[rnd(tails.length)]! + tails[rnd(tails.length)]!, 'latin1'));
    const got = radixSorted(lines);
    const want = byteOrder(lines);
    expect(got.map((b) => b.toString('latin1'))).toEqual(want.map((b) => b.toString('latin1')));
  });
});
