// Reading zip archives through the Vfs (never a host path): yauzl over a RandomReader, the
// central directory checked before anything is inflated (entry count, overlapping entries,
// declared ratio), entry names judged for extraction, data streamed with its CRC and size checked.
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import * as yauzl from 'yauzl';
import type { ArchiveLimits } from '../command/types.js';
import { LIMITS } from '../limits.js';
import type { RandomReader } from '../vfs/index.js';

/** The configurable caps' defaults (src/limits.ts; the config's limits.archive*). */
export const ARCHIVE_DEFAULTS: ArchiveLimits = {
  maxEntries: LIMITS.archiveEntries.default,
  maxRatio: LIMITS.archiveRatio.default,
  maxTotalBytes: LIMITS.archiveBytes.default,
};

/** Fixed caps on what an archive may ask for. */
export const ZIP_LIMITS = {
  /** Entries smaller than this are not held to the ratio. */
  minRatioBytes: 1 << 20,
  /** Entry names longer than this (bytes) are refused. */
  maxNameBytes: 4096,
};

/** Entries up to this size (declared, both sizes) are read and inflated at once (ZipArchive.direct). */
const DIRECT_MAX = 1 << 20;

export class ZipError extends Error {
  constructor(message: string, readonly kind: 'format' | 'bomb' | 'crc' | 'size' | 'encrypted' | 'method') { super(message); }
}

export interface ZipEntry {
  /** The name as stored (decoded: UTF-8 when flagged or valid, else Latin-1). */
  name: string;
  raw: yauzl.Entry;
  isDir: boolean;
  method: number;
  size: number;
  csize: number;
  crc: number;
  flags: number;
  /** Unix mode from the external attributes (0 when not made on Unix). */
  unixMode: number;
  madeBy: number;
  encrypted: boolean;
  /** DOS date/time fields as stored. */
  dosDate: number;
  dosTime: number;
  /** Modification time: the UT extra field when present, else the DOS fields read as UTC. */
  mtime: Date;
  offset: number;
  comment: string;
}

/** Bytes read from the archive at once for its small reads (central directory, local headers, small entries). */
const WINDOW = 1 << 20;

/**
 * Positioned reads of the archive through one window of WINDOW bytes: the central directory's
 * records (two reads each), each entry's local header and small entries' data are views into
 * it, one pread per MiB instead of three or four per entry. Each refill is a new buffer, so a
 * view handed out stays valid.
 */
class ArchiveWindow {
  private buf = Buffer.alloc(0);
  private start = 0;
  constructor(private readonly r: RandomReader) {}

  /** The bytes [pos, pos + len), shorter at the end of the file. */
  view(pos: number, len: number): Buffer {
    if (pos >= this.start && pos + len <= this.start + this.buf.length) return this.buf.subarray(pos - this.start, pos - this.start + len);
    const want = Math.max(len, WINDOW);
    const buf = Buffer.allocUnsafe(Math.min(want, Math.max(0, this.r.size - pos)) || len);
    let got = 0;
    while (got < buf.length) {
      const n = this.r.readAt(buf.subarray(got), pos + got, buf.length - got);
      if (n === 0) break;
      got += n;
    }
    if (len > WINDOW) return buf.subarray(0, Math.min(got, len));
    this.buf = buf.subarray(0, got);
    this.start = pos;
    return this.buf.subarray(0, Math.min(got, len));
  }
}

class VfsZipReader extends yauzl.RandomAccessReader {
  constructor(private readonly r: RandomReader, private readonly win: ArchiveWindow) { super(); }
  /**
   * yauzl reads every central directory record through read(): its default makes a stream and
   * a pipe per call (1 ms per entry: 60 s for 66 000 entries). A positioned read does it at once.
   */
  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
    let err: Error | null = null;
    try {
      const v = this.win.view(position, length);
      if (v.length < length) throw new Error('unexpected end of file');
      v.copy(buffer, offset);
    } catch (e) {
      err = e instanceof Error ? e : new Error(String(e));
    }
    queueMicrotask(() => callback(err));
  }
  override _readStreamForRange(start: number, end: number): Readable {
    const r = this.r;
    return Readable.from((function* () {
      let pos = start;
      while (pos < end) {
        const n = Math.min(256 * 1024, end - pos);
        const buf = Buffer.allocUnsafe(n);
        const got = r.readAt(buf, pos, n);
        if (got === 0) throw new Error('unexpected end of file');
        pos += got;
        yield buf.subarray(0, got);
      }
    })(), { objectMode: false });
  }
}

