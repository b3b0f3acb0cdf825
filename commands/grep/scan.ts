import { valueLimit } from '../../src/runtime/memory.js';
import { NoshError } from '../../src/errors.js';
import { type GlobMatcher } from '../../src/gnulib/fnmatch.js';
import { FilterRule } from './include.js';
import { CHUNK } from './matcher.js';
import type { CommandContext } from '../../src/command/index.js';
import type { Matcher } from './matcher.js';

// Searching one input (GNU grep()'s state) and the output buffer.
// ---- options -----------------------------------------------------------------------

export interface Opts {
  invert: boolean;
  count: boolean;
  list: '' | 'l' | 'L';
  quiet: boolean;
  only: boolean;
  lineNo: boolean;
  byteOff: boolean;
  tab: boolean;
  nullName: boolean;
  /** --color=always: GNU's SGR sequences with the default GREP_COLORS. */
  color: boolean;
  z: boolean;
  before: number;
  after: number;
  maxCount: number;
  binary: 'binary' | 'text' | 'without-match';
  noMessages: boolean;
  recurse: '' | 'r' | 'R';
  /** -d skip: directory operands are passed over in silence. */
  skipDirs: boolean;
  /** -D skip: FIFOs, sockets and devices named on the command line are passed over in silence. */
  skipDevices: boolean;
  groupSep: string | null;
  label: string;
  fileRules: FilterRule[];
  dirRules: GlobMatcher[];
}

/**
 * --color=always: GNU's sgr_start/sgr_end around a piece, with the default GREP_COLORS
 * (ms=mc=01;31 matches, fn=35 file names, ln=32 line numbers, bn=32 byte offsets, se=36
 * separators; sl and cx empty: lines themselves are not coloured).
 */
export const SGR = { match: '01;31', file: '35', line: '32', byte: '32', sep: '36' } as const;
export function sgr(color: string, text: string): string {
  return `\x1b[${color}m\x1b[K${text}\x1b[m\x1b[K`;
}

/** Output is sent on once this much is pending. */
export const FLUSH_AT = 64 * 1024;
/** Whole-file reads of the walk go into one reused buffer (output copies what it keeps). */
export const SMALL_FILE = 64 * 1024;

/**
 * Pending output: small pieces are copied into one block (a file's bytes may be in the reused
 * read buffer); a big piece gets its own copy instead of growing the block.
 */
export class OutBuffer {
  private parts: Buffer[] = [];
  private block = Buffer.allocUnsafe(FLUSH_AT);
  private used = 0;
  size = 0;

  push(b: Buffer | string): void {
    const n = b.length; // a string here is a byte string (latin1): one char per byte
    if (n > 4096) {
      this.seal();
      this.parts.push(typeof b === 'string' ? Buffer.from(b, 'latin1') : Buffer.from(b));
    } else {
      if (this.used + n > this.block.length) {
        this.seal();
        this.block = Buffer.allocUnsafe(FLUSH_AT);
      }
      if (typeof b === 'string') this.block.write(b, this.used, 'latin1');
      else b.copy(this.block, this.used);
      this.used += n;
    }
    this.size += n;
  }

  /** Everything pending, handed over (the buffer starts empty again). */
  take(): Buffer {
    this.seal();
    const data = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    return data;
  }

  /** Drop what was pushed after the first `size` bytes. */
  truncate(size: number): void {
    if (size >= this.size) return;
    const keep = Buffer.from(this.take().subarray(0, size));
    if (keep.length > 0) this.parts.push(keep);
    this.size = keep.length;
  }

  private seal(): void {
    if (this.used === 0) return;
    this.parts.push(this.block.subarray(0, this.used));
    this.block = this.block.subarray(this.used);
    this.used = 0;
  }
}


export function dirOf(display: string): string {
  const i = display.lastIndexOf('/');
  return i < 0 ? '' : i === 0 ? '/' : display.slice(0, i);
}


/** What a Scan needs of the run it belongs to (recurse.ts GrepRun). */
export interface ScanHost {
  readonly ctx: CommandContext;
  readonly o: Opts;
  readonly m: Matcher;
  readonly eol: number;
  readonly eolChar: string;
  readonly quietOut: boolean;
  readonly ctxOn: boolean;
  outFile: boolean | 'auto';
  used: boolean;
  exitNow: boolean;
  push(b: Buffer | string): void;
  heldTooMuch(bounded: boolean): boolean;
  flush(force?: boolean): Promise<void>;
}

