import { defineCommand, OptionError, UsageError, type CommandContext } from '../../src/command/index.js';
import { VfsError, type AtomicWriter } from '../../src/vfs/index.js';
import { quoteAlways } from '../../src/gnulib/quote.js';
import { gnuQuote, xstrtoumax } from '../../src/gnulib/gnu-number.js';
import { xdectoint } from '../../src/gnulib/xdectoint.js';
import { formatInt } from '../../src/gnulib/cformat.js';
import { RegexSyntaxError, translateRegex } from '../../src/regex/index.js';

interface Control {
  arg: string;
  regex?: RegExp;
  ignore: boolean;
  offset: number;
  lines: number;
  repeat: number;
  forever: boolean;
}

/** A fatal error: its message is printed, the files made are removed (unless -k), exit 1. */
class Fatal extends Error {}
/** The {*} end of input: the rest is written, exit 0. */
class Done extends Error {}

/**
 * GNU csplit (coreutils 9.1): INTEGER, /REGEXP/[OFFSET], %REGEXP%[OFFSET], {N} and {*};
 * -f -b -n -k -s -z --suppress-matched; counts on standard output; on an error the files
 * made are removed unless -k. Regular expressions are POSIX basic (GNU's syntax). The input
 * streams: as csplit.c's line buffer, only lines from the first not yet written to the one
 * looked at are held (a negative offset keeps the lines it looks back over; a /REGEXP/ with
 * offset >= 0 holds one line at a time); each piece is written atomically through the Vfs.
 */
export default defineCommand({
  name: 'csplit',
  summary: "Output pieces of FILE separated by PATTERN(s) to files 'xx00', 'xx01', ..., and output byte counts of each piece to standard output. Read standard input if FILE is -",
  usage: 'FILE PATTERN...',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'b', short: 'b', long: 'suffix-format', kind: 'string', arg: 'FORMAT', help: 'use sprintf FORMAT instead of %02d' },
    { key: 'f', short: 'f', long: 'prefix', kind: 'string', arg: 'PREFIX', help: "use PREFIX instead of 'xx'" },
    { key: 'k', short: 'k', long: 'keep-files', help: 'do not remove output files on errors' },
    { key: 'm', long: 'suppress-matched', help: 'suppress the lines matching PATTERN' },
    { key: 'n', short: 'n', long: 'digits', kind: 'string', arg: 'DIGITS', help: 'use specified number of digits instead of 2' },
    { key: 's', short: 's', long: 'quiet', help: 'do not print counts of output file sizes' },
    { key: 's', short: 'q', long: 'silent', help: 'same as -s' },
    { key: 'z', short: 'z', long: 'elide-empty-files', help: 'remove empty output files' },
  ],
  notes: 'Each PATTERN may be:\n  INTEGER            copy up to but not including specified line number\n  /REGEXP/[OFFSET]   copy up to but not including a matching line\n'
    + '  %REGEXP%[OFFSET]   skip to, but not including a matching line\n  {INTEGER}          repeat the previous pattern specified number of times\n'
    + "  {*}                repeat the previous pattern as many times as possible\n\nA line OFFSET is an integer optionally preceded by '+' or '-'",
  async run(ctx) {
    const v = ctx.values;
    let digits = 2;
    if (v.n !== undefined) {
      const r = xdectoint(v.n, 0n, 2147483647n, '', 'invalid number');
      if ('error' in r) throw new OptionError(r.error, false);
      digits = Number(r.value);
    }
    if (ctx.operands.length < 2) {
      throw new UsageError(ctx.operands.length === 0 ? 'missing operand' : `missing operand after ${gnuQuote(ctx.operands[ctx.operands.length - 1]!)}`);
    }
    let suffix: ((n: number) => string) | null = null;
    if (v.b !== undefined) {
      const s = suffixFormat(v.b);
      if (typeof s === 'string') {
        await ctx.warn(s);
        return 1;
      }
      suffix = s;
    }
    const prefix = v.f ?? 'xx';
    const name = (n: number) => prefix + (suffix ? suffix(n) : String(n).padStart(digits, '0'));
    const input = ctx.operands[0]!;
    let isDir = false;
    if (input !== '-') {
      try {
        ctx.fs.openRandom(input, ctx.cwd).close();
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        // A directory opens; its first read fails, once the first piece is made.
        if (e.errno !== 'EISDIR') {
          await ctx.warn(`cannot open ${quoteAlways(input)} for reading: ${e.reason}`);
          return 1;
        }
        isDir = true;
      }
    }
    const chunks = input === '-' ? ctx.stdin : isDir ? [] : ctx.fs.readChunks(input, ctx.cwd);
    const job = new Job(ctx, new Lines(chunks), name, { keep: !!v.k, quiet: !!v.s, elide: !!v.z, suppress: !!v.m });
    try {
      const controls = await parsePatterns(ctx, ctx.operands.slice(1));
      if (isDir) job.readError(controls[0]!);
      await job.split(controls);
      return 0;
    } catch (e) {
      if (e instanceof Done) return 0;
      if (e instanceof Fatal) {
        if (e.message) await ctx.warn(e.message);
        await job.cleanup();
        return 1;
      }
      throw e;
    }
  },
});

