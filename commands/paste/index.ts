import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteNameColon, quoteStyled } from '../../src/gnulib/quote.js';
import { inputOperands, openAsFopen } from '../../src/gnulib/helpers.js';
import { FatalError, LineReader, OutBuffer } from '../../src/gnulib/text-lines.js';

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
    try {
      const ok = ctx.opts.has('s') ? await serial(ctx, inputOperands(ctx.operands), delims, eol, out) : await parallel(ctx, inputOperands(ctx.operands), delims, eol, out);
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

async function parallel(ctx: CommandContext, names: string[], delims: number[], eol: number, out: OutBuffer): Promise<boolean> {
  let ok = true;
  let stdin: LineReader | undefined;
  const readers: (LineReader | null)[] = names.map((name) => {
    if (name === '-') return (stdin ??= new LineReader(ctx.stdin, eol));
    try {
      return new LineReader(open(ctx, name), eol);
    } catch (e) {
      if (e instanceof VfsError) throw new FatalError(`${quoteNameColon(name)}: ${e.reason}`);
      throw e;
    }
  });
  const delimBufs = delims.map((c) => (c === EMPTY ? null : Buffer.from([c])));
  const eolBuf = Buffer.from([eol]);
  let open_ = readers.length;
  const last = readers.length - 1;
  while (open_ > 0) {
    let somedone = false;
    let di = 0;
    const saved: Buffer[] = [];
    for (let i = 0; i < readers.length && open_ > 0; i++) {
      const r = readers[i];
      let line: Buffer | null = null;
      if (r) {
        try {
          line = await r.next();
        } catch (e) {
          if (!(e instanceof VfsError)) throw e;
          await out.flush();
          await ctx.warn(`${quoteNameColon(names[i]!)}: ${e.reason}`);
          ok = false;
        }
        if (line !== null && saved.length) {
          for (const s of saved) out.add(s);
          saved.length = 0;
        }
      }
      if (line === null) {
        if (r) {
          readers[i] = null;
          open_--;
        }
        if (i === last) {
          if (somedone) {
            for (const s of saved) out.add(s);
            saved.length = 0;
            if (out.add(eolBuf)) await out.flush();
          }
          continue;
        }
        if (delimBufs[di]) saved.push(delimBufs[di]!);
        if (++di === delimBufs.length) di = 0;
        continue;
      }
      somedone = true;
      out.add(line);
      if (i !== last) {
        if (delimBufs[di]) out.add(delimBufs[di]!);
        if (++di === delimBufs.length) di = 0;
      } else if (out.add(eolBuf)) await out.flush();
    }
  }
  return ok;
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
