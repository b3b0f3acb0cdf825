/**
 * What head and tail share: opening operands the way GNU reports failures ("cannot open"
 * vs "error reading"), "==> name <==" headers, and the split of a stream into "all but the last N" and
 * "the last N" lines or bytes, holding only the last N in memory.
 */
import type { RandomReader } from '../vfs/index.js';
import { VfsError } from '../vfs/index.js';
import { countByte } from './count-byte.js';
import { quoteAlways } from './quote.js';
import type { CommandContext } from '../command/types.js';

/** quoteaf(), GNU's shell-escape-always quoting (see quote.ts). */
export { quoteAlways };

/** An opened operand: a file for positioned reads, or stdin. */
export type Opened = { kind: 'file'; reader: RandomReader } | { kind: 'stdin' };

/**
 * Open an operand as head/tail do. Returns null after printing GNU's message when it cannot
 * be opened; a directory opens (GNU prints its header) and fails on reading.
 */
export async function openOperand(ctx: CommandContext, operand: string): Promise<Opened | 'unreadable' | null> {
  if (operand === '-') return { kind: 'stdin' };
  try {
    return { kind: 'file', reader: ctx.fs.openRandom(operand, ctx.cwd) };
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    if (e.errno === 'EISDIR') return 'unreadable';
    await ctx.warn(`cannot open ${quoteAlways(operand)} for reading: ${e.reason}`);
    return null;
  }
}

export function headerName(operand: string): string {
  return operand === '-' ? 'standard input' : operand;
}

/** Chunks of a file from `start` to its end, by positioned reads. */
export function* fileChunks(reader: RandomReader, start: number, chunkSize = 256 * 1024, firstChunk = chunkSize): Generator<Buffer> {
  let pos = start;
  // A reader that may stop early (head) starts small and grows to chunkSize.
  for (let size = Math.min(firstChunk, chunkSize); ; size = Math.min(size * 4, chunkSize)) {
    const buf = Buffer.allocUnsafe(size);
    const n = reader.readAt(buf, pos, size);
    if (n === 0) return;
    pos += n;
    yield n === size ? buf : buf.subarray(0, n);
  }
}

/** Above this many separators to find, a chunk's are counted (16 bytes at a time) before they are looked for one by one. */
const MANY_LINES = 1000;

/**
 * Where the `n`-th separator (n >= 1) of `buf` is: `at` its index, or -1 when `buf` has fewer,
 * with `found` how many it has. `head -n 1000000` and `tail -n +1000000` pass whole chunks.
 */
export function nthSeparator(buf: Buffer, n: number, sep: number): { at: number; found: number } {
  if (n > MANY_LINES) {
    const all = countByte(buf, sep);
    if (all < n) return { at: -1, found: all };
  }
  let at = -1;
  for (let found = 0; found < n; found++) {
    at = buf.indexOf(sep, at + 1);
    if (at < 0) return { at: -1, found };
  }
  return { at, found: n };
}

export function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * Splits a stream into a front part (everything but the last N lines or bytes) and the
 * kept part (the last N), holding at most the last N units plus one chunk in memory.
 * `push` returns front pieces as soon as they are known to be front; `finish` returns the
 * remaining front pieces and the kept part. A final line without terminator is a line.
 */
export class LastUnits {
  private queue: { buf: Buffer; seps: number }[] = [];
  private seps = 0;
  private bytes = 0;

  constructor(private readonly n: number, private readonly unit: 'lines' | 'bytes', private readonly sep = 0x0a) {}

  push(chunk: Uint8Array): Buffer[] {
    const buf = asBuffer(chunk);
    if (buf.length === 0) return [];
    const seps = this.unit === 'lines' ? countByte(buf, this.sep) : 0;
    this.queue.push({ buf, seps });
    this.seps += seps;
    this.bytes += buf.length;
    return this.evict(false);
  }

  finish(): { front: Buffer[]; kept: Buffer[] } {
    const front = this.evict(true);
    return { front, kept: this.queue.map((q) => q.buf) };
  }

  private evict(final: boolean): Buffer[] {
    const out: Buffer[] = [];
    if (this.unit === 'bytes') {
      let extra = this.bytes - this.n;
      while (extra > 0 && this.queue.length > 0) {
        const head = this.queue[0]!;
        if (head.buf.length <= extra) {
          out.push(head.buf);
          this.queue.shift();
          extra -= head.buf.length;
          this.bytes -= head.buf.length;
        } else {
          out.push(head.buf.subarray(0, extra));
          head.buf = head.buf.subarray(extra);
          this.bytes -= extra;
          extra = 0;
        }
      }
      return out;
    }
    if (final && this.n === 0) {
      for (const q of this.queue) out.push(q.buf);
      this.queue = [];
      this.seps = 0;
      this.bytes = 0;
      return out;
    }
    // A partial last line is a line whatever comes next.
    const last = this.queue[this.queue.length - 1];
    const partial = last !== undefined && last.buf[last.buf.length - 1] !== this.sep ? 1 : 0;
    let k = this.seps + partial - this.n; // terminated lines that are surely front
    if (k > this.seps) k = this.seps;
    while (k > 0 && this.queue.length > 0) {
      const head = this.queue[0]!;
      if (head.seps <= k && (head.seps < k || head.buf[head.buf.length - 1] === this.sep)) {
        // The whole chunk is front (its trailing fragment, if any, ends a line that is front too).
        out.push(head.buf);
        this.queue.shift();
        k -= head.seps;
        this.seps -= head.seps;
        this.bytes -= head.buf.length;
        continue;
      }
      // Cut after the k-th separator inside this chunk.
      let at = -1;
      for (let i = 0; i < k; i++) at = head.buf.indexOf(this.sep, at + 1);
      out.push(head.buf.subarray(0, at + 1));
      head.buf = head.buf.subarray(at + 1);
      head.seps -= k;
      this.seps -= k;
      this.bytes -= at + 1;
      k = 0;
    }
    return out;
  }
}
