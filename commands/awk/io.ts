/** awk's input records (streamed, RS as gawk) and output streams (stdout, stderr, files in the zone). */
import type { CommandContext } from '../../src/command/index.js';
import { VfsError, type AtomicWriter, type RandomReader } from '../../src/vfs/index.js';
import { awkRegexG, AwkFatal } from './regex.js';

const CHUNK = 256 * 1024;

/** awk works on byte strings (latin1); a file name goes to the Vfs as the text its bytes spell (UTF-8). */
export function vpath(name: string): string {
  return /[\x80-\xff]/.test(name) ? Buffer.from(name, 'latin1').toString('utf8') : name;
}
export const NEED = Symbol('need');

/** A diagnostic as gawk prints it: the name it was run as (awk or gawk), then the message. */
export async function say(ctx: CommandContext, msg: string): Promise<void> {
  await ctx.stderr.write(`${ctx.name}: ${msg}\n`);
}

export interface ByteSource {
  /** Sync read (files); undefined for a stream. */
  readSync?: () => Uint8Array | null;
  readAsync: () => Promise<Uint8Array | null>;
  /** Sync read into buf[off, off+len) (files): the bytes read, 0 at the end. */
  readInto?: (buf: Buffer, off: number, len: number) => number;
  close(): void;
}

export function fileSource(r: RandomReader): ByteSource {
  let pos = 0;
  const readSync = (): Uint8Array | null => {
    const buf = Buffer.allocUnsafe(CHUNK);
    const got = r.readAt(buf, pos);
    if (got === 0) return null;
    pos += got;
    return buf.subarray(0, got);
  };
  const readInto = (buf: Buffer, off: number, len: number): number => {
    const got = r.readAt(buf.subarray(off, off + len), pos);
    pos += got;
    return got;
  };
  return { readSync, readInto, readAsync: async () => readSync(), close: () => r.close() };
}

export function streamSource(it: AsyncIterator<Uint8Array>): ByteSource {
  return {
    readAsync: async () => {
      for (;;) {
        const r = await it.next();
        if (r.done) return null;
        if (r.value.length > 0) return r.value;
      }
    },
    close: () => void it.return?.(),
  };
}

export function bufferSource(b: Buffer): ByteSource {
  let done = false;
  const readSync = (): Uint8Array | null => {
    if (done) return null;
    done = true;
    return b;
  };
  return { readSync, readAsync: async () => readSync(), close: () => undefined };
}

/** latin1 text of bytes [s, e) (Buffer#latin1Slice: no encoding lookup per call). */
export function latin1(b: Buffer, s: number, e: number): string {
  return (b as unknown as { latin1Slice(s: number, e: number): string }).latin1Slice(s, e);
}

const asBuffer = (c: Uint8Array): Buffer => (Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength));
const EMPTY = Buffer.alloc(0);

/**
 * Records of one input, by RS. A one-character RS is cut on the bytes (indexOf on a Buffer, no
 * decoding: the record is the span rb[rbs, rbe) until the next call); paragraph mode and a regex
 * RS work on latin1 text. The unread input is held in one of the two forms at a time: bytes
 * (b[bpos, bend)) or text (buf from pos); a change of RS between records converts it.
 */
export class RecordReader {
  private buf = '';
  private pos = 0;
  private bytes = false;
  private b: Buffer = EMPTY;
  private bpos = 0;
  private bend = 0;
  /** Where the search for the separator resumes (bytes before it hold none). */
  private scan = 0;
  /** The last record found by nextSpan: rb[rbs, rbe), valid until the next read. */
  rb: Buffer = EMPTY;
  rbs = 0;
  rbe = 0;
  eof = false;
  /** The terminator of the last record (RT). */
  rt = '';
  constructor(readonly src: ByteSource) {}

  get sync(): boolean {
    return this.src.readSync !== undefined;
  }

  private add(chunk: Uint8Array | null): void {
    if (chunk === null) { this.eof = true; return; }
    if (this.bytes) { this.addBytes(asBuffer(chunk)); return; }
    const s = latin1(asBuffer(chunk), 0, chunk.byteLength);
    this.buf = this.pos < this.buf.length ? this.buf.slice(this.pos) + s : s;
    this.pos = 0;
  }
  /** Append a chunk to the unread bytes; a long unread record grows its buffer by doubling. */
  private addBytes(c: Buffer): void {
    const left = this.bend - this.bpos;
    if (left === 0) {
      this.b = c; this.bpos = 0; this.bend = c.length; this.scan = 0;
      return;
    }
    // never written over in place below bend: the current record (or getline's) may still be read
    if (this.b.length - this.bend >= c.length) {
      c.copy(this.b, this.bend);
      this.bend += c.length;
      return;
    }
    const cap = left > 65536 ? Math.max(2 * left, left + c.length) : left + c.length;
    const nb = Buffer.allocUnsafe(cap);
    this.b.copy(nb, 0, this.bpos, this.bend);
    c.copy(nb, left);
    this.scan -= this.bpos;
    this.b = nb; this.bpos = 0; this.bend = left + c.length;
  }
  /** The two buffers a file is read into in turn (bytes mode), so reading makes no new memory. */
  private spare: Buffer | null = null;
  /** The buffer of the last span handed out by nextSpan (the record the program holds). */
  private held: Buffer | null = null;
  private fillInto(): void {
    const left = this.bend - this.bpos;
    let nb = this.spare;
    // the spare buffer is free unless it holds the record handed out last (a record longer than a buffer)
    if (nb === null || nb === this.held || nb.length - left < CHUNK) nb = Buffer.allocUnsafe(left + CHUNK <= CHUNK * 4 ? CHUNK * 4 : Math.max(2 * left, left + CHUNK));
    if (left > 0) this.b.copy(nb, 0, this.bpos, this.bend);
    const got = this.src.readInto!(nb, left, nb.length - left);
    if (got === 0) this.eof = true;
    this.spare = this.b === EMPTY ? null : this.b;
    this.scan = this.scan > this.bpos ? this.scan - this.bpos : 0;
    this.b = nb; this.bpos = 0; this.bend = left + got;
  }
  fillSync(): void {
    if (this.bytes && this.src.readInto) { this.fillInto(); return; }
    this.add(this.src.readSync!());
  }
  async fillAsync(): Promise<void> {
    if (this.bytes && this.src.readInto) { this.fillInto(); return; }
    this.add(await this.src.readAsync());
  }

