// The gzip format (RFC 1952) streamed over node:zlib's raw deflate: members parsed here so
// trailing garbage, CRC and length errors read as gzip 1.12 reports them.
import * as zlib from 'node:zlib';
import { deflateStream } from './zipwrite.js';

export const NOT_GZIP = 'not in gzip format';
export const EOF = 'unexpected end of file';

/** A decoding failure, `message` as gzip prints it after "gzip: NAME: ". */
export class GzipError extends Error {
  /** gzip stops the whole run on it (its gzip_error / read_error), not only this file. */
  readonly fatal: boolean;
  constructor(message: string) {
    super(message);
    this.fatal = message === EOF || message.endsWith('format violated');
    this.name = 'GzipError';
  }
}


/** Input is fed to zlib in pieces this big: one piece inflates to at most ~1032 times it. */
const PIECE = 32 * 1024;

type Chunks = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** A byte queue over chunks, with look-ahead. */
export class ByteSource {
  private buf: Buffer = Buffer.alloc(0);
  private it: AsyncIterator<Uint8Array> | Iterator<Uint8Array>;
  private eof = false;
  /** Bytes taken out so far. */
  taken = 0;

  constructor(chunks: Chunks) {
    this.it = Symbol.asyncIterator in chunks ? (chunks as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]() : (chunks as Iterable<Uint8Array>)[Symbol.iterator]();
  }

  /** At least n bytes buffered? false at the end of the input. */
  async fill(n: number): Promise<boolean> {
    while (this.buf.length < n && !this.eof) {
      const r = await this.it.next();
      if (r.done) this.eof = true;
      else if (r.value.length) this.buf = this.buf.length ? Buffer.concat([this.buf, r.value]) : Buffer.from(r.value);
    }
    return this.buf.length >= n;
  }

  peek(): Buffer {
    return this.buf;
  }

  take(n: number): Buffer {
    const b = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    this.taken += b.length;
    return b;
  }

  unshift(b: Buffer): void {
    if (!b.length) return;
    this.buf = this.buf.length ? Buffer.concat([b, this.buf]) : b;
    this.taken -= b.length;
  }

  async atEnd(): Promise<boolean> {
    return !(await this.fill(1));
  }

  /** Read the rest; true if every byte left is zero (gzip ignores zero padding silently). */
  async restIsZeros(): Promise<boolean> {
    for (;;) {
      if (!this.buf.every((b) => b === 0)) return false;
      this.take(this.buf.length);
      if (!(await this.fill(1))) return true;
    }
  }
}

export interface GzipHeader {
  flags: number;
  mtime: number;
  name: string | null;
  /** Bytes of the header. */
  length: number;
}

/** One member header (the magic already checked by the caller or here). */
export async function readHeader(src: ByteSource): Promise<GzipHeader> {
  if (!(await src.fill(2))) throw new GzipError(src.peek().length === 0 ? EOF : NOT_GZIP);
  const p = src.peek();
  if (p[0] !== 0x1f || p[1] !== 0x8b) throw new GzipError(NOT_GZIP);
  if (!(await src.fill(10))) throw new GzipError(EOF);
  const h = src.take(10);
  if (h[2] !== 8) throw new GzipError(`unknown method ${h[2]} -- not supported`);
  const flags = h[3]!;
  if (flags & 0xe0) throw new GzipError(`has flags 0x${flags.toString(16)} -- not supported`);
  let length = 10;
  if (flags & 4) {
    if (!(await src.fill(2))) throw new GzipError(EOF);
    const xlen = src.take(2).readUInt16LE(0);
    if (!(await src.fill(xlen))) throw new GzipError(EOF);
    src.take(xlen);
    length += 2 + xlen;
  }
  let name: string | null = null;
  for (const bit of [8, 16]) {
    if (!(flags & bit)) continue;
    const parts: Buffer[] = [];
    for (;;) {
      if (!(await src.fill(1))) throw new GzipError(EOF);
      const b = src.peek();
      const z = b.indexOf(0);
      const part = src.take(z < 0 ? b.length : z + 1);
      length += part.length;
      if (z >= 0) {
        parts.push(part.subarray(0, part.length - 1));
        break;
      }
      if (length < 64 * 1024) parts.push(part);
    }
    if (bit === 8) name = Buffer.concat(parts).toString('latin1');
  }
  if (flags & 2) {
    if (!(await src.fill(2))) throw new GzipError(EOF);
    src.take(2);
    length += 2;
  }
  return { flags, mtime: h.readUInt32LE(4), name, length };
}

