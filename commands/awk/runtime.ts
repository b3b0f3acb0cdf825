/** awk's run-time state: variables, the current record and its fields, input files, getline. */
import type { CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { bufferSource, fileSource, latin1, vpath, NEED, Outputs, RecordReader, streamSource, type ByteSource, type OutStream } from './io.js';
import { awkRegexG, AwkFatal } from './regex.js';
import { AwkArr, SN, strToNum, toNum, toStr, type V } from './values.js';

export const SPECIALS = ['NR', 'FNR', 'FS', 'OFS', 'ORS', 'RS', 'SUBSEP', 'CONVFMT', 'OFMT', 'RSTART', 'RLENGTH',
  'FILENAME', 'RT', 'ARGC', 'ARGV', 'ENVIRON', 'PROCINFO', 'IGNORECASE', 'FPAT', 'FIELDWIDTHS', 'BINMODE', 'LINT', 'TEXTDOMAIN', 'ERRNO'] as const;
export const S = Object.fromEntries(SPECIALS.map((n, i) => [n, i])) as { [K in typeof SPECIALS[number]]: number };

/** A parameter given an untyped variable: becomes an array in the caller too if the callee uses it as one. */
export class LazyArr {
  constructor(readonly bind: (a: AwkArr) => void) {}
}

export type Cell = V | AwkArr | LazyArr;

/** Control flow out of a function body (next, nextfile, exit). */
export class Jump {
  constructor(readonly code: number) {}
}

export const NEXT = 3;
export const NEXTFILE = 4;
export const EXIT = 5;
export const RETURN = 6;
export const BREAK = 1;
export const CONTINUE = 2;

const isWs = (c: number): boolean => c === 32 || c === 9 || c === 10;

/** Split `s` by a field separator into out[1..n]; returns n. */
export function splitBy(s: string, fs: string, out: string[], paragraph: boolean): number {
  if (s === '') return 0;
  if (fs === ' ') {
    let i = 0;
    let k = 0;
    const n = s.length;
    for (;;) {
      while (i < n && isWs(s.charCodeAt(i))) i++;
      if (i >= n) break;
      let j = i + 1;
      while (j < n && !isWs(s.charCodeAt(j))) j++;
      out[++k] = s.slice(i, j);
      i = j;
    }
    return k;
  }
  if (fs === '') {
    for (let i = 0; i < s.length; i++) out[i + 1] = s[i]!;
    return s.length;
  }
  if (fs.length === 1 && fs !== '\\' && !paragraph) {
    let k = 0;
    let i = 0;
    for (;;) {
      const j = s.indexOf(fs, i);
      if (j < 0) { out[++k] = s.slice(i); return k; }
      out[++k] = s.slice(i, j);
      i = j + 1;
    }
  }
  let src = fs;
  if (fs.length === 1) src = fs === '\\' ? '\\\\' : fs === '^' ? '\\^' : /\w/.test(fs) ? fs : '[' + fs + ']';
  if (paragraph) src = '\n|' + src;
  const re = awkRegexG(src);
  let k = 0;
  let start = 0;
  let from = 0;
  while (from <= s.length) {
    re.lastIndex = from;
    const m = re.exec(s);
    if (!m) break;
    if (m[0].length === 0) {
      from = m.index + 1;
      continue;
    }
    out[++k] = s.slice(start, m.index);
    start = from = m.index + m[0].length;
  }
  out[++k] = s.slice(start);
  return k;
}

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/**
 * awk's number of the bytes b[s, e) when they are exactly computable here: blanks, an optional
 * sign, at most 15 significant digits with an optional point (an integer over an exact power of
 * ten is one correctly rounded division, as strtod), then anything but an exponent; text that
 * cannot start a number is 0. NaN: let strToNum decide (exponents, long mantissas, inf/nan).
 */
export function bytesToNum(b: Buffer, s: number, e: number): number {
  let p = s;
  let c = 0;
  while (p < e && ((c = b[p]!) === 32 || (c >= 9 && c <= 13))) p++;
  if (p >= e) return 0;
  let neg = false;
  if (c === 45 || c === 43) {
    neg = c === 45;
    if (++p >= e) return 0;
    c = b[p]!;
    if (!((c >= 48 && c <= 57) || c === 46)) return NaN;
  } else if (!((c >= 48 && c <= 57) || c === 46)) return 0;
  let m = 0, digits = 0, frac = 0, any = false, point = false;
  for (; p < e; p++) {
    c = b[p]!;
    if (c >= 48 && c <= 57) {
      any = true;
      if (point) frac++;
      if (m !== 0 || c !== 48) digits++;
      m = m * 10 + (c - 48);
    } else if (c === 46 && !point) point = true;
    else break;
  }
  if (!any) return 0;
  if (digits > 15 || frac > 22 || (p < e && (c === 101 || c === 69))) return NaN;
  const v = frac === 0 ? m : m / POW10[frac]!;
  return neg ? -v : v;
}

export class Rt {
  readonly g: Cell[] = [];
  frame: Cell[] = [];
  ret: V = undefined;
  /** $0 as text; null while the record is only the bytes rb[rbs, rbe) (decoded when read). */
  private _rec: string | null = '';
  private rb: Buffer = Buffer.alloc(0);
  private rbs = 0;
  private rbe = 0;
  private recFs = ' ';
  private paragraph = false;
  fields: string[] = [''];
  nf = 0;
  splitDone = true;
  readonly outputs: Outputs;
  readonly readers = new Map<string, RecordReader>();
  cur: RecordReader | null = null;
  argi = 1;
  stdinBuf: Buffer | null = null;
  private stdinUsed = false;
  inEnd = false;
  /** Assign a command-line `var=value` operand (set by the compiler). */
  assignOperand: (name: string, value: string) => void = () => undefined;
  beginFile: () => number = () => 0;
  endFile: () => void = () => undefined;
  /** PROCINFO["sorted_in"] naming a user function: its comparison (set by the runner). */
  userCompare: (name: string) => ((a: [string, V], b: [string, V]) => number) | null = () => null;
  warnings: string[] = [];
  /** The statement running, for messages. */
  loc = 'cmd. line:1';

  constructor(readonly ctx: CommandContext, readonlyZone: () => never) {
    for (let i = 0; i < SPECIALS.length; i++) this.g.push(undefined);
    const g = this.g;
    g[S.NR] = 0; g[S.FNR] = 0; g[S.FS] = ' '; g[S.OFS] = ' '; g[S.ORS] = '\n'; g[S.RS] = '\n';
    g[S.SUBSEP] = '\x1c'; g[S.CONVFMT] = '%.6g'; g[S.OFMT] = '%.6g'; g[S.RSTART] = 0; g[S.RLENGTH] = -1;
    g[S.FILENAME] = ''; g[S.RT] = ''; g[S.ARGC] = 0; g[S.ARGV] = new AwkArr(); g[S.ENVIRON] = new AwkArr();
    g[S.PROCINFO] = new AwkArr(); g[S.IGNORECASE] = 0; g[S.FPAT] = '[^[:space:]]+'; g[S.FIELDWIDTHS] = '';
    g[S.BINMODE] = 0; g[S.LINT] = 0; g[S.TEXTDOMAIN] = 'messages'; g[S.ERRNO] = '';
    this.outputs = new Outputs(ctx, readonlyZone);
  }

  str(slot: number): string {
    const v = this.g[slot] as V;
    return typeof v === 'string' ? v : toStr(v, this.convfmt);
  }
  get convfmt(): string {
    const v = this.g[S.CONVFMT];
    return typeof v === 'string' ? v : toStr(v as V, '%.6g');
  }
  get ofmt(): string {
    const v = this.g[S.OFMT];
    return typeof v === 'string' ? v : toStr(v as V, '%.6g');
  }
  arr(slot: number): AwkArr {
    return this.g[slot] as AwkArr;
  }

  /** Values assigned to fields keep their type (a string stays a string, not a strnum). */
  assigned: Map<number, V> | null = null;

  get rec(): string {
    const r = this._rec;
    return r !== null ? r : (this._rec = latin1(this.rb, this.rbs, this.rbe));
  }
  set rec(s: string) {
    this._rec = s;
  }
  /** Length of $0 without decoding it. */
  get recLength(): number {
    return this._rec !== null ? this._rec.length : this.rbe - this.rbs;
  }

  /** A record read as bytes (a one-character RS): $0 and fields are decoded only when read. */
  setRecordBytes(b: Buffer, s: number, e: number): void {
    this._rec = null;
    this.rb = b; this.rbs = s; this.rbe = e;
    this.assigned = null;
    this.splitDone = false;
    this.partK = 0;
    this.partAt = 0;
    const fs = this.g[S.FS];
    const f = this.recFs = typeof fs === 'string' ? fs : this.str(S.FS);
    this.byteFs = f === ' ' || (f.length === 1 && f !== '\\' && f.charCodeAt(0) < 256);
    this.paragraph = false;
  }
  /** The record's FS can be applied to its bytes (the default, or one byte). */
  private byteFs = false;

  /** print (of $0) to out. */
  printRec(out: OutStream, ors: string): void {
    if (this._rec === null) out.writeSpan(this.rb, this.rbs, this.rbe, ors);
    else out.write(this._rec + ors);
  }
  /** print $k to out: the field's bytes when the record is still bytes. */
  printField(k: number, out: OutStream, ors: string): void {
    if (this._rec === null && !this.splitDone && k > 0 && this.byteFs && this.spanTo(k) && this.fields[k] === undefined) {
      out.writeSpan(this.rb, this.rbs + this.fst[k]!, this.rbs + this.fen[k]!, ors);
      return;
    }
    out.write(this.fieldStr(k) + ors);
  }

  setRecord(s: string): void {
    this.rec = s;
    this.assigned = null;
    this.splitDone = false;
    this.partK = 0;
    this.partAt = 0;
    this.recFs = this.str(S.FS);
    this.paragraph = this.str(S.RS) === '';
  }
  split(): void {
    if (this.splitDone) return;
    this.nf = splitBy(this.rec, this.recFs, this.fields, this.paragraph);
    this.fields.length = this.nf + 1;
    this.splitDone = true;
  }
  fieldStr(i: number): string {
    if (i === 0) return this.rec;
    if (!this.splitDone) return this.partial(i);
    return i <= this.nf ? this.fields[i]! : '';
  }
  field(i: number): V {
    if (i === 0) return new SN(this.rec);
    if (!this.splitDone) return new SN(this.partial(i));
    if (this.assigned !== null && this.assigned.has(i)) return this.assigned.get(i);
    if (i <= this.nf) return new SN(this.fields[i]!);
    return new SN('');
  }
  /** Fields found so far by a partial split, and where its scan stopped (past the end: none left). */
  private partK = 0;
  private partAt = 0;

  /**
   * Field i of a record not split yet: with the default FS or a one-character FS the record is
   * scanned only as far as field i (as gawk does), so `{s+=$3}` does not cut a long line whole.
   * NF, $0 rebuilding and field assignment still split it whole (split()).
   */
  private partial(i: number): string {
    if (this._rec === null && this.byteFs) {
      if (!this.spanTo(i)) return this.partEnd(this.partK, i);
      const v = this.fields[i];
      return v !== undefined ? v : (this.fields[i] = latin1(this.rb, this.rbs + this.fst[i]!, this.rbs + this.fen[i]!));
    }
    const s = this.rec;
    const fs = this.recFs;
    const out = this.fields;
    let k = this.partK;
    let at = this.partAt;
    const n = s.length;
    if (fs === ' ') {
      while (k < i) {
        while (at < n && isWs(s.charCodeAt(at))) at++;
        if (at >= n) return this.partEnd(k, i);
        let j = at + 1;
        while (j < n && !isWs(s.charCodeAt(j))) j++;
        out[++k] = s.slice(at, j);
        at = j;
      }
    } else if (fs.length === 1 && fs !== '\\' && !this.paragraph) {
      if (n === 0) return this.partEnd(0, i);
      while (k < i) {
        if (at > n) return this.partEnd(k, i);
        const j = s.indexOf(fs, at);
        if (j < 0) {
          out[++k] = s.slice(at);
          at = n + 1;
        } else {
          out[++k] = s.slice(at, j);
          at = j + 1;
        }
      }
    } else {
      this.split();
      return i <= this.nf ? out[i]! : '';
    }
    this.partK = k;
    this.partAt = at;
    const v = out[i];
    return v !== undefined ? v : (out[i] = s.slice(this.fst[i]!, this.fen[i]!));
  }
  /** The partial scan reached the end of the record: it is split whole. */
  private partEnd(k: number, i: number): string {
    this.nf = k;
    const f = this.fields;
    f.length = k + 1;
    // fields found by a byte scan and not read yet
    for (let j = 1; j <= k; j++) if (f[j] === undefined) f[j] = this.rec.slice(this.fst[j]!, this.fen[j]!);
    this.splitDone = true;
    return i <= k ? f[i]! : '';
  }

  /** Byte offsets (from the record's start) of the fields a byte scan found, by number. */
  private fst = new Int32Array(64);
  private fen = new Int32Array(64);
  private growSpans(k: number): void {
    let n = this.fst.length;
    while (n <= k) n *= 2;
    const a = new Int32Array(n), b = new Int32Array(n);
    a.set(this.fst); b.set(this.fen);
    this.fst = a; this.fen = b;
  }

  /**
   * Scan the bytes of a record not split yet as far as field i (the default FS or a one-byte
   * FS), noting each field's span and leaving its text undecoded; false when the record has
   * fewer fields (partK is then its NF).
   */
  private spanTo(i: number): boolean {
    let k = this.partK;
    if (k >= i) return true;
    const b = this.rb, base = this.rbs, n = this.rbe - base, out = this.fields;
    let at = this.partAt;
    if (i >= this.fst.length) this.growSpans(i);
    const fst = this.fst, fen = this.fen;
    if (this.recFs === ' ') {
      while (k < i) {
        let c = 0;
        while (at < n && ((c = b[base + at]!) === 32 || c === 9 || c === 10)) at++;
        if (at >= n) { this.partK = k; this.partAt = at; return false; }
        let j = at + 1;
        while (j < n && (c = b[base + j]!) !== 32 && c !== 9 && c !== 10) j++;
        k++;
        fst[k] = at; fen[k] = j; out[k] = undefined as unknown as string;
        at = j;
      }
    } else {
      if (n === 0) { this.partK = 0; return false; }
      const sep = this.recFs.charCodeAt(0);
      const end = base + n;
      while (k < i) {
        if (at > n) { this.partK = k; this.partAt = at; return false; }
        let j = b.indexOf(sep, base + at);
        j = j < 0 || j >= end ? n : j - base;
        k++;
        fst[k] = at; fen[k] = j; out[k] = undefined as unknown as string;
        at = j + 1;
      }
    }
    this.partK = k;
    this.partAt = at;
    return true;
  }

  /** Field i as a number (awk's conversion), read from the bytes when it is plain decimal. */
  fieldNum(i: number): number {
    if (this._rec !== null || this.splitDone || i === 0 || !this.byteFs) {
      return strToNum(this.fieldStr(i));
    }
    if (!this.spanTo(i)) return strToNum(this.partEnd(this.partK, i));
    const v = this.fields[i];
    if (v !== undefined) return strToNum(v);
    const n = bytesToNum(this.rb, this.rbs + this.fst[i]!, this.rbs + this.fen[i]!);
    return n === n ? n : strToNum(this.partial(i));
  }
  checkIndex(n: number): number {
    if (n < 0 || n !== n) throw new AwkFatal(`attempt to access field ${Math.trunc(n)}`);
    return Math.trunc(n);
  }
  setField(i: number, s: string, v?: V): void {
    if (i === 0) {
      this.setRecord(s);
      return;
    }
    this.split();
    while (this.nf < i) this.fields[++this.nf] = '';
    this.fields[i] = s;
    if (v !== undefined && !(v instanceof SN)) (this.assigned ??= new Map()).set(i, v);
    else this.assigned?.delete(i);
    this.rebuild();
  }
  getNF(): number {
    this.split();
    return this.nf;
  }
  setNF(n: number): void {
    this.split();
    n = Math.trunc(n);
    if (n < 0) throw new AwkFatal(`NF set to negative value`);
    while (this.nf < n) this.fields[++this.nf] = '';
    this.nf = n;
    this.fields.length = n + 1;
    if (this.assigned) for (const k of [...this.assigned.keys()]) if (k > n) this.assigned.delete(k);
    this.rebuild();
  }
  rebuild(): void {
    const ofs = this.str(S.OFS);
    let s = '';
    for (let k = 1; k <= this.nf; k++) s += k === 1 ? this.fields[k] : ofs + this.fields[k];
    this.rec = s;
  }

  // ---- main input ----

  private stdinSource(): ByteSource {
    if (this.stdinBuf) {
      const b = this.stdinBuf;
      if (this.stdinUsed) return bufferSource(Buffer.alloc(0));
      this.stdinUsed = true;
      return bufferSource(b);
    }
    return streamSource(this.ctx.stdin[Symbol.asyncIterator]());
  }

  /** Open the next input from ARGV (assignments done on the way); false at the end. */
  openNext(): boolean {
    const argv = this.arr(S.ARGV);
    for (;;) {
      if (this.argi === -1) return false;
      const argc = Math.trunc(toNum(this.g[S.ARGC] as V));
      if (this.argi >= argc) {
        // no file operand at all: standard input
        if (!this.usedFile) {
          this.usedFile = true;
          this.argi = -1;
          this.g[S.FILENAME] = '';
          return this.startFile(new RecordReader(this.stdinSource()), '');
        }
        return false;
      }
      const a = argv.get(String(this.argi++));
      const arg = a === undefined ? '' : toStr(a, this.convfmt);
      if (arg === '') continue;
      const eq = /^[A-Za-z_][A-Za-z0-9_]*=/.exec(arg);
      if (eq) {
        this.assignOperand(eq[0].slice(0, -1), arg.slice(eq[0].length));
        continue;
      }
      this.usedFile = true;
      this.g[S.FILENAME] = arg;
      if (arg === '-' || arg === '/dev/stdin') return this.startFile(new RecordReader(this.stdinSource()), arg);
      try {
        const r = this.ctx.fs.openRandom(vpath(arg), this.ctx.cwd);
        if (!this.startFile(new RecordReader(fileSource(r)), arg)) continue;
        return true;
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        if (e.errno === 'EISDIR') {
          this.warnings.push(`warning: command line argument \`${arg}' is a directory: skipped`);
          continue;
        }
        this.warnings.push(`${toNum(this.g[S.NR] as V) > 0 ? this.loc + ': ' : ''}fatal: cannot open file \`${arg}' for reading: ${e.reason}`);
        throw new AwkFatal('', 2);
      }
    }
  }
  usedFile = false;

  private startFile(r: RecordReader, _name: string): boolean {
    this.cur = r;
    this.g[S.FNR] = 0;
    const st = this.beginFile();
    if (st === NEXTFILE) {
      this.closeCur();
      return false;
    }
    return true;
  }

  closeCur(): void {
    if (this.cur) {
      this.cur.close();
      this.cur = null;
      this.endFile();
    }
  }

  /** A diagnostic at the program's location ("cmd. line:1: warning: ..."). */
  warn(msg: string): void {
    this.warnings.push(`${this.loc}: ${msg}`);
  }

  /** Plain getline: the next record of the main input, read synchronously; null at its end. */
  getlineMain(): string | null {
    if (this.inEnd) return null;
    for (;;) {
      if (!this.cur && !this.openNext()) return null;
      const c = this.cur!;
      const r = c.next(this.str(S.RS));
      if (r === NEED) {
        if (!c.sync) throw new AwkFatal('getline from standard input inside a rule is not supported on a streamed input');
        c.fillSync();
        continue;
      }
      if (r === null) {
        this.closeCur();
        continue;
      }
      this.g[S.RT] = c.rt;
      return r;
    }
  }

  /** getline < file: the next record, null at end, -1 when it cannot be opened. */
  getlineFile(name: string): string | null | -1 {
    let r = this.readers.get(name);
    if (!r) {
      if (name === '-' || name === '/dev/stdin') {
        if (!this.stdinBuf) return -1;
        r = new RecordReader(this.stdinSource());
      } else {
        if (name.startsWith('/inet')) throw new AwkFatal(`cannot open \`${name}': network files (/inet) are not supported in nosh`);
        try {
          r = new RecordReader(fileSource(this.ctx.fs.openRandom(vpath(name), this.ctx.cwd)));
        } catch (e) {
          if (e instanceof VfsError) {
            this.g[S.ERRNO] = e.reason;
            return -1;
          }
          throw e;
        }
      }
      this.readers.set(name, r);
    }
    const rec = r.nextSync(this.str(S.RS));
    if (rec !== null) this.g[S.RT] = r.rt;
    return rec;
  }

  close(name: string): number {
    const r = this.readers.get(name);
    let res = -1;
    if (r) {
      r.close();
      this.readers.delete(name);
      res = 0;
    }
    if (this.outputs.files.has(name)) res = this.outputs.close(name);
    return res;
  }
}
