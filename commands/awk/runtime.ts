/** awk's run-time state: variables, the current record and its fields, input files, getline. */
import type { CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { bufferSource, fileSource, vpath, NEED, Outputs, RecordReader, streamSource, type ByteSource } from './io.js';
import { awkRegexG, AwkFatal } from './regex.js';
import { AwkArr, SN, toNum, toStr, type V } from './values.js';

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

export class Rt {
  readonly g: Cell[] = [];
  frame: Cell[] = [];
  ret: V = undefined;
  rec = '';
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
    return out[i]!;
  }
  /** The partial scan reached the end of the record: it is split whole. */
  private partEnd(k: number, i: number): string {
    this.nf = k;
    this.fields.length = k + 1;
    this.splitDone = true;
    return i <= k ? this.fields[i]! : '';
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
