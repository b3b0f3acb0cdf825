/** sed's streams: output with GNU's missing-newline bookkeeping, input lines from chunks, the w files. */
import type { CommandContext } from '../../src/command/index.js';
import { VfsError, type AtomicWriter } from '../../src/vfs/index.js';
import { noteBytes, valueLimit, valueTooBig } from '../../src/runtime/memory.js';
import { SedError } from './parse.js';

export const FLUSH_AT = 64 * 1024;

/** Input is made into strings at most this many bytes at a time (see FileLines.piece). */
const PIECE = 64 * 1024;

/** Pieces at least this long go out of the V8 heap (into a Buffer) as soon as they are added. */
export const SPILL = FLUSH_AT;

/**
 * One output stream with GNU's "missing newline" bookkeeping. Output waits for the end of
 * the cycle, but not as one string: a cycle can print far more than it reads (`p;p;p` of a
 * long line, a `:a;p;ba` loop, `l`, `r` of a big file), and flattening that string would
 * need it whole in the heap, which V8 cannot survive (its out-of-memory aborts the process).
 * Small pieces are joined up to SPILL characters; past that they become Buffers (counted by
 * noteBytes, so a cycle's output past the budget is MEMORY_LIMIT), and past what the
 * returned output can take they are written at once (the output stops the command there).
 */
export class Out {
  private buf = '';
  /** Written before buf. */
  private parts: Buffer[] = [];
  private partBytes = 0;
  missing = false;
  /** GNU writes the missing line end as the buffer delimiter (NUL under -z). */
  constructor(
    private readonly sink: (b: Buffer) => void | Promise<void>,
    private readonly eol = '\n',
    /** Write into this stream's buffer but keep an own missing-newline flag (GNU's w /dev/stdout). */
    private readonly base?: Out,
    /** What the destination can still take (CollectingOutput.room), Infinity if unbounded. */
    private readonly room: () => number = () => Infinity,
  ) {}
  private get target(): Out {
    return this.base ?? this;
  }
  /** Characters and bytes waiting. */
  get size(): number {
    const t = this.target;
    return t.partBytes + t.buf.length;
  }
  private add(s: string): void {
    const t = this.target;
    if (s.length < SPILL) {
      t.buf += s;
      if (t.buf.length >= SPILL) t.spill();
      return;
    }
    t.spill();
    t.addBytes(Buffer.from(s, 'latin1'));
  }
  private spill(): void {
    if (this.buf.length === 0) return;
    const b = Buffer.from(this.buf, 'latin1');
    this.buf = '';
    this.addBytes(b);
  }
  /** Bytes as they are (r files, l), after what is waiting; no missing-newline handling. */
  addBytes(b: Buffer): void {
    const t = this.target;
    if (t !== this) return t.addBytes(b);
    this.spill();
    this.parts.push(b);
    this.partBytes += b.length;
    noteBytes(b.length);
    if (this.partBytes > this.room()) {
      // A bounded destination is a CollectingOutput, written synchronously: it takes what it
      // can and throws OutputLimitReached, which ends the command as truncated.
      const parts = this.parts;
      this.parts = [];
      this.partBytes = 0;
      for (const p of parts) void this.sink(p);
    }
  }
  put(s: string): void {
    if (this.missing) {
      this.add(this.eol);
      this.missing = false;
    }
    this.add(s);
  }
  /** The pattern space (or part of it), followed by the delimiter unless the input line lacked one. */
  putLine(s: string, nl: boolean, delim: string): void {
    if (this.missing) {
      this.add(this.eol);
      this.missing = false;
    }
    this.add(s);
    if (nl) this.add(delim);
    else this.missing = true;
  }
  /** Ends a line left unterminated (GNU's output_missing_newline), as q does. */
  endLine(): void {
    if (this.missing) {
      this.add(this.eol);
      this.missing = false;
    }
  }
  async flush(): Promise<void> {
    if (this.base) return this.base.flush();
    const parts = this.parts;
    this.parts = [];
    this.partBytes = 0;
    for (const p of parts) await this.sink(p);
    if (this.buf.length === 0) return;
    const b = Buffer.from(this.buf, 'latin1');
    this.buf = '';
    await this.sink(b);
  }
}

