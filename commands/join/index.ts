import { defineCommand, UsageError, type CommandContext, type CommandDef } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { gnuQuote, xstrtoumax } from '../../src/gnulib/gnu-number.js';
import { openAsFopen } from '../../src/gnulib/helpers.js';
import { CopyOut, FatalError, SpanReader } from '../../src/gnulib/text-lines.js';

/**
 * GNU join (coreutils 9.1) in the C locale: both inputs streamed, a group of lines with the
 * same key held at a time (as GNU does). The obsolete forms are kept where getopt's order
 * shows them: operands after -o FORMAT that may be more of its field list. Not kept: `-j1`
 * / `-j2` followed by an operand that GNU may read as the field number (nosh reads -j1 as -j 1).
 */
const def: CommandDef = defineCommand({
  name: 'join',
  summary: 'For each pair of input lines with identical join fields, write a line to standard output. The default join field is the first, delimited by blanks. When FILE1 or FILE2 (not both) is -, read standard input.',
  usage: 'FILE1 FILE2',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', kind: 'string', arg: 'FILENUM', help: 'also print unpairable lines from file FILENUM, where FILENUM is 1 or 2, corresponding to FILE1 or FILE2' },
    { key: 'e', short: 'e', kind: 'string', arg: 'STRING', help: "replace missing (empty) input fields with STRING; I.e., missing fields specified with '-12jo' options" },
    { key: 'i', short: 'i', long: 'ignore-case', help: 'ignore differences in case when comparing fields' },
    { key: 'j', short: 'j', kind: 'string', arg: 'FIELD', help: "equivalent to '-1 FIELD -2 FIELD'" },
    { key: 'o', short: 'o', kind: 'string', arg: 'FORMAT', help: 'obey FORMAT while constructing output line' },
    { key: 't', short: 't', kind: 'string', arg: 'CHAR', help: 'use CHAR as input and output field separator' },
    { key: 'v', short: 'v', kind: 'string', arg: 'FILENUM', help: 'like -a FILENUM, but suppress joined output lines' },
    { key: '1', short: '1', kind: 'string', arg: 'FIELD', help: 'join on this FIELD of file 1' },
    { key: '2', short: '2', kind: 'string', arg: 'FIELD', help: 'join on this FIELD of file 2' },
    { key: 'check', long: 'check-order', value: 'enabled', help: 'check that the input is correctly sorted, even if all input lines are pairable' },
    { key: 'check', long: 'nocheck-order', value: 'disabled', help: 'do not check that the input is correctly sorted' },
    { key: 'header', long: 'header', help: 'treat the first line in each file as field headers, print them without trying to pair them' },
    { key: 'z', short: 'z', long: 'zero-terminated', help: 'line delimiter is NUL, not newline' },
  ],
  async run(ctx) {
    const out = new CopyOut(ctx.stdout);
    try {
      const o = parse(ctx);
      await join(ctx, o, out);
      await out.flush();
      if (o.warned[0] || o.warned[1]) throw new FatalError('input is not in sorted order');
      return 0;
    } catch (e) {
      if (!(e instanceof FatalError)) throw e;
      await out.flush();
      await ctx.warn(e.message);
      return 1;
    }
  },
});
export default def;

interface Spec { file: 0 | 1 | 2; field: number }

interface Opts {
  names: string[];
  jf: [number, number];
  unpair: [boolean, boolean];
  pairables: boolean;
  filler: Buffer | null;
  ignoreCase: boolean;
  outlist: Spec[];
  auto: boolean;
  tab: number; // -1: blanks
  check: string;
  header: boolean;
  eol: number;
  warned: [boolean, boolean];
}

const UNSET = -1;
const HUGE = Number.MAX_SAFE_INTEGER;

/** string_to_join_field: 1-based, zero-based result; too large is "beyond every line". */
function joinField(s: string): number {
  const r = xstrtoumax(s, '');
  if (r.err === 'overflow') return HUGE;
  if (r.err !== 'ok' || r.value === 0n) throw new FatalError(`invalid field number: ${gnuQuote(s)}`);
  return r.value > BigInt(HUGE) ? HUGE : Number(r.value) - 1;
}