export interface DecodeInfo {
  /** The last member's header, and its length plus the 8 trailer bytes (gzip's header_bytes). */
  header: GzipHeader | null;
  headerBytes: number;
  inBytes: number;
  outBytes: number;
  /** Bytes after the last member that are not zeros (gzip's warning). */
  trailingGarbage: boolean;
}

/**
 * Decode every member of a gzip stream; `limit`: most bytes it may produce (throws past it).
 * Output chunks are yielded as they come.
 */
export async function* gunzip(input: Chunks, info: DecodeInfo, limit: number): AsyncGenerator<Buffer> {
  const src = new ByteSource(input);
  let first = true;
  for (;;) {
    if (!first) {
      if (await src.atEnd()) break;
      if (src.peek()[0] === 0 && (await src.restIsZeros())) break;
      await src.fill(2);
      const p = src.peek();
      if (p[0] !== 0x1f || (p.length > 1 && p[1] !== 0x8b) || p.length < 2) {
        info.trailingGarbage = true;
        break;
      }
    }
    const header = await readHeader(src);
    info.header = header;
    info.headerBytes = header.length + 8;
    first = false;
    let crc = 0;
    let size = 0;
    for await (const out of inflateMember(src)) {
      crc = zlib.crc32(out, crc);
      size += out.length;
      info.outBytes += out.length;
      if (info.outBytes > limit) throw new GzipError(`decompressed data exceeds the limit of ${limit} bytes`);
      yield out;
    }
    if (!(await src.fill(8))) throw new GzipError(EOF);
    const t = src.take(8);
    if (t.readUInt32LE(0) !== crc >>> 0) throw new GzipError('invalid compressed data--crc error');
    if (t.readUInt32LE(4) !== size % 0x100000000) throw new GzipError('invalid compressed data--length error');
  }
  info.inBytes = src.taken;
}

/** The deflate data of one member: fed in pieces until zlib says the stream ended. */
async function* inflateMember(src: ByteSource): AsyncGenerator<Buffer> {
  const z = zlib.createInflateRaw();
  const out: Buffer[] = [];
  let ended = false;
  let failed: Error | null = null;
  z.on('data', (c: Buffer) => out.push(c));
  z.on('end', () => { ended = true; });
  z.on('error', (e) => { failed = e; });
  let fed = 0;
  try {
    for (;;) {
      if (!(await src.fill(1))) throw new GzipError(EOF);
      const piece = src.take(Math.min(PIECE, src.peek().length));
      const err = await new Promise<Error | null | undefined>((res) => z.write(piece, (e) => res(e)));
      fed += piece.length;
      if (!ended) await new Promise((r) => setImmediate(r));
      while (out.length) yield out.shift()!;
      if (err || failed) throw new GzipError('invalid compressed data--format violated');
      if (ended) {
        const left = fed - z.bytesWritten;
        if (left > 0) src.unshift(piece.subarray(piece.length - left));
        return;
      }
    }
  } finally {
    z.destroy();
  }
}

export interface EncodeOptions {
  level: number;
  /** Stored original name (FNAME), or null. */
  name: string | null;
  mtime: number;
}

export interface EncodeInfo {
  inBytes: number;
  outBytes: number;
  headerBytes: number;
}

