import { defineCommand, OptionError, UsageError } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteAlways } from '../../src/gnulib/quote.js';
import { INTMAX_MAX, xdectoint } from '../../src/gnulib/xdectoint.js';
import { xstrtoumax } from '../../src/gnulib/gnu-number.js';
import { bytesChunks, linesChunks, roundRobin } from './chunks.js';
import { Names, Outputs, SplitError } from './outputs.js';

type Mode = { kind: 'lines' | 'bytes' | 'linebytes'; n: number } | { kind: 'chunk-bytes' | 'chunk-lines' | 'rr'; k: number; n: number };

/**
 * GNU split (coreutils 9.1): -l, -b, -C, -n (N, K/N, l/N, l/K/N, r/N, r/K/N), -a, -d/-x with a
 * start value, --additional-suffix, -e, -t, --verbose. Each output file is written through
 * the Vfs (atomic, counted by the quota). -l/-b/-C stream; -n holds the input whole (it
 * needs its size), bounded by maxBufferBytes. --filter is refused (no shell).
 */
export default defineCommand({
  name: 'split',
  summary: 'Output pieces of FILE to PREFIXaa, PREFIXab, ...; default size is 1000 lines, and default PREFIX is \'x\'. With no FILE, or when FILE is -, read standard input.',
  usage: '[OPTION]... [FILE [PREFIX]]',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', long: 'suffix-length', kind: 'string', arg: 'N', help: 'generate suffixes of length N (default 2)' },
    { key: 'addsuf', long: 'additional-suffix', kind: 'string', arg: 'SUFFIX', help: 'append an additional SUFFIX to file names' },
    { key: 'mode', short: 'b', long: 'bytes', kind: 'string', arg: 'SIZE', help: 'put SIZE bytes per output file' },
    { key: 'mode', short: 'C', long: 'line-bytes', kind: 'string', arg: 'SIZE', help: 'put at most SIZE bytes of records per output file' },
    { key: 'suffix', short: 'd', help: 'use numeric suffixes starting at 0, not alphabetic', value: 'd' },
    { key: 'suffix', long: 'numeric-suffixes', kind: 'optional', value: '', arg: 'FROM', help: 'same as -d, but allow setting the start value' },
    { key: 'suffix', short: 'x', help: 'use hex suffixes starting at 0, not alphabetic', value: 'x' },
    { key: 'suffix', long: 'hex-suffixes', kind: 'optional', value: '', arg: 'FROM', help: 'same as -x, but allow setting the start value' },
    { key: 'e', short: 'e', long: 'elide-empty-files', help: 'do not generate empty output files with \'-n\'' },
    { key: 'mode', short: 'l', long: 'lines', kind: 'string', arg: 'NUMBER', help: 'put NUMBER lines/records per output file' },
    { key: 'mode', short: 'n', long: 'number', kind: 'string', arg: 'CHUNKS', help: 'generate CHUNKS output files' },
    { key: 't', short: 't', long: 'separator', kind: 'string', arg: 'SEP', help: 'use SEP instead of newline as the record separator; \'\\0\' (zero) specifies the NUL character' },
    { key: 'u', short: 'u', long: 'unbuffered', help: 'immediately copy input to output with \'-n r/...\'' },
    { key: 'verbose', long: 'verbose', help: 'print a diagnostic just before each output file is opened' },
  ],
  gnuLongOptions: ['bytes', 'line-bytes', 'lines', 'number', 'elide-empty-files', 'unbuffered', 'suffix-length', 'additional-suffix',
    'filter', 'numeric-suffixes', 'hex-suffixes', 'separator', 'verbose', 'io-blocksize', 'help', 'version'],
  async run(ctx) {
    const v = ctx.values;
    let mode: Mode = { kind: 'lines', n: 1000 };
    let modes = 0;
    let alphabet = 'abcdefghijklmnopqrstuvwxyz';
    let start: string | null = null;
    let suffixLength = 0n;
    let eol = 0x0a;
    for (const o of ctx.opts.order) {
      const val = o.value;
      const die = (r: { value: bigint } | { error: string }): number => {
        if ('error' in r) throw new OptionError(r.error, false);
        return Number(r.value);
      };
      if (o.key === 'mode') {
        if (++modes > 1) throw new UsageError('cannot split in more than one way');
        if (o.flag === '-l' || o.flag.startsWith('--l') && !o.flag.startsWith('--line-')) mode = { kind: 'lines', n: die(xdectoint(val, 1n, INTMAX_MAX, '', 'invalid number of lines')) };
        else if (o.flag === '-b' || o.flag.startsWith('--b')) mode = { kind: 'bytes', n: die(xdectoint(val, 1n, INTMAX_MAX, 'bEGKkMmPQRTYZ0', 'invalid number of bytes')) };
        else if (o.flag === '-C' || o.flag.startsWith('--line-')) mode = { kind: 'linebytes', n: die(xdectoint(val, 1n, INTMAX_MAX, 'bEGKkMmPQRTYZ0', 'invalid number of lines')) };
        else mode = parseChunks(val);
      } else if (o.key === 'a') suffixLength = BigInt(die(xdectoint(val, 0n, INTMAX_MAX, '', 'invalid suffix length')));
      else if (o.key === 'suffix') {
        const hex = o.flag === '-x' || o.flag.startsWith('--h');
        alphabet = hex ? '0123456789abcdef' : '0123456789';
        start = null;
        if (o.flag.startsWith('--') && o.value !== '') {
          if (![...o.value].every((c) => c >= '0' && c <= '9')) throw new UsageError(`${quoteAlways(o.value)}: invalid start value for numerical suffix`);
          // Leading zeros do not count against the suffix length.
          start = o.value.replace(/^0+(?=.)/, '');
        }
      } else if (o.key === 't') {
        const s = Buffer.from(val, 'utf8');
        if (val === '\\0') eol = 0;
        else if (s.length !== 1) throw new OptionError(s.length === 0 ? 'empty record separator' : `multi-character separator ${quoteAlways(val)}`, false);
        else eol = s[0]!;
      }
    }
    if (v.addsuf !== undefined && v.addsuf.includes('/')) throw new UsageError(`invalid suffix ${quoteAlways(v.addsuf)}, contains directory separator`);
    if (ctx.operands.length > 2) throw new UsageError(`extra operand ${quoteAlways(ctx.operands[2]!)}`);
    const input = ctx.operands[0] ?? '-';
    const prefix = ctx.operands[1] ?? 'x';
    // set_suffix_length
    let auto = start === null;
    let needed = 0;
    if (mode.kind === 'chunk-bytes' || mode.kind === 'chunk-lines' || mode.kind === 'rr') {
      let end = BigInt(mode.n) - 1n;
      if (start !== null && BigInt(start) < BigInt(mode.n)) end += BigInt(start);
      do needed++;
      while ((end /= BigInt(alphabet.length)) > 0n);
      auto = false;
    }
    let len: number;
    if (suffixLength > 0n) {
      if (suffixLength < BigInt(needed)) {
        await ctx.warn(`the suffix length needs to be at least ${needed}`);
        return 1;
      }
      len = Number(suffixLength > 4096n ? 4096n : suffixLength);
      auto = false;
    } else len = Math.max(2, needed);
    if (start !== null && start.length > len) throw new UsageError('numerical suffix start value is too large for the suffix length');

    const names = new Names(prefix, v.addsuf ?? '', alphabet, len, auto, start);
    const out = new Outputs(ctx, names, !!v.e, !!v.verbose);
    try {
      if (mode.kind === 'lines' || mode.kind === 'bytes' || mode.kind === 'linebytes') {
        let source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
        if (input === '-') source = ctx.stdin;
        else {
          try {
            ctx.fs.openRandom(input, ctx.cwd).close();
          } catch (e) {
            if (!(e instanceof VfsError)) throw e;
            if (e.errno === 'EISDIR') {
              await ctx.warn(`${input}: ${e.reason}`);
              return 1;
            }
            await ctx.warn(`cannot open ${quoteAlways(input)} for reading: ${e.reason}`);
            return 1;
          }
          source = ctx.fs.readChunks(input, ctx.cwd);
        }
        if (mode.kind === 'lines') await linesSplit(source, mode.n, eol, out);
        else if (mode.kind === 'bytes') await bytesSplit(source, mode.n, out);
        else await lineBytesSplit(source, mode.n, eol, out);
      } else {
        let data: Buffer;
        try {
          data = input === '-' ? await ctx.stdin.readAll() : ctx.fs.readFile(input, ctx.cwd);
        } catch (e) {
          if (!(e instanceof VfsError)) throw e;
          await ctx.warn(e.errno === 'EISDIR' ? `${input}: ${e.reason}` : `cannot open ${quoteAlways(input)} for reading: ${e.reason}`);
          return 1;
        }
        const m = mode as { kind: string; k: number; n: number };
        if (m.kind === 'chunk-bytes') await bytesChunks(data, m.k, m.n, out);
        else if (m.kind === 'chunk-lines') await linesChunks(data, m.k, m.n, eol, out);
        else await roundRobin(data, m.k, m.n, eol, out);
      }
      out.close();
    } catch (e) {
      out.close();
      if (e instanceof SplitError) {
        await ctx.warn(e.message);
        return 1;
      }
      throw e;
    }
    return 0;
  },
});

