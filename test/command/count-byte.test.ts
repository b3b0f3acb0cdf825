import { describe, expect, test } from 'vitest';
import { countByte, countByteJs, countByteRead } from '../../src/gnulib/count-byte.js';

/** The plainest possible count, independent of both implementations. */
function reference(buf: Uint8Array, byte: number): number {
  let n = 0;
  for (const b of buf) if (b === byte) n++;
  return n;
}

describe('countByte (WebAssembly SIMD) counts exactly what a byte loop counts', () => {
  test('lengths around the 16-byte vectors, the 255-vector blocks and the 256 KiB memory', () => {
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
    const lengths = [0, 1, 15, 16, 17, 63, 64, 65, 255 * 16 - 1, 255 * 16, 255 * 16 + 1, 255 * 16 * 2 + 7, 262143, 262144, 262145, 600_001];
    for (const len of lengths) {
      for (const density of [0, 0.02, 0.5, 1]) {
        const buf = Buffer.alloc(len);
        for (let i = 0; i < len; i++) buf[i] = rnd() < density ? 0x0a : Math.floor(rnd() * 256);
        expect(countByte(buf, 0x0a), `len ${len} density ${density}`).toBe(reference(buf, 0x0a));
        expect(countByteJs(buf, 0x0a)).toBe(reference(buf, 0x0a));
      }
    }
  });

  test('every byte value, including 0 and 0xff, and a view into a larger buffer', () => {
    const big = Buffer.alloc(70_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) & 0xff;
    const view = new Uint8Array(big.buffer, big.byteOffset + 13, 50_000);
    for (let byte = 0; byte < 256; byte++) expect(countByte(view, byte), `byte ${byte}`).toBe(reference(view, byte));
  });

  test('a buffer of nothing but the byte: no byte lane of the SIMD accumulator overflows', () => {
    const all = Buffer.alloc(300_000, 0x0a);
    expect(countByte(all, 0x0a)).toBe(300_000);
    expect(countByte(all, 0x0b)).toBe(0);
  });

  test('countByteRead: a stream read in pieces of every size, straight into the counter', () => {
    const data = Buffer.alloc(1_000_003);
    for (let i = 0; i < data.length; i++) data[i] = i % 37 === 0 || i % 101 === 5 ? 0x0a : 0x61;
    for (const piece of [1, 4095, 65536, 262144, 10_000_000]) {
      let pos = 0;
      const got = countByteRead((into) => {
        const n = Math.min(piece, into.length, data.length - pos);
        data.copy(into, 0, pos, pos + n);
        pos += n;
        return n;
      }, 0x0a);
      expect(got, `pieces of ${piece}`).toEqual({ count: reference(data, 0x0a), bytes: data.length });
    }
  });
});
