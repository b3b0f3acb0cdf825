/**
 * The concatenation of input operands as od and hexdump read it: files opened one after the
 * other (a file that cannot be opened is reported and passed over), a skip that seeks over
 * whole files by their size and into a file by positioned reads (a 1 GB file is never read
 * to skip it), standard input read and dropped. Chunks are fresh buffers: a reader may keep them.
 */
import { VfsError, fromNodeError, type RandomReader } from '../vfs/index.js';
import type { CommandContext } from '../command/types.js';

const CHUNK = 256 * 1024;

type Source = { kind: 'file'; r: RandomReader; pos: number; name: string } | { kind: 'stream'; it: AsyncIterator<Uint8Array>; name: string }
  /** A directory: C's fopen opens it and its seek succeeds; its first read fails (EISDIR). */
  | { kind: 'dir'; err: VfsError; name: string };

export class ConcatReader {
  /** False once a file could not be opened or read. */
  ok = true;
  private next = 0;
  private cur: Source | null = null;
  private pending: Uint8Array | null = null;

  /** `report(name, err)` prints a file's error (e.g. "od: NAME: No such file or directory"). */
  constructor(private readonly ctx: CommandContext, private readonly operands: string[], private readonly report: (name: string, e: VfsError) => Promise<void>) {}

  /** Open the next operand that opens; false at the end of the list. */
  private async open(): Promise<boolean> {
    while (this.next < this.operands.length) {
      const name = this.operands[this.next++]!;
      if (name === '-') {
        this.cur = { kind: 'stream', it: this.ctx.stdin[Symbol.asyncIterator](), name };
        return true;
      }
      try {
        this.cur = { kind: 'file', r: this.ctx.fs.openRandom(name, this.ctx.cwd), pos: 0, name };
        return true;
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        if (e.errno === 'EISDIR') {
          this.cur = { kind: 'dir', err: e, name };
          return true;
        }
        await this.report(name, e);
        this.ok = false;
      }
    }
    return false;
  }

  private close(): void {
    if (this.cur?.kind === 'file') this.cur.r.close();
    this.cur = null;
  }

  /** Open the first operand that opens (C's first fopen): false when none does. */
  async start(): Promise<boolean> {
    return this.cur !== null || (await this.open());
  }

  /** Drop n bytes; returns how many could not be skipped (the input ended first). */
  async skip(n: number): Promise<number> {
    while (n > 0) {
      if (this.pending) {
        const p = this.pending;
        if (p.length > n) {
          this.pending = p.subarray(n);
          return 0;
        }
        n -= p.length;
        this.pending = null;
        continue;
      }
      if (!this.cur && !(await this.open())) return n;
      const c = this.cur!;
      if (c.kind === 'dir') return 0;
      if (c.kind === 'file') {
        const left = c.r.size - c.pos;
        if (left > n) {
          c.pos += n;
          return 0;
        }
        n -= Math.max(0, left);
        this.close();
        continue;
      }
      const r = await c.it.next();
      if (r.done) {
        this.close();
        continue;
      }
      this.pending = r.value;
    }
    return 0;
  }

  /** The next chunk of the concatenation, or null at its end. */
  async read(max = CHUNK): Promise<Uint8Array | null> {
    for (;;) {
      if (this.pending) {
        const p = this.pending;
        if (p.length > max) {
          this.pending = p.subarray(max);
          return p.subarray(0, max);
        }
        this.pending = null;
        return p;
      }
      if (!this.cur && !(await this.open())) return null;
      const c = this.cur!;
      if (c.kind === 'dir') {
        this.close();
        await this.report(c.name, c.err);
        this.ok = false;
        continue;
      }
      if (c.kind === 'file') {
        const buf = Buffer.allocUnsafe(Math.max(1, Math.min(max, CHUNK)));
        let got: number;
        try {
          got = c.r.readAt(buf, c.pos);
        } catch (e) {
          this.close();
          const err = e instanceof VfsError ? e : fromNodeError(e, c.name);
          await this.report(c.name, err);
          this.ok = false;
          continue;
        }
        if (got === 0) {
          this.close();
          continue;
        }
        c.pos += got;
        return buf.subarray(0, got);
      }
      const r = await c.it.next();
      if (r.done) {
        this.close();
        continue;
      }
      if (r.value.length > 0) this.pending = r.value;
    }
  }

  /** Stop early: close the open file. */
  finish(): void {
    this.close();
  }
}