function parseChunks(arg: string): Mode {
  let kind: 'chunk-bytes' | 'chunk-lines' | 'rr' = 'chunk-bytes';
  let s = arg;
  if (s.startsWith('r/')) {
    kind = 'rr';
    s = s.slice(2);
  } else if (s.startsWith('l/')) {
    kind = 'chunk-lines';
    s = s.slice(2);
  }
  const slash = /^[ \t\n\v\f\r]*\+?[0-9]+\//.exec(s);
  if (slash) {
    const kText = slash[0].slice(0, -1);
    const n = xdectoint(s.slice(slash[0].length), 1n, INTMAX_MAX, '', 'invalid number of chunks');
    if ('error' in n) throw new OptionError(n.error, false);
    const k = xstrtoumax(kText, '').value;
    if (!(k > 0n && k <= n.value)) throw new OptionError(`invalid chunk number: ${quoteAlways(kText)}: Numerical result out of range`, false);
    return { kind, k: Number(k), n: Number(n.value) };
  }
  const n = xdectoint(s, 1n, INTMAX_MAX, '', 'invalid number of chunks');
  if ('error' in n) throw new OptionError(n.error, false);
  return { kind, k: 0, n: Number(n.value) };
}

async function linesSplit(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, n: number, eol: number, out: Outputs): Promise<void> {
  let lines = 0;
  let fresh = true;
  for await (const c of source as AsyncIterable<Uint8Array>) {
    const buf = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    let from = 0;
    let at = 0;
    while (at < buf.length) {
      const i = buf.indexOf(eol, at);
      if (i < 0) break;
      at = i + 1;
      if (++lines === n) {
        await out.cwrite(fresh, buf.subarray(from, at));
        from = at;
        lines = 0;
        fresh = true;
      }
    }
    if (from < buf.length) {
      await out.cwrite(fresh, buf.subarray(from));
      fresh = false;
    }
  }
}