async function parsePatterns(ctx: CommandContext, args: string[]): Promise<Control[]> {
  const out: Control[] = [];
  let last = 0n;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const c: Control = { arg: a, ignore: false, offset: 0, lines: 0, repeat: 0, forever: false };
    if (a[0] === '/' || a[0] === '%') {
      const delim = a[0];
      const close = a.lastIndexOf(delim);
      if (close <= 0) throw new Fatal(`${a}: closing delimiter '${delim}' missing`);
      c.ignore = delim === '%';
      let t;
      try {
        t = translateRegex(Buffer.from(a.slice(1, close), 'utf8').toString('latin1'), { dialect: 'basic', flavor: 'sed' });
      } catch (e) {
        if (e instanceof RegexSyntaxError) throw new Fatal(`${gnuQuote(a)}: invalid regular expression: ${e.message}`);
        throw e;
      }
      c.regex = new RegExp(t.source, t.flags);
      const rest = a.slice(close + 1);
      if (rest) {
        const m = /^[ \t\n\v\f\r]*([+-]?)([0-9]+)$/.exec(rest);
        if (!m) throw new Fatal(`${gnuQuote(a)}: integer expected after delimiter`);
        c.offset = Number(m[1] === '-' ? -BigInt(m[2]!) : BigInt(m[2]!));
      }
    } else {
      const r = xstrtoumax(a, '');
      if (r.err !== 'ok' || r.value > (1n << 63n) - 1n) throw new Fatal(`${gnuQuote(a)}: invalid pattern`);
      if (r.value === 0n) throw new Fatal(`${a}: line number must be greater than zero`);
      if (r.value < last) throw new Fatal(`line number ${gnuQuote(a)} is smaller than preceding line number, ${last}`);
      if (r.value === last) await ctx.warn(`warning: line number ${gnuQuote(a)} is the same as preceding line number`);
      last = r.value;
      c.lines = Number(r.value);
    }
    if (i + 1 < args.length && args[i + 1]![0] === '{') {
      const s = args[++i]!;
      if (!s.endsWith('}')) throw new Fatal(`${gnuQuote(s)}: '}' is required in repeat count`);
      const inner = s.slice(1, -1);
      if (inner === '*') c.forever = true;
      else {
        const r = xstrtoumax(inner, '');
        if (r.err !== 'ok' || r.value > (1n << 63n) - 1n) throw new Fatal(`${gnuQuote(s.slice(0, -1))}}: integer required between '{' and '}'`);
        c.repeat = Number(r.value);
      }
    }
    out.push(c);
  }
  return out;
}

