/** Where xxd's output goes, and the exit it ends with on an error. */
import type { CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';

export class Exit extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/**
 * Where output goes: standard output (written as it comes; a seek forward writes zeros, as
 * on a pipe), or an output file built in memory and written through the Vfs at the end:
 * truncated for a dump, patched in place for -r (xxd opens it without O_TRUNC).
 */
export class Sink {
  private file: Buffer<ArrayBufferLike> | undefined;
  /** Position for -r (bytes written or skipped to). */
  pos = 0;
  private size = 0;
  private stdoutBuf: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly ctx: CommandContext, private readonly name: string | undefined, patch: boolean) {
    if (name !== undefined) {
      let existing: Buffer<ArrayBufferLike> = Buffer.alloc(0);
      if (patch) {
        try {
          existing = ctx.fs.readFile(name, ctx.cwd);
        } catch (e) {
          if (!(e instanceof VfsError) || e.errno !== 'ENOENT') throw new Exit(3, `${name}: ${(e as VfsError).reason ?? String(e)}`);
        }
      }
      this.file = Buffer.alloc(Math.max(64 * 1024, existing.length));
      existing.copy(this.file);
      this.size = existing.length;
    }
  }

  get seekable(): boolean {
    return this.file !== undefined;
  }

  async write(s: string | Uint8Array): Promise<void> {
    const b = typeof s === 'string' ? Buffer.from(s, 'latin1') : s;
    if (this.file) {
      this.ensure(this.pos + b.length);
      this.file.set(b, this.pos);
      this.pos += b.length;
      this.size = Math.max(this.size, this.pos);
      return;
    }
    this.pos += b.length;
    this.stdoutBuf.push(Buffer.from(b));
    this.buffered += b.length;
    if (this.buffered >= 65536) await this.flush();
  }

  private ensure(n: number): void {
    if (n <= this.file!.length) return;
    const max = this.ctx.limits.maxBufferBytes;
    if (n > max) throw new Exit(3, `${this.name}: File too large`);
    const bigger = Buffer.alloc(Math.min(max, Math.max(n, this.file!.length * 2)));
    this.file!.copy(bigger);
    this.file = bigger;
  }

  /** Move to an absolute position in the output file (holes read as zeros). */
  seek(to: number): void {
    this.ensure(to);
    this.pos = to;
  }

  async flush(): Promise<void> {
    if (this.buffered === 0) return;
    const b = Buffer.concat(this.stdoutBuf);
    this.stdoutBuf = [];
    this.buffered = 0;
    await this.ctx.stdout.write(b);
  }

  async close(): Promise<void> {
    if (this.file) {
      try {
        this.ctx.fs.writeFile(this.name!, this.file.subarray(0, this.size), this.ctx.cwd);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        throw new Exit(3, `${this.name}: ${e.reason}`);
      }
    } else await this.flush();
  }
}
