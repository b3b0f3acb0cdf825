// hexdump and hd (util-linux 2.38.1): the input through format strings, block by block, streamed.
// -b -c -C -d -o -x -X are the format strings util-linux adds for them; hd adds -C first.
import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { ConcatReader } from '../../src/gnulib/byte-input.js';
import { VfsError } from '../../src/vfs/index.js';
import { Fatal, addFmt, blockSize, fmtDbl, fmtInt, fmtStr, rewrite, type FS, type FU, type PR } from './format.js';

const OFFT = '"%07.7_Ax\n"';
const CANONICAL = ['"%08.8_Ax\n"', '"%08.8_ax  " 8/1 "%02x " "  " 8/1 "%02x " ', '"  |" 16/1 "%_p" "|\\n"'];
const BUILTIN: Record<string, string[]> = {
  b: [OFFT, '"%07.7_ax " 16/1 "%03o " "\\n"'],
  c: [OFFT, '"%07.7_ax " 16/1 "%3_c " "\\n"'],
  C: CANONICAL,
  d: [OFFT, '"%07.7_ax " 8/2 "  %05u " "\\n"'],
  o: [OFFT, '"%07.7_ax " 8/2 " %06o " "\\n"'],
  x: [OFFT, '"%07.7_ax " 8/2 "   %04x " "\\n"'],
};
const FLUSH_AT = 64 * 1024;