async function bytesSplit(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, n: number, out: Outputs): Promise<void> {
  let left = n;
  let fresh = true;
  for await (const c of source as AsyncIterable<Uint8Array>) {
    let at = 0;
    while (at < c.length) {
      const take = Math.min(left, c.length - at);
      await out.cwrite(fresh, c.subarray(at, at + take));
      fresh = false;
      at += take;
      left -= take;
      if (left === 0) {
        left = n;
        fresh = true;
      }
    }
  }
}

/** line_bytes_split: lines kept whole up to SIZE bytes a file; a longer line is cut. */
async function lineBytesSplit(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, nBytes: number, eol: number, out: Outputs): Promise<void> {
  let nOut = 0;
  let hold: Buffer[] = [];
  let nHold = 0;
  let splitLine = false;
  for await (const c of source as AsyncIterable<Uint8Array>) {
    const buf = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    let nLeft = buf.length;
    let sob = 0;
    while (nLeft) {
      let splitRest = 0;
      let eoc = false;
      let eolAt: number;
      if (nBytes - nOut - nHold <= nLeft) {
        splitRest = nBytes - nOut - nHold;
        eoc = true;
        eolAt = buf.subarray(sob, sob + splitRest).lastIndexOf(eol);
      } else eolAt = buf.subarray(sob, sob + nLeft).lastIndexOf(eol);
      if (nHold && !(eolAt < 0 && nOut)) {
        await out.cwrite(nOut === 0, Buffer.concat(hold));
        nOut += nHold;
        hold = [];
        nHold = 0;
      }
      if (eolAt >= 0) {
        splitLine = true;
        const nWrite = eolAt + 1;
        await out.cwrite(nOut === 0, buf.subarray(sob, sob + nWrite));
        nOut += nWrite;
        nLeft -= nWrite;
        sob += nWrite;
        if (eoc) splitRest -= nWrite;
      }
      if (nLeft && !splitLine) {
        const nWrite = eoc ? splitRest : nLeft;
        await out.cwrite(nOut === 0, buf.subarray(sob, sob + nWrite));
        nOut += nWrite;
        nLeft -= nWrite;
        sob += nWrite;
        if (eoc) splitRest -= nWrite;
      }
      if ((eoc && splitRest) || (!eoc && nLeft)) {
        const nBuf = eoc ? splitRest : nLeft;
        hold.push(Buffer.from(buf.subarray(sob, sob + nBuf)));
        nHold += nBuf;
        nLeft -= nBuf;
        sob += nBuf;
      }
      if (eoc) {
        nOut = 0;
        splitLine = false;
      }
    }
  }
  if (nHold) await out.cwrite(nOut === 0, Buffer.concat(hold));
}
