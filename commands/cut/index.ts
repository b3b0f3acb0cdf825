import { defineCommand, OptionError, type CommandDef, UsageError } from '../../src/command/index.js';
import { inputOperands, openInput, reportFileError } from '../../src/gnulib/helpers.js';
import { setFields, type FieldRange } from '../../src/gnulib/set-fields.js';
import { CopyOut, OutBuffer, recordBatches } from '../../src/gnulib/text-lines.js';

/** GNU cut (coreutils 9.1): -b/-c/-f lists, streamed line by line. */
const def: CommandDef = defineCommand({
  name: 'cut',
  summary: 'Print selected parts of lines from each FILE to standard output.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'bytes', short: 'b', long: 'bytes', kind: 'string', arg: 'LIST', help: 'select only these bytes' },
    { key: 'characters', short: 'c', long: 'characters', kind: 'string', arg: 'LIST', help: 'select only these characters' },
    { key: 'delimiter', short: 'd', long: 'delimiter', kind: 'string', arg: 'DELIM', parse: delimiterByte, help: 'use DELIM instead of TAB for field delimiter' },
    { key: 'fields', short: 'f', long: 'fields', kind: 'string', arg: 'LIST', help: 'select only these fields;  also print any line that contains no delimiter character, unless the -s option is specified' },
    { key: 'n', short: 'n', help: '(ignored)' },
    { key: 'complement', long: 'complement', help: 'complement the set of selected bytes, characters or fields' },
    { key: 'onlyDelimited', short: 's', long: 'only-delimited', help: 'do not print lines not containing delimiters' },
    { key: 'outputDelimiter', long: 'output-delimiter', kind: 'string', arg: 'STRING', parse: (v: string) => (v === '' ? Buffer.from([0]) : Buffer.from(v, 'utf8')), help: 'use STRING as the output delimiter the default is to use the input delimiter' },
    { key: 'zero', short: 'z', long: 'zero-terminated', help: 'line delimiter is NUL, not newline' },
  ],
  // GNU checks -d and a second list while parsing: a bad one wins over a later getopt error.
  conflicts: [{ keys: ['bytes', 'characters', 'fields'], message: 'only one list may be specified' }],
  async run(ctx) {
    const v = ctx.values;
    const list = v.bytes ?? v.characters ?? v.fields;
    const byteMode = v.fields === undefined;
    const delimSpecified = v.delimiter !== undefined;
    const delim = v.delimiter ?? 0x09;
    const outDelim = v.outputDelimiter ?? null;
    const suppress = v.onlyDelimited === true;
    if (list === undefined) throw new UsageError('you must specify a list of bytes, characters, or fields');
    if (byteMode) {
      if (delimSpecified) throw new UsageError('an input delimiter may be specified only when operating on fields');
      if (suppress) throw new UsageError('suppressing non-delimited lines makes sense\n\tonly when operating on fields');
    }
    const ranges = setFields(list, { pos: byteMode, complement: v.complement === true });
    const lineDelim = v.zero ? 0 : 0x0a;
    const nl = Buffer.from([lineDelim]);
    const od = outDelim ?? Buffer.from([delim]);
    const out = new OutBuffer(ctx.stdout);
    const copy = new CopyOut(ctx.stdout);
    let status = 0;
    for (const operand of inputOperands(ctx.operands)) {
      try {
        if (!byteMode && delim === lineDelim) {
          await cutWhole(openInput(ctx, operand), out, ranges, delim, od, suppress);
          continue;
        }
        if (!byteMode) {
          // The chunks are read into one buffer: cutFields keeps nothing of a chunk (it copies).
          const source = operand === '-' ? ctx.stdin : ctx.fs.readChunks(operand, ctx.cwd, 256 * 1024, true);
          await cutFields(source, copy, ranges, delim, lineDelim, od, suppress);
          continue;
        }
        for await (const batch of recordBatches(openInput(ctx, operand), lineDelim)) for (const line of batch) {
          let printed = false;
          for (const r of ranges) {
            if (r.lo > line.length) break;
            if (printed && outDelim && out.add(outDelim)) await out.flush();
            if (out.add(line.subarray(r.lo - 1, Math.min(r.hi, line.length)))) await out.flush();
            printed = true;
          }
          if (out.add(nl)) await out.flush();
        }
      } catch (e) {
        await out.flush();
        await copy.flush();
        await reportFileError(ctx, operand, e);
        status = 1;
      }
    }
    await out.flush();
    await copy.flush();
    return status;
  },
});