function decodeName(b: Buffer, utf8Flag: boolean): string {
  if (utf8Flag) return b.toString('utf8');
  const s = b.toString('utf8');
  return Buffer.from(s, 'utf8').equals(b) ? s : b.toString('latin1');
}

function dosToDate(date: number, time: number): Date {
  const y = ((date >> 9) & 0x7f) + 1980, mo = ((date >> 5) & 0xf) - 1, d = date & 0x1f;
  const h = (time >> 11) & 0x1f, mi = (time >> 5) & 0x3f, s = (time & 0x1f) * 2;
  return new Date(Date.UTC(y, mo, d, h, mi, s));
}

function utMtime(extra: { id: number; data: Buffer }[]): Date | null {
  const ut = extra.find((e) => e.id === 0x5455);
  if (!ut || ut.data.length < 5 || !(ut.data[0]! & 1)) return null;
  return new Date(ut.data.readInt32LE(1) * 1000);
}

export class ZipArchive {
  private constructor(private readonly zf: yauzl.ZipFile, readonly entries: ZipEntry[], readonly size: number, readonly comment: string,
    private readonly win: ArchiveWindow, readonly limits: ArchiveLimits) {}

  /** Opens and reads the whole central directory, with the archive-level checks. */
  static async open(r: RandomReader, limits: ArchiveLimits = ARCHIVE_DEFAULTS): Promise<ZipArchive> {
    const win = new ArchiveWindow(r);
    const reader = new VfsZipReader(r, win);
    const zf = await new Promise<yauzl.ZipFile>((res, rej) => yauzl.fromRandomAccessReader(reader, r.size,
      { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true, strictFileNames: false },
      (err, z) => (err ? rej(new ZipError(err.message, 'format')) : res(z!))));
    if (zf.entryCount > limits.maxEntries) {
      zf.close();
      throw new ZipError(`archive has ${zf.entryCount} entries (the limit is ${limits.maxEntries}: the configuration's limits.archiveEntries)`, 'bomb');
    }
    const entries: ZipEntry[] = [];
    try {
      await new Promise<void>((res, rej) => {
        zf.on('entry', (e: yauzl.Entry) => {
          const nameBuf = e.fileName as unknown as Buffer;
          const utf8 = (e.generalPurposeBitFlag & 0x800) !== 0;
          const name = decodeName(nameBuf, utf8);
          const madeBy = e.versionMadeBy >> 8;
          const unixMode = madeBy === 3 ? (e.externalFileAttributes >>> 16) & 0xffff : 0;
          const dosDir = (e.externalFileAttributes & 0x10) !== 0;
          entries.push({
            name, raw: e, isDir: name.endsWith('/') || (unixMode & 0o170000) === 0o040000 || (dosDir && e.uncompressedSize === 0),
            method: e.compressionMethod, size: e.uncompressedSize, csize: e.compressedSize, crc: e.crc32 >>> 0,
            flags: e.generalPurposeBitFlag, unixMode, madeBy, encrypted: (e.generalPurposeBitFlag & 1) !== 0,
            dosDate: e.lastModFileDate, dosTime: e.lastModFileTime,
            mtime: utMtime(e.extraFields) ?? dosToDate(e.lastModFileDate, e.lastModFileTime),
            offset: e.relativeOffsetOfLocalHeader,
            comment: decodeName(e.fileComment as unknown as Buffer, utf8),
          });
          zf.readEntry();
        });
        zf.on('end', () => res());
        zf.on('error', (err: Error) => rej(new ZipError(err.message, 'format')));
        zf.readEntry();
      });
    } catch (e) {
      zf.close();
      throw e;
    }
    const comment = Buffer.isBuffer(zf.comment) ? decodeName(zf.comment as unknown as Buffer, false) : String(zf.comment ?? '');
    const a = new ZipArchive(zf, entries, r.size, comment, win, limits);
    try {
      a.checkOverlap();
    } catch (e) {
      zf.close();
      throw e;
    }
    return a;
  }

