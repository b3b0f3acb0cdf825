import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { inputOperands, openInput, reportFileError } from '../../src/gnulib/helpers.js';

export default defineCommand({
  name: 'cat',
  summary: 'Concatenate FILE(s) to standard output. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    // Long options in GNU's getopt table order: an ambiguous prefix lists them in this order.
    { key: 'b', short: 'b', long: 'number-nonblank', help: 'number nonempty output lines, overrides -n' },
    { key: 'n', short: 'n', long: 'number', help: 'number all output lines' },
    { key: 's', short: 's', long: 'squeeze-blank', help: 'suppress repeated empty output lines' },
    { key: 'v', short: 'v', long: 'show-nonprinting', help: 'use ^ and M- notation, except for LFD and TAB' },
    { key: 'E', short: 'E', long: 'show-ends', help: "display $ at end of each line" },
    { key: 'T', short: 'T', long: 'show-tabs', help: 'display TAB characters as ^I' },
    { key: 'A', short: 'A', long: 'show-all', help: 'equivalent to -vET' },
    { key: 'e', short: 'e', help: 'equivalent to -vE' },
    { key: 't', short: 't', help: 'equivalent to -vT' },
    { key: 'u', short: 'u', help: '(ignored)' },
  ],
  async run(ctx) {
    const o = ctx.values;
    const fmt: Format = {
      number: o.b ? 'nonblank' : o.n ? 'all' : 'none',
      ends: !!(o.A || o.e || o.E),
      tabs: !!(o.A || o.t || o.T),
      nonprinting: !!(o.A || o.e || o.t || o.v),
      squeeze: o.s === true,
    };
    const plain = fmt.number === 'none' && !fmt.ends && !fmt.tabs && !fmt.nonprinting && !fmt.squeeze;
    const state: LineState = { lineNo: 0, blankRun: 0, atLineStart: true, pendingCR: false };
    let status = 0;
    for (const operand of inputOperands(ctx.operands)) {
      try {
        if (plain) {
          for await (const chunk of openInput(ctx, operand)) await ctx.stdout.write(chunk);
        } else {
          await formatStream(ctx, openInput(ctx, operand), fmt, state);
        }
      } catch (e) {
        await reportFileError(ctx, operand, e);
        status = 1;
      }
    }
    if (!plain) await finishStream(ctx, state);
    return status;
  },
});

interface Format {
  number: 'none' | 'all' | 'nonblank';
  ends: boolean;
  tabs: boolean;
  nonprinting: boolean;
  squeeze: boolean;
}

/** Carried across files, as GNU cat numbers and squeezes across its whole input. */
interface LineState {
  lineNo: number;
  blankRun: number;
  atLineStart: boolean;
  /** A CR seen with -E, held until the next byte shows whether it ends a line (CR LF shows as ^M$). */
  pendingCR: boolean;
}

const OUT_SIZE = 64 * 1024;

async function formatStream(ctx: CommandContext, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, fmt: Format, st: LineState): Promise<void> {
  // Worst case per input byte is 4 bytes (M-^X) plus a line number prefix.
  let out = Buffer.allocUnsafe(OUT_SIZE + 64);
  let n = 0;
  const flush = async () => {
    if (n > 0) {
      await ctx.stdout.write(out.subarray(0, n));
      out = Buffer.allocUnsafe(OUT_SIZE + 64);
      n = 0;
    }
  };
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (st.pendingCR) {
        st.pendingCR = false;
        if (byte === 0x0a) {
          out[n++] = 0x5e;
          out[n++] = 0x4d;
        } else out[n++] = 0x0d;
      }
      if (st.atLineStart) {
        const blank = byte === 0x0a;
        if (blank) {
          st.blankRun++;
          if (fmt.squeeze && st.blankRun > 1) continue;
        } else st.blankRun = 0;
        if (fmt.number === 'all' || (fmt.number === 'nonblank' && !blank)) {
          n += out.write(`${String(++st.lineNo).padStart(6)}\t`, n, 'latin1');
        }
        st.atLineStart = false;
      }
      if (byte === 0x0a) {
        if (fmt.ends) out[n++] = 0x24;
        out[n++] = 0x0a;
        st.atLineStart = true;
      } else if (byte === 0x09) {
        if (fmt.tabs) {
          out[n++] = 0x5e;
          out[n++] = 0x49;
        } else out[n++] = byte;
      } else if (byte === 0x0d && fmt.ends && !fmt.nonprinting) {
        st.pendingCR = true;
      } else if (fmt.nonprinting) {
        n = putNonprinting(out, n, byte);
      } else out[n++] = byte;
      if (n >= OUT_SIZE) await flush();
    }
  }
  await flush();
}

/** The CR still held at the very end of the input is output as it is. */
async function finishStream(ctx: CommandContext, st: LineState): Promise<void> {
  if (st.pendingCR) await ctx.stdout.write(Buffer.from([0x0d]));
  st.pendingCR = false;
}

/** cat -v notation: ^X for controls, ^? for DEL, M- prefix for bytes >= 128. */
function putNonprinting(out: Buffer, n: number, byte: number): number {
  if (byte >= 128) {
    out[n++] = 0x4d;
    out[n++] = 0x2d;
    byte -= 128;
  }
  if (byte < 32) {
    out[n++] = 0x5e;
    out[n++] = byte + 64;
  } else if (byte === 127) {
    out[n++] = 0x5e;
    out[n++] = 0x3f;
  } else out[n++] = byte;
  return n;
}
