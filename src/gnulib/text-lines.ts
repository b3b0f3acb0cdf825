/**
 * Shared pieces of the line-oriented text commands (cut, uniq, sort): a batching output
 * buffer and a streaming record splitter that keeps lines as Buffer slices.
 */
import type { Output } from '../command/types.js';
export { argmatch, argmatchResult } from '../command/options/argmatch.js';

/** Collects output pieces and writes them in large chunks. */
export class OutBuffer {
  private parts: Uint8Array[] = [];
  private size = 0;
  constructor(private readonly out: Output, private readonly limit = 64 * 1024) {}

  /** Add bytes without flushing; true when the buffer is full (then await flush()). */
  add(b: Uint8Array): boolean {
    if (b.length === 0) return false;
    this.parts.push(b);
    this.size += b.length;
    return this.size >= this.limit;
  }

  /** Add bytes; returns a promise to await when a flush happened. */
  push(b: Uint8Array): Promise<void> | void {
    if (b.length === 0) return;
    this.parts.push(b);
    this.size += b.length;
    if (this.size >= this.limit) return this.flush();
  }

  async flush(): Promise<void> {
    if (this.size === 0) return;
    const data = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    await this.out.write(data);
  }
}

/**
 * Output assembled by copying byte ranges into one buffer (no Buffer object per piece), for
 * commands that emit many small pieces per line (cut -f). Check `full` between lines and
 * await flush() then; a piece larger than the buffer grows it.
 */
export class CopyOut {
  private static readonly SIZE = 256 * 1024;
  /** Room past SIZE, so that the line that crosses it fits without growing (copying) the buffer. */
  private static readonly ROOM = 2 * CopyOut.SIZE;
  private buf = Buffer.allocUnsafe(CopyOut.ROOM);
  private n = 0;

  constructor(private readonly out: Output) {}

  get full(): boolean {
    return this.n >= CopyOut.SIZE;
  }

  /** Append src[start, end). */
  put(src: Buffer, start: number, end: number): void {
    const len = end - start;
    if (this.n + len > this.buf.length) this.grow(len);
    if (len > 256) {
      this.n += src.copy(this.buf, this.n, start, end);
      return;
    }
    // Buffer#copy costs more than a few hundred bytes copied one by one (argument checks, a
    // typed-array view made per call, a native call).
    const buf = this.buf;
    let n = this.n;
    for (let i = start; i < end; i++) buf[n++] = src[i]!;
    this.n = n;
  }

  byte(b: number): void {
    if (this.n >= this.buf.length) this.grow(1);
    this.buf[this.n++] = b;
  }

  async flush(): Promise<void> {
    if (this.n === 0) return;
    const data = this.buf.subarray(0, this.n);
    this.n = 0;
    if (this.out.consumes) {
      // A file sink writes the bytes before it returns: the same buffer is filled again (fresh
      // pages cost page faults: half the copy time of paste's rows on a busy host).
      await this.out.write(data);
      return;
    }
    // The writer may keep what it is given: hand over this buffer and start a new one.
    this.buf = Buffer.allocUnsafe(CopyOut.ROOM);
    await this.out.write(data);
  }

  /** The buffer with room for `len` more bytes from `at` (write them, then move `at`). */
  room(len: number): Buffer {
    if (this.n + len > this.buf.length) this.grow(len);
    return this.buf;
  }

  /** Room left before the buffer must grow. */
  get free(): number {
    return this.buf.length - this.n;
  }

  /** Where the next byte goes. */
  get at(): number {
    return this.n;
  }
  set at(n: number) {
    this.n = n;
  }

  private grow(need: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.n + need));
    this.buf.copy(bigger, 0, 0, this.n);
    this.buf = bigger;
  }
}

/**
 * Records of a byte stream split on `sep`, one step per input chunk (so the async machinery
 * is paid per chunk, not per line): the chunk and its records as [start, end) pairs, ends
 * before the terminator. A record split across chunks comes as its own joined buffer; only
 * the last record of the stream can lack a terminator.
 */
export async function* recordSpans(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, sep: number): AsyncGenerator<{ buf: Buffer; spans: number[] }> {
  // The start of a record that goes on in later chunks: its pieces, joined once it ends (a
  // concat per chunk would copy a long line again for every chunk).
  const carry: Buffer[] = [];
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    if (carry.length > 0) {
      const i = buf.indexOf(sep);
      if (i < 0) {
        carry.push(Buffer.from(buf));
        continue;
      }
      carry.push(buf.subarray(0, i));
      const joined = Buffer.concat(carry);
      carry.length = 0;
      yield { buf: joined, spans: [0, joined.length] };
      start = i + 1;
    }
    const spans: number[] = [];
    for (let i = buf.indexOf(sep, start); i >= 0; i = buf.indexOf(sep, start)) {
      spans.push(start, i);
      start = i + 1;
    }
    if (start < buf.length) carry.push(Buffer.from(buf.subarray(start)));
    if (spans.length) yield { buf, spans };
  }
  if (carry.length > 0) {
    const joined = Buffer.concat(carry);
    yield { buf: joined, spans: [0, joined.length] };
  }
}