  /** Hold the unread input as bytes (a one-character RS). */
  private toBytes(): void {
    this.bytes = true;
    const rest = this.pos < this.buf.length ? this.buf.slice(this.pos) : '';
    this.buf = ''; this.pos = 0;
    this.b = rest === '' ? EMPTY : Buffer.from(rest, 'latin1');
    this.bpos = 0; this.bend = this.b.length; this.scan = 0;
  }
  /** Hold the unread input as text (paragraph mode, a regex RS). */
  private toText(): void {
    this.bytes = false;
    this.spare = null;
    this.buf = this.bpos < this.bend ? latin1(this.b, this.bpos, this.bend) : '';
    this.pos = 0;
    this.b = EMPTY; this.bpos = 0; this.bend = 0; this.scan = 0;
  }

  /**
   * The next record cut at the byte `code` as the span rb[rbs, rbe): 1 when one was found, 0 at
   * the end, -1 when more input must be read first.
   */
  nextSpan(code: number): number {
    if (!this.bytes) this.toBytes();
    const b = this.b;
    const start = this.bpos;
    const end = this.bend;
    let i = b.indexOf(code, this.scan > start ? this.scan : start);
    if (i >= end) i = -1;
    if (i >= 0) {
      this.rb = this.held = b; this.rbs = start; this.rbe = i;
      this.bpos = this.scan = i + 1;
      this.rt = code === 10 ? '\n' : String.fromCharCode(code);
      return 1;
    }
    if (!this.eof) { this.scan = end; return -1; }
    if (start < end) {
      this.rb = this.held = b; this.rbs = start; this.rbe = end;
      this.bpos = this.scan = end;
      this.rt = '';
      return 1;
    }
    return 0;
  }

  /** The next record, null at the end, NEED when more input must be read first. */
  next(rs: string): string | null | typeof NEED {
    if (rs.length === 1 && rs.charCodeAt(0) < 256) {
      // the record is returned as text: the span handed out before stays the one held
      const held = this.held;
      const r = this.nextSpan(rs.charCodeAt(0));
      this.held = held;
      return r === 1 ? latin1(this.rb, this.rbs, this.rbe) : r === 0 ? null : NEED;
    }
    if (this.bytes) this.toText();
    if (rs === '') return this.paragraph();
    return this.regexRecord(rs);
  }

  private paragraph(): string | null | typeof NEED {
    const buf = this.buf;
    let p = this.pos;
    while (p < buf.length && buf.charCodeAt(p) === 10) p++;
    if (p >= buf.length) {
      if (!this.eof) return NEED;
      this.pos = p;
      return null;
    }
    const i = buf.indexOf('\n\n', p);
    if (i < 0) {
      if (!this.eof) return NEED;
      let e = buf.length;
      let rt = '';
      while (e > p && buf.charCodeAt(e - 1) === 10) { e--; rt += '\n'; }
      this.pos = buf.length;
      this.rt = rt;
      return buf.slice(p, e);
    }
    let e = i;
    while (e < buf.length && buf.charCodeAt(e) === 10) e++;
    if (e >= buf.length && !this.eof) return NEED;
    this.pos = e;
    this.rt = buf.slice(i, e);
    return buf.slice(p, i);
  }

  private regexRecord(rs: string): string | null | typeof NEED {
    const buf = this.buf;
    const p = this.pos;
    const re = awkRegexG(rs);
    re.lastIndex = p;
    let m = re.exec(buf);
    while (m && m[0].length === 0) {
      if (m.index >= buf.length) { m = null; break; }
      re.lastIndex = m.index + 1;
      m = re.exec(buf);
    }
    if (m && (m.index + m[0].length < buf.length || this.eof)) {
      this.pos = m.index + m[0].length;
      this.rt = m[0];
      return buf.slice(p, m.index);
    }
    if (!this.eof) return NEED;
    if (p < buf.length) {
      this.pos = buf.length;
      this.rt = '';
      return buf.slice(p);
    }
    return null;
  }