export default def;

/** -d: one byte (an empty DELIM is NUL). */
function delimiterByte(value: string): number {
  const b = Buffer.from(value, 'utf8');
  if (b.length > 1) throw new OptionError('the delimiter must be a single character');
  return b.length ? b[0]! : 0;
}

type Range = FieldRange;

/**
 * -f: the whole lines of each chunk cut in one pass into one output buffer (cutLines), with
 * no Buffer object or span per line or per field (those dominated the profile).
 */
async function cutFields(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, w: CopyOut, ranges: Range[],
  delim: number, lineDelim: number, od: Buffer, suppress: boolean): Promise<void> {
  // GNU's quirk with -z: when field 1 is read on its own (-s and its selection differ), an
  // unterminated last record whose only delimiter is its last byte gets no NUL after it.
  const bufferFirst = suppress !== !ranges.some((r) => r.lo <= 1 && 1 <= r.hi);
  let ended = false;
  async function* watched(): AsyncGenerator<Uint8Array> {
    yield* source;
    ended = true;
  }
  const line = (buf: Buffer, s: number, e: number, unterminated: boolean): void => {
    let i = indexIn(buf, delim, s, e);
    if (i < 0) {
      if (!suppress) {
        w.put(buf, s, e);
        w.byte(lineDelim);
      }
      return;
    }
    let start = s;
    let field = 1;
    let ri = 0;
    let found = false;
    for (;;) {
      const end = i < 0 ? e : i;
      while (ri < ranges.length && ranges[ri]!.hi < field) ri++;
      if (ri >= ranges.length) break;
      if (ranges[ri]!.lo <= field) {
        if (found) w.put(od, 0, od.length);
        w.put(buf, start, end);
        found = true;
      }
      if (i < 0) break;
      start = i + 1;
      field++;
      i = indexIn(buf, delim, start, e);
    }
    if (unterminated && lineDelim === 0 && bufferFirst && indexIn(buf, delim, s, e) === e - 1) return;
    w.byte(lineDelim);
  };
  // Whole lines of each chunk are cut in one pass over the chunk (cutLines), in pieces of
  // about PIECE bytes so that the output buffer stays small; a line split across chunks is
  // joined first; only an unterminated last record takes `line`.
  const wide = Math.max(1, od.length);
  const lines = async (b: Buffer, s: number, e: number): Promise<void> => {
    while (s < e) {
      let end = e;
      if (e - s > PIECE) {
        end = b.lastIndexOf(lineDelim, s + PIECE - 1) + 1;
        if (end <= s) end = b.indexOf(lineDelim, s + PIECE) + 1;
      }
      const need = (end - s) * wide;
      if (w.at > 0 && w.free < need) await w.flush();
      const room = w.room(need);
      w.at = cutLines(b, s, end, ranges, delim, lineDelim, od, suppress, room, w.at);
      s = end;
    }
  };
  const carry: Buffer[] = [];
  for await (const chunk of watched()) {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    if (carry.length > 0) {
      const i = buf.indexOf(lineDelim);
      if (i < 0) {
        carry.push(Buffer.from(buf));
        continue;
      }
      carry.push(buf.subarray(0, i + 1));
      const joined = Buffer.concat(carry);
      carry.length = 0;
      await lines(joined, 0, joined.length);
      start = i + 1;
    }
    const last = buf.lastIndexOf(lineDelim);
    if (last >= start) {
      await lines(buf, start, last + 1);
      start = last + 1;
    }
    if (start < buf.length) carry.push(Buffer.from(buf.subarray(start)));
  }
  if (carry.length > 0) {
    const joined = Buffer.concat(carry);
    line(joined, 0, joined.length, ended);
  }
}

/** Input bytes cut at a time (their output fits the output buffer's 64 KiB). */
const PIECE = 16 * 1024;

/**
 * Cut the whole lines of buf[from, to) (`to` is just past a terminator) into `out` from `at`;
 * returns where the output ends. Line ends and delimiters are found with indexOf (memchr) over
 * the chunk, each pointer moving only forward (a delimiter found past a line end is kept for
 * the lines after it), so no byte is looked at twice and no line costs a JavaScript loop over
 * its bytes; only the selected fields are copied. A line's output is at most its own bytes
 * with every delimiter widened to `od`: `out` needs (to - from) * max(1, od.length) bytes.
 */
