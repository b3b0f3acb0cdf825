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
  /** Info-ZIP's extended timestamp field (UT) written, with this mtime (zip -X: none). */
  ut: boolean;
  unix: number;
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

/** The native zlib context of a node:zlib stream (not a public API: checked before use, see ReusedDeflate). */
interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
}

/**
 * One raw deflate context reused for many whole buffers. node:zlib's deflateRawSync makes a
 * zlib context (deflateInit: ~300 KB allocated and set up) per call and closes it; for 1000
 * small files that set-up cost as much as the deflate itself. Here one context per level is
 * driven through its handle's writeSync (what deflateRawSync calls inside) with Z_FINISH and
 * reset (deflateReset) after each buffer: the same deflate stream as a fresh context gives.
 * The output goes into the caller's space, capped at the input's size: a deflate that does
 * not shrink stops there (the entry is stored). When this Node's zlib does not have the
 * handle as expected, `of` gives null and callers use deflateWhole.
 */
export class ReusedDeflate {
  private static readonly byLevel = new Map<number, ReusedDeflate | null>();

  private constructor(private readonly level: number, private readonly z: zlib.DeflateRaw, private readonly handle: ZlibHandle, private readonly state: Uint32Array) {}

  static of(level: number): ReusedDeflate | null {
    let d = ReusedDeflate.byLevel.get(level);
    if (d === undefined) {
      const z = zlib.createDeflateRaw({ level });
      const inner = z as unknown as { _handle?: ZlibHandle; _writeState?: unknown };
      d = typeof inner._handle?.writeSync === 'function' && inner._writeState instanceof Uint32Array && inner._writeState.length === 2 && typeof z.reset === 'function'
        ? new ReusedDeflate(level, z, inner._handle, inner._writeState)
        : null;
      // a zlib failure is seen below (destroyed); its 'error' event must not end the worker
      z.on('error', () => { /* checked in deflateInto */ });
      if (d === null) z.close();
      ReusedDeflate.byLevel.set(level, d);
    }
    return d;
  }

  /** Deflate `data` into `out` (at most out.length bytes): the compressed size, or -1 when it does not fit (store it). */
  deflateInto(data: Uint8Array, out: Uint8Array): number {
    this.handle.writeSync(zlib.constants.Z_FINISH, data, 0, data.length, out, 0, out.length);
    if (this.z.destroyed) {
      ReusedDeflate.byLevel.delete(this.level);
      throw new Error('zlib: deflate failed');
    }
    // Z_FINISH stops with output space left only when the stream is complete (all input taken)
    const left = this.state[0]!;
    this.z.reset();
    return left > 0 && this.state[1] === 0 ? out.length - left : -1;
  }
}

/** Blocks deflated at once on zlib's threads (libuv's pool: 4 by default). */
const PARALLEL = 4;
/** Each block's size (the reads are this size too). */
const BLOCK = 1 << 20;
/** Deflate's window: each block is primed with the 32 KiB before it. */
const WINDOW = 32 * 1024;

