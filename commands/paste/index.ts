import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteNameColon, quoteStyled } from '../../src/gnulib/quote.js';
import { inputOperands, openAsFopen } from '../../src/gnulib/helpers.js';
import { CopyOut, FatalError, OutBuffer, SpanReader } from '../../src/gnulib/text-lines.js';

/** A delimiter that adds nothing (GNU's EMPTY_DELIM, written `\0`). */
const EMPTY = -1;

/**
 * GNU paste (coreutils 9.1): lines of the files side by side (each read a line at a time),
 * or each file's lines on one line with -s (a byte stream). Delimiters are bytes, used in turn.
 */
export default defineCommand({
  name: 'paste',
  summary: 'Write lines consisting of the sequentially corresponding lines from each FILE, separated by TABs, to standard output. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 's', short: 's', long: 'serial', help: 'paste one file at a time instead of in parallel' },
    { key: 'd', short: 'd', long: 'delimiters', kind: 'string', arg: 'LIST', help: 'reuse characters from LIST instead of TABs' },
    { key: 'z', short: 'z', long: 'zero-terminated', help: 'line delimiter is NUL, not newline' },
  ],
  async run(ctx) {
    const d = ctx.opts.get('d');
    const delims = collapseEscapes(d === undefined ? '\t' : d === '' ? '\\0' : d);
    if (delims === null) {
      await ctx.warn(`delimiter list ends with an unescaped backslash: ${quoteStyled(d!, 'c-maybe', ':')}`);
      return 1;
    }
    const eol = ctx.opts.has('z') ? 0 : 0x0a;
    const out = new OutBuffer(ctx.stdout);
    const copy = new CopyOut(ctx.stdout);
    try {
      const ok = ctx.opts.has('s') ? await serial(ctx, inputOperands(ctx.operands), delims, eol, out) : await parallel(ctx, inputOperands(ctx.operands), delims, eol, copy);
      await out.flush();
      await copy.flush();
      return ok ? 0 : 1;
    } catch (e) {
      if (!(e instanceof FatalError)) throw e;
      await out.flush();
      await copy.flush();
      await ctx.warn(e.message);
      return 1;
    }
  },
});

/** GNU collapse_escapes: \0 (no delimiter) \b \f \n \r \t \v \\, any other \X is X; null when it ends in a lone backslash. */
function collapseEscapes(s: string): number[] | null {
  const b = Buffer.from(s, 'utf8');
  const out: number[] = [];
  const map: Record<string, number> = { '0': EMPTY, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };
  for (let i = 0; i < b.length; i++) {
    if (b[i] !== 0x5c) {
      out.push(b[i]!);
      continue;
    }
    if (++i >= b.length) return null;
    const c = String.fromCharCode(b[i]!);
    out.push(c in map ? map[c]! : b[i]!);
  }
  return out;
}

type Source = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
const open = openAsFopen;

async function parallel(ctx: CommandContext, names: string[], delims: number[], eol: number, w: CopyOut): Promise<boolean> {
  let ok = true;
  let stdin: SpanReader | undefined;
  const readers: (SpanReader | null)[] = names.map((name) => {
    if (name === '-') return (stdin ??= new SpanReader(ctx.stdin, eol));
    try {
      // One reused read buffer per file: a row's lines are copied out before their reader moves on.
      return new SpanReader(open(ctx, name, true), eol);
    } catch (e) {
      if (e instanceof VfsError) throw new FatalError(`${quoteNameColon(name)}: ${e.reason}`);
      throw e;
    }
  });
  let open_ = readers.length;
  const last = readers.length - 1;
  /** Delimiters of empty columns, written only if a later column of the row has a line. */
  const saved: number[] = [];
  // Rows whose every line is already in its reader's chunk are copied in one tight loop
  // (not when one reader stands for several operands: `-` given twice).
  const distinct = new Set(readers).size === readers.length;
  while (open_ > 0) {
    if (distinct && open_ === readers.length) {
      const full = copyRows(readers as SpanReader[], delims, eol, w);
      if (w.full) await w.flush();
      if (full) continue;
    }
    let somedone = false;
    let di = 0;
    saved.length = 0;
    for (let i = 0; i < readers.length && open_ > 0; i++) {
      const r = readers[i];
      let got = false;
      if (r) {
        try {
          const g = r.next();
          got = g === true || g === false ? g : await g;
        } catch (e) {
          if (!(e instanceof VfsError)) throw e;
          await w.flush();
          await ctx.warn(`${quoteNameColon(names[i]!)}: ${e.reason}`);
          ok = false;
        }
        if (got && saved.length) {
          for (const c of saved) w.byte(c);
          saved.length = 0;
        }
      }
      if (!got) {
        if (r) {
          readers[i] = null;
          open_--;
        }
        if (i === last) {
          if (somedone) {
            for (const c of saved) w.byte(c);
            saved.length = 0;
            w.byte(eol);
            if (w.full) await w.flush();
          }
          continue;
        }
        if (delims[di] !== EMPTY) saved.push(delims[di]!);
        if (++di === delims.length) di = 0;
        continue;
      }
      somedone = true;
      w.put(r!.buf, r!.s, r!.e);
      if (i !== last) {
        if (delims[di] !== EMPTY) w.byte(delims[di]!);
        if (++di === delims.length) di = 0;
      } else {
        w.byte(eol);
        if (w.full) await w.flush();
      }
    }
  }
  return ok;
}