function fieldList(str: string, list: Spec[]): void {
  for (const s of str.split(/[, \t]/)) {
    if (s[0] === '0') {
      if (s.length > 1) throw new FatalError(`invalid field specifier: ${gnuQuote(s)}`);
      list.push({ file: 0, field: 0 });
    } else if (s[0] === '1' || s[0] === '2') {
      if (s[1] !== '.') throw new FatalError(`invalid field specifier: ${gnuQuote(s)}`);
      list.push({ file: s[0] === '1' ? 1 : 2, field: joinField(s.slice(2)) });
    } else throw new FatalError(`invalid file number in field spec: ${gnuQuote(s)}`);
  }
}

function parse(ctx: CommandContext): Opts {
  const o: Opts = {
    names: [], jf: [UNSET, UNSET], unpair: [false, false], pairables: true, filler: null, ignoreCase: false, outlist: [],
    auto: false, tab: -2, check: 'default', header: false, eol: 0x0a, warned: [false, false],
  };
  let fillerStr: string | null = null;
  const setJf = (i: 0 | 1, v: number) => {
    if (o.jf[i] !== UNSET && o.jf[i] !== v) throw new FatalError(`incompatible join fields ${o.jf[i] + 1}, ${v + 1}`);
    o.jf[i] = v;
  };
  // add_file_name: an operand after -o FORMAT may be more of its list, decided by a third operand.
  const status: boolean[] = [];
  const addName = (name: string, prevO: boolean): boolean => {
    let n = o.names.length;
    if (n === 2) {
      const op0 = !status[0];
      const arg = o.names[op0 ? 1 : 0]!;
      if (!status[op0 ? 1 : 0]) throw new UsageError(`extra operand ${gnuQuote(name)}`);
      fieldList(arg, o.outlist);
      if (!op0) {
        status[0] = status[1]!;
        o.names[0] = o.names[1]!;
      }
      o.names.length = 1;
      n = 1;
    }
    status[n] = prevO;
    o.names[n] = name;
    return prevO;
  };
  let prevO = false;
  for (const item of ctx.opts.inOrder(ctx.operands)) {
    if ('operand' in item) {
      if (item.afterDashDash) addName(item.operand, false);
      else prevO = addName(item.operand, prevO);
      continue;
    }
    let nowO = false;
    const v = item.value;
    switch (item.key) {
      case 'v':
      case 'a': {
        if (item.key === 'v') o.pairables = false;
        const r = xstrtoumax(v, '');
        if (r.err !== 'ok' || (r.value !== 1n && r.value !== 2n)) throw new FatalError(`invalid field number: ${gnuQuote(v)}`);
        o.unpair[r.value === 1n ? 0 : 1] = true;
        break;
      }
      case 'e':
        if (fillerStr !== null && fillerStr !== v) throw new FatalError('conflicting empty-field replacement strings');
        fillerStr = v;
        break;
      case 'i':
        o.ignoreCase = true;
        break;
      case '1':
        setJf(0, joinField(v));
        break;
      case '2':
        setJf(1, joinField(v));
        break;
      case 'j': {
        const f = joinField(v);
        setJf(0, f);
        setJf(1, o.jf[0]);
        break;
      }
      case 'o':
        if (v === 'auto') o.auto = true;
        else {
          fieldList(v, o.outlist);
          nowO = true;
        }
        break;
      case 't': {
        const b = Buffer.from(v, 'utf8');
        let t = b.length ? b[0]! : 0x0a;
        if (b.length > 1) {
          if (v === '\\0') t = 0;
          else throw new FatalError(`multi-character tab ${gnuQuote(v)}`);
        }
        if (o.tab >= 0 && o.tab !== t) throw new FatalError('incompatible tabs');
        o.tab = t;
        break;
      }
      case 'check':
        o.check = v;
        break;
      case 'header':
        o.header = true;
        break;
      case 'z':
        o.eol = 0;
        break;
    }
    prevO = nowO;
  }
  if (o.names.length !== 2) {
    throw new UsageError(o.names.length === 0 ? 'missing operand' : `missing operand after ${gnuQuote(ctx.args[ctx.args.length - 1]!)}`);
  }
  if (o.tab === -2) o.tab = -1;
  if (o.jf[0] === UNSET) o.jf[0] = 0;
  if (o.jf[1] === UNSET) o.jf[1] = 0;
  if (fillerStr !== null) o.filler = Buffer.from(fillerStr, 'utf8');
  return o;
}

