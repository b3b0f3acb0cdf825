import { defineCommand, type CommandContext, type CommandDef } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { translateRegex } from '../../src/regex/index.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { inputOperands, openInput } from '../../src/gnulib/helpers.js';
import { FatalError, LineReader, OutBuffer } from '../../src/gnulib/text-lines.js';

/** GNU nl (coreutils 9.1): lines numbered as they stream, with logical page sections. */
const def: CommandDef = defineCommand({
  name: 'nl',
  summary: 'Write each FILE to standard output, with line numbers added. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'h', short: 'h', long: 'header-numbering', kind: 'string', arg: 'STYLE', help: 'use STYLE for numbering header lines' },
    { key: 'b', short: 'b', long: 'body-numbering', kind: 'string', arg: 'STYLE', help: 'use STYLE for numbering body lines' },
    { key: 'f', short: 'f', long: 'footer-numbering', kind: 'string', arg: 'STYLE', help: 'use STYLE for numbering footer lines' },
    { key: 'v', short: 'v', long: 'starting-line-number', kind: 'string', arg: 'NUMBER', help: 'first line number for each section' },
    { key: 'i', short: 'i', long: 'line-increment', kind: 'string', arg: 'NUMBER', help: 'line number increment at each line' },
    { key: 'p', short: 'p', long: 'no-renumber', help: 'do not reset line numbers for each section' },
    { key: 'l', short: 'l', long: 'join-blank-lines', kind: 'string', arg: 'NUMBER', help: 'group of NUMBER empty lines counted as one' },
    { key: 's', short: 's', long: 'number-separator', kind: 'string', arg: 'STRING', help: 'add STRING after (possible) line number' },
    { key: 'w', short: 'w', long: 'number-width', kind: 'string', arg: 'NUMBER', help: 'use NUMBER columns for line numbers' },
    { key: 'n', short: 'n', long: 'number-format', kind: 'string', arg: 'FORMAT', help: 'insert line numbers according to FORMAT (ln, rn or rz)' },
    { key: 'd', short: 'd', long: 'section-delimiter', kind: 'string', arg: 'CC', help: 'use CC for logical page delimiters' },
  ],
  notes: "Default options are: -bt -d'\\:' -fn -hn -i1 -l1 -n'rn' -s<TAB> -v1 -w6\nSTYLE is one of: a (all lines), t (nonempty lines), n (no lines), pBRE (lines matching the basic regular expression BRE).",
  async run(ctx) {
    const out = new OutBuffer(ctx.stdout);
    try {
      const o = await parse(ctx);
      if (o === null) return 1;
      let ok = true;
      const st: State = { type: o.styles[1]!, lineNo: o.start, overflow: false, blanks: 0 };
      for (const name of inputOperands(ctx.operands)) {
        try {
          await nlFile(openInput(ctx, name), o, st, out);
        } catch (e) {
          if (!(e instanceof VfsError)) throw e;
          await out.flush();
          await ctx.warn(`${quoteNameColon(name)}: ${e.reason}`);
          ok = false;
        }
      }
      await out.flush();
      return ok ? 0 : 1;
    } catch (e) {
      if (!(e instanceof FatalError)) throw e;
      await out.flush();
      await ctx.warn(e.message);
      return 1;
    }
  },
});
export default def;

/** A numbering style: a, t, n, or p with its regex. */
interface Style { kind: 'a' | 't' | 'n' | 'p'; re?: RegExp }

interface Opts {
  styles: Style[]; // header, body, footer
  start: bigint;
  incr: bigint;
  reset: boolean;
  blankJoin: bigint;
  sep: Buffer;
  width: number;
  format: 'ln' | 'rn' | 'rz';
  del: Buffer;
}

interface State { type: Style; lineNo: bigint; overflow: boolean; blanks: number }

const MIN = -(1n << 63n);
const MAX = (1n << 63n) - 1n;

/** gnulib xdectoimax: a signed decimal in [min, max], or GNU's fatal message. */
function decimal(s: string, min: bigint, max: bigint, what: string): bigint {
  const m = /^[ \t\n\v\f\r]*([+-]?[0-9]+)$/.exec(s);
  if (!m) throw new FatalError(`${what}: ${gnuQuote(s)}`);
  const v = BigInt(m[1]!);
  if (v < MIN || v > MAX) throw new FatalError(`${what}: ${gnuQuote(s)}: Value too large for defined data type`);
  if (v < min || v > max) {
    // gnulib xnumtoimax: EOVERFLOW past INT_MAX/2 either way, else ERANGE.
    const big = v > 1073741823n || v < -1073741824n;
    throw new FatalError(`${what}: ${gnuQuote(s)}: ${big ? 'Value too large for defined data type' : 'Numerical result out of range'}`);
  }
  return v;
}

function style(v: string): Style | null {
  const c = v[0];
  if (c === 'a' || c === 't' || c === 'n') return { kind: c };
  if (c !== 'p') return null;
  let t;
  try {
    t = translateRegex(Buffer.from(v.slice(1), 'utf8').toString('latin1'), { dialect: 'basic', flavor: 'sed', newline: 'any' });
  } catch (e) {
    throw new FatalError((e as Error).message);
  }
  return { kind: 'p', re: new RegExp(t.source, t.flags) };
}

