import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { NoshError } from '../../src/errors.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteAlways, quoteNameColon } from '../../src/gnulib/quote.js';
import { inputOperands } from '../../src/gnulib/helpers.js';
import { OutBuffer } from '../../src/gnulib/text-lines.js';

/**
 * GNU tac (coreutils 9.1): records in reverse order. A file is read backwards from its end
 * in windows (positioned reads, as GNU seeks), so memory stays at a window whatever its
 * size; standard input cannot be read backwards and is held whole, up to
 * limits.maxBufferBytes (past it: MEMORY_LIMIT). -r (a regex separator) is not offered.
 */
export default defineCommand({
  name: 'tac',
  summary: 'Write each FILE to standard output, last line first. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'b', short: 'b', long: 'before', help: 'attach the separator before instead of after' },
    { key: 's', short: 's', long: 'separator', kind: 'string', arg: 'STRING', help: 'use STRING as the separator instead of newline' },
  ],
  async run(ctx) {
    const s = ctx.opts.get('s');
    // GNU: an empty separator is the NUL byte (its first byte, the string's terminator).
    const sep = s === undefined ? Buffer.from('\n') : s === '' ? Buffer.from([0]) : Buffer.from(s, 'utf8');
    const before = ctx.opts.has('b');
    const out = new OutBuffer(ctx.stdout);
    let status = 0;
    for (const operand of inputOperands(ctx.operands)) {
      let src: Source;
      if (operand === '-') src = await stdinSource(ctx);
      else {
        try {
          const r = ctx.fs.openRandom(operand, ctx.cwd);
          src = { size: r.size, readAt: (b, p, l) => r.readAt(b, p, l), close: () => r.close() };
        } catch (e) {
          if (!(e instanceof VfsError)) throw e;
          await out.flush();
          // GNU opens a directory, then its read fails (lseek/read on it: EINVAL here).
          if (e.errno === 'EISDIR') await ctx.warn(`${quoteNameColon(operand)}: read error: Invalid argument`);
          else await ctx.warn(`failed to open ${quoteAlways(operand)} for reading: ${e.reason}`);
          status = 1;
          continue;
        }
      }
      try {
        await reverse(src, sep, before, out);
      } finally {
        src.close();
      }
    }
    await out.flush();
    return status;
  },
});

interface Source {
  size: number;
  readAt(buf: Buffer, position: number, length: number): number;
  close(): void;
}

/** Standard input held whole (it cannot be read backwards), bounded by limits.maxBufferBytes. */
async function stdinSource(ctx: CommandContext): Promise<Source> {
  const parts: Buffer[] = [];
  let size = 0;
  const cap = ctx.limits.maxBufferBytes;
  for await (const c of ctx.stdin) {
    size += c.length;
    if (size > cap) {
      throw new NoshError('MEMORY_LIMIT', `tac: standard input is more than ${cap} bytes: tac holds its standard input whole`,
        'Write the input to a file first and run tac on the file (a file is read backwards, whatever its size).', { max_buffer_bytes: cap });
    }
    parts.push(Buffer.from(c));
  }
  const all = Buffer.concat(parts, size);
  return {
    size,
    readAt: (buf, p, l) => all.copy(buf, 0, p, p + l),
    close: () => {},
  };
}

const WINDOW = 256 * 1024;

/**
 * The separators found from the end backwards, each wholly before the previous one's start
 * (GNU's search: "xaaaay" with "aa" splits as x|aa|aa|y). Records are the bytes between
 * separator ends (or starts, with -b), written last first.
 */
async function reverse(src: Source, sep: Buffer, before: boolean, out: OutBuffer): Promise<void> {
  const L = sep.length;
  const W = Math.max(WINDOW, 2 * L);
  // The window read last: [winStart, winStart + win.length).
  let win = Buffer.alloc(0);
  let winStart = src.size;
  let limit = src.size; // a match must lie wholly in [0, limit)
  let recEnd = src.size; // the end of the record still to write
  const emit = async (a: number, b: number) => {
    if (a >= b) return;
    if (a >= winStart && b <= winStart + win.length) {
      if (out.add(win.subarray(a - winStart, b - winStart))) await out.flush();
      return;
    }
    for (let p = a; p < b; p += WINDOW) {
      const n = Math.min(WINDOW, b - p);
      const piece = Buffer.allocUnsafe(n);
      src.readAt(piece, p, n);
      if (out.add(piece)) await out.flush();
    }
  };
  for (;;) {
    let at = -1;
    while (limit >= L) {
      if (limit > winStart + win.length || limit - L < winStart || win.length === 0) {
        // Read the window that ends at `limit` (a fresh buffer: the output may still hold the old one).
        const start = Math.max(0, limit - W);
        win = Buffer.allocUnsafe(limit - start);
        src.readAt(win, start, limit - start);
        winStart = start;
      }
      const i = win.subarray(0, limit - winStart).lastIndexOf(sep);
      if (i >= 0) {
        at = winStart + i;
        break;
      }
      if (winStart === 0) {
        limit = 0;
        break;
      }
      // Go on before this window; a match may straddle its start.
      limit = winStart + L - 1;
      win = Buffer.alloc(0);
    }
    if (at < 0) {
      await emit(0, recEnd);
      return;
    }
    const cut = before ? at : at + L;
    await emit(cut, recEnd);
    recEnd = cut;
    limit = at;
  }
}