/**
 * A line: buf[s, e), its join field buf[ks, ke) (ks -1: the line has no such field), its
 * fields as [start, end) pairs of offsets in buf, split only when needed (fieldsOf).
 */
interface Line { buf: Buffer; s: number; e: number; ks: number; ke: number; f: number[] | null; no: number }
const BLANK: Line = { buf: Buffer.alloc(0), s: 0, e: 0, ks: -1, ke: -1, f: [], no: 0 };

function fields(buf: Buffer, p: number, lim: number, tab: number): number[] {
  const f: number[] = [];
  if (lim === p) return f;
  if (tab >= 0 && tab !== 0x0a) {
    for (let s = buf.indexOf(tab, p); s >= 0 && s < lim; s = buf.indexOf(tab, p)) {
      f.push(p, s);
      p = s + 1;
    }
  } else if (tab < 0) {
    const sep = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a;
    while (sep(buf[p]!)) if (++p === lim) return f;
    do {
      let s = p + 1;
      while (s !== lim && !sep(buf[s]!)) s++;
      f.push(p, s);
      if (s === lim) return f;
      for (p = s + 1; p !== lim && sep(buf[p]!); p++);
    } while (p !== lim);
  }
  f.push(p, lim);
  return f;
}

/** Give a line its own copy of its bytes (the chunk it points into is about to be read over). */
function own(line: Line): void {
  const d = line.s;
  line.buf = Buffer.from(line.buf.subarray(d, line.e));
  line.s = 0;
  line.e -= d;
  if (line.ks >= 0) {
    line.ks -= d;
    line.ke -= d;
  }
  if (line.f) for (let i = 0; i < line.f.length; i++) line.f[i]! -= d;
}

function upper(c: number): number {
  return c >= 0x61 && c <= 0x7a ? c - 32 : c;
}

/** Set line.ks/ke to field j: with a -t byte by indexOf up to it, otherwise from the split fields. */
function findKey(line: Line, j: number, tab: number): void {
  const { buf, s, e } = line;
  if (tab >= 0 && tab !== 0x0a) {
    if (s === e) return;
    let p = s;
    for (let i = 0; i < j; i++) {
      const q = buf.indexOf(tab, p);
      if (q < 0 || q >= e) return;
      p = q + 1;
    }
    const q = buf.indexOf(tab, p);
    line.ks = p;
    line.ke = q < 0 || q >= e ? e : q;
    return;
  }
  const f = (line.f = fields(buf, s, e, tab));
  if (2 * j < f.length) {
    line.ks = f[2 * j]!;
    line.ke = f[2 * j + 1]!;
  }
}

/** Compare the join fields of two lines (each line's own, set by findKey). */
function keycmp(a: Line, b: Line, icase: boolean): number {
  const s1 = a.ks;
  const l1 = s1 < 0 ? 0 : a.ke - s1;
  const s2 = b.ks;
  const l2 = s2 < 0 ? 0 : b.ke - s2;
  if (l1 === 0) return l2 === 0 ? 0 : -1;
  if (l2 === 0) return 1;
  const n = Math.min(l1, l2);
  const x = a.buf;
  const y = b.buf;
  if (icase) {
    for (let i = 0; i < n; i++) {
      const d = upper(x[s1 + i]!) - upper(y[s2 + i]!);
      if (d) return d;
    }
  } else if (n <= 64) {
    // Keys are short: a byte loop costs less than Buffer#compare's native call.
    for (let i = 0; i < n; i++) {
      const d = x[s1 + i]! - y[s2 + i]!;
      if (d) return d;
    }
  } else {
    const d = x.compare(y, s2, s2 + n, s1, s1 + n);
    if (d) return d;
  }
  return l1 < l2 ? -1 : l1 !== l2 ? 1 : 0;
}

/**
 * Both inputs read as spans of their chunks (SpanReader; a line held in a group keeps its
 * chunk), the output copied into one buffer (CopyOut): no Buffer per line or field.
 */