/** One input being searched: GNU grep()'s state. */
export class Scan {
  nlines = 0;
  binaryMatched = false;
  private outleft: number;
  private pending = 0;
  private done = false;
  private binary = false;
  private firstNull = -1;
  private quiet: boolean;
  private doneOnMatch: boolean;
  private nameHead: string | null = null;
  private readonly showName: boolean;
  // positions
  private bufStart = 0;
  private lastOut = -1;
  private buf: Buffer = Buffer.alloc(0);
  private s = '';
  private nlCount = 0;
  private nlPos = 0;
  private ring: { abs: number; bytes: Buffer; lineNo: number }[] = [];

  constructor(private readonly g: ScanHost, private readonly name: string, private readonly width: number) {
    const o = g.o;
    this.outleft = o.maxCount;
    this.quiet = g.quietOut;
    this.doneOnMatch = o.list !== '' || o.quiet;
    this.showName = g.outFile === true;

  }

  async run(src: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    const eol = this.g.eol;
    // The start of a line that goes on in later chunks, in pieces: joined once the line ends
    // (a concat per chunk would copy a long line again for every chunk).
    const carry: Buffer[] = [];
    let carried = 0;
    const cap = this.lineCap();
    const hold = (b: Buffer) => {
      carried += b.length;
      if (carried > cap) throw this.lineTooLong(cap);
      carry.push(Buffer.from(b));
    };
    for await (const chunk of src as AsyncIterable<Uint8Array>) {
      let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (carry.length > 0 && buf.indexOf(eol) < 0) {
        hold(buf);
        continue;
      }
      if (carry.length > 0) {
        carry.push(buf);
        buf = Buffer.concat(carry);
        carry.length = 0;
        carried = 0;
      }
      const last = buf.lastIndexOf(eol);
      if (last < 0) {
        hold(buf);
        continue;
      }
      if (last + 1 < buf.length) hold(buf.subarray(last + 1));
      this.chunk(buf.subarray(0, last + 1), buf);
      await this.g.flush();
      if (this.done || this.g.exitNow) return this.finish();
    }
    const rest = Buffer.concat(carry);
    if (rest.length > 0) this.chunk(rest);
    this.finish();
  }

  /**
   * A regular file, read by `read(into, offset, length)` (the count; short at its end) into
   * one buffer that is kept: the partial last line moves to its front after each chunk, so
   * no chunk is allocated, concatenated or copied (fresh buffers cost a big file page faults
   * and garbage collections). `size`: the file's size when opened; `first`: what was read of
   * it already. Nothing keeps a view of the buffer past a chunk: output, the before-context
   * ring and the carried line are copies.
   */
  async runReads(read: (into: Buffer, offset: number, length: number) => number, size: number, first: Buffer | null = null): Promise<void> {
    const eol = this.g.eol;
    let kept = first ? first.length : 0; // bytes of a partial last line at buf's start
    // A small file gets a buffer of its size + 1: one read sees its end.
    let buf = Buffer.allocUnsafe(kept + Math.min(2 * CHUNK, Math.max(size - kept, 0) + 1));
    if (first) first.copy(buf);
    const cap = this.lineCap();
    for (;;) {
      if (buf.length - kept < Math.min(CHUNK, buf.length >> 1)) {
        if (kept >= cap) throw this.lineTooLong(cap);
        const bigger = Buffer.allocUnsafe(Math.min(Math.max(2 * buf.length, kept + CHUNK), cap + CHUNK));
        buf.copy(bigger, 0, 0, kept);
        buf = bigger;
      }
      const want = buf.length - kept;
      const n = read(buf, kept, want);
      const end = kept + n;
      const last = n === 0 ? -1 : buf.lastIndexOf(eol, end - 1);
      if (last >= 0) {
        this.chunk(buf.subarray(0, last + 1), buf.subarray(0, end));
        await this.g.flush();
        if (this.done || this.g.exitNow) return this.finish();
        buf.copyWithin(0, last + 1, end);
        kept = end - last - 1;
      } else kept = end;
      if (n < want) break; // a regular file read short is at its end
    }
    if (kept > 0) this.chunk(buf.subarray(0, kept));
    this.finish();
  }