  /** Entries whose data ranges share bytes (the "better zip bomb") or reach the central directory. */
  private checkOverlap(): void {
    const byOffset = [...this.entries].sort((a, b) => a.offset - b.offset);
    for (let i = 0; i < byOffset.length; i++) {
      const e = byOffset[i]!;
      const end = e.offset + 30 + e.csize;
      const next = i + 1 < byOffset.length ? byOffset[i + 1]!.offset : Infinity;
      if (end > next || (i + 1 < byOffset.length && byOffset[i + 1]!.offset === e.offset)) {
        throw new ZipError(`overlapping entries: ${e.name} and ${byOffset[i + 1]!.name} share bytes (a zip bomb?)`, 'bomb');
      }
      if (e.offset + 30 > this.size || end > this.size) throw new ZipError(`entry ${e.name} lies beyond the end of the archive (truncated?)`, 'format');
    }
  }

  /** The declared-ratio check for one entry (before inflating). */
  ratioProblem(e: ZipEntry): string | null {
    if (e.size < ZIP_LIMITS.minRatioBytes) return null;
    const max = this.limits.maxRatio;
    if (e.csize === 0 || e.size / e.csize > max) {
      return `compression ratio ${e.csize === 0 ? 'infinite' : Math.round(e.size / e.csize) + ':1'} exceeds the limit of ${max}:1 (a zip bomb? the configuration's limits.archiveRatio)`;
    }
    return null;
  }

  /**
   * The entry's bytes, inflated, streamed; throws ZipError 'size' when the data disagrees with the
   * declared size (stopping there) and 'crc' at the end when the CRC-32 does not match.
   */
  async *data(e: ZipEntry): AsyncGenerator<Buffer> {
    if (e.encrypted) throw new ZipError('encrypted entry (nosh does not decrypt)', 'encrypted');
    if (e.method !== 0 && e.method !== 8) throw new ZipError(`unsupported compression method ${e.method}`, 'method');
    const start = this.checkLocalHeader(e);
    if (e.csize <= DIRECT_MAX && e.size <= DIRECT_MAX && (e.method === 8 || e.csize === e.size)) {
      const whole = this.direct(e, start);
      if (whole) {
        if (whole.length > 0) yield whole;
        return;
      }
    }
    const stream = await new Promise<Readable>((res, rej) => this.zf.openReadStream(e.raw, (err, s) => (err ? rej(new ZipError(err.message, 'format')) : res(s as Readable))));
    let crc = 0;
    let n = 0;
    try {
      for await (const chunk of stream) {
        const b = chunk as Buffer;
        n += b.length;
        if (n > e.size) throw new ZipError(`too many bytes: more than the ${e.size} declared`, 'size');
        crc = zlib.crc32(b, crc);
        yield b;
      }
    } catch (err) {
      stream.destroy();
      if (err instanceof ZipError) throw err;
      const msg = (err as Error).message;
      throw new ZipError(msg, /bytes|size/i.test(msg) ? 'size' : 'format');
    }
    if (n !== e.size) throw new ZipError(`size mismatch: ${n} bytes, ${e.size} declared`, 'size');
    if ((crc >>> 0) !== e.crc) throw new ZipError(`bad CRC ${hex8(crc >>> 0)}  (should be ${hex8(e.crc)})`, 'crc');
  }

