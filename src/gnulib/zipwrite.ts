// Writing zip archives, entry after entry, to a byte sink (the Vfs's atomic writer).
// Hand-written rather than yazl because measured speed needs it: yazl deflates every entry
// asynchronously with a full-size zlib context and checksums in JavaScript, which made
// `zip -r` of 1000 small files 20x slower than Info-ZIP. Here a file read whole is deflated
// once, synchronously, with a window no larger than the file (the same deflate stream for
// files that fit the smaller window), its CRC from node:zlib, and its sizes known before the
// local header is written; a big file is streamed with a data descriptor. Zip64 records are
// written when a size, an offset or the entry count needs them.
import * as zlib from 'node:zlib';

const MAX16 = 0xffff;
const MAX32 = 0xffffffff;
/** Version made by: Unix (3), spec 3.0 (as Info-ZIP 3.0 writes). */
const MADE_BY = (3 << 8) | 30;
const FLAG_UTF8 = 0x800;
const FLAG_DESCRIPTOR = 0x8;

export interface EntryOptions {
  /** Unix mode with its type bits (0o100644, 0o40755). */
  mode: number;
  mtime: Date;
  /** No extended timestamp field, DOS time only (zip -X). */
  dosOnly?: boolean;
}

interface Central {
  name: Buffer;
  flags: number;
  method: number;
  time: number;
  date: number;
  crc: number;
  csize: number;
  size: number;
  offset: number;
  external: number;
  ut: Buffer;
}