  /**
   * The longest line held whole: a line grows in memory until its end is seen, so one past
   * the worker's budget (a quarter of it, see valueLimit) or limits.maxBufferBytes is
   * refused early with MEMORY_LIMIT (a 4 GB file without a newline once grew the process
   * to 4 GB: file reads grow a Buffer that the worker's heap limit does not see). GNU grep
   * would treat a binary file's NULs as line ends; cutting there keeps memory bounded but a
   * run of NULs then costs a line each (a 4 GB sparse file ran into the timeout), so nosh
   * refuses, quickly, instead.
   */
  private lineCap(): number {
    return Math.min(this.g.ctx.limits.maxBufferBytes, valueLimit());
  }

  private lineTooLong(cap: number): NoshError {
    const mb = Math.max(1, Math.round(cap / (1024 * 1024)));
    return new NoshError('MEMORY_LIMIT', `${this.name}: a line longer than ${mb} MB: grep holds each line whole, and this one passes what the worker may hold`,
      'Cut the input into lines first (tr, fold or cut), or search a part of it (head -c N FILE | grep ...).',
      { max_line_bytes: cap });
  }

  /** The whole input at once (a small file): as run, without awaiting. */
  whole(buf: Buffer): void {
    const last = buf.lastIndexOf(this.g.eol);
    if (buf.length === 0) { /* empty file: nothing to search */ }
    else if (last + 1 === buf.length || last < 0) this.chunk(buf);
    else {
      this.chunk(buf.subarray(0, last + 1), buf);
      if (!this.done && !this.g.exitNow) this.chunk(buf.subarray(last + 1));
    }
    this.finish();
  }

  private finish(): void {
    if (this.binary && !this.g.quietOut && this.nlines > this.firstNull) this.binaryMatched = true;
  }

  /** Search buf (whole lines but maybe the last); `read` (buf and its partial last line, as
   * GNU's buffer holds them) is what binary detection looks at. */
  private chunk(buf: Buffer, read = buf): void {
    const o = this.g.o;
    this.buf = buf;
    this.nlPos = 0;
    if (!this.binary && o.binary !== 'text' && !o.z && read.indexOf(0) >= 0) {
      if (o.binary === 'without-match') {
        this.nlines = 0;
        this.done = true;
        return;
      }
      this.binary = true;
      this.firstNull = this.nlines;
      this.quiet = true;
      if (!o.count) this.doneOnMatch = true;
    }
    let s = buf.toString('latin1');
    if (this.binary) s = s.replace(/\0/g, '\n');
    this.s = s;
    const len = s.length;
    if (this.outleft <= 0) {
      if (!this.quiet && this.pending > 0) this.gap(0, len);
      if (this.pending <= 0) this.done = true;
    } else if (o.invert) {
      let pos = 0;
      while (pos < len && !this.stopped()) {
        const m = this.next(pos);
        const end = m ? m[0] : len;
        while (pos < end && !this.stopped()) {
          let le = s.indexOf(this.g.eolChar, pos);
          if (le < 0) le = len;
          this.selected(pos, le);
          pos = le + 1;
        }
        if (this.stopped() || !m) break;
        this.gap(m[0], m[1] + 1);
        pos = m[1] + 1;
      }
      if (pos < len) this.gap(pos, len);
    } else {
      let pos = 0;
      while (pos < len && !this.stopped()) {
        const m = this.next(pos);
        if (!m) break;
        this.gap(pos, m[0]);
        this.selected(m[0], m[1]);
        pos = m[1] + 1;
      }
      if (pos < len) this.gap(pos, len);
    }
    if (this.outleft <= 0 && this.pending <= 0) this.done = true;
    this.endChunk();
    this.bufStart += buf.length;
  }

  private stopped(): boolean {
    return this.done || this.outleft <= 0 || this.g.exitNow;
  }

  /** Next selected-by-pattern line at or after pos (a line start): [start, end of line). */
  private next(pos: number): [number, number] | null {
    const s = this.s;
    const len = s.length;
    const eolChar = this.g.eolChar;
    const m = this.g.m;
    if (m.none) return null;
    if (m.lineIn) return m.lineIn(s, pos, eolChar);
    const re = m.bufRe;
    if (!re) {
      while (pos < len) {
        let le = s.indexOf(eolChar, pos);
        if (le < 0) le = len;
        if (m.test(s.slice(pos, le))) return [pos, le];
        pos = le + 1;
      }
      return null;
    }
    for (;;) {
      re.lastIndex = pos;
      const hit = re.exec(s);
      if (!hit) return null;
      const idx = hit.index;
      if (idx >= len && (len === 0 || s.charCodeAt(len - 1) === 10)) return null;
      const ls = idx === 0 ? 0 : s.lastIndexOf('\n', idx - 1) + 1;
      let le = s.indexOf('\n', idx);
      if (le < 0) le = len;
      if (re.lastIndex > le && !m.test(s.slice(ls, le))) {
        // The match ran across a line end (e.g. \s took the newline): not a match of this line.
        if (le >= len) return null;
        pos = le + 1;
        continue;
      }
      return [ls, le];
    }
  }