export interface Line {
  text: string;
  nl: boolean;
}

export type ChunkSource = AsyncIterator<Uint8Array> | Iterator<Uint8Array>;

/** Lines of one file (or stdin), with look-ahead. */
export class FileLines {
  private q: string[] = [];
  private qi = 0;
  private carry = '';
  private carryParts: string[] = [];
  /** Characters in carryParts and carry. */
  private carryLen = 0;
  private done = false;
  /** The last element of q has no delimiter. */
  private lastPartial = false;
  constructor(private readonly it: ChunkSource, private readonly delim: string,
    /** The chunks are read for this reader alone (a file's), not shared (stdin's may be). */
    readonly owned = false) {}

  /** The rest of a chunk longer than PIECE, handed out PIECE bytes at a time. */
  private big: Uint8Array | null = null;
  private bigAt = 0;
  /**
   * The next piece of input to make a string of: at most PIECE bytes. V8 puts a string past
   * 128 KiB in its large-object space, and making those from 256 KiB chunks was most of
   * the time of a 256 KiB decode (13x slower per byte than 64 KiB pieces here).
   */
  private async piece(): Promise<IteratorResult<Uint8Array>> {
    if (!this.big) {
      const r = await this.it.next();
      if (r.done || r.value.length <= PIECE) return r;
      this.big = r.value;
      this.bigAt = 0;
    }
    const b = this.big;
    const at = this.bigAt;
    const end = Math.min(b.length, at + PIECE);
    if (end >= b.length) this.big = null;
    else this.bigAt = end;
    return { done: false, value: b.subarray(at, end) };
  }

  /** The input ended: an unterminated rest is queued as the last line. */
  private endOfInput(): void {
    this.done = true;
    const rest = this.joinCarry('');
    if (rest !== '') {
      this.q = [rest];
      this.qi = 0;
      this.lastPartial = true;
    }
  }

  /**
   * A chunk with no delimiter: a long line goes on; its pieces are kept and joined once. Past
   * a quarter of the budget the line could not be worked on (one copy of it, one join)
   * without V8 running out of heap, which aborts the whole process.
   */
  private carryOn(s: string): void {
    this.carryParts.push(this.carry);
    this.carry = s;
    this.carryLen += s.length;
    if (this.carryLen > valueLimit()) throw valueTooBig("a line of sed's input");
  }

  /** True when a line is available (reads chunks as needed). Errors propagate. */
  async fill(): Promise<boolean> {
    while (this.qi >= this.q.length) {
      if (this.done) return false;
      const r = await this.piece();
      if (r.done) {
        this.endOfInput();
        continue;
      }
      const chunk = r.value;
      const s = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
      if (s.indexOf(this.delim) < 0) {
        this.carryOn(s);
        continue;
      }
      // Only the chunk is split: splitting carry + chunk would flatten a long line once more.
      const parts = s.split(this.delim);
      parts[0] = this.joinCarry(parts[0]!);
      this.carry = parts.pop()!;
      this.carryLen = this.carry.length;
      this.q = parts;
      this.qi = 0;
    }
    return true;
  }

  /**
   * Every complete line of the next chunk (with the carried start of the first) as one string
   * ending with its delimiter, for a script that works on blocks of lines (SedRunner's bulk
   * s///g); null at the end of the input, when an unterminated rest is queued as a line for
   * take(). Call only when nothing is buffered.
   */
  async takeBlock(): Promise<string | null> {
    while (!this.done) {
      const r = await this.piece();
      if (r.done) {
        this.endOfInput();
        return null;
      }
      const chunk = r.value;
      const s = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
      const last = s.lastIndexOf(this.delim);
      if (last < 0) {
        this.carryOn(s);
        continue;
      }
      const block = this.joinCarry(s.slice(0, last + 1));
      this.carry = s.slice(last + 1);
      this.carryLen = this.carry.length;
      return block;
    }
    return null;
  }

