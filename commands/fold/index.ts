import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { NoshError } from '../../src/errors.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { inputOperands, openInput } from '../../src/gnulib/helpers.js';
import { FatalError } from '../../src/gnulib/text-lines.js';

/**
 * GNU fold (coreutils 9.1) in the C locale, streamed: the line being built is held (GNU's
 * line_out), at most WIDTH columns of it. The obsolete `-WIDTH` form (fold -80) is not
 * offered: it is a usage error (write -w 80).
 */
export default defineCommand({
  name: 'fold',
  summary: 'Wrap input lines in each FILE, writing to standard output. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'b', short: 'b', long: 'bytes', help: 'count bytes rather than columns' },
    { key: 's', short: 's', long: 'spaces', help: 'break at spaces' },
    { key: 'w', short: 'w', long: 'width', kind: 'string', arg: 'WIDTH', help: 'use WIDTH columns instead of 80' },
  ],
  async run(ctx) {
    let width = 80;
    try {
      for (const v of ctx.opts.all('w')) width = parseWidth(v);
    } catch (e) {
      if (!(e instanceof FatalError)) throw e;
      await ctx.warn(e.message);
      return 1;
    }
    const o = { width, bytes: ctx.opts.has('b'), spaces: ctx.opts.has('s') };
    let ok = true;
    for (const name of inputOperands(ctx.operands)) {
      if (!(await foldFile(ctx, name, o))) ok = false;
    }
    return ok ? 0 : 1;
  },
});

/** xdectoumax(s, 1, SIZE_MAX - TAB_WIDTH - 1, "", "invalid number of columns"). */
function parseWidth(s: string): number {
  const m = /^[ \t\n\v\f\r]*\+?([0-9]+)$/.exec(s);
  if (!m) throw new FatalError(`invalid number of columns: ${gnuQuote(s)}`);
  const v = BigInt(m[1]!);
  const max = (1n << 64n) - 1n - 9n;
  if (v > (1n << 64n) - 1n) throw new FatalError(`invalid number of columns: ${gnuQuote(s)}: Value too large for defined data type`);
  if (v < 1n || v > max) {
    const big = v > 1073741823n;
    throw new FatalError(`invalid number of columns: ${gnuQuote(s)}: ${big ? 'Value too large for defined data type' : 'Numerical result out of range'}`);
  }
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
}

async function foldFile(ctx: CommandContext, name: string, o: { width: number; bytes: boolean; spaces: boolean }): Promise<boolean> {
  const cap = ctx.limits.maxBufferBytes;
  let line = Buffer.allocUnsafe(1024);
  let n = 0; // bytes in line
  let column = 0;
  let out: Buffer[] = [];
  let outSize = 0;
  const emit = (b: Buffer) => {
    out.push(Buffer.from(b));
    outSize += b.length;
  };
  const flushOut = async () => {
    if (!outSize) return;
    const data = Buffer.concat(out, outSize);
    out = [];
    outSize = 0;
    await ctx.stdout.write(data);
  };
  const adjust = (col: number, c: number) => {
    if (o.bytes) return col + 1;
    if (c === 0x08) return col > 0 ? col - 1 : 0;
    if (c === 0x0d) return 0;
    if (c === 0x09) return col + 8 - (col % 8);
    return col + 1;
  };
  const push = (c: number) => {
    if (n >= line.length) {
      if (n >= cap) {
        throw new NoshError('MEMORY_LIMIT', `fold: a line of more than ${cap} bytes that does not reach the width: fold holds it whole`,
          'Use fold -b, or a smaller -w.', { max_buffer_bytes: cap });
      }
      const bigger = Buffer.allocUnsafe(Math.min(cap + 1, line.length * 2));
      line.copy(bigger, 0, 0, n);
      line = bigger;
    }
    line[n++] = c;
  };
  try {
    for await (const chunk of openInput(ctx, name) as AsyncIterable<Uint8Array>) {
      for (let k = 0; k < chunk.length; k++) {
        const c = chunk[k]!;
        if (c === 0x0a) {
          push(c);
          emit(line.subarray(0, n));
          column = n = 0;
          continue;
        }
        for (;;) {
          // rescan
          column = adjust(column, c);
          if (column > o.width) {
            if (o.spaces) {
              let end = n;
              let found = false;
              while (end) {
                end--;
                if (line[end] === 0x20 || line[end] === 0x09) {
                  found = true;
                  break;
                }
              }
              if (found) {
                end++;
                emit(line.subarray(0, end));
                emit(NL);
                line.copy(line, 0, end, n);
                n -= end;
                column = 0;
                for (let i = 0; i < n; i++) column = adjust(column, line[i]!);
                continue;
              }
            }
            if (n === 0) {
              push(c);
              break;
            }
            push(0x0a);
            emit(line.subarray(0, n));
            column = n = 0;
            continue;
          }
          push(c);
          break;
        }
      }
      if (outSize >= 64 * 1024) await flushOut();
    }
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    if (n) emit(line.subarray(0, n));
    await flushOut();
    await ctx.warn(`${quoteNameColon(name)}: ${e.reason}`);
    return false;
  }
  if (n) emit(line.subarray(0, n));
  await flushOut();
  return true;
}

const NL = Buffer.from('\n');