/** One gzip member of all the input. */
export async function* gzip(input: Chunks, o: EncodeOptions, info: EncodeInfo): AsyncGenerator<Buffer> {
  const name = o.name === null ? null : Buffer.from(o.name, 'latin1');
  const head = Buffer.alloc(10);
  head.set([0x1f, 0x8b, 8, name ? 8 : 0]);
  head.writeUInt32LE(o.mtime >>> 0, 4);
  head[8] = o.level === 9 ? 2 : o.level === 1 ? 4 : 0;
  head[9] = 3;
  const header = name ? Buffer.concat([head, name, Buffer.from([0])]) : head;
  info.headerBytes = header.length + 8;
  info.outBytes = header.length;
  yield header;
  const z = zlib.createDeflateRaw({ level: o.level });
  const out: Buffer[] = [];
  let ended = false;
  let failed: Error | null = null;
  z.on('data', (c: Buffer) => out.push(c));
  z.on('end', () => { ended = true; });
  z.on('error', (e) => { failed = e; });
  let crc = 0;
  try {
    for await (const chunk of input as AsyncIterable<Uint8Array>) {
      for (let off = 0; off < chunk.length; off += PIECE) {
        const piece = chunk.subarray(off, off + PIECE);
        crc = zlib.crc32(piece, crc);
        info.inBytes += piece.length;
        await new Promise<void>((res) => z.write(piece, () => res()));
        while (out.length) {
          const c = out.shift()!;
          info.outBytes += c.length;
          yield c;
        }
        if (failed) throw failed;
      }
    }
    await new Promise<void>((res) => {
      if (ended) res();
      z.on('end', () => res());
      z.end();
    });
    while (out.length) {
      const c = out.shift()!;
      info.outBytes += c.length;
      yield c;
    }
    if (failed) throw failed;
  } finally {
    z.destroy();
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(info.inBytes % 0x100000000, 4);
  info.outBytes += 8;
  yield trailer;
}

/**
 * One gzip member of all the input (no name, mtime 0), deflated as zipwrite's deflateStream
 * does: 1 MiB blocks, each primed with the 32 KiB before it, up to 4 at once on zlib's threads
 * (tar cz: one zlib call per block instead of a stream write per 32 KiB piece). The input's
 * chunks are held until deflated: the caller must not reuse them.
 */
export async function* gzipBlocks(input: Chunks, level: number): AsyncGenerator<Buffer> {
  const head = Buffer.alloc(10);
  head.set([0x1f, 0x8b, 8, 0]);
  head[8] = level === 9 ? 2 : level === 1 ? 4 : 0;
  head[9] = 3;
  yield head;
  let crc = 0;
  let size = 0;
  yield* deflateStream(input, level, (b) => {
    crc = zlib.crc32(b, crc);
    size += b.length;
  });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size % 0x100000000, 4);
  yield trailer;
}

/** gzip's display_ratio: "%5.1f%%". */
export function ratio(num: number, den: number): string {
  const r = den === 0 ? 0 : (100 * num) / den;
  return `${r.toFixed(1).padStart(5)}%`;
}

/** Suffixes gzip knows (compared in lower case), longest first as get_suffix tries them. */
const SUFFIXES = ['.gz', '.z', '.taz', '.tgz', '-gz', '-z', '_z'];

/** The known suffix `name` ends with (gzip's get_suffix), or null. */
export function knownSuffix(name: string): string | null {
  const low = name.toLowerCase();
  for (const s of SUFFIXES) if (low.length > s.length && low.endsWith(s) && !low.endsWith('/' + s)) return name.slice(name.length - s.length);
  return null;
}

/** The name a compressed file decompresses to (.tgz/.taz give .tar), or null. */
export function strippedName(name: string): string | null {
  const s = knownSuffix(name);
  if (!s) return null;
  const base = name.slice(0, name.length - s.length);
  return /^\.t[ag]z$/i.test(s) ? base + '.tar' : base;
}
