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
   * Read up to `max` bytes of file data with `read` (one read(2): the count, 0 at the end)
   * straight into the current block: the count read.
   */
  readInto(read: (buf: Uint8Array, off: number, len: number) => number, max: number): number {
    const n = read(this.buf, this.pos, Math.min(max, TAR_BLOCK - this.pos));
    this.pos += n;
    if (this.pos === TAR_BLOCK) this.next();
    return n;
  }

  /** An entry's header (and its pax header first when the name needs one). */
  header(h: TarHeader): void {
    const block = encode(h.name, h, h.type === 'directory' ? 5 : 0, h.size);
    if (block) {
      this.bytes(block);
      return;
    }
    const pax = Buffer.from(paxRecord(' path=' + h.name + '\n'));
    this.bytes(encode('PaxHeader', h, 72, pax.length)!);
    this.bytes(pax);
    this.pad(pax.length);
    this.bytes(encode('PaxHeader', h, h.type === 'directory' ? 5 : 0, h.size)!);
  }

  /** The two zero records that end an archive. */
  end(): void {
    this.zeros(1024);
  }
}

/** One 512-byte ustar header, or null when the name needs a pax header (tar-stream's encode). */
function encode(full: string, h: TarHeader, typeflag: number, size: number): Buffer | null {
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
  const b = Buffer.alloc(512);
  b.write(name, 0, 'latin1');
  b.write(oct(h.mode & 0o7777, 6), 100, 'latin1');
  b.write(oct(h.uid, 6), 108, 'latin1');
  b.write(oct(h.gid, 6), 116, 'latin1');
  const s = size.toString(8);
  if (s.length > 11) {
    // base-256 for sizes of 8 GiB and more
    b[124] = 0x80;
    let num = size;
    for (let i = 11; i > 0; i--) {
      b[124 + i] = num & 0xff;
      num = Math.floor(num / 0x100);
    }
  } else {
    b.write(oct(size, 11), 124, 'latin1');
  }
  b.write(oct(h.mtime | 0, 11), 136, 'latin1');
  b[156] = 48 + typeflag;
  b.write('ustar\0', 257, 'latin1');
  b.write('00', 263, 'latin1');
  if (h.uname) b.write(h.uname, 265);
  if (h.gname) b.write(h.gname, 297);
  b.write(oct(0, 6), 329, 'latin1');
  b.write(oct(0, 6), 337, 'latin1');
  if (prefix) b.write(prefix, 345, 'latin1');
  let sum = 8 * 32;
  for (let i = 0; i < 148; i++) sum += b[i]!;
  for (let i = 156; i < 512; i++) sum += b[i]!;
  b.write(oct(sum, 6), 148, 'latin1');
  return b;
}
