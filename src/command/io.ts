import type { Input, Output } from './types.js';
import { noteBytes } from '../runtime/memory.js';

/** Thrown into a writer when its reader has gone (like SIGPIPE): the stage stops quietly. */
export class BrokenPipe extends Error {
  constructor() {
    super('broken pipe');
    this.name = 'BrokenPipe';
  }
}

/** Thrown when the returned output reached its cap: the whole pipeline stops, the result says truncated. */
export class OutputLimitReached extends Error {
  constructor() {
    super('output limit reached');
    this.name = 'OutputLimitReached';
  }
}

export function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

/** Input over bytes already in memory (the request's stdin). */
const EMPTY = Buffer.alloc(0);

/**
 * The most a stdin or pipe chunk holds (a file's reads are 256 KiB too). Line splitters
 * hold one batch of objects per chunk (a Buffer or a string per line): one 20 MB chunk of
 * empty lines was 20 M objects at once, past the worker's heap, and V8's out-of-memory
 * aborts the whole process.
 */
const PIECE = 256 * 1024;

export function bufferInput(data: Uint8Array | undefined): Input {
  let buf = data ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : EMPTY;
  // Read once, like a real stdin: a second '-' operand (cat - -) sees end of input.
  const take = () => {
    const b = buf;
    buf = EMPTY;
    return b;
  };
  return {
    async *[Symbol.asyncIterator]() {
      const b = take();
      for (let at = 0; at < b.length; at += PIECE) yield b.subarray(at, at + PIECE);
    },
    async readAll() {
      return take();
    },
  };
}

/** Collects up to `cap` bytes; past it, keeps the first `cap` and throws OutputLimitReached (or drops, if quiet). */
export class CollectingOutput implements Output {
  private readonly chunks: Uint8Array[] = [];
  private kept = 0;
  bytes = 0;
  truncated = false;

  constructor(private readonly cap: number, private readonly stopOnLimit: boolean) {}

  write(data: Uint8Array | string): void {
    const b = toBytes(data);
    this.bytes += b.length;
    if (this.truncated) {
      if (this.stopOnLimit) throw new OutputLimitReached();
      return;
    }
    const room = this.cap - this.kept;
    if (b.length <= room) {
      this.chunks.push(b);
      this.kept += b.length;
      return;
    }
    if (room > 0) this.chunks.push(b.subarray(0, room));
    this.kept = this.cap;
    this.truncated = true;
    if (this.stopOnLimit) throw new OutputLimitReached();
  }

  room(): number {
    return this.stopOnLimit ? this.cap - this.kept : Infinity;
  }

  result(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

const HIGH_WATER = 1 << 20;

/** An in-memory pipe between two stages of a pipeline, with back-pressure. */
export class Pipe implements Output, Input {
  /** write() copies what it is given (below): a writer may fill its buffer again. */
  readonly consumes = true;
  private readonly queue: Uint8Array[] = [];
  private buffered = 0;
  private writerDone = false;
  private readerGone = false;
  private wakeReader: (() => void) | null = null;
  /** Every writer waiting for room (xargs -P runs several commands writing into one pipe). */
  private wakeWriters: (() => void)[] = [];
  bytes = 0;

  write(data: Uint8Array | string): void | Promise<void> {
    if (this.readerGone) throw new BrokenPipe();
    const b = toBytes(data);
    if (b.length === 0) return;
    // Copy: writers may reuse their buffers after write returns.
    const copy = Buffer.from(b);
    if (copy.length <= PIECE) this.queue.push(copy);
    else for (let at = 0; at < copy.length; at += PIECE) this.queue.push(copy.subarray(at, at + PIECE));
    this.buffered += b.length;
    this.bytes += b.length;
    this.wake('reader');
    if (this.buffered >= HIGH_WATER) return new Promise<void>((r) => { this.wakeWriters.push(r); });
  }

  /** Writer end finished. */
  end(): void {
    this.writerDone = true;
    this.wake('reader');
  }

  /** Reader end finished (it stopped reading early, like head). */
  closeReader(): void {
    this.readerGone = true;
    this.queue.length = 0;
    this.buffered = 0;
    this.wake('writer');
  }

  private wake(which: 'reader' | 'writer'): void {
    if (which === 'writer') {
      const all = this.wakeWriters;
      if (all.length > 0) this.wakeWriters = [];
      for (const fn of all) fn();
      return;
    }
    const fn = this.wakeReader;
    this.wakeReader = null;
    fn?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      const chunk = this.queue.shift();
      if (chunk) {
        noteBytes(chunk.length);
        this.buffered -= chunk.length;
        if (this.buffered < HIGH_WATER) this.wake('writer');
        yield chunk;
        continue;
      }
      if (this.writerDone) return;
      await new Promise<void>((r) => (this.wakeReader = r));
    }
  }

  async readAll(): Promise<Buffer> {
    const parts: Uint8Array[] = [];
    for await (const c of this) parts.push(c);
    return Buffer.concat(parts);
  }
}