function deflateBlock(b: Buffer, level: number, dictionary: Buffer | null, last: boolean): Promise<Buffer> {
  // chunkSize: zlib's output in one piece of up to the block's size (the default 16 KiB made a
  // callback and a piece per 16 KiB, joined again at the end)
  return new Promise((res, rej) => zlib.deflateRaw(b, {
    level, ...(dictionary ? { dictionary } : {}), finishFlush: last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH,
    chunkSize: Math.max(64 * 1024, b.length),
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

/** Output gathered before the sink is called (one write per this many bytes, not three per entry). */
const OUT = 256 * 1024;

export class ZipWriter {
  private offset = 0;
  private readonly central: Central[] = [];
  /** Bytes not yet given to the sink: out[0, pos). */
  private out = Buffer.allocUnsafe(OUT);
  private pos = 0;
  /** Deflate's output space for addBuffer (grown to the largest file deflated whole). */
  private scratch = Buffer.allocUnsafe(0);

  /** `sink` gets the archive's bytes in order; it must use (or copy) them before it returns. */
  constructor(private readonly sink: (b: Buffer) => void) {}

  /** Give what is gathered to the sink. */
  flush(): void {
    if (this.pos === 0) return;
    const b = this.out.subarray(0, this.pos);
    this.pos = 0;
    this.sink(b);
  }

  /** Room for n more bytes in `out`: their offset there. */
  private room(n: number): number {
    if (this.pos + n > this.out.length) {
      this.flush();
      if (n > this.out.length) this.out = Buffer.allocUnsafe(n);
    }
    const at = this.pos;
    this.pos += n;
    this.offset += n;
    return at;
  }

  private put(b: Uint8Array): void {
    if (b.length >= OUT / 2) {
      this.flush();
      this.offset += b.length;
      this.sink(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
      return;
    }
    this.out.set(b, this.room(b.length));
  }

  /** Info-ZIP's extended timestamp (UT) at `at`: mtime only (9 bytes). */
  private static ut(b: Buffer, at: number, c: Central): void {
    b.writeUInt16LE(0x5455, at);
    b.writeUInt16LE(5, at + 2);
    b.writeUInt8(1, at + 4);
    b.writeInt32LE(c.unix, at + 5);
  }

  private local(c: Central, zip64: boolean): void {
    const extra = (c.ut ? 9 : 0) + (zip64 ? 20 : 0);
    const n = c.name.length;
    const at = this.room(30 + n + extra);
    const h = this.out;
    h.writeUInt32LE(0x04034b50, at);
    h.writeUInt16LE(zip64 ? 45 : c.method === 8 ? 20 : 10, at + 4);
    h.writeUInt16LE(c.flags, at + 6);
    h.writeUInt16LE(c.method, at + 8);
    h.writeUInt16LE(c.time, at + 10);
    h.writeUInt16LE(c.date, at + 12);
    const known = !(c.flags & FLAG_DESCRIPTOR);
    h.writeUInt32LE(known ? c.crc : 0, at + 14);
    h.writeUInt32LE(zip64 ? MAX32 : known ? c.csize : 0, at + 18);
    h.writeUInt32LE(zip64 ? MAX32 : known ? c.size : 0, at + 22);
    h.writeUInt16LE(n, at + 26);
    h.writeUInt16LE(extra, at + 28);
    c.name.copy(h, at + 30);
    let x = at + 30 + n;
    if (c.ut) {
      ZipWriter.ut(h, x, c);
      x += 9;
    }
    if (zip64) {
      h.writeUInt16LE(0x0001, x);
      h.writeUInt16LE(16, x + 2);
      u64(h, c.flags & FLAG_DESCRIPTOR ? 0 : c.size, x + 4);
      u64(h, c.flags & FLAG_DESCRIPTOR ? 0 : c.csize, x + 12);
    }
  }

  private entry(name: string, o: EntryOptions, method: number, flags: number): Central {
    const nameBuf = Buffer.from(name, 'utf8');
    const { date, time } = dosDateTime(o.mtime);
    const ascii = nameBuf.length === name.length;
    const dir = (o.mode & 0o170000) === 0o040000;
    return {
      name: nameBuf, flags: flags | (ascii ? 0 : FLAG_UTF8), method, time, date, crc: 0, csize: 0, size: 0,
      offset: this.offset, external: (((o.mode & MAX16) << 16) | (dir ? 0x10 : 0)) >>> 0,
      ut: !o.dosOnly, unix: Math.max(-0x80000000, Math.min(0x7fffffff, Math.floor(o.mtime.getTime() / 1000))),
    };
  }

  addDirectory(name: string, o: EntryOptions): void {
    const c = this.entry(name, o, 0, 0);
    this.local(c, c.offset >= MAX32);
    this.central.push(c);
  }

  /**
   * A file read whole: stored, or deflated when that is smaller. Returns the stored size (for
   * "deflated 42%"). `data` is used before this returns (it may be a reused buffer).
   */
  addBuffer(name: string, data: Buffer, level: number, o: EntryOptions): { csize: number; deflated: boolean } {
    let body: Uint8Array = data;
    if (level > 0 && data.length > 0) {
      const reused = ReusedDeflate.of(level);
      if (reused) {
        if (this.scratch.length < data.length) this.scratch = Buffer.allocUnsafe(Math.max(data.length, 64 * 1024));
        const n = reused.deflateInto(data, this.scratch.subarray(0, data.length - 1));
        if (n >= 0) body = this.scratch.subarray(0, n);
      } else {
        const packed = deflateWhole(data, level);
        if (packed.length < data.length) body = packed;
      }
    }
    const deflated = body !== data;
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
    const at = this.room(zip64 ? 24 : 16);
    const d = this.out;
    d.writeUInt32LE(0x08074b50, at);
    d.writeUInt32LE(c.crc, at + 4);
    if (zip64) {
      u64(d, csize, at + 8);
      u64(d, total, at + 16);
    } else {
      d.writeUInt32LE(csize, at + 8);
      d.writeUInt32LE(total, at + 12);
    }
    this.central.push(c);
    return { csize };
  }

  /** The central directory and its end records (zip64 ones when needed); everything is given to the sink. */
  end(): void {
    const start = this.offset;
    for (const c of this.central) {
      const big = c.size >= MAX32 || c.csize >= MAX32 || c.offset >= MAX32;
      const extra = (c.ut ? 9 : 0) + (big ? 28 : 0);
      const n = c.name.length;
      const at = this.room(46 + n + extra);
      const h = this.out;
      h.fill(0, at, at + 46);
      h.writeUInt32LE(0x02014b50, at);
      h.writeUInt16LE(MADE_BY, at + 4);
      h.writeUInt16LE(big ? 45 : c.method === 8 ? 20 : 10, at + 6);
      h.writeUInt16LE(c.flags, at + 8);
      h.writeUInt16LE(c.method, at + 10);
      h.writeUInt16LE(c.time, at + 12);
      h.writeUInt16LE(c.date, at + 14);
      h.writeUInt32LE(c.crc, at + 16);
      h.writeUInt32LE(big ? MAX32 : c.csize, at + 20);
      h.writeUInt32LE(big ? MAX32 : c.size, at + 24);
      h.writeUInt16LE(n, at + 28);
      h.writeUInt16LE(extra, at + 30);
      h.writeUInt32LE(c.external, at + 38);
      h.writeUInt32LE(big ? MAX32 : c.offset, at + 42);
      c.name.copy(h, at + 46);
      let x = at + 46 + n;
      if (c.ut) {
        ZipWriter.ut(h, x, c);
        x += 9;
      }
      if (big) {
        h.writeUInt16LE(0x0001, x);
        h.writeUInt16LE(24, x + 2);
        u64(h, c.size, x + 4);
        u64(h, c.csize, x + 12);
        u64(h, c.offset, x + 20);
      }
    }
    const size = this.offset - start;
    const n = this.central.length;
    if (n >= MAX16 || start >= MAX32 || size >= MAX32) {
      const loc = this.offset;
      const at = this.room(56 + 20);
      const e = this.out;
      e.fill(0, at, at + 76);
      e.writeUInt32LE(0x06064b50, at);
      u64(e, 44, at + 4);
      e.writeUInt16LE(MADE_BY, at + 12);
      e.writeUInt16LE(45, at + 14);
      u64(e, n, at + 24);
      u64(e, n, at + 32);
      u64(e, size, at + 40);
      u64(e, start, at + 48);
      e.writeUInt32LE(0x07064b50, at + 56);
      u64(e, loc, at + 64);
      e.writeUInt32LE(1, at + 72);
    }
    const at = this.room(22);
    const e = this.out;
    e.fill(0, at, at + 22);
    e.writeUInt32LE(0x06054b50, at);
    e.writeUInt16LE(Math.min(n, MAX16), at + 8);
    e.writeUInt16LE(Math.min(n, MAX16), at + 10);
    e.writeUInt32LE(Math.min(size, MAX32), at + 12);
    e.writeUInt32LE(Math.min(start, MAX32), at + 16);
    this.flush();
  }
}