  /**
   * takeBlock for bytes: the complete lines of the next chunk, the first with its carried
   * start, as one or two Buffers of whole lines (for a literal s///g done on bytes); null at
   * the end of the input. The Buffers are the chunks' own (file chunks are fresh; `owned`).
   */
  async takeBlockBytes(): Promise<Buffer[] | null> {
    const carry: Buffer[] = [];
    let carryLen = 0;
    if (this.carryLen > 0 || this.carry !== '') {
      const c = Buffer.from(this.joinCarry(''), 'latin1');
      carry.push(c);
      carryLen = c.length;
    }
    const code = this.delim.charCodeAt(0);
    while (!this.done) {
      const r = this.big ? await this.piece() : await this.it.next();
      if (r.done) {
        this.done = true;
        if (carryLen > 0) {
          this.q = [Buffer.concat(carry).toString('latin1')];
          this.qi = 0;
          this.lastPartial = true;
        }
        return null;
      }
      const v = r.value;
      const chunk = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      const last = chunk.lastIndexOf(code);
      if (last < 0) {
        carry.push(chunk);
        carryLen += chunk.length;
        if (carryLen > valueLimit()) throw valueTooBig("a line of sed's input");
        continue;
      }
      if (last + 1 < chunk.length) {
        this.carry = chunk.toString('latin1', last + 1);
        this.carryLen = this.carry.length;
      }
      if (carryLen === 0) return [chunk.subarray(0, last + 1)];
      // Only the line the carry starts is joined (not the whole chunk: a copy of every byte).
      const first = chunk.indexOf(code) + 1;
      carry.push(chunk.subarray(0, first));
      const head = Buffer.concat(carry);
      return first === last + 1 ? [head] : [head, chunk.subarray(first, last + 1)];
    }
    return null;
  }

  /** The carried start of a line and its `end`, as one string; the carry is emptied. */
  private joinCarry(end: string): string {
    let line: string;
    if (this.carryParts.length === 0) line = this.carry + end;
    else {
      this.carryParts.push(this.carry, end);
      line = this.carryParts.join('');
    }
    this.carry = '';
    this.carryParts = [];
    this.carryLen = 0;
    return line;
  }

  /** Stop reading (the file is closed). */
  close(): void {
    this.done = true;
    void this.it.return?.();
  }

  /** Take the next line; call fill() first. */
  take(): Line {
    const text = this.q[this.qi++]!;
    const nl = !(this.lastPartial && this.qi === this.q.length);
    if (this.qi >= this.q.length) {
      this.q = [];
      this.qi = 0;
    }
    return { text, nl };
  }
  hasBuffered(): boolean {
    return this.qi < this.q.length;
  }
}

export interface ExecOptions {
  quiet: boolean;
  separate: boolean;
  nullData: boolean;
  lineLength: number;
  /** -i: suffix ('' without a backup); undefined when not editing in place. */
  inPlace?: string;
}

export interface AppendItem {
  text?: string;
  file?: string;
}

export const QUIT = Symbol('quit');
/** A `$` address was reached before the runner looked past the line (see SedRunner.last). */
export const NEED_LAST = Symbol('need-last');

/** Standard output, standard error and the w files, opened while the script is parsed. */
export class SedOutputs {
  readonly stdout: Out;
  readonly stderr: Out;
  readonly wouts = new Map<string, Out>();
  readonly writers: AtomicWriter[] = [];
  constructor(private readonly ctx: CommandContext, private readonly delim: string) {
    this.stdout = new Out((b) => ctx.stdout.write(b), delim, undefined, () => ctx.stdout.room?.() ?? Infinity);
    this.stderr = new Out((b) => ctx.stderr.write(b), delim);
  }

  /** A w file, opened (truncated) as GNU does when the parser reaches it. */
  open(name: string): void {
    if (name === '/dev/stdout') this.wouts.set(name, new Out(() => undefined, this.delim, this.stdout));
    else if (name === '/dev/stderr') this.wouts.set(name, this.stderr);
    else {
      let w: AtomicWriter;
      try {
        w = this.ctx.fs.createWriter(name, this.ctx.cwd);
      } catch (e) {
        if (e instanceof VfsError) throw new SedError(`couldn't open file ${name}: ${e.reason}`, 4);
        throw e;
      }
      this.writers.push(w);
      this.wouts.set(name, new Out((b) => w.write(b), this.delim));
    }
  }

  /** The script failed: the files opened so far stay, empty, as in GNU. */
  commitOpened(): void {
    for (const w of this.writers) w.commit();
  }
}