async function parse(ctx: CommandContext): Promise<Opts | null> {
  const o: Opts = {
    styles: [{ kind: 'n' }, { kind: 't' }, { kind: 'n' }], start: 1n, incr: 1n, reset: true, blankJoin: 1n,
    sep: Buffer.from('\t'), width: 6, format: 'rn', del: Buffer.from('\\:'),
  };
  let ok = true;
  const names: Record<string, [number, string]> = { h: [0, 'header'], b: [1, 'body'], f: [2, 'footer'] };
  for (const item of ctx.opts.order) {
    const v = item.value;
    switch (item.key) {
      case 'h':
      case 'b':
      case 'f': {
        const s = style(v);
        const [i, name] = names[item.key]!;
        if (s) o.styles[i] = s;
        else {
          await ctx.warn(`invalid ${name} numbering style: ${gnuQuote(v)}`);
          ok = false;
        }
        break;
      }
      case 'v':
        o.start = decimal(v, MIN, MAX, 'invalid starting line number');
        break;
      case 'i':
        o.incr = decimal(v, MIN, MAX, 'invalid line number increment');
        break;
      case 'p':
        o.reset = false;
        break;
      case 'l':
        o.blankJoin = decimal(v, 1n, MAX, 'invalid line number of blank lines');
        break;
      case 's':
        o.sep = Buffer.from(v, 'utf8');
        break;
      case 'w':
        o.width = Number(decimal(v, 1n, 2147483647n, 'invalid line number field width'));
        break;
      case 'n':
        if (v === 'ln' || v === 'rn' || v === 'rz') o.format = v;
        else {
          await ctx.warn(`invalid line numbering format: ${gnuQuote(v)}`);
          ok = false;
        }
        break;
      case 'd': {
        const b = Buffer.from(v, 'utf8');
        // POSIX: one or two characters replace the start of '\:'; more (or none) are the whole delimiter.
        if (b.length === 1 || b.length === 2) {
          const d = Buffer.from(o.del);
          b.copy(d);
          o.del = d;
        } else o.del = b;
        break;
      }
    }
  }
  if (!ok) {
    await ctx.stderr.write(`Try '${ctx.name} --help' for more information.\n`);
    return null;
  }
  return o;
}

async function nlFile(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, o: Opts, st: State, out: OutBuffer): Promise<void> {
  const reader = new LineReader(source, 0x0a);
  const nl = Buffer.from('\n');
  const SPACES = Buffer.alloc(64 * 1024, 0x20);
  const ZEROS = Buffer.alloc(64 * 1024, 0x30);
  // A width may be up to INT_MAX: padding goes out in pieces (the output cap ends it).
  const fill = async (pad: Buffer, n: number) => {
    for (; n > 0; n -= pad.length) if (out.add(pad.subarray(0, Math.min(n, pad.length)))) await out.flush();
  };
  // An unnumbered line gets spaces as wide as the number and the separator.
  const blank = () => fill(SPACES, o.width + o.sep.length);
  const d = o.del;
  const header = Buffer.concat([d, d, d]);
  const body = Buffer.concat([d, d]);
  const lineno = async () => {
    if (st.overflow) throw new FatalError('line number overflow');
    const n = st.lineNo.toString();
    const num = Buffer.from(n, 'latin1');
    const pad = Math.max(0, o.width - n.length);
    if (o.format === 'ln') {
      out.add(num);
      await fill(SPACES, pad);
    } else if (o.format === 'rn') {
      await fill(SPACES, pad);
      out.add(num);
    } else if (n.startsWith('-')) {
      out.add(Buffer.from('-'));
      await fill(ZEROS, pad);
      out.add(num.subarray(1));
    } else {
      await fill(ZEROS, pad);
      out.add(num);
    }
    out.add(o.sep);
    st.lineNo += o.incr;
    if (st.lineNo < MIN || st.lineNo > MAX) st.overflow = true;
  };
  const section = (i: number) => {
    st.type = o.styles[i]!;
    if (o.reset) {
      st.lineNo = o.start;
      st.overflow = false;
    }
    out.add(nl);
  };
  for (let line = await reader.next(); line !== null; line = await reader.next()) {
    if (line.length >= 2 && d.length >= 2 && line[0] === d[0] && line[1] === d[1]) {
      if (line.equals(header)) {
        section(0);
        continue;
      }
      if (line.equals(body)) {
        section(1);
        continue;
      }
      if (line.equals(d)) {
        section(2);
        continue;
      }
    }
    switch (st.type.kind) {
      case 'a':
        if (o.blankJoin > 1n) {
          if (line.length > 0 || BigInt(++st.blanks) === o.blankJoin) {
            await lineno();
            st.blanks = 0;
          } else await blank();
        } else await lineno();
        break;
      case 't':
        if (line.length > 0) await lineno();
        else await blank();
        break;
      case 'n':
        await blank();
        break;
      case 'p':
        if (st.type.re!.test(line.toString('latin1'))) await lineno();
        else await blank();
        break;
    }
    out.add(line);
    if (out.add(nl)) await out.flush();
  }
}
