// xxd (vim's xxd 2022-01-14): hex dump (normal, -b bits, -e little-endian, -p plain, -i C
// include) and its reverse (-r), streamed; -r into an output file patches it through the Vfs.
import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { HEX_BITS, HEX_CINCLUDE, HEX_LITTLEENDIAN, HEX_NORMAL, HEX_POSTSCRIPT, USAGE, parseXxd, type XxdOptions } from './options.js';
import { revert } from './revert.js';
import { Exit, Sink } from './sink.js';

const VERSION = 'xxd 2022-01-14 by Juergen Weigert et al.';
const CHUNK = 256 * 1024;


export default defineCommand({
  name: 'xxd',
  summary: 'Make a hex dump of a file or standard input, or (-r) convert a hex dump back to binary.',
  usage: '[options] [infile [outfile]]',
  // Writes only when an outfile operand is given.
  mutates: (args) => {
    const o = parseXxd(args);
    return o !== 'usage' && !o.version && o.operands.length === 2 && o.operands[1] !== '-';
  },
  parse: 'raw',
  usageStatus: 1,
  reference: 'xxd 2022-01-14',
  flags: [
    { key: 'a', short: 'a', help: "toggle autoskip: A single '*' replaces nul-lines" },
    { key: 'b', short: 'b', help: 'binary digit dump' },
    { key: 'C', short: 'C', help: 'capitalize variable names in C include file style (-i)' },
    { key: 'c', short: 'c', kind: 'string', arg: 'cols', help: 'format <cols> octets per line. Default 16 (-i: 12, -ps: 30)' },
    { key: 'e', short: 'e', help: 'little-endian dump' },
    { key: 'g', short: 'g', kind: 'string', arg: 'bytes', help: 'number of octets per group in normal output. Default 2 (-e: 4)' },
    { key: 'i', short: 'i', help: 'output in C include file style' },
    { key: 'l', short: 'l', kind: 'string', arg: 'len', help: 'stop after <len> octets' },
    { key: 'n', short: 'n', kind: 'string', arg: 'name', help: 'set the variable name used in C include output (-i)' },
    { key: 'o', short: 'o', kind: 'string', arg: 'off', help: 'add <off> to the displayed file position' },
    { key: 'p', short: 'p', help: 'output in postscript plain hexdump style' },
    { key: 'r', short: 'r', help: 'reverse operation: convert (or patch) hexdump into binary' },
    { key: 'd', short: 'd', help: 'show offset in decimal instead of hex' },
    { key: 's', short: 's', kind: 'string', arg: '[+][-]seek', help: 'start at <seek> bytes abs. (or +: rel.) infile offset' },
    { key: 'u', short: 'u', help: 'use upper case hex letters' },
    { key: 'v', short: 'v', help: 'show version' },
  ],
  async run(ctx) {
    const o = parseXxd(ctx.args);
    if (o === 'usage') {
      await ctx.stderr.write(USAGE);
      return 1;
    }
    if (o.version) {
      await ctx.stderr.write(VERSION + '\n');
      return 0;
    }
    try {
      return await xxd(ctx, o);
    } catch (e) {
      if (e instanceof Exit) {
        await ctx.stderr.write(`xxd: ${e.message}\n`);
        return e.status;
      }
      throw e;
    }
  },
});

/** A byte source: a file (seekable) or standard input. */
interface Source {
  read(): Promise<Uint8Array | null>;
  close(): void;
}