/** Records as Buffer slices, a batch per step of recordSpans. */
export async function* recordBatches(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, sep: number): AsyncGenerator<Buffer[]> {
  for await (const { buf, spans } of recordSpans(source, sep)) {
    const batch: Buffer[] = [];
    for (let k = 0; k < spans.length; k += 2) batch.push(buf.subarray(spans[k]!, spans[k + 1]!));
    yield batch;
  }
}

/** Records one by one (see recordBatches). */
export async function* records(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, sep: number): AsyncGenerator<Buffer> {
  for await (const batch of recordBatches(source, sep)) yield* batch;
}

/**
 * Lines of a stream as spans of its chunks, handed out synchronously while a chunk lasts: no
 * Buffer per line (a subarray per line, and OutBuffer joining them again, made paste 0.10x of
 * GNU on 2 MB) and no array of spans per chunk (each line end is found by indexOf when it is
 * asked for). A line split across chunks comes as its own joined buffer. With a source that
 * reads every chunk into the same buffer (readChunks' `reuse`), a caller that holds lines
 * copies them out in onRefill; otherwise a chunk is never reused and a span of an earlier
 * chunk stays valid (join keeps a group of lines across chunks).
 */
export class SpanReader {
  buf: Buffer = Buffer.alloc(0);
  s = 0;
  e = 0;
  /** Where the next line starts in buf (a caller may take lines from here itself: indexOf(sep, pos)). */
  pos = 0;
  /** Called before the next chunk is read (over the buffer buf may be). */
  onRefill: (() => void) | null = null;
  private readonly it: Iterator<Uint8Array> | AsyncIterator<Uint8Array>;
  /** The chunk whose first line was joined to the carry: the reader goes on in it from pendingPos. */
  private pending: Buffer | null = null;
  private pendingPos = 0;
  private done = false;
  constructor(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, private readonly sep: number) {
    this.it = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  }

  /** Move to the next line, buf[s, e); false at the end (a promise only to refill). */
  next(): boolean | Promise<boolean> {
    return this.inBuffer() || this.refill();
  }

  /** The next line when it ends within the buffer held. */
  private inBuffer(): boolean {
    const i = this.buf.indexOf(this.sep, this.pos);
    if (i < 0) return false;
    this.s = this.pos;
    this.e = i;
    this.pos = i + 1;
    return true;
  }

  private async refill(): Promise<boolean> {
    if (this.pending) {
      this.buf = this.pending;
      this.pos = this.pendingPos;
      this.pending = null;
      if (this.inBuffer()) return true;
    }
    if (this.done) return false;
    // The start of a line that goes on in later chunks: its pieces, joined once it ends (a
    // concat per chunk would copy a long line again for every chunk).
    const carry: Buffer[] = [];
    if (this.pos < this.buf.length) carry.push(Buffer.from(this.buf.subarray(this.pos)));
    this.onRefill?.();
    for (;;) {
      const r = await this.it.next();
      if (r.done) {
        this.done = true;
        if (carry.length === 0) {
          this.buf = Buffer.alloc(0);
          this.pos = 0;
          return false;
        }
        return this.joined(carry);
      }
      const chunk = Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength);
      if (chunk.length === 0) continue;
      const i = chunk.indexOf(this.sep);
      if (i < 0) {
        carry.push(Buffer.from(chunk));
        continue;
      }
      if (carry.length === 0) {
        this.buf = chunk;
        this.s = 0;
        this.e = i;
        this.pos = i + 1;
        return true;
      }
      carry.push(chunk.subarray(0, i));
      this.pending = chunk;
      this.pendingPos = i + 1;
      return this.joined(carry);
    }
  }

  private joined(carry: Buffer[]): true {
    const b = carry.length === 1 ? carry[0]! : Buffer.concat(carry);
    this.buf = b;
    this.s = 0;
    this.e = b.length;
    this.pos = b.length;
    return true;
  }
}

/** A fatal error printed as "cmd: message" without the "Try --help" line. */
export class FatalError extends Error {}


/** Lines of a stream, handed out synchronously while a batch lasts (a promise only to refill). */
export class LineReader {
  private batch: Buffer[] = [];
  private i = 0;
  private readonly it: AsyncIterator<Buffer[]>;
  constructor(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, sep: number) {
    this.it = recordBatches(source, sep)[Symbol.asyncIterator]();
  }

  /** The next line (without terminator), or null at the end. */
  next(): Buffer | null | Promise<Buffer | null> {
    if (this.i < this.batch.length) return this.batch[this.i++]!;
    return this.refill();
  }

  private async refill(): Promise<Buffer | null> {
    for (;;) {
      const r = await this.it.next();
      if (r.done) return null;
      this.batch = r.value;
      this.i = 0;
      if (this.batch.length) return this.batch[this.i++]!;
    }
  }
}