  /**
   * A small entry read and inflated at once (no yauzl stream, inflater and pipes per entry): the
   * same checks as data()'s stream, in the same words. null: read it as a stream (a short read).
   */
  private direct(e: ZipEntry, start: number): Buffer | null {
    const raw = this.win.view(start, e.csize);
    if (raw.length < e.csize) return null;
    let out: Buffer;
    if (e.method === 0) out = raw;
    else {
      try {
        // one byte more than declared: a longer output is a lie about the size
        out = zlib.inflateRawSync(raw, { maxOutputLength: e.size + 1 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new ZipError(`too many bytes: more than the ${e.size} declared`, 'size');
        const msg = (err as Error).message;
        throw new ZipError(msg, /bytes|size/i.test(msg) ? 'size' : 'format');
      }
    }
    if (out.length > e.size) throw new ZipError(`too many bytes: more than the ${e.size} declared`, 'size');
    if (out.length !== e.size) throw new ZipError(`size mismatch: ${out.length} bytes, ${e.size} declared`, 'size');
    const crc = zlib.crc32(out) >>> 0;
    if (crc !== e.crc) throw new ZipError(`bad CRC ${hex8(crc)}  (should be ${hex8(e.crc)})`, 'crc');
    return out;
  }

  /**
   * The local header must agree with the central directory (name, method; sizes unless deferred).
   * Returns where the entry's data starts.
   */
  private checkLocalHeader(e: ZipEntry): number {
    const central = e.raw.fileName as unknown as Buffer;
    const h = this.win.view(e.offset, 30 + central.length);
    if (h.length < 30 || h.readUInt32LE(0) !== 0x04034b50) throw new ZipError('no local header where the central directory says (damaged archive?)', 'format');
    const nameLen = h.readUInt16LE(26);
    const method = h.readUInt16LE(8);
    const flags = h.readUInt16LE(6);
    const disagree = nameLen !== central.length || !h.subarray(30, 30 + nameLen).equals(central) ? 'name'
      : method !== e.method ? 'compression method'
      : !(flags & 8) && h.readUInt32LE(18) !== 0xffffffff && (h.readUInt32LE(18) !== e.csize || h.readUInt32LE(22) !== e.size) ? 'sizes' : null;
    if (disagree) throw new ZipError(`the local header disagrees with the central directory (${disagree})`, 'format');
    return e.offset + 30 + nameLen + h.readUInt16LE(28);
  }

  close(): void {
    this.zf.close();
  }
}

export function hex8(n: number): string {
  return n.toString(16).padStart(8, '0');
}

const LOOKALIKE_SLASH = /[\u2044\u2215\u29f8\uff0f\u2571\u29f5\u29f9\ufe68\uff3c\u2216]/u;

/**
 * Where an entry may be extracted: null when it is refused (with the reason), else the relative
 * path to write (leading '/' and '../' components stripped, as Info-ZIP does, with its warning).
 */
export function safeEntryPath(name: string): { path: string | null; reason?: string; warning?: string } {
  if (Buffer.byteLength(name) > ZIP_LIMITS.maxNameBytes) return { path: null, reason: `name longer than ${ZIP_LIMITS.maxNameBytes} bytes` };
  if (name.includes('\0')) return { path: null, reason: 'name contains a NUL byte' };
  if (name.includes('\\')) return { path: null, reason: 'name contains a backslash' };
  if (/^[A-Za-z]:/.test(name)) return { path: null, reason: 'name starts with a drive letter' };
  if (LOOKALIKE_SLASH.test(name)) return { path: null, reason: 'name contains a look-alike of / or \\' };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return { path: null, reason: 'name contains a control character' };
  let warning: string | undefined;
  let rest = name;
  if (rest.startsWith('/')) {
    rest = rest.replace(/^\/+/, '');
    warning = `warning:  stripped absolute path spec from ${name}`;
  }
  const parts = rest.split('/');
  const kept = parts.filter((p) => p !== '' && p !== '.' && p !== '..');
  if (parts.includes('..')) warning = `warning:  skipped "../" path component(s) in ${name}`;
  if (kept.length === 0) return { path: null, reason: 'name is empty once made relative' };
  return { path: kept.join('/'), warning };
}

/** The entry's kind from its Unix mode: links, devices and FIFOs are never created. */
export function specialKind(e: ZipEntry): string | null {
  const t = e.unixMode & 0o170000;
  if (t === 0o120000) return 'symbolic link';
  if (t === 0o020000 || t === 0o060000) return 'device';
  if (t === 0o010000) return 'FIFO';
  if (t === 0o140000) return 'socket';
  return null;
}