  private lineNoAt(i: number): number {
    const buf = this.buf;
    const eol = this.g.eol;
    let p = this.nlPos;
    let n = this.nlCount;
    while (p < i) {
      const j = buf.indexOf(eol, p);
      if (j < 0 || j >= i) break;
      n++;
      p = j + 1;
    }
    this.nlPos = p;
    this.nlCount = n;
    return n + 1;
  }

  private selected(ls: number, le: number): void {
    this.nlines++;
    this.outleft--;
    if (this.g.o.quiet) {
      this.g.exitNow = true;
      return;
    }
    if (this.quiet) {
      // GNU's prtext sets `used` even when it prints nothing (a binary file's match): the
      // next group printed, in a later file, gets a separator.
      this.g.used = true;
      if (this.doneOnMatch) this.done = true;
      return;
    }
    this.printBefore(ls);
    this.printLine(ls, le, ':');
    this.pending = Math.max(0, this.g.o.after);
    this.g.used = true;
  }

  /** Non-selected lines in [from, to): trailing context of the previous selected line. */
  private gap(from: number, to: number): void {
    if (this.quiet) return;
    const s = this.s;
    while (this.pending > 0 && from < to) {
      let le = s.indexOf(this.g.eolChar, from);
      if (le < 0) le = s.length;
      this.printLine(from, le, '-');
      this.pending--;
      from = le + 1;
    }
  }

  private printBefore(ls: number): void {
    const g = this.g;
    const B = g.o.before;
    const s = this.s;
    const eolChar = g.eolChar;
    const bound = this.lastOut >= this.bufStart ? this.lastOut - this.bufStart : 0;
    let p = ls;
    let k = 0;
    while (k < B && p > bound) {
      p = p - 1 === 0 ? 0 : s.lastIndexOf(eolChar, p - 2) + 1;
      k++;
    }
    let fromRing: { abs: number; bytes: Buffer; lineNo: number }[] = [];
    if (k < B && p === 0 && this.ring.length > 0) {
      fromRing = this.ring.filter((r) => r.abs >= this.lastOut).slice(-(B - k));
    }
    const groupStart = fromRing.length > 0 ? fromRing[0]!.abs : this.bufStart + p;
    if (g.ctxOn && g.used && groupStart !== this.lastOut && g.o.groupSep !== null) {
      g.push(g.o.color ? sgr(SGR.sep, g.o.groupSep) + '\n' : g.o.groupSep + '\n');
    }
    for (const r of fromRing) {
      if (!g.o.only) {
        g.push(this.head(r.abs, r.lineNo, '-', r.bytes.length > 1));
        if (g.o.color && g.o.invert) {
          const end = r.bytes.length > 0 && r.bytes[r.bytes.length - 1] === g.eol ? r.bytes.length - 1 : r.bytes.length;
          this.pushColored(r.bytes.toString('latin1', 0, end), r.bytes, 0);
          g.push(r.bytes.subarray(end));
        } else g.push(r.bytes);
      } else if (g.o.invert) {
        const end = r.bytes.length > 0 && r.bytes[r.bytes.length - 1] === g.eol ? r.bytes.length - 1 : r.bytes.length;
        this.printOnly(r.bytes.toString('latin1', 0, end), r.bytes, 0, r.abs, r.lineNo, '-');
      }
      this.lastOut = r.abs + r.bytes.length;
    }
    while (p < ls) {
      const le = s.indexOf(eolChar, p);
      this.printLine(p, le, '-');
      p = le + 1;
    }
  }