const lineEnds: number[] = [];

/**
 * Rows whose every line is in its reader's chunk, copied until the output buffer is full
 * (true) or a line's end is not in its chunk (false: that row is left to the reading loop).
 */
function copyRows(readers: SpanReader[], delims: number[], eol: number, w: CopyOut): boolean {
  const last = readers.length - 1;
  const ends = lineEnds;
  for (;;) {
    if (w.full) return true;
    for (let i = 0; i <= last; i++) {
      const r = readers[i]!;
      const e = r.buf.indexOf(eol, r.pos);
      if (e < 0) return false;
      ends[i] = e;
    }
    let di = 0;
    for (let i = 0; i <= last; i++) {
      const r = readers[i]!;
      const e = ends[i]!;
      w.put(r.buf, r.pos, e);
      r.pos = e + 1;
      if (i !== last) {
        const d = delims[di]!;
        if (d !== EMPTY) w.byte(d);
        if (++di === delims.length) di = 0;
      } else w.byte(eol);
    }
  }
}

async function serial(ctx: CommandContext, names: string[], delims: number[], eol: number, out: OutBuffer): Promise<boolean> {
  let ok = true;
  for (const name of names) {
    let source: Source;
    if (name === '-') source = ctx.stdin;
    else {
      try {
        source = open(ctx, name);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await out.flush();
        await ctx.warn(`${quoteNameColon(name)}: ${e.reason}`);
        ok = false;
        continue;
      }
    }
    let di = 0;
    let lastByte = -1;
    let error: VfsError | undefined;
    try {
      for await (const chunk of source as AsyncIterable<Uint8Array>) {
        if (chunk.length === 0) continue;
        // Every line end but the input's very last byte becomes the next delimiter.
        const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        const piece = Buffer.allocUnsafe(buf.length + 1);
        let n = 0;
        if (lastByte >= 0) {
          if (lastByte === eol) {
            if (delims[di] !== EMPTY) piece[n++] = delims[di]!;
            if (++di === delims.length) di = 0;
          } else piece[n++] = lastByte;
        }
        const end = buf.length - 1;
        let start = 0;
        for (let i = buf.indexOf(eol, start); i >= 0 && i < end; i = buf.indexOf(eol, start)) {
          n += buf.copy(piece, n, start, i);
          if (delims[di] !== EMPTY) piece[n++] = delims[di]!;
          if (++di === delims.length) di = 0;
          start = i + 1;
        }
        n += buf.copy(piece, n, start, end);
        lastByte = buf[end]!;
        if (out.add(piece.subarray(0, n))) await out.flush();
      }
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      error = e;
    }
    const tail: number[] = [];
    if (lastByte >= 0) tail.push(lastByte);
    if (lastByte !== eol) tail.push(eol);
    if (out.add(Buffer.from(tail))) await out.flush();
    if (error) {
      await out.flush();
      await ctx.warn(`${quoteNameColon(name)}: ${error.reason}`);
      ok = false;
    }
  }
  return ok;
}