async function join(ctx: CommandContext, o: Opts, out: CopyOut): Promise<void> {
  const readers: SpanReader[] = [];
  /** Per input: read into one reused buffer (a file), so held lines are copied out before it is refilled (detach). */
  const reused = [false, false];
  for (const name of o.names) {
    if (name === '-') {
      if (readers.length && o.names[0] === '-') throw new FatalError('both files cannot be standard input');
      readers.push(new SpanReader(ctx.stdin, o.eol));
      continue;
    }
    try {
      reused[readers.length] = true;
      readers.push(new SpanReader(openAsFopen(ctx, name, true), o.eol));
    } catch (e) {
      if (e instanceof VfsError) throw new FatalError(`${quoteNameColon(name)}: ${e.reason}`);
      throw e;
    }
  }
  const sepByte = o.tab < 0 ? 0x20 : o.tab;
  const prev: (Line | null)[] = [null, null];
  const lineNo = [0, 0];
  let seenUnpairable = false;
  const [j1, j2] = o.jf;
  const auto = [0, 0];
  const checking = () => o.check !== 'disabled' && (o.check === 'enabled' || seenUnpairable);

  const check = async (w: 0 | 1, line: Line): Promise<void> => {
    const msg = `${o.names[w]}:${line.no}: is not sorted: ${line.buf.toString('latin1', line.s, line.e)}`;
    await out.flush();
    if (o.check === 'enabled') throw new FatalError(msg);
    await ctx.warn(msg);
    o.warned[w] = true;
  };
  const made = (w: 0 | 1, r: SpanReader): Line | Promise<Line> => {
    const line: Line = { buf: r.buf, s: r.s, e: r.e, ks: -1, ke: -1, f: null, no: ++lineNo[w]! };
    findKey(line, o.jf[w]!, o.tab);
    const p = prev[w];
    prev[w] = line;
    if (p && !o.warned[w] && checking() && keycmp(p, line, o.ignoreCase) > 0) return check(w, line).then(() => line);
    return line;
  };
  const readFailed = (e: unknown): never => {
    if (e instanceof VfsError) throw new FatalError(`read error: ${e.reason}`);
    throw e;
  };
  let seq1: Line[] = [];
  let seq2: Line[] = [];
  /** Lines of input w still held (its group, the line the order check compares with) get their own copy of their bytes. */
  const detach = (w: 0 | 1, buf: Buffer): void => {
    for (const line of w === 0 ? seq1 : seq2) if (line.buf === buf) own(line);
    const p = prev[w];
    if (p && p.buf === buf) own(p);
  };
  // The next chunk of a file is read into the buffer its held lines point into.
  for (const w of [0, 1] as const) if (reused[w]) readers[w]!.onRefill = () => detach(w, readers[w]!.buf);
  /** The next line of input w: synchronous while its chunk lasts. */
  const getLine = (w: 0 | 1): Line | null | Promise<Line | null> => {
    const r = readers[w]!;
    let g: boolean | Promise<boolean>;
    try {
      g = r.next();
    } catch (e) {
      return readFailed(e);
    }
    if (g === true) return made(w, r);
    if (g === false) return null;
    return g.then((got) => (got ? made(w, r) : null), readFailed);
  };

  const fieldsOf = (line: Line): number[] => (line.f ??= fields(line.buf, line.s, line.e, o.tab));
  const field = (n: number, line: Line) => {
    const f = fieldsOf(line);
    if (2 * n < f.length) {
      const s = f[2 * n]!;
      const e = f[2 * n + 1]!;
      if (e > s) out.put(line.buf, s, e);
      else if (o.filler) out.put(o.filler, 0, o.filler.length);
    } else if (o.filler) out.put(o.filler, 0, o.filler.length);
  };
  const rest = (line: Line, jf: number, count: number) => {
    const n = o.auto ? count : fieldsOf(line).length / 2;
    for (let i = 0; i < jf && i < n; i++) {
      out.byte(sepByte);
      field(i, line);
    }
    for (let i = jf + 1; i < n; i++) {
      out.byte(sepByte);
      field(i, line);
    }
  };
  const key = (line: Line) => {
    if (line.ks >= 0 && line.ke > line.ks) out.put(line.buf, line.ks, line.ke);
    else if (o.filler) out.put(o.filler, 0, o.filler.length);
  };
  // With -t, no -e and no -o, a line's other fields are its bytes around the join field,
  // separators and all (GNU prints them with the same separator).
  const raw = o.tab >= 0 && o.tab !== 0x0a && !o.filler && !o.auto;
  const restRaw = (line: Line) => {
    const { buf, s, e, ks, ke } = line;
    if (s === e) return;
    if (ks < 0) {
      out.byte(sepByte);
      out.put(buf, s, e);
      return;
    }
    if (ks > s) {
      out.byte(sepByte);
      out.put(buf, s, ks - 1);
    }
    if (ke < e) out.put(buf, ke, e);
  };
  /** One output line; a promise only when the buffer is full. */
  const prjoin = (l1: Line, l2: Line): Promise<void> | void => {
    if (o.outlist.length) {
      o.outlist.forEach((s, k) => {
        if (k) out.byte(sepByte);
        if (s.file === 0) field(l1 === BLANK ? j2 : j1, l1 === BLANK ? l2 : l1);
        else field(s.field, s.file === 1 ? l1 : l2);
      });
    } else if (raw) {
      key(l1 === BLANK ? l2 : l1);
      restRaw(l1);
      restRaw(l2);
    } else {
      field(l1 === BLANK ? j2 : j1, l1 === BLANK ? l2 : l1);
      rest(l1, j1, auto[0]!);
      rest(l2, j2, auto[1]!);
    }
    out.byte(o.eol);
    if (out.full) return out.flush();
  };

  let l = await getLine(0);
  if (l) seq1.push(l);
  l = await getLine(1);
  if (l) seq2.push(l);
  if (o.auto) {
    auto[0] = seq1.length ? fieldsOf(seq1[0]!).length / 2 : 0;
    auto[1] = seq2.length ? fieldsOf(seq2[0]!).length / 2 : 0;
  }
  if (o.header && (seq1.length || seq2.length)) {
    await prjoin(seq1[0] ?? BLANK, seq2[0] ?? BLANK);
    prev[0] = prev[1] = null;
    if (seq1.length) seq1 = ((x) => (x ? [x] : []))(await getLine(0));
    if (seq2.length) seq2 = ((x) => (x ? [x] : []))(await getLine(1));
  }
  while (seq1.length && seq2.length) {
    const diff = keycmp(seq1[0]!, seq2[0]!, o.ignoreCase);
    if (diff < 0) {
      if (o.unpair[0]) await prjoin(seq1[0]!, BLANK);
      let x = getLine(0);
      if (x instanceof Promise) x = await x;
      if (x) seq1[0] = x;
      else seq1 = [];
      seenUnpairable = true;
      continue;
    }
    if (diff > 0) {
      if (o.unpair[1]) await prjoin(BLANK, seq2[0]!);
      let x = getLine(1);
      if (x instanceof Promise) x = await x;
      if (x) seq2[0] = x;
      else seq2 = [];
      seenUnpairable = true;
      continue;
    }
    let next1: Line | null;
    for (;;) {
      const x = getLine(0);
      next1 = x instanceof Promise ? await x : x;
      if (!next1 || keycmp(next1, seq2[0]!, o.ignoreCase)) break;
      seq1.push(next1);
    }
    let next2: Line | null;
    for (;;) {
      const x = getLine(1);
      next2 = x instanceof Promise ? await x : x;
      if (!next2 || keycmp(seq1[0]!, next2, o.ignoreCase)) break;
      seq2.push(next2);
    }
    if (o.pairables) {
      for (const a of seq1) {
        for (const b of seq2) {
          const p = prjoin(a, b);
          if (p) await p;
        }
      }
    }
    // A group of one line (the common case) keeps its array.
    if (next1 && seq1.length === 1) seq1[0] = next1;
    else seq1 = next1 ? [next1] : [];
    if (next2 && seq2.length === 1) seq2[0] = next2;
    else seq2 = next2 ? [next2] : [];
  }
  const checktail = o.check !== 'disabled' && !(o.warned[0] && o.warned[1]);
  if ((o.unpair[0] || checktail) && seq1.length) {
    if (o.unpair[0]) await prjoin(seq1[0]!, BLANK);
    if (seq2.length) seenUnpairable = true;
    for (let x = await getLine(0); x; x = await getLine(0)) {
      if (o.unpair[0]) await prjoin(x, BLANK);
      if (o.warned[0] && !o.unpair[0]) break;
    }
  }
  if ((o.unpair[1] || checktail) && seq2.length) {
    if (o.unpair[1]) await prjoin(BLANK, seq2[0]!);
    if (seq1.length) seenUnpairable = true;
    for (let x = await getLine(1); x; x = await getLine(1)) {
      if (o.unpair[1]) await prjoin(BLANK, x);
      if (o.warned[1] && !o.unpair[1]) break;
    }
  }
}