export default defineCommand({
  name: 'hexdump',
  aliases: ['hd'],
  summary: 'Display file contents in hexadecimal, decimal, octal, or ascii (hd: canonical hex+ASCII first).',
  usage: '<file>...',
  mutates: false,
  usageStatus: 1,
  reference: 'hexdump from util-linux 2.38.1',
  flags: [
    { key: 'fmt', short: 'b', long: 'one-byte-octal', value: 'b', help: 'one-byte octal display' },
    { key: 'fmt', short: 'c', long: 'one-byte-char', value: 'c', help: 'one-byte character display' },
    { key: 'fmt', short: 'C', long: 'canonical', value: 'C', help: 'canonical hex+ASCII display' },
    { key: 'fmt', short: 'd', long: 'two-bytes-decimal', value: 'd', help: 'two-byte decimal display' },
    { key: 'fmt', short: 'o', long: 'two-bytes-octal', value: 'o', help: 'two-byte octal display' },
    { key: 'fmt', short: 'x', long: 'two-bytes-hex', value: 'x', help: 'two-byte hexadecimal display' },
    { key: 'e', short: 'e', long: 'format', kind: 'string', arg: 'format', help: 'format string to be used for displaying data' },
    { key: 'f', short: 'f', long: 'format-file', kind: 'string', arg: 'file', help: 'file that contains format strings' },
    { key: 'L', short: 'L', long: 'color', kind: 'optional', arg: 'when', help: 'interpret color formatting specifiers (accepted; nosh prints no colors)' },
    { key: 'n', short: 'n', long: 'length', kind: 'string', arg: 'length', help: 'interpret only length bytes of input' },
    { key: 's', short: 's', long: 'skip', kind: 'string', arg: 'offset', help: 'skip offset bytes from the beginning' },
    { key: 'v', short: 'v', long: 'no-squeezing', help: 'output identical lines' },
  ],
  notes: 'A format string is [iterations]/[byte_count] "format" units (see hexdump(1)); colors (_L) are not offered.',
  async run(ctx) {
    try {
      return await hexdump(ctx);
    } catch (e) {
      if (e instanceof Fatal) {
        await ctx.stderr.write(`${ctx.name}: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
  },
});

/** util-linux strtosize_or_err: NUMBER[K|M|G|T|P|E|Z|Y][iB|B]. */
function parseSize(s: string, what: string): number {
  const fail = (why: string) => new Fatal(`failed to parse ${what}: '${s}': ${why}`);
  const m = /^\s*(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)(?:([KMGTPEZYkmgtpezy])(iB|B)?)?$/.exec(s);
  if (!m) throw fail('Invalid argument');
  const digits = m[1]!;
  let v = BigInt(digits.length > 1 && digits[0] === '0' && !/[xX]/.test(digits) ? '0o' + digits.slice(1) : digits);
  if (m[2]) {
    const exp = 'KMGTPEZY'.indexOf(m[2].toUpperCase()) + 1;
    v *= (m[3] === 'B' ? 1000n : 1024n) ** BigInt(exp);
  }
  if (v > (1n << 64n) - 1n) throw fail('Numerical result out of range');
  return Number(v);
}

async function hexdump(ctx: CommandContext): Promise<number> {
  const formats: string[] = ctx.name === 'hd' ? [...CANONICAL] : [];
  let length = -1;
  let skip = 0;
  let verbose = false;
  let status = 0;
  for (const o of ctx.opts.order) {
    switch (o.key) {
      case 'fmt': formats.push(...BUILTIN[o.value]!); break;
      case 'e': formats.push(o.value); break;
      case 'f': {
        let text: string;
        try {
          text = ctx.fs.readFile(o.value, ctx.cwd).toString('latin1');
        } catch (e) {
          if (!(e instanceof VfsError)) throw e;
          throw new Fatal(`can't read ${o.value}: ${e.reason}`);
        }
        for (const line of text.split('\n')) {
          const t = line.replace(/^[ \t\n\v\f\r]+/, '');
          if (t !== '' && t[0] !== '#') formats.push(t);
        }
        break;
      }
      case 'L':
        if (o.value !== '' && !['auto', 'never', 'always'].includes(o.value)) throw new Fatal(`unsupported color mode: '${o.value}'`);
        break;
      case 'n': length = parseSize(o.value, 'length'); break;
      case 's': skip = parseSize(o.value, 'offset'); break;
      case 'v': verbose = true; break;
    }
  }
  if (formats.length === 0) formats.push(OFFT, '"%07.7_ax " 8/2 "%04x " "\\n"');
  const fss: FS[] = formats.map(addFmt);
  let blocksize = 0;
  for (const fs of fss) blocksize = Math.max(blocksize, (fs.bcnt = blockSize(fs)));
  let endfu: FU | undefined;
  for (const fs of fss) rewrite(fs, blocksize, (fu) => { endfu = fu; });

  // -C / hd alone: each full block's line made in bytes (the format units below took ~2.3 s of CPU per 10 MB)
  const canonical = formats.length === CANONICAL.length && formats.every((f, i) => f === CANONICAL[i]);

  // get() tests the length before next() opens (and skips into) any file.
  if (length === 0) return 0;
  const files = ctx.operands.map((n) => (n === '-' ? './-' : n));
  const input = new ConcatReader(ctx, files.length > 0 ? files : ['-'], async (name, e) => {
    await ctx.stderr.write(`${ctx.name}: ${name === './-' && files.includes('./-') ? '-' : name}: ${e.reason}\n`);
    if (e.errno !== 'EISDIR') status = 1;
  });
  let out = '';
  const flush = async () => {
    if (out) await ctx.stdout.write(Buffer.from(out, 'latin1'));
    out = '';
  };
  try {
    // No operand opened: util-linux's next() reports it (after a skip, on its closed stdin).
    if (!(await input.start())) throw new Fatal(skip > 0 ? 'stdin: Bad file descriptor' : 'all input file arguments failed');
    let address = 0;
    if (skip > 0) {
      if (files.length === 0) throw new Fatal('stdin: Illegal seek');
      const left = await input.skip(skip);
      address = skip - left;
    }
    // get(): full blocks, a repeated one replaced by '*' once; the last, partial one zero-padded.
    let cur = new Uint8Array(blocksize);
    let prev = new Uint8Array(blocksize);
    let vflag: 'first' | 'wait' | 'dup' | 'all' = verbose ? 'all' : 'first';
    let eaddress = 0;
    let nread = 0;
    let left = length;
    let chunk: Uint8Array | null = null;
    let ci = 0;
    // A format of no bytes reads nothing (util-linux's get() gives no block); %_A still prints the address skipped to.
    let done = blocksize === 0;
    for (;;) {
      if (left === 0 || done) break;
      if (!chunk || ci >= chunk.length) {
        chunk = await input.read();
        ci = 0;
        if (!chunk) break;
      }
      let n = Math.min(chunk.length - ci, blocksize - nread);
      if (left >= 0) n = Math.min(n, left);
      cur.set(chunk.subarray(ci, ci + n), nread);
      ci += n;
      nread += n;
      if (left >= 0) left -= n;
      if (nread < blocksize) continue;
      nread = 0;
      if (vflag === 'all' || vflag === 'first' || !equal(cur, prev)) {
        if (vflag === 'dup' || vflag === 'first') vflag = 'wait';
        display(cur, blocksize, false);
        [cur, prev] = [prev, cur];
        address += blocksize;
      } else {
        if (vflag === 'wait') out += '*\n';
        vflag = 'dup';
        address += blocksize;
      }
      if (out.length >= FLUSH_AT) await flush();
    }
    if (nread > 0) {
      cur.fill(0, nread);
      eaddress = address + nread;
      display(cur, blocksize, true);
    }
    if (endfu) {
      if (!eaddress) eaddress = address;
      if (eaddress) {
        for (const pr of endfu.prs) {
          if (pr.kind === 'addr') out += pr.prefix + fmtInt(pr, BigInt(eaddress), false);
          else if (pr.kind === 'text') out += pr.prefix;
        }
      }
    }
    await flush();

    function display(bp: Uint8Array, _size: number, last: boolean): void {
      if (canonical && !last) {
        out += canonicalLine(bp, address);
        return;
      }
      for (const fs of fss) {
        let at = 0;
        let addr = address;
        for (const fu of fs.fus) {
          if (fu.ignore) break;
          for (let cnt = fu.reps; cnt > 0; cnt--) {
            for (const pr of fu.prs) {
              if (last && addr >= eaddress && pr.kind !== 'text' && pr.kind !== 'bpad') pr.kind = 'bpad';
              out += print(pr, bp, at, addr, cnt === 1);
              addr += pr.bcnt;
              at += pr.bcnt;
            }
          }
        }
      }
    }
  } finally {
    input.finish();
  }
  return status;
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');
const LINE = Buffer.alloc(79, 0x20);
LINE[60] = 0x7c;
LINE[77] = 0x7c;
LINE[78] = 0x0a;

/** One full 16-byte block as `-C` prints it: `%08x`, two groups of 8 hex pairs, `|` the printable bytes `|`. */
function canonicalLine(bp: Uint8Array, address: number): string {
  const a = address.toString(16);
  const head = a.length > 8 ? a + '  ' : '00000000'.slice(a.length) + a + '  ';
  for (let i = 0; i < 16; i++) {
    const b = bp[i]!;
    const at = 10 + 3 * i + (i >> 3);
    LINE[at] = HEX[b >> 4]!;
    LINE[at + 1] = HEX[b & 15]!;
    LINE[61 + i] = b > 31 && b < 127 ? b : 0x2e;
  }
  return head + LINE.toString('latin1', 10, 79);
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const U_NAMES = ['nul', 'soh', 'stx', 'etx', 'eot', 'enq', 'ack', 'bel', 'bs', 'ht', 'lf', 'vt', 'ff', 'cr', 'so', 'si',
  'dle', 'dc1', 'dc2', 'dc3', 'dc4', 'nak', 'syn', 'etb', 'can', 'em', 'sub', 'esc', 'fs', 'gs', 'rs', 'us'];
const C_ESC: Record<number, string> = { 0: '\\0', 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v' };
const printable = (c: number) => c >= 32 && c < 127;

function word(bp: Uint8Array, at: number, n: number, signed: boolean): bigint {
  let v = 0n;
  for (let k = n - 1; k >= 0; k--) v = (v << 8n) | BigInt(bp[at + k] ?? 0);
  if (signed && v >= 1n << BigInt(8 * n - 1)) v -= 1n << BigInt(8 * n);
  return v;
}

/** A conversion of one byte, as text for each of the 256 values (made once per conversion: -C's %02x and %_p). */
const byteTables = new WeakMap<PR, string[]>();
const ONE_BYTE = new Set(['char', 'p', 'c', 'u']);

function print(pr: PR, bp: Uint8Array, at: number, address: number, lastRep: boolean): string {
  if (ONE_BYTE.has(pr.kind) || ((pr.kind === 'int' || pr.kind === 'uint') && pr.bcnt === 1)) {
    let tab = byteTables.get(pr);
    if (!tab) {
      tab = [];
      const one = new Uint8Array(1);
      for (let v = 0; v < 256; v++) {
        one[0] = v;
        tab.push(printOne(pr, one, 0, 0, false));
      }
      byteTables.set(pr, tab);
    }
    return tab[bp[at] ?? 0]!;
  }
  return printOne(pr, bp, at, address, lastRep);
}

function printOne(pr: PR, bp: Uint8Array, at: number, address: number, lastRep: boolean): string {
  const b = bp[at] ?? 0;
  switch (pr.kind) {
    case 'text': return lastRep && pr.nospace ? pr.prefix.slice(0, -1) : pr.prefix;
    case 'addr': return pr.prefix + fmtInt(pr, BigInt(address), false);
    case 'bpad': return pr.prefix + ' '.repeat(pr.width);
    case 'char': return pr.prefix + fmtStr(pr, String.fromCharCode(b));
    case 'int': return pr.prefix + fmtInt(pr, word(bp, at, pr.bcnt, true), true);
    case 'uint': return pr.prefix + fmtInt(pr, word(bp, at, pr.bcnt, false), false);
    case 'dbl': {
      const dv = new DataView(bp.buffer, bp.byteOffset + at, pr.bcnt);
      return pr.prefix + fmtDbl(pr, pr.bcnt === 4 ? dv.getFloat32(0, true) : dv.getFloat64(0, true));
    }
    case 'str': {
      let end = at;
      const stop = Math.min(bp.length, at + pr.bcnt);
      while (end < stop && bp[end] !== 0) end++;
      return pr.prefix + fmtStr({ ...pr, prec: undefined }, Buffer.from(bp.subarray(at, end)).toString('latin1'));
    }
    case 'p': return pr.prefix + fmtStr(pr, printable(b) ? String.fromCharCode(b) : '.');
    case 'c': return pr.prefix + (printable(b) ? fmtStr({ ...pr, conv: 'c' }, String.fromCharCode(b)) : fmtStr({ ...pr, conv: 's' }, C_ESC[b] ?? b.toString(8).padStart(3, '0')));
    case 'u':
      if (b <= 0x1f) return pr.prefix + fmtStr({ ...pr, conv: 's' }, U_NAMES[b]!);
      if (b === 0x7f) return pr.prefix + fmtStr({ ...pr, conv: 's' }, 'del');
      if (printable(b)) return pr.prefix + fmtStr({ ...pr, conv: 'c' }, String.fromCharCode(b));
      return pr.prefix + fmtInt({ ...pr, conv: 'x' }, BigInt(b), false);
  }
}