async function xxd(ctx: CommandContext, o: XxdOptions): Promise<number> {
  let { cols, group } = o;
  const t = o.hextype;
  if (!cols) cols = t === HEX_POSTSCRIPT ? 30 : t === HEX_CINCLUDE ? 12 : t === HEX_BITS ? 6 : 16;
  if (group < 0) group = t === HEX_BITS ? 1 : t === HEX_NORMAL ? 2 : t === HEX_LITTLEENDIAN ? 4 : 0;
  if (cols < 1 || ((t === HEX_NORMAL || t === HEX_BITS || t === HEX_LITTLEENDIAN) && cols > 256)) {
    throw new Exit(1, 'invalid number of columns (max. 256).');
  }
  if (group < 1 || group > cols) group = cols;
  else if (t === HEX_LITTLEENDIAN && (group & (group - 1))) throw new Exit(1, 'number of octets per group must be a power of 2 with -e.');

  const [inName, outName] = o.operands;
  const fromStdin = inName === undefined || inName === '-';
  let file: ReturnType<CommandContext['fs']['openRandom']> | undefined;
  if (!fromStdin) {
    try {
      file = ctx.fs.openRandom(inName!, ctx.cwd);
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      throw new Exit(2, `${inName}: ${e.reason}`);
    }
  }
  const toFile = outName !== undefined && outName !== '-';
  try {
    let pos = 0;
    let stdinIt: AsyncIterator<Uint8Array> | undefined;
    let pending: Uint8Array | null = null;
    const src: Source = {
      async read() {
        if (pending) {
          const p = pending;
          pending = null;
          return p;
        }
        if (file) {
          const buf = Buffer.allocUnsafe(CHUNK);
          const n = file.readAt(buf, pos);
          pos += n;
          return n > 0 ? buf.subarray(0, n) : null;
        }
        stdinIt ??= ctx.stdin[Symbol.asyncIterator]();
        for (;;) {
          const r = await stdinIt.next();
          if (r.done) return null;
          if (r.value.length) return r.value;
        }
      },
      close() {
        file?.close();
      },
    };
    const out = new Sink(ctx, toFile ? outName : undefined, o.revert);
    if (o.revert) {
      if (t !== HEX_NORMAL && t !== HEX_POSTSCRIPT) throw new Exit(255, 'Sorry, cannot revert this type of hexdump');
      const r = await revert(src, out, cols, t, o.negSeek ? -o.seek : o.seek);
      // What was written before an error stays written (exit flushes stdio).
      await out.close();
      if (r) throw new Exit(r.status, r.message);
      return 0;
    }
    // -s: a file seeks (from the end with -s -N); standard input is read past.
    let seekoff = o.seek;
    if (o.seek || o.negSeek || !o.relSeek) {
      if (file) {
        const target = o.negSeek ? (o.relSeek ? -o.seek : file.size - o.seek) : o.seek;
        if (target < 0) throw new Exit(4, 'Sorry, cannot seek.');
        pos = target;
        seekoff = target;
      } else {
        if (o.negSeek) throw new Exit(4, 'Sorry, cannot seek.');
        let left = o.seek;
        while (left > 0) {
          const c = await src.read();
          if (!c) throw new Exit(4, 'Sorry, cannot seek.');
          if (c.length > left) {
            pending = c.subarray(left);
            left = 0;
          } else left -= c.length;
        }
      }
    }
    const limit = o.length < 0 ? Infinity : o.length;
    const hex = o.upper ? '0123456789ABCDEF' : '0123456789abcdef';
    if (t === HEX_CINCLUDE) await cInclude(src, out, o, fromStdin ? undefined : inName!, cols, limit);
    else if (t === HEX_POSTSCRIPT) await plain(src, out, cols, hex, limit);
    else await dump(src, out, o, t, cols, group, hex, BigInt(seekoff), limit);
    await out.close();
    return 0;
  } finally {
    file?.close();
  }
}

/**
 * -p: two hex digits a byte, a newline every `cols` bytes, made in bytes from a table of the 256
 * digit pairs (a string built a character at a time was ~1 s of CPU per 10 MB).
 */
async function plain(src: Source, out: Sink, cols: number, hex: string, limit: number): Promise<void> {
  const pairs = new Uint8Array(512);
  for (let e = 0; e < 256; e++) {
    pairs[2 * e] = hex.charCodeAt(e >> 4);
    pairs[2 * e + 1] = hex.charCodeAt(e & 15);
  }
  let p = cols;
  let n = 0;
  for (let c = await src.read(); c && n < limit; c = await src.read()) {
    const m = Math.min(c.length, limit - n);
    // at most one newline per `cols` bytes, and one more for the line begun before
    const b = Buffer.allocUnsafe(2 * m + Math.floor(m / cols) + 1);
    let at = 0;
    for (let k = 0; k < m; k++) {
      const e = c[k]! << 1;
      b[at++] = pairs[e]!;
      b[at++] = pairs[e + 1]!;
      if (!--p) {
        b[at++] = 0x0a;
        p = cols;
      }
    }
    n += m;
    await out.write(b.subarray(0, at));
  }
  if (p < cols) await out.write('\n');
}