/** -b FORMAT: one %d/%i/%u/%o/%x/%X conversion (flags, width, precision), as csplit checks it. */
function suffixFormat(fmt: string): ((n: number) => string) | string {
  let conv: { flags: string; width?: number; precision?: number; c: string } | null = null;
  const parts: (string | null)[] = [];
  let lit = '';
  for (let i = 0; i < fmt.length; i++) {
    if (fmt[i] !== '%') {
      lit += fmt[i];
      continue;
    }
    if (fmt[i + 1] === '%') {
      lit += '%';
      i++;
      continue;
    }
    if (conv) return 'too many % conversion specifications in suffix';
    let j = i + 1;
    let flags = '';
    while ('-0\'#'.includes(fmt[j] ?? 'x') && j < fmt.length) flags += fmt[j++];
    let w = '';
    while (/[0-9]/.test(fmt[j] ?? '')) w += fmt[j++];
    let p: string | undefined;
    if (fmt[j] === '.') {
      p = '';
      j++;
      while (/[0-9]/.test(fmt[j] ?? '')) p += fmt[j++];
    }
    const c = fmt[j];
    if (c === undefined) return 'missing conversion specifier in suffix';
    if (!'diuoxX'.includes(c)) {
      const code = c.charCodeAt(0);
      return code >= 0x20 && code < 0x7f ? `invalid conversion specifier in suffix: ${c}` : `invalid conversion specifier in suffix: \\${code.toString(8).padStart(3, '0')}`;
    }
    const compatible = 'oxX'.includes(c) ? '#' : "'";
    const bad = [...flags].find((f) => (f === '#' || f === "'") && f !== compatible);
    if (bad) return `invalid flags in conversion specification: %${flags.includes('#') && compatible !== '#' ? '#' : "'"}${c}`;
    conv = { flags: flags.replace(/'/g, ''), width: w ? Number(w) : undefined, precision: p === undefined ? undefined : Number(p || '0'), c: c === 'u' ? 'd' : c };
    parts.push(lit, null);
    lit = '';
    i = j;
  }
  parts.push(lit);
  if (!conv) return 'missing % conversion specification in suffix';
  const k = conv;
  return (n) => parts.map((x) => (x === null ? formatInt(k.c, { flags: k.flags, width: k.width, precision: k.precision }, BigInt(n)) : x)).join('');
}

/**
 * csplit.c's line buffer: the lines of the input from the first not yet removed to the last
 * read, read on demand, each with its newline (the last may lack one).
 */
class Lines {
  private buf: Buffer[] = [];
  private head = 0;
  /** Number of the line at buf[head]. */
  private base = 1;
  private eof = false;
  private carry: Buffer[] = [];
  private readonly it: AsyncIterator<Uint8Array> | Iterator<Uint8Array>;

  constructor(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
    this.it = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  }

  private get last(): number {
    return this.base + this.buf.length - this.head - 1;
  }

  /** Is line n there (reading up to it)? */
  async has(n: number): Promise<boolean> {
    while (this.last < n && !this.eof) await this.more();
    return n >= this.base && n <= this.last;
  }

  /** Line n if it is held (call has() first). */
  get(n: number): Buffer | null {
    return n >= this.base && n <= this.last ? this.buf[this.head + n - this.base]! : null;
  }

  /** Forget lines before n. */
  dropBefore(n: number): void {
    while (this.base < n && this.head < this.buf.length) {
      this.buf[this.head++] = EMPTY;
      this.base++;
    }
    if (this.head > 1024 && this.head * 2 > this.buf.length) {
      this.buf = this.buf.slice(this.head);
      this.head = 0;
    }
  }

  private async more(): Promise<void> {
    const r = await this.it.next();
    if (r.done) {
      this.eof = true;
      if (this.carry.length) this.buf.push(Buffer.concat(this.carry));
      this.carry = [];
      return;
    }
    const c = r.value;
    const b = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    let at = 0;
    for (let i = b.indexOf(0x0a); i >= 0; i = b.indexOf(0x0a, at)) {
      if (this.carry.length) {
        this.carry.push(b.subarray(at, i + 1));
        this.buf.push(Buffer.concat(this.carry));
        this.carry = [];
      } else this.buf.push(b.subarray(at, i + 1));
      at = i + 1;
    }
    // A chunk may be reused by its reader: keep a copy of a line's start.
    if (at < b.length) this.carry.push(Buffer.from(b.subarray(at)));
  }
}

const EMPTY = Buffer.alloc(0);

/** The split itself: csplit.c's current line and output file over the line buffer. */
class Job {
  private first = 1; // number of the first line not yet removed
  private current = 0;
  private created = 0;
  private w: AtomicWriter | null = null;
  private bytes = 0;
  private outName = '';

  constructor(private readonly ctx: CommandContext, private readonly lines: Lines, private readonly name: (n: number) => string,
    private readonly o: { keep: boolean; quiet: boolean; elide: boolean; suppress: boolean }) {}

  async split(controls: Control[]): Promise<void> {
    for (const c of controls) {
      for (let j = 0; c.forever || j <= c.repeat; j++) {
        if (c.regex) await this.processRegexp(c, j);
        else await this.processLineCount(c, j);
      }
    }
    this.create();
    await this.dumpRest();
    await this.close();
  }

  readError(c: Control): never {
    if (!c.regex || !c.ignore) this.create();
    throw new Fatal('read error: Is a directory');
  }

  private async findLine(n: number): Promise<Buffer | null> {
    return (await this.lines.has(n)) ? this.lines.get(n) : null;
  }

  private async noMoreLines(): Promise<boolean> {
    return (await this.findLine(this.current + 1)) === null;
  }

  /** remove_line; no promise while the line is already read. */
  private removeLine(): Buffer | null | Promise<Buffer | null> {
    if (this.lines.get(this.first) === null) return this.removeLineRead();
    if (this.current < this.first) this.current = this.first;
    const line = this.lines.get(this.first++)!;
    this.lines.dropBefore(this.first);
    return line;
  }

  private async removeLineRead(): Promise<Buffer | null> {
    if (!(await this.lines.has(this.first))) return null;
    if (this.current < this.first) this.current = this.first;
    const line = this.lines.get(this.first++)!;
    this.lines.dropBefore(this.first);
    return line;
  }

  private async firstLine(): Promise<number> {
    if (!(await this.lines.has(this.first))) throw new Fatal('input disappeared');
    return this.first;
  }

  /** Lines of the piece not yet written: written 64 KiB at a time (a write per line is a system call per line). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  private save(line: Buffer): void {
    this.pending.push(line);
    this.pendingBytes += line.length;
    this.bytes += line.length;
    if (this.pendingBytes >= 65536) this.flushPending();
  }

  private flushPending(): void {
    if (this.pending.length) this.w!.write(this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending));
    this.pending = [];
    this.pendingBytes = 0;
  }

  private create(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.outName = this.name(this.created);
    try {
      this.w = this.ctx.fs.createWriter(this.outName, this.ctx.cwd);
    } catch (e) {
      if (e instanceof VfsError) throw new Fatal(`${this.outName}: ${e.reason}`);
      throw e;
    }
    this.created++;
    this.bytes = 0;
  }

  private async close(): Promise<void> {
    if (!this.w) return;
    this.flushPending();
    this.w.commit();
    this.w = null;
    if (this.bytes === 0 && this.o.elide) {
      try {
        this.ctx.fs.unlink(this.outName, this.ctx.cwd);
      } catch {
        /* gone already */
      }
      this.created--;
    } else if (!this.o.quiet) await this.ctx.stdout.write(`${this.bytes}\n`);
  }

  async cleanup(): Promise<void> {
    await this.close();
    if (this.o.keep) return;
    for (let i = this.created; --i >= 0;) {
      try {
        this.ctx.fs.unlink(this.name(i), this.ctx.cwd);
      } catch {
        /* as unlink's ENOENT */
      }
    }
    this.created = 0;
  }

  private async dumpRest(): Promise<void> {
    for (let l = await this.removeLine(); l !== null; l = await this.removeLine()) this.save(l);
  }

  private lineError(c: Control, rep: number): never {
    throw new Fatal(`${gnuQuote(String(c.lines))}: line number out of range${rep ? ` on repetition ${rep}` : ''}`);
  }

  private async processLineCount(c: Control, rep: number): Promise<void> {
    const lastLine = c.lines * (rep + 1);
    this.create();
    if ((await this.noMoreLines()) && this.o.suppress) this.lineError(c, rep);
    let n = await this.firstLine();
    while (n++ < lastLine) {
      const line = await this.removeLine();
      if (line === null) this.lineError(c, rep);
      this.save(line);
    }
    await this.close();
    if (this.o.suppress) await this.removeLine();
    if ((await this.noMoreLines()) && !this.o.suppress) this.lineError(c, rep);
  }

  private matches(c: Control, line: Buffer): boolean {
    let len = line.length;
    if (line[len - 1] === 0x0a) len--;
    c.regex!.lastIndex = 0;
    return c.regex!.test(line.toString('latin1', 0, len));
  }

  private async regexpError(c: Control, rep: number): Promise<never> {
    const msg = `${gnuQuote(c.arg)}: match not found${rep ? ` on repetition ${rep}` : ''}`;
    if (!c.ignore) {
      await this.dumpRest();
      await this.ctx.warn(msg);
      await this.close();
      throw new Fatal('');
    }
    throw new Fatal(msg);
  }

  private async processRegexp(c: Control, rep: number): Promise<void> {
    if (!c.ignore) this.create();
    for (;;) {
      const line = await this.findLine(++this.current);
      if (line === null) {
        if (c.forever) {
          if (!c.ignore) {
            await this.dumpRest();
            await this.close();
          }
          throw new Done();
        }
        await this.regexpError(c, rep);
      }
      if (this.matches(c, line!)) break;
      if (c.offset >= 0) {
        const l = await this.removeLine();
        if (!c.ignore && l) this.save(l);
      } else {
        // Only the last -OFFSET lines can still follow the break: the ones before it go now
        // (a look-back of N lines holds N lines, not all since the last piece).
        while (this.first <= this.current + c.offset) {
          const l = await this.removeLine();
          if (l === null) break;
          if (!c.ignore) this.save(l);
        }
      }
    }
    const breakLine = this.current + c.offset;
    // write_to_file
    const first = await this.firstLine();
    if (first > breakLine) throw new Fatal(`${gnuQuote(c.arg)}: line number out of range`);
    for (let i = 0; i < breakLine - first; i++) {
      const l = await this.removeLine();
      if (l === null) throw new Fatal(`${gnuQuote(c.arg)}: line number out of range`);
      if (!c.ignore) this.save(l);
    }
    if (!c.ignore) await this.close();
    if (c.offset > 0) this.current = breakLine;
    if (this.o.suppress) await this.removeLine();
  }
}
