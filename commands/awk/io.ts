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
  return { readSync, readAsync: async () => readSync(), close: () => r.close() };
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

/** Records of one input, by RS. */
export class RecordReader {
  private buf = '';
  private pos = 0;
  eof = false;
  /** The terminator of the last record (RT). */
  rt = '';
  constructor(readonly src: ByteSource) {}

  get sync(): boolean {
    return this.src.readSync !== undefined;
  }

  private add(chunk: Uint8Array | null): void {
    if (chunk === null) { this.eof = true; return; }
    const s = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    this.buf = this.pos < this.buf.length ? this.buf.slice(this.pos) + s : s;
    this.pos = 0;
  }
  fillSync(): void {
    this.add(this.src.readSync!());
  }
  async fillAsync(): Promise<void> {
    this.add(await this.src.readAsync());
  }

  /** The next record, null at the end, NEED when more input must be read first. */
  next(rs: string): string | null | typeof NEED {
    const buf = this.buf;
    const pos = this.pos;
    if (rs.length === 1) {
      const i = buf.indexOf(rs, pos);
      if (i >= 0) {
        this.pos = i + 1;
        this.rt = rs;
        return buf.slice(pos, i);
      }
      if (!this.eof) return NEED;
      if (pos < buf.length) {
        this.pos = buf.length;
        this.rt = '';
        return buf.slice(pos);
      }
      return null;
    }
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

/** One output: text waits in a string, written as bytes. */
export class OutStream {
  buf = '';
  constructor(private readonly sink: (b: Buffer) => void | Promise<void>, readonly writer?: AtomicWriter,
    /** What the destination still takes before it cuts the output (the returned stdout's cap). */
    private readonly room: () => number = () => Infinity) {}
  write(s: string): void {
    this.buf += s;
    // inside one action (a BEGIN loop) nothing awaits: write past 4 MB, or past what the output still takes
    if (this.buf.length > 65536 && (this.buf.length > 4 * 1024 * 1024 || this.buf.length > this.room())) void this.flushNow();
  }
  /** Write what waits (not awaited: for a file, or when the buffer grows inside one action). */
  flushNow(): void | Promise<void> {
    if (this.buf.length === 0) return;
    const b = Buffer.from(this.buf, 'latin1');
    this.buf = '';
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