export function cutLines(buf: Buffer, from: number, to: number, ranges: Range[], delim: number, lineDelim: number, od: Buffer,
  suppress: boolean, out: Buffer, at: number): number {
  const odLen = od.length;
  const od0 = odLen > 0 ? od[0]! : 0;
  const nr = ranges.length;
  const lo0 = nr > 0 ? ranges[0]!.lo : 1;
  const hi0 = nr > 0 ? ranges[0]!.hi : 0;
  let n = at;
  let s = from;
  // The next delimiter at or after the last place asked for (`to`: none left).
  let d = -1;
  while (s < to) {
    const nl = buf.indexOf(lineDelim, s);
    if (d < s) {
      d = buf.indexOf(delim, s);
      if (d < 0 || d >= to) d = to;
    }
    if (d > nl) {
      // No delimiter on the line: all of it (with its terminator), or nothing with -s.
      if (!suppress) {
        if (nl + 1 - s > 64) {
          buf.copy(out, n, s, nl + 1);
          n += nl + 1 - s;
        } else for (let j = s; j <= nl; j++) out[n++] = buf[j]!;
      }
      s = nl + 1;
      continue;
    }
    let field = 1;
    let ri = 0;
    let lo = lo0;
    let hi = hi0;
    let fieldStart = s;
    let found = false;
    for (;;) {
      const end = d < nl ? d : nl;
      if (ri < nr && field >= lo) {
        if (found) {
          if (odLen === 1) out[n++] = od0;
          else for (let j = 0; j < odLen; j++) out[n++] = od[j]!;
        }
        if (end - fieldStart > 64) {
          buf.copy(out, n, fieldStart, end);
          n += end - fieldStart;
        } else for (let j = fieldStart; j < end; j++) out[n++] = buf[j]!;
        found = true;
      }
      if (end === nl) break;
      field++;
      fieldStart = end + 1;
      if (field > hi) {
        ri++;
        if (ri >= nr) break;
        lo = ranges[ri]!.lo;
        hi = ranges[ri]!.hi;
      }
      d = buf.indexOf(delim, fieldStart);
      if (d < 0 || d >= to) d = to;
    }
    out[n++] = lineDelim;
    s = nl + 1;
  }
  return n;
}

/**
 * -f with the line delimiter as field delimiter: the whole input is one record, cut as GNU's
 * cut_fields does it. Field 1 is read up to its delimiter first when -s and its selection
 * differ; a delimiter at the very end ends the record, except the one that ends field 1 when
 * field 1 is printed ('a\n' is then the fields a and '').
 */
async function cutWhole(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, out: OutBuffer, ranges: Range[], delim: number, od: Buffer, suppress: boolean): Promise<void> {
  const parts: Buffer[] = [];
  for await (const c of source as AsyncIterable<Uint8Array>) parts.push(Buffer.from(c));
  const all = Buffer.concat(parts);
  if (all.length === 0) return;
  const emit = async (b: Buffer) => {
    if (out.add(b)) await out.flush();
  };
  const selected = (f: number) => ranges.some((r) => r.lo <= f && f <= r.hi);
  const bufferFirst = suppress !== !selected(1);
  let pos = 0;
  let field = 1;
  let found = false;
  for (;;) {
    if (field === 1 && bufferFirst) {
      if (pos >= all.length) return;
      const i = all.indexOf(delim, pos);
      if (i < 0) {
        if (!suppress) await emit(Buffer.concat([all.subarray(pos), Buffer.from([delim])]));
        pos = all.length;
        continue;
      }
      if (selected(1)) {
        await emit(all.subarray(pos, i));
        if (i + 1 < all.length) found = true;
      }
      pos = i + 1;
      field++;
    }
    const print = selected(field);
    if (print) {
      if (found) await emit(od);
      found = true;
    }
    const i = all.indexOf(delim, pos);
    const end = i < 0 ? all.length : i;
    if (print) await emit(all.subarray(pos, end));
    pos = i < 0 ? all.length : i + 1;
    if (i >= 0 && pos < all.length) {
      field++;
      continue;
    }
    if (found || !(suppress && field === 1)) await emit(Buffer.from([delim]));
    return;
  }
}

/** First `b` in buf[from, to), or -1 (indexOf would look past the line end). */
function indexIn(buf: Buffer, b: number, from: number, to: number): number {
  for (let k = from; k < to; k++) if (buf[k] === b) return k;
  return -1;
}