  /** Read the next record synchronously (files, or a stdin read whole). */
  nextSync(rs: string): string | null {
    for (;;) {
      const r = this.next(rs);
      if (r !== NEED) return r;
      this.fillSync();
    }
  }

  close(): void {
    this.src.close();
  }
}

/**
 * One output: text waits in a string, written as bytes. Bytes copied straight from input records
 * (writeSpan: print of a field or $0 not decoded) wait in a byte buffer, which comes first; text
 * written after them is moved into it when the next bytes come.
 */
export class OutStream {
  buf = '';
  private bytes: Buffer | null = null;
  private blen = 0;
  constructor(private readonly sink: (b: Buffer) => void | Promise<void>, readonly writer?: AtomicWriter,
    /** What the destination still takes before it cuts the output (the returned stdout's cap). */
    private readonly room: () => number = () => Infinity) {}
  /** Bytes and text waiting. */
  get size(): number {
    return this.blen + this.buf.length;
  }
  write(s: string): void {
    this.buf += s;
    // inside one action (a BEGIN loop) nothing awaits: write past 4 MB, or past what the output still takes
    const n = this.blen + this.buf.length;
    if (n > 65536 && (n > 4 * 1024 * 1024 || n > this.room())) void this.flushNow();
  }
  /** Write the bytes b[s, e), then `tail` (ORS). */
  writeSpan(b: Buffer, s: number, e: number, tail: string): void {
    if (this.buf !== '') this.spill();
    const need = this.blen + (e - s) + tail.length;
    if (this.bytes === null || need > this.bytes.length) this.grow(need);
    const o = this.bytes!;
    let p = this.blen;
    if (e - s < 48) for (let i = s; i < e; i++) o[p++] = b[i]!;
    else p += b.copy(o, p, s, e);
    for (let i = 0; i < tail.length; i++) o[p++] = tail.charCodeAt(i) & 255;
    this.blen = p;
    if (p > 65536 && (p > 4 * 1024 * 1024 || p > this.room())) void this.flushNow();
  }
  private grow(need: number): void {
    const cap = Math.max(need, 131072, this.bytes === null ? 0 : 2 * this.bytes.length);
    const nb = Buffer.allocUnsafe(cap);
    if (this.blen > 0) this.bytes!.copy(nb, 0, 0, this.blen);
    this.bytes = nb;
  }
  /** Move the waiting text behind the waiting bytes. */
  private spill(): void {
    const need = this.blen + this.buf.length;
    if (this.bytes === null || need > this.bytes.length) this.grow(need);
    this.blen += this.bytes!.write(this.buf, this.blen, 'latin1');
    this.buf = '';
  }
  /** Write what waits (not awaited: for a file, or when the buffer grows inside one action). */
  flushNow(): void | Promise<void> {
    if (this.blen === 0) {
      if (this.buf.length === 0) return;
      const b = Buffer.from(this.buf, 'latin1');
      this.buf = '';
      return this.sink(b);
    }
    if (this.buf !== '') this.spill();
    // the sink may keep the buffer: the next bytes go to a new one
    const b = this.bytes!.subarray(0, this.blen);
    this.bytes = null;
    this.blen = 0;
    return this.sink(b);
  }
  async flush(): Promise<void> {
    await this.flushNow();
  }
}

export class Outputs {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly files = new Map<string, OutStream>();
  constructor(private readonly ctx: CommandContext, private readonly readonlyZone: () => never) {
    this.stdout = new OutStream((b) => ctx.stdout.write(b), undefined, () => ctx.stdout.room?.() ?? Infinity);
    this.stderr = new OutStream((b) => ctx.stderr.write(b));
  }

  get(name: string, append: boolean): OutStream {
    const f = this.files.get(name);
    if (f) return f;
    if (name === '/dev/stdout' || name === '-') return this.stdout;
    if (name === '/dev/stderr') return this.stderr;
    if (name.startsWith('/inet')) throw new AwkFatal(`can't redirect to \`${name}': network files (/inet) are not supported in nosh`);
    if (name === '') throw new AwkFatal('expression for `>\' redirection has null string value');
    if (this.ctx.fs.policy.readonly) this.readonlyZone();
    let w: AtomicWriter;
    try {
      w = this.ctx.fs.createWriter(vpath(name), this.ctx.cwd, { append });
    } catch (e) {
      if (e instanceof VfsError) throw new AwkFatal(`cannot redirect to \`${name}': ${e.reason}`);
      throw e;
    }
    const s = new OutStream((b) => w.write(b), w);
    this.files.set(name, s);
    return s;
  }

  /** close(name) of an output: 0, or -1 when it was not open. */
  close(name: string): number {
    const f = this.files.get(name);
    if (!f) return -1;
    void f.flushNow();
    f.writer!.commit();
    this.files.delete(name);
    return 0;
  }

  flushFiles(): void {
    for (const f of this.files.values()) void f.flushNow();
  }

  closeAll(): void {
    for (const name of [...this.files.keys()]) this.close(name);
  }
}