/** DOS date and time of a Date, read in UTC (nosh runs with TZ=UTC), clamped to 1980..2107. */
function dosDateTime(d: Date): { date: number; time: number } {
  let y = d.getUTCFullYear();
  if (y < 1980) return { date: (1 << 5) | 1, time: 0 };
  if (y > 2107) y = 2107;
  return {
    date: ((y - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
  };
}

/** Info-ZIP's extended timestamp (UT): mtime only, in the local and the central header. */
function utField(d: Date, dosOnly: boolean | undefined): Buffer {
  if (dosOnly) return Buffer.alloc(0);
  const b = Buffer.alloc(9);
  b.writeUInt16LE(0x5455, 0);
  b.writeUInt16LE(5, 2);
  b.writeUInt8(1, 4);
  b.writeInt32LE(Math.max(-0x80000000, Math.min(0x7fffffff, Math.floor(d.getTime() / 1000))), 5);
  return b;
}

function u64(b: Buffer, n: number, at: number): void {
  b.writeUInt32LE(n % 0x100000000, at);
  b.writeUInt32LE(Math.floor(n / 0x100000000), at + 4);
}

/** Deflate a whole buffer with the smallest window that holds it (faster to set up; same output when it fits). */
export function deflateWhole(buf: Buffer, level: number): Buffer {
  let windowBits = 9;
  while (windowBits < 15 && 1 << windowBits < buf.length + 262) windowBits++;
  return zlib.deflateRawSync(buf, { level, windowBits, memLevel: windowBits < 15 ? Math.max(1, windowBits - 6) : 8 });
}

/** Blocks deflated at once on zlib's threads (libuv's pool: 4 by default). */
const PARALLEL = 4;
/** Each block's size (the reads are this size too). */
const BLOCK = 1 << 20;
/** Deflate's window: each block is primed with the 32 KiB before it. */
const WINDOW = 32 * 1024;

function deflateBlock(b: Buffer, level: number, dictionary: Buffer | null, last: boolean): Promise<Buffer> {
  return new Promise((res, rej) => zlib.deflateRaw(b, {
    level, ...(dictionary ? { dictionary } : {}), finishFlush: last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH,
  }, (err, out) => (err ? rej(err) : res(out))));
}

/**
 * Raw deflate of a stream of chunks as pigz makes it: cut into 1 MiB blocks, each deflated on its
 * own (up to PARALLEL at once on zlib's threads) with the 32 KiB before it as its dictionary and
 * ended by a sync flush (the last one by the final block), so the pieces joined are one deflate
 * stream any inflater reads. Each input byte is shown to `seen` in order (the CRC), while the
 * blocks before it are being deflated. Memory: about PARALLEL blocks in and out.
 */
export async function* deflateStream(input: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, level: number, seen: (b: Buffer) => void): AsyncGenerator<Buffer> {
  const pending: Promise<Buffer>[] = [];
  let held: Buffer[] = [];
  let heldBytes = 0;
  let prevTail: Buffer | null = null;
  const launch = (last: boolean) => {
    const block = held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
    held = [];
    heldBytes = 0;
    const p = deflateBlock(block, level, prevTail, last);
    p.catch(() => { /* awaited in order below */ });
    pending.push(p);
    prevTail = Buffer.from(block.subarray(Math.max(0, block.length - WINDOW)));
  };
  try {
    for await (const chunk of input) {
      let b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      seen(b);
      while (b.length > 0) {
        const take = Math.min(b.length, BLOCK - heldBytes);
        held.push(b.subarray(0, take));
        heldBytes += take;
        b = b.subarray(take);
        if (heldBytes === BLOCK) {
          // a full block waits for the next byte: only the stream's last block is final
          if (b.length > 0) launch(false);
        }
      }
      while (pending.length >= PARALLEL) yield await pending.shift()!;
      if (heldBytes === BLOCK) launch(false);
    }
    launch(true);
    while (pending.length > 0) yield await pending.shift()!;
  } finally {
    // a stop: the blocks under way finish on their own; their results are dropped
    pending.length = 0;
  }
}

export class ZipWriter {
  private offset = 0;
  private readonly central: Central[] = [];

  constructor(private readonly sink: (b: Buffer) => void) {}

  private put(b: Buffer): void {
    this.sink(b);
    this.offset += b.length;
  }

  private local(c: Central, zip64: boolean): void {
    const z = zip64 ? Buffer.alloc(20) : Buffer.alloc(0);
    if (zip64) {
      z.writeUInt16LE(0x0001, 0);
      z.writeUInt16LE(16, 2);
      u64(z, c.flags & FLAG_DESCRIPTOR ? 0 : c.size, 4);
      u64(z, c.flags & FLAG_DESCRIPTOR ? 0 : c.csize, 12);
    }
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(zip64 ? 45 : c.method === 8 ? 20 : 10, 4);
    h.writeUInt16LE(c.flags, 6);
    h.writeUInt16LE(c.method, 8);
    h.writeUInt16LE(c.time, 10);
    h.writeUInt16LE(c.date, 12);
    const known = !(c.flags & FLAG_DESCRIPTOR);
    h.writeUInt32LE(known ? c.crc : 0, 14);
    h.writeUInt32LE(zip64 ? MAX32 : known ? c.csize : 0, 18);
    h.writeUInt32LE(zip64 ? MAX32 : known ? c.size : 0, 22);
    h.writeUInt16LE(c.name.length, 26);
    h.writeUInt16LE(c.ut.length + z.length, 28);
    this.put(Buffer.concat([h, c.name, c.ut, z]));
  }

  private entry(name: string, o: EntryOptions, method: number, flags: number): Central {
    const nameBuf = Buffer.from(name, 'utf8');
    const { date, time } = dosDateTime(o.mtime);
    const ascii = nameBuf.length === name.length;
    const dir = (o.mode & 0o170000) === 0o040000;
    return {
      name: nameBuf, flags: flags | (ascii ? 0 : FLAG_UTF8), method, time, date, crc: 0, csize: 0, size: 0,
      offset: this.offset, external: (((o.mode & MAX16) << 16) | (dir ? 0x10 : 0)) >>> 0, ut: utField(o.mtime, o.dosOnly),
    };
  }

  addDirectory(name: string, o: EntryOptions): void {
    const c = this.entry(name, o, 0, 0);
    this.local(c, c.offset >= MAX32);
    this.central.push(c);
  }

  /** A file read whole: stored, or deflated when that is smaller. Returns the stored size (for "deflated 42%"). */
  addBuffer(name: string, data: Buffer, level: number, o: EntryOptions): { csize: number; deflated: boolean } {
    const packed = level > 0 && data.length > 0 ? deflateWhole(data, level) : null;
    const deflated = packed !== null && packed.length < data.length;
    const body = deflated ? packed : data;
    const c = this.entry(name, o, deflated ? 8 : 0, 0);
    c.crc = zlib.crc32(data) >>> 0;
    c.size = data.length;
    c.csize = body.length;
    this.local(c, c.offset >= MAX32 || c.size >= MAX32);
    this.put(body);
    this.central.push(c);
    return { csize: body.length, deflated };
  }

  /** A big file streamed (deflated unless level 0), its CRC and sizes in a data descriptor after it. */
  async addStream(name: string, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, size: number, level: number, o: EntryOptions): Promise<{ csize: number }> {
    const c = this.entry(name, o, level > 0 ? 8 : 0, FLAG_DESCRIPTOR);
    const zip64 = size >= MAX32 || c.offset >= MAX32;
    this.local(c, zip64);
    let crc = 0;
    let csize = 0;
    let total = 0;
    const seen = (b: Buffer) => {
      crc = zlib.crc32(b, crc);
      total += b.length;
    };
    const bytes = async function* () {
      for await (const chunk of chunks) {
        const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        seen(b);
        yield b;
      }
    };
    for await (const b of level > 0 ? deflateStream(chunks, level, seen) : bytes()) {
      csize += b.length;
      this.put(b);
    }
    c.crc = crc >>> 0;
    c.size = total;
    c.csize = csize;
    const d = Buffer.alloc(zip64 ? 24 : 16);
    d.writeUInt32LE(0x08074b50, 0);
    d.writeUInt32LE(c.crc, 4);
    if (zip64) {
      u64(d, csize, 8);
      u64(d, total, 16);
    } else {
      d.writeUInt32LE(csize, 8);
      d.writeUInt32LE(total, 12);
    }
    this.put(d);
    this.central.push(c);
    return { csize };
  }

  /** The central directory and its end records (zip64 ones when needed). */
  end(): void {
    const start = this.offset;
    for (const c of this.central) {
      const big = c.size >= MAX32 || c.csize >= MAX32 || c.offset >= MAX32;
      const z = big ? Buffer.alloc(28) : Buffer.alloc(0);
      if (big) {
        z.writeUInt16LE(0x0001, 0);
        z.writeUInt16LE(24, 2);
        u64(z, c.size, 4);
        u64(z, c.csize, 12);
        u64(z, c.offset, 20);
      }
      const h = Buffer.alloc(46);
      h.writeUInt32LE(0x02014b50, 0);
      h.writeUInt16LE(MADE_BY, 4);
      h.writeUInt16LE(big ? 45 : c.method === 8 ? 20 : 10, 6);
      h.writeUInt16LE(c.flags, 8);
      h.writeUInt16LE(c.method, 10);
      h.writeUInt16LE(c.time, 12);
      h.writeUInt16LE(c.date, 14);
      h.writeUInt32LE(c.crc, 16);
      h.writeUInt32LE(big ? MAX32 : c.csize, 20);
      h.writeUInt32LE(big ? MAX32 : c.size, 24);
      h.writeUInt16LE(c.name.length, 28);
      h.writeUInt16LE(c.ut.length + z.length, 30);
      h.writeUInt32LE(c.external, 38);
      h.writeUInt32LE(big ? MAX32 : c.offset, 42);
      this.put(Buffer.concat([h, c.name, c.ut, z]));
    }
    const size = this.offset - start;
    const n = this.central.length;
    if (n >= MAX16 || start >= MAX32 || size >= MAX32) {
      const rec = Buffer.alloc(56);
      const at = this.offset;
      rec.writeUInt32LE(0x06064b50, 0);
      u64(rec, 44, 4);
      rec.writeUInt16LE(MADE_BY, 12);
      rec.writeUInt16LE(45, 14);
      u64(rec, n, 24);
      u64(rec, n, 32);
      u64(rec, size, 40);
      u64(rec, start, 48);
      this.put(rec);
      const loc = Buffer.alloc(20);
      loc.writeUInt32LE(0x07064b50, 0);
      u64(loc, at, 8);
      loc.writeUInt32LE(1, 16);
      this.put(loc);
    }
    const e = Buffer.alloc(22);
    e.writeUInt32LE(0x06054b50, 0);
    e.writeUInt16LE(Math.min(n, MAX16), 8);
    e.writeUInt16LE(Math.min(n, MAX16), 10);
    e.writeUInt32LE(Math.min(size, MAX32), 12);
    e.writeUInt32LE(Math.min(start, MAX32), 16);
    this.put(e);
  }
}