async function cInclude(src: Source, out: Sink, o: XxdOptions, name: string | undefined, cols: number, limit: number): Promise<void> {
  const varname = o.varname ?? name;
  const ident = (v: string) => (/^[0-9]/.test(v) ? '__' : '') + [...Buffer.from(v, 'utf8')].map((b) => {
    const c = String.fromCharCode(b);
    return /[A-Za-z0-9]/.test(c) ? (o.capitalize ? c.toUpperCase() : c) : '_';
  }).join('');
  if (varname !== undefined) await out.write(`unsigned char ${ident(varname)}[] = {\n`);
  let p = 0;
  let s = '';
  for (let c = await src.read(); c && p < limit; c = await src.read()) {
    for (let k = 0; k < c.length && p < limit; k++, p++) {
      const h = c[k]!.toString(16).padStart(2, '0');
      s += (p % cols ? ', ' : !p ? '  ' : ',\n  ') + (o.upper ? '0X' + h.toUpperCase() : '0x' + h);
    }
    await out.write(s);
    s = '';
  }
  if (p) await out.write('\n');
  if (varname !== undefined) await out.write(`};\nunsigned int ${ident(varname)}_${o.capitalize ? 'LEN' : 'len'} = ${p};\n`);
}

async function dump(src: Source, out: Sink, o: XxdOptions, t: number, cols: number, g: number, hex: string, seekoff: bigint, limit: number): Promise<void> {
  const grplen = t === HEX_BITS ? 8 * g + 1 : 2 * g + 1;
  const l = Buffer.alloc(16 + grplen * cols + cols + 8, 0x20);
  let addrlen = 9;
  let p = 0;
  let n = 0;
  let c = 0;
  let nonzero = 0;
  const asciiAt = Math.floor((grplen * cols - 1) / g);
  // xxdline's state: three or more all-zero lines become one '*' (autoskip).
  let z = '';
  let zeroSeen = 0;
  let text = '';
  const line = async (s: string, nz: number) => {
    if (!nz && zeroSeen === 1) z = s;
    if (nz || !zeroSeen++) {
      if (nz) {
        if (nz < 0) zeroSeen--;
        if (zeroSeen === 2) text += z;
        if (zeroSeen > 2) text += '*\n';
      }
      if (nz >= 0 || zeroSeen > 0) text += s;
      if (nz) zeroSeen = 0;
    }
    if (text.length >= 65536) {
      await out.write(text);
      text = '';
    }
  };
  for (let chunk = await src.read(); chunk && n < limit; chunk = await src.read()) {
    for (let k = 0; k < chunk.length && n < limit; k++) {
      const e = chunk[k]!;
      if (p === 0) {
        const addr = BigInt.asUintN(64, BigInt(n) + seekoff + o.displayOff);
        const a = (o.decimal ? addr.toString(10) : addr.toString(16)).padStart(8, '0') + ':';
        addrlen = a.length;
        l.fill(0x20);
        l.write(a, 0, 'latin1');
      }
      const x = t === HEX_LITTLEENDIAN ? p ^ (g - 1) : p;
      c = addrlen + 1 + Math.floor((grplen * x) / g);
      if (t === HEX_BITS) for (let i = 7; i >= 0; i--) l[c++] = e & (1 << i) ? 0x31 : 0x30;
      else {
        l[c] = hex.charCodeAt(e >> 4);
        l[c + 1] = hex.charCodeAt(e & 15);
      }
      if (e) nonzero++;
      c = asciiAt + addrlen + 3 + p;
      l[c++] = e > 31 && e < 127 ? e : 0x2e;
      n++;
      if (++p === cols) {
        l[c] = 0x0a;
        await line(l.toString('latin1', 0, c + 1), o.autoskip ? nonzero : 1);
        nonzero = 0;
        p = 0;
      }
    }
  }
  if (p) {
    l[c] = 0x0a;
    await line(l.toString('latin1', 0, c + 1), 1);
  } else if (o.autoskip) await line(z, -1);
  if (text) await out.write(text);
}
