// split's output files: the suffix sequence (next_file_name) and cwrite(), one file at a time
// through the Vfs's atomic writer.
import type { CommandContext } from '../../src/command/index.js';
import { VfsError, type AtomicWriter } from '../../src/vfs/index.js';
import { quoteAlways } from '../../src/gnulib/quote.js';

export class SplitError extends Error {}

/** next_file_name: the suffix counted in the alphabet; auto-widened (xyz, then xzaaa) unless its length was set. */
export class Names {
  private idx: number[] = [];
  private base: string;
  private started = false;
  constructor(prefix: string, private readonly addsuf: string, private readonly alphabet: string, private len: number, private readonly auto: boolean, private readonly start: string | null) {
    this.base = prefix;
  }

  next(): string {
    if (!this.started) {
      this.started = true;
      this.fresh(this.start);
    } else {
      let i = this.len;
      let done = false;
      while (i-- !== 0) {
        this.idx[i]!++;
        if (this.auto && i === 0 && this.idx[0]! + 1 >= this.alphabet.length) {
          // Widen: the last letter joins the prefix, the suffix grows by one (xyz, then xzaaa).
          this.base += this.alphabet[this.idx[0]!];
          this.len++;
          this.fresh(null);
          done = true;
          break;
        }
        if (this.idx[i]! < this.alphabet.length) {
          done = true;
          break;
        }
        this.idx[i] = 0;
      }
      if (!done) throw new SplitError('output file suffixes exhausted');
    }
    return this.base + this.idx.map((k) => this.alphabet[k]).join('') + this.addsuf;
  }

  private fresh(start: string | null): void {
    this.idx = new Array<number>(this.len).fill(0);
    if (start !== null) for (let k = 0; k < start.length; k++) this.idx[this.len - start.length + k] = start.charCodeAt(k) - 48;
  }
}

/** The output files: cwrite() as split has it (a new file on request; -e skips empty ones). */
export class Outputs {
  private w: AtomicWriter | null = null;
  constructor(private readonly ctx: CommandContext, private readonly names: Names, private readonly elide: boolean, private readonly verbose: boolean) {}

  async cwrite(newFile: boolean, data: Uint8Array | null): Promise<void> {
    if (newFile) {
      if (!data?.length && this.elide) return;
      this.close();
      const name = this.names.next();
      if (this.verbose) await this.ctx.stdout.write(`creating file ${quoteAlways(name)}\n`);
      try {
        this.w = this.ctx.fs.createWriter(name, this.ctx.cwd);
      } catch (e) {
        if (e instanceof VfsError) throw new SplitError(`${quoteAlways(name)}: ${e.reason}`);
        throw e;
      }
    }
    if (data?.length) this.w!.write(data);
  }

  /** K/N forms write the chunk to standard output. */
  async stdout(data: Uint8Array): Promise<void> {
    if (data.length) await this.ctx.stdout.write(Buffer.from(data));
  }

  close(): void {
    if (this.w) this.w.commit();
    this.w = null;
  }
}
