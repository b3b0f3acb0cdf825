// Writing tar archives (tar c): ustar headers made here, byte for byte as tar-stream 3's pack
// made them (a pax header for names that are not ASCII or do not fit name + prefix; a mode of 0
// is stored as 0, as GNU tar does, where tar-stream wrote 644 or 755), into
// 1 MiB blocks that the caller writes or deflates. File data is read straight into those
// blocks: no stream, no promise and no copy per entry (tar-stream's pack cost more than the
// deflate for 1000 small files).

/** Bytes of each block handed out (the block deflate's size: one block, one deflate call). */
export const TAR_BLOCK = 1 << 20;

export interface TarHeader {
  name: string;
  type: 'file' | 'directory';
  size: number;
  mode: number;
  uid: number;
  gid: number;
  uname: string;
  gname: string;
  /** Seconds. */
  mtime: number;
}

const ZEROS = '0000000000000000000';
const SEVENS = '7777777777777777777';

function oct(val: number, n: number): string {
  const s = val.toString(8);
  if (s.length > n) return SEVENS.slice(0, n) + ' ';
  return ZEROS.slice(0, n - s.length) + s + ' ';
}

/** tar-stream's addLength: a pax record's length includes its own digits. */
function paxRecord(str: string): string {
  const len = Buffer.byteLength(str);
  let digits = Math.floor(Math.log(len) / Math.log(10)) + 1;
  if (len + digits >= Math.pow(10, digits)) digits++;
  return len + digits + str;
}

/** The archive's bytes in fresh 1 MiB blocks (`take` them; each is owned by the taker). */
export class TarOut {
  private buf = Buffer.alloc(TAR_BLOCK);
  private pos = 0;
  private ready: Buffer[] = [];

  /** Full blocks since the last take. */
  take(): Buffer[] {
    const r = this.ready;
    this.ready = [];
    return r;
  }

  /** Everything written so far, the last block cut to its length. */
  takeAll(): Buffer[] {
    if (this.pos > 0) this.ready.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.alloc(TAR_BLOCK);
    this.pos = 0;
    return this.take();
  }

  private next(): void {
    this.ready.push(this.buf);
    this.buf = Buffer.alloc(TAR_BLOCK);
    this.pos = 0;
  }

  /** Zero bytes (blocks are allocated zeroed). */
  zeros(n: number): void {
    while (n > 0) {
      const k = Math.min(n, TAR_BLOCK - this.pos);
      this.pos += k;
      n -= k;
      if (this.pos === TAR_BLOCK) this.next();
    }
  }

  private bytes(b: Uint8Array): void {
    let off = 0;
    while (off < b.length) {
      const k = Math.min(b.length - off, TAR_BLOCK - this.pos);
      this.buf.set(b.subarray(off, off + k), this.pos);
      this.pos += k;
      off += k;
      if (this.pos === TAR_BLOCK) this.next();
    }
  }

  /** Pad to the 512-byte record after `size` bytes of data. */
  pad(size: number): void {
    const r = size & 511;
    if (r) this.zeros(512 - r);
  }

  /**
   * Copy a file's data with `read` until `left` bytes are in (or the file ends, or, with
   * `oneBlock`, a block is full): the bytes still missing.
   */
  copy(read: (buf: Uint8Array, off: number, len: number) => number, left: number, oneBlock: boolean): number {
    while (left > 0) {
      const n = this.readInto(read, left);
      if (n === 0) break;
      left -= n;
      if (oneBlock && this.ready.length > 0) break;
    }
    return left;
  }

  /** Blocks full and not taken yet. */
  get pending(): number {
    return this.ready.length;
  }

  /**
   * Read up to `max` bytes of file data with `read` (one read(2): the count, 0 at the end)
   * straight into the current block: the count read.
   */
  readInto(read: (buf: Uint8Array, off: number, len: number) => number, max: number): number {
    const n = read(this.buf, this.pos, Math.min(max, TAR_BLOCK - this.pos));
    this.pos += n;
    if (this.pos === TAR_BLOCK) this.next();
    return n;
  }

  /** An entry's header (and its pax header first when the name needs one), made in place. */
  header(h: TarHeader): void {
    const type = h.type === 'directory' ? 5 : 0;
    const parts = split(h.name, type);
    if (parts) {
      this.record(parts.name, parts.prefix, h, type, h.size);
      return;
    }
    const pax = Buffer.from(paxRecord(' path=' + h.name + '\n'));
    this.record('PaxHeader', '', h, 72, pax.length);
    this.bytes(pax);
    this.pad(pax.length);
    this.record('PaxHeader', '', h, type, h.size);
  }

  /** One 512-byte header at the current place (always on a record boundary, in zeroed space). */
  private record(name: string, prefix: string, h: TarHeader, typeflag: number, size: number): void {
    write(this.buf, this.pos, name, prefix, h, typeflag, size);
    this.pos += 512;
    if (this.pos === TAR_BLOCK) this.next();
  }

  /** The two zero records that end an archive. */
  end(): void {
    this.zeros(1024);
  }
}

/** tar-stream's split of a name into ustar's name and prefix; null when it needs a pax header. */
function split(full: string, typeflag: number): { name: string; prefix: string } | null {
  let name = full;
  let prefix = '';
  if (typeflag === 5 && !name.endsWith('/')) name += '/';
  if (Buffer.byteLength(name) !== name.length) return null; // not ASCII
  while (name.length > 100) {
    const i = name.indexOf('/');
    if (i === -1) return null;
    prefix += prefix ? '/' + name.slice(0, i) : name.slice(0, i);
    name = name.slice(i + 1);
  }
  if (name.length > 100 || prefix.length > 155) return null;
  return { name, prefix };
}

/** A ustar header into b[at, at + 512), which is zeroed (tar-stream's encode). */
function write(b: Buffer, at: number, name: string, prefix: string, h: TarHeader, typeflag: number, size: number): void {
  b.write(name, at, 'latin1');
  b.write(oct(h.mode & 0o7777, 6), at + 100, 'latin1');
  b.write(oct(h.uid, 6), at + 108, 'latin1');
  b.write(oct(h.gid, 6), at + 116, 'latin1');
  const s = size.toString(8);
  if (s.length > 11) {
    // base-256 for sizes of 8 GiB and more
    b[at + 124] = 0x80;
    let num = size;
    for (let i = 11; i > 0; i--) {
      b[at + 124 + i] = num & 0xff;
      num = Math.floor(num / 0x100);
    }
  } else {
    b.write(oct(size, 11), at + 124, 'latin1');
  }
  b.write(oct(h.mtime | 0, 11), at + 136, 'latin1');
  b[at + 156] = 48 + typeflag;
  b.write('ustar\0', at + 257, 'latin1');
  b.write('00', at + 263, 'latin1');
  if (h.uname) b.write(h.uname, at + 265);
  if (h.gname) b.write(h.gname, at + 297);
  b.write(oct(0, 6), at + 329, 'latin1');
  b.write(oct(0, 6), at + 337, 'latin1');
  if (prefix) b.write(prefix, at + 345, 'latin1');
  let sum = 8 * 32;
  for (let i = at; i < at + 148; i++) sum += b[i]!;
  for (let i = at + 156; i < at + 512; i++) sum += b[i]!;
  b.write(oct(sum, 6), at + 148, 'latin1');
}