  private head(abs: number, lineNo: number, sep: string, nonEmpty: boolean): string {
    const o = this.g.o;
    let h = '';
    if (o.color) {
      const cs = sgr(SGR.sep, sep);
      if (this.showName) h += sgr(SGR.file, this.nameHead ??= Buffer.from(this.name, 'utf8').toString('latin1')) + (o.nullName ? '\0' : cs);
      if (o.lineNo) h += sgr(SGR.line, String(lineNo).padStart(this.width)) + cs;
      if (o.byteOff) h += sgr(SGR.byte, String(abs).padStart(this.width)) + cs;
    } else {
      if (this.showName) h += (this.nameHead ??= Buffer.from(this.name, 'utf8').toString('latin1')) + (o.nullName ? '\0' : sep);
      if (o.lineNo) h += String(lineNo).padStart(this.width) + sep;
      if (o.byteOff) h += String(abs).padStart(this.width) + sep;
    }
    if (o.tab && h !== '' && nonEmpty) h += '\t';
    return h;
  }

  private printLine(ls: number, le: number, sep: string): void {
    const g = this.g;
    const o = g.o;
    const buf = this.buf;
    const lineNo = o.lineNo ? this.lineNoAt(ls) : 0;
    const eol = g.eolChar;
    if (o.only) {
      // GNU prints the matches of the lines that match: selected ones, or context with -v.
      if ((sep === ':') !== o.invert) this.printOnly(this.s.slice(ls, le), buf, ls, this.bufStart + ls, lineNo, sep);
    } else {
      g.push(this.head(this.bufStart + ls, lineNo, sep, le > ls));
      // GNU colours the matches of matching lines: selected ones, or context with -v.
      if (o.color && (sep === ':') !== o.invert) this.pushColored(this.s.slice(ls, le), buf, ls);
      else g.push(buf.subarray(ls, le));
      g.push(eol);
      g.heldTooMuch(false);
    }
    this.lastOut = this.bufStart + Math.min(le + 1, buf.length);
  }

  /** A line (`line`, at `from` in `bytes`) with each non-empty match in the match colour. */
  private pushColored(line: string, bytes: Buffer, from: number): void {
    const g = this.g;
    let done = 0;
    for (let m = g.m.match(line, 0); m !== null; m = g.m.match(line, m[1])) {
      if (m[0] > done) g.push(bytes.subarray(from + done, from + m[0]));
      g.push(sgr(SGR.match, bytes.toString('latin1', from + m[0], from + m[1])));
      done = m[1];
    }
    if (done < line.length) g.push(bytes.subarray(from + done, from + line.length));
  }

  /** -o: each match of `line` (at `from` in `bytes`, at offset `abs` in the input) on its own line. */
  private printOnly(line: string, bytes: Buffer, from: number, abs: number, lineNo: number, sep: string): void {
    const g = this.g;
    for (let m = g.m.match(line, 0); m !== null; m = g.m.match(line, m[1])) {
      g.push(this.head(abs + m[0], lineNo, sep, true));
      if (g.o.color) g.push(sgr(SGR.match, bytes.toString('latin1', from + m[0], from + m[1])));
      else g.push(bytes.subarray(from + m[0], from + m[1]));
      g.push(g.eolChar);
      if (g.heldTooMuch(true)) return;
    }
  }

  private endChunk(): void {
    const o = this.g.o;
    if (o.lineNo) this.lineNoAt(this.buf.length);
    if (o.before <= 0 || this.quiet || this.done) return;
    // Keep the last B lines not yet printed for the next chunk's leading context.
    const s = this.s;
    const eolChar = this.g.eolChar;
    const bound = this.lastOut >= this.bufStart ? this.lastOut - this.bufStart : 0;
    const lines: { abs: number; bytes: Buffer; lineNo: number }[] = [];
    let end = s.length;
    let n = this.nlCount;
    // Gathered last first, then turned once (unshift per line was quadratic for a big -B).
    while (lines.length < o.before && end > bound) {
      const start = end - 1 === 0 ? 0 : s.lastIndexOf(eolChar, end - 2) + 1;
      lines.push({ abs: this.bufStart + start, bytes: Buffer.from(this.buf.subarray(start, end)), lineNo: n });
      n--;
      end = start;
    }
    lines.reverse();
    if (lines.length >= o.before) {
      this.ring = lines;
      return;
    }
    // Kept in place (a copy of the ring per chunk was quadratic for a big -B): lines already
    // printed are its start (it is in input order), and past B lines the oldest go.
    const ring = this.ring;
    let printed = 0;
    while (printed < ring.length && ring[printed]!.abs < this.lastOut) printed++;
    if (printed > 0) ring.splice(0, printed);
    for (const l of lines) ring.push(l);
    if (ring.length > o.before) ring.splice(0, ring.length - o.before);
  }
}

/** The bytes of -f / --exclude-from FILE ('-': standard input); a failure ends grep with its reason. */
