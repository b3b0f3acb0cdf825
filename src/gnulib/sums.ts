/**
 * The old checksums of cksum and sum, computed over a stream of chunks: GNU's POSIX CRC
 * (cksum's default), the BSD sum (sum -r, cksum -a bsd) and the System V sum (sum -s,
 * cksum -a sysv), with the output lines coreutils 9.1 prints for them.
 */

/**
 * POSIX cksum's CRC: polynomial 0x04C11DB7 processed most significant bit first (not the
 * reflected CRC-32 of zlib/node), initial value 0, the input's length appended as its
 * bytes least significant first (as many as it needs), then complemented. node:crypto has
 * no such CRC, so the 256-entry table is built here once.
 */
const CRC_TABLE = new Uint32Array(256);
for (let i = 0; i < 256; i++) {
  let c = i << 24;
  for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
  CRC_TABLE[i] = c >>> 0;
}

export interface OldSum {
  update(chunk: Uint8Array): void;
  /** The checksum and the byte count. */
  finish(): { value: number; length: number };
}

export function crcSum(): OldSum {
  let crc = 0;
  let length = 0;
  return {
    update(chunk) {
      let c = crc;
      for (let i = 0; i < chunk.length; i++) c = ((c << 8) ^ CRC_TABLE[((c >>> 24) ^ chunk[i]!) & 0xff]!) >>> 0;
      crc = c;
      length += chunk.length;
    },
    finish() {
      let c = crc;
      for (let n = length; n > 0; n = Math.floor(n / 256)) c = ((c << 8) ^ CRC_TABLE[((c >>> 24) ^ n) & 0xff]!) >>> 0;
      return { value: ~c >>> 0, length };
    },
  };
}

/** BSD sum: a 16-bit checksum rotated right one bit before each byte is added. */
export function bsdSum(): OldSum {
  let sum = 0;
  let length = 0;
  return {
    update(chunk) {
      let s = sum;
      for (let i = 0; i < chunk.length; i++) s = (((s >> 1) + ((s & 1) << 15)) + chunk[i]!) & 0xffff;
      sum = s;
      length += chunk.length;
    },
    finish: () => ({ value: sum, length }),
  };
}

/** System V sum: the byte sum (mod 2^32) folded twice to 16 bits. */
export function sysvSum(): OldSum {
  let s = 0;
  let length = 0;
  return {
    update(chunk) {
      let t = s;
      for (let i = 0; i < chunk.length; i++) t += chunk[i]!;
      s = t >>> 0;
      length += chunk.length;
    },
    finish() {
      const r = (s & 0xffff) + (s >>> 16);
      return { value: (r & 0xffff) + (r >>> 16), length };
    },
  };
}

/** Blocks of `size` bytes, rounded up (human_readable with human_ceiling). */
function blocks(length: number, size: number): string {
  return String(Math.ceil(length / size));
}

/** One output line (without the delimiter); `name` only when file operands were given. */
export function formatOldSum(kind: 'crc' | 'bsd' | 'sysv', r: { value: number; length: number }, name: string | undefined): string {
  let line: string;
  if (kind === 'crc') line = `${r.value} ${r.length}`;
  else if (kind === 'bsd') line = `${String(r.value).padStart(5, '0')} ${blocks(r.length, 1024).padStart(5)}`;
  else line = `${r.value} ${blocks(r.length, 512)}`;
  return name === undefined ? line : `${line} ${name}`;
}
