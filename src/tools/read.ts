import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { LIMITS } from '../limits.js';
import { NoshError } from '../errors.js';
import { defineTool, type ToolContext, type ToolResult } from './types.js';
import { readCapped } from './common.js';
import { valueLimit } from '../runtime/memory.js';
import { countByte } from '../gnulib/count-byte.js';
import { asBuffer, nthSeparator } from '../gnulib/head-tail.js';
import { parseYaml } from './read-yaml.js';

/** Largest file `parse` reads whole. */
const PARSE_CAP = 20 * 1024 * 1024;

const Input = z.object({
  path: z.string().min(1).describe('File path inside the zone (/ is the zone root).'),
  offset: z.number().int().min(1).optional().describe('First line to return, 1-based (default 1). To go on, pass the next_offset of the previous result.'),
  limit: z.number().int().min(1).optional().describe('Number of lines to return (default: all, within max_bytes).'),
  line_numbers: z.boolean().optional().describe('Prefix each line with its number and a tab, as cat -n.'),
  max_bytes: z.number().int().min(1).max(LIMITS.maxOutputBytes.max).optional().describe("Cap on returned bytes (default: the output limit). For byte reads it counts the file's bytes (base64 text is 4/3 of that)."),
  encoding: z.enum(['utf-8', 'latin1', 'base64']).optional().describe('How to return the bytes (base64 for binary files: always read by bytes, with byte_offset/byte_length).'),
  head: z.number().int().min(1).optional().describe('Return only the first N lines (instead of offset/limit).'),
  tail: z.number().int().min(1).optional().describe('Return only the last N lines (instead of offset/limit).'),
  byte_offset: z.number().int().min(0).optional().describe('Read bytes instead of lines: the first byte to return, 0-based (default 0). base64 always reads bytes; ' +
    'with utf-8 or latin1 this switches from lines to bytes. To go on, pass the next_byte_offset of the previous result.'),
  byte_length: z.number().int().min(1).optional().describe('Read bytes instead of lines: how many bytes from byte_offset (default: as many as max_bytes allows).'),
  parse: z.enum(['json', 'yaml']).optional().describe("Parse the whole file and return the value as `parsed` ('json' or 'yaml'; a YAML file of several documents gives their array and `documents`); " +
    'fails with INVALID_ARGUMENT on bad JSON or YAML, with the line.'),
}).strict();

export type ReadArgs = z.output<typeof Input>;

export default defineTool({
  name: 'read',
  description: 'Read a file. Text by line range (offset/limit, 1-based) or the first/last N lines (head/tail), optionally numbered; ' +
    'parse: "json" or "yaml" returns the parsed value. Returns content, start_line/end_line (the lines returned), total_lines, truncated when ' +
    'cut by max_bytes, and next_offset: the line to continue from (null when the file is done). An offset past the last line gives ' +
    'past_end: true. A single line longer than max_bytes comes back cut, with partial_line and next_byte_offset (where the rest of it starts). ' +
    'Binary files: encoding base64 (or latin1) with byte_offset (0-based) and byte_length reads bytes; returns start_byte/end_byte ' +
    '(inclusive), size, and next_byte_offset to continue from (null at the end); base64 chunks are cut at multiples of 3 bytes, so they concatenate.',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run: readFile,
});

export function readFile(ctx: ToolContext, args: ReadArgs): ToolResult {
    const sel = [args.head !== undefined, args.tail !== undefined, args.offset !== undefined || args.limit !== undefined].filter(Boolean).length;
    if (sel > 1) throw new NoshError('INVALID_ARGUMENT', 'read: give only one of head, tail, or offset/limit', 'Use head: N for the first lines, tail: N for the last, offset/limit for a range.');
    const byBytes = args.encoding === 'base64' || args.byte_offset !== undefined || args.byte_length !== undefined;
    if (byBytes) {
      const lineArgs = (['offset', 'limit', 'head', 'tail', 'line_numbers', 'parse'] as const).filter((k) => args[k] !== undefined);
      if (lineArgs.length > 0) {
        throw new NoshError('INVALID_ARGUMENT', `read: ${lineArgs.join(', ')} ${lineArgs.length > 1 ? 'count' : 'counts'} lines, but ` +
          (args.encoding === 'base64' ? 'base64 reads bytes' : 'byte_offset/byte_length read bytes'),
          'Page bytes with byte_offset (0-based) and byte_length, continuing from next_byte_offset; for lines, use encoding utf-8 or latin1 without byte_offset/byte_length.',
          { path: args.path, arguments: lineArgs });
      }
    }
    if (args.parse === 'json') return parseJson(ctx, args);
    if (args.parse === 'yaml') return parseYaml(ctx, args, PARSE_CAP, MAX_JSON_DEPTH);
    const cap = args.max_bytes ?? ctx.limits.maxOutputBytes;
    const encoding = args.encoding ?? 'utf-8';
    if (byBytes) return readBytes(ctx, args, cap, encoding);
    if (args.tail !== undefined) return readTail(ctx, args, args.tail, cap, encoding);
    const first = args.offset ?? 1;
    const count = args.limit ?? args.head;
    return readRange(ctx, args, first, count !== undefined ? first + count - 1 : Infinity, cap, encoding);
}

/**
 * Bytes byte_offset.. (0-based), at most byte_length and `cap` of them. Only those bytes are read:
 * the file could be far larger than the memory budget. A base64 piece cut short is a multiple of
 * 3 bytes, so the pieces' texts concatenate; a utf-8 piece ends on a character boundary.
 */
function readBytes(ctx: ToolContext, args: ReadArgs, cap: number, encoding: string): ToolResult {
    const file = ctx.fs.openRandom(args.path, ctx.cwd);
    try {
      const size = file.size;
      const from = args.byte_offset ?? 0;
      const base = { path: args.path, encoding };
      if (from > 0 && from >= size) {
        return {
          data: { ...base, content: '', size, start_byte: null, end_byte: null, next_byte_offset: null, truncated: false, past_end: true },
          message: `byte_offset ${from} is past the end of the file (${size} bytes)`,
        };
      }
      const wanted = Math.min(args.byte_length ?? Infinity, size - from);
      let n = Math.min(wanted, cap);
      if (n < wanted && encoding === 'base64' && n >= 3) n -= n % 3;
      // utf-8: one byte more, to see whether the cut falls inside a character.
      const buf = Buffer.allocUnsafe(Math.min(n + (encoding === 'utf-8' ? 1 : 0), size - from));
      const got = file.readAt(buf, from);
      if (got < n) n = got; // the file shrank since it was opened
      if (encoding === 'utf-8' && got > n) {
        let k = n;
        while (k > 0 && n - k < 3 && (buf[k]! & 0xc0) === 0x80) k--;
        if (k > 0 && (buf[k]! & 0xc0) !== 0x80) n = k; // else a character longer than the piece: its bytes as they are
      }
      const bytes = buf.subarray(0, n);
      const content = encoding === 'base64' ? bytes.toString('base64') : bytes.toString(encoding === 'latin1' ? 'latin1' : 'utf8');
      const end = from + n;
      const next = end < size ? end : null;
      const truncated = n < wanted;
      let message = 'ok';
      if (size === 0) message = 'the file is empty';
      else if (from > 0 || next !== null) {
        message = `bytes ${from}-${end - 1} of ${size} returned` + (truncated ? `, cut at ${cap} bytes` : '') +
          (next !== null ? `: continue with byte_offset ${next}` : ' (end of file)');
      }
      return {
        data: { ...base, content, size, start_byte: n > 0 ? from : null, end_byte: n > 0 ? end - 1 : null, next_byte_offset: next, truncated },
        message,
      };
    } finally {
      file.close();
    }
}

/**
 * Lines first..last (1-based), within `cap` bytes, and the file's line count. Only the wanted
 * lines are decoded: the chunks before them and after them are only counted (newlines 16
 * bytes at a time), so `head: 10` of a 100 MB log reads it at memory speed. A wanted line
 * that cannot fit is cut while it is read (partial_line), not gathered whole first.
 */
function readRange(ctx: ToolContext, args: ReadArgs, first: number, last: number, cap: number, encoding: string): ToolResult {
    const out: string[] = [];
    let bytes = 0;
    let truncated = false;
    let partial = false;
    /** Every wanted line is in, or the cap was hit: from here lines are only counted. */
    let done = false;
    let lineNo = 0; // newlines seen
    /** The last line returned (0: none yet). */
    let endLine = 0;
    /** Where line `first` starts in the file, and the bytes of it in a cut (partial) line. */
    let startByte = 0;
    let partialBytes = 0;
    let size = 0;
    let lastByte = 0x0a;
    /** Line lineNo + 1 (a wanted one) up to where the file has been decoded. */
    let carry = '';
    const decoder = new StringDecoder(encoding === 'latin1' ? 'latin1' : 'utf8');
    /** Line `n` (its text with the newline, if any): returned whole, cut (the first only), or the end. */
    const take = (n: number, line: string): void => {
      const prefix = args.line_numbers ? `${String(n).padStart(6)}\t` : '';
      const text = prefix + line;
      const len = Buffer.byteLength(text);
      if (bytes + len > cap) {
        truncated = true;
        done = true;
        // A first line longer than the cap: its start, rather than nothing and the same offset again.
        if (out.length === 0) {
          out.push(cutBytes(text, cap, 'start'));
          bytes = Buffer.byteLength(out[0]!);
          // In the file's bytes: latin1 is one byte a character (its UTF-8 content, which the cap counts, is not).
          partialBytes = Math.max(0, (encoding === 'latin1' ? out[0]!.length : bytes) - prefix.length);
          partial = true;
          endLine = n;
        }
        return;
      }
      out.push(text);
      bytes += len;
      endLine = n;
      if (n >= last) done = true;
    };
    for (const chunk of ctx.fs.readChunks(args.path, ctx.cwd)) {
      if (ctx.signal.aborted) throw new NoshError('CANCELLED', 'read cancelled');
      size += chunk.length;
      lastByte = chunk[chunk.length - 1] ?? lastByte;
      if (done) {
        lineNo += countByte(chunk, 0x0a);
        continue;
      }
      let buf = chunk;
      if (lineNo + 1 < first) {
        // Lines before `first`: skipped as bytes, decoding starts right after a newline.
        const { at, found } = nthSeparator(asBuffer(buf), first - 1 - lineNo, 0x0a);
        if (at < 0) {
          lineNo += found;
          continue;
        }
        lineNo = first - 1;
        startByte = size - chunk.length + at + 1;
        buf = buf.subarray(at + 1);
      }
      const text = carry + decoder.write(buf);
      let start = 0;
      // The chunk's whole lines at once when every one is wanted and they fit under the cap
      // (a small file read whole): one slice and one byte count instead of one per line.
      // Decoding keeps every newline byte, so the chunk's newlines are the text's.
      if (!args.line_numbers) {
        const end = text.lastIndexOf('\n') + 1;
        const lines = end > 0 ? countByte(buf, 0x0a) : 0;
        if (lines > 0 && lineNo + lines <= last) {
          const block = text.slice(0, end);
          const len = Buffer.byteLength(block);
          if (bytes + len <= cap) {
            out.push(block);
            bytes += len;
            lineNo += lines;
            endLine = lineNo;
            if (lineNo >= last) done = true;
            start = end;
          }
        }
      }
      for (let i = text.indexOf('\n', start); i >= 0; i = text.indexOf('\n', start)) {
        lineNo++;
        if (!done) take(lineNo, text.slice(start, i + 1));
        start = i + 1;
      }
      carry = done ? '' : text.slice(start);
      // A line already longer than the cap will be cut: keep its start, count the rest.
      if (!done && carry.length > cap) {
        take(lineNo + 1, carry);
        carry = '';
      }
    }
    if (!done) {
      carry += decoder.end();
      if (carry !== '') take(lineNo + 1, carry);
    }
    // An unterminated last line is a line too.
    const total = lineNo + (size > 0 && lastByte !== 0x0a ? 1 : 0);
    const got = endLine > 0;
    const next = got && endLine < total ? endLine + 1 : null;
    const data: Record<string, unknown> = {
      path: args.path, encoding, content: out.join(''),
      start_line: got ? first : null, end_line: got ? endLine : null,
      total_lines: total, next_offset: next, truncated,
    };
    if (!got && first > total && (total > 0 || first > 1)) {
      data.past_end = true;
      return { data, message: `offset ${first} is past the end of the file (${total} ${total === 1 ? 'line' : 'lines'})` };
    }
    let message = 'ok';
    if (partial) {
      data.partial_line = true;
      data.next_byte_offset = startByte + partialBytes;
      message = longLine(first, cap, bytes, startByte + partialBytes, next);
    } else if (total === 0) message = 'the file is empty';
    else if (first > 1 || next !== null) {
      message = `lines ${first}-${endLine} of ${total} returned` + (truncated ? `, cut at ${cap} bytes` : '') +
        (next !== null ? `: continue with offset ${next}` : ' (end of file)');
    }
    return { data, message };
}

function longLine(line: number, cap: number, returned: number, rest: number, next: number | null): string {
  return `line ${line} is longer than ${cap} bytes: ${returned} bytes of it returned; the rest of it starts at byte_offset ${rest} ` +
    `(read it with byte_offset and byte_length, or raise max_bytes up to ${LIMITS.maxOutputBytes.max})` +
    (next !== null ? `; the next line is offset ${next}` : '; it is the last line');
}

/** The first (or last) bytes of a text, at most `cap`, cut on a UTF-8 character boundary. */
function cutBytes(text: string, cap: number, from: 'start' | 'end'): string {
  const buf = Buffer.from(text);
  if (from === 'start') {
    let n = Math.min(cap, buf.length);
    while (n > 0 && n < buf.length && (buf[n]! & 0xc0) === 0x80) n--;
    return buf.subarray(0, n).toString();
  }
  let start = Math.max(0, buf.length - cap);
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString();
}

function parseJson(ctx: ToolContext, args: ReadArgs): ToolResult {
  const buf = readCapped(ctx.fs, args.path, ctx.cwd, PARSE_CAP, 'parse');
  const cost = jsonCost(buf);
  if (cost.depth > MAX_JSON_DEPTH) {
    throw new NoshError('INVALID_ARGUMENT', `${args.path}: JSON nested ${cost.depth} levels deep, more than parse handles (${MAX_JSON_DEPTH})`,
      'Read it without parse, or pick out the part you need with exec (grep, sed, head).', { path: args.path, depth: cost.depth, limit: MAX_JSON_DEPTH });
  }
  // The parsed value can take 20 times the text's bytes (6 M '{},' of an 18 MB file fill 380 MB):
  // JSON.parse builds it in one step that the worker's heap limit does not stop, but V8's fatal
  // out-of-memory does, for the whole process. So a value that would not fit is refused first.
  if (cost.bytes > valueLimit()) {
    const mb = Math.round(valueLimit() * 4 / 1048576);
    throw new NoshError('MEMORY_LIMIT', `${args.path}: the parsed JSON would take about ${Math.ceil(cost.bytes / 1048576)} MB, more than a quarter of the worker memory limit of ${mb} MB`,
      'Read it without parse (offset/limit), or pick out the part you need with exec (grep, sed, head).', { path: args.path, memory_mb: mb });
  }
  let text = buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return { data: { path: args.path, parsed: JSON.parse(text) as unknown, size: buf.length } };
  } catch (e) {
    const msg = (e as Error).message.replace(/\s+/g, ' ').slice(0, 200);
    const details: Record<string, unknown> = { path: args.path, parser: msg };
    let where = '';
    const at = jsonErrorOffset(text);
    if (at !== null) {
      const before = text.slice(0, at);
      const line = before.split('\n').length;
      details.line = line;
      details.column = at - before.lastIndexOf('\n');
      where = ` at line ${line} column ${String(details.column)}`;
    }
    throw new NoshError('INVALID_ARGUMENT', `${args.path}: not valid JSON${where}`,
      'Read it without parse to see the text, then fix it with edit.', details);
  }
}

/** Deepest nesting parse returns: JSON.stringify recurses, and the envelope of a value 5000 deep overflowed the stack of the main thread that answers RPC. */
const MAX_JSON_DEPTH = 1000;

/**
 * An upper estimate of the heap bytes JSON.parse takes for this text (measured: an array slot
 * 8 bytes, an empty object 56, a string 16 plus its characters), the text itself and its
 * serialized copy for the reply included; and the deepest nesting.
 */
function jsonCost(buf: Buffer): { bytes: number; depth: number } {
  let bytes = 2 * buf.length;
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (c === 0x22 /* " */) {
      bytes += 24;
      // A string's characters take at most their UTF-8 bytes (a two-byte string's 2 bytes each come from 2-3 UTF-8 bytes).
      for (i++; i < buf.length && buf[i] !== 0x22; i++) {
        if (buf[i] === 0x5c /* \ */) i++;
        bytes++;
      }
    } else if (c === 0x7b || c === 0x5b) { // { [
      bytes += 80;
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c || c === 0x3a) bytes += 16; // , :
  }
  return { bytes, depth: deepest };
}

/**
 * The last N lines. The content is at most `cap` bytes and never smaller than the file's bytes
 * it shows, so only the last cap + 1 bytes are kept while the rest is counted: holding the last
 * N lines instead (tail: 10^8 of a file of 50 M empty lines, or one 150 MB line) built a heap
 * array or string that V8's out-of-memory turned into an abort of the whole process.
 */
function readTail(ctx: ToolContext, args: ReadArgs, n: number, cap: number, encoding: string): ToolResult {
  const keep = cap + 1; // the byte before the shown ones says whether they start a line
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let size = 0;
  let newlines = 0;
  let lastByte = 0x0a;
  for (const chunk of ctx.fs.readChunks(args.path, ctx.cwd)) {
    if (ctx.signal.aborted) throw new NoshError('CANCELLED', 'read cancelled');
    size += chunk.length;
    newlines += countByte(chunk, 0x0a);
    lastByte = chunk[chunk.length - 1] ?? lastByte;
    kept.push(chunk);
    keptBytes += chunk.length;
    while (keptBytes - kept[0]!.length >= keep) keptBytes -= kept.shift()!.length;
  }
  const total = newlines + (size > 0 && lastByte !== 0x0a ? 1 : 0);
  let win = Buffer.concat(kept, keptBytes);
  win = win.subarray(Math.max(0, win.length - keep));
  /** The window starts inside the last line (longer than the cap): only its end can be shown. */
  let insideLast = false;
  if (win.length < size) {
    const startsLine = win[0] === 0x0a;
    win = win.subarray(1);
    if (!startsLine) {
      const nl = win.indexOf(0x0a);
      if (nl >= 0 && nl < win.length - 1) win = win.subarray(nl + 1); // a partial line that cannot fit with those after it
      else {
        insideLast = true;
        let k = 0;
        while (k < win.length && (win[k]! & 0xc0) === 0x80) k++; // not from the middle of a character
        win = win.subarray(k);
      }
    }
  }
  const text = win.toString(encoding === 'latin1' ? 'latin1' : 'utf8');
  // Keep the end of the file when the cap cuts: lines are taken from the last one back.
  const numbered: string[] = []; // line_numbers: lines in reverse, joined in blocks
  const blocks: string[] = [];
  let bytes = 0;
  let count = 0;
  let from = text.length;
  let truncated = false;
  let partial = false;
  let cutEnd = '';
  while (from > 0 && count < n) {
    const start = insideLast ? 0 : from >= 2 ? text.lastIndexOf('\n', from - 2) + 1 : 0;
    const line = text.slice(start, from);
    const t = args.line_numbers ? `${String(total - count).padStart(6)}\t${line}` : line;
    const len = Buffer.byteLength(t);
    if (insideLast || bytes + len > cap) {
      truncated = true;
      // The last line alone is longer than the cap: its end, rather than nothing.
      if (count === 0) {
        cutEnd = cutBytes(t, cap, 'end');
        bytes = Buffer.byteLength(cutEnd);
        partial = true;
        count = 1;
      }
      break;
    }
    if (args.line_numbers) {
      numbered.push(t);
      if (numbered.length >= 8192) blocks.push(numbered.reverse().join('')), numbered.length = 0;
    }
    bytes += len;
    count++;
    from = start;
  }
  // Lines before the window were not looked at: one of them cannot fit with the lines shown.
  if (!truncated && count < n && count < total && from === 0) truncated = true;
  blocks.push(numbered.reverse().join(''));
  const content = partial ? cutEnd : args.line_numbers ? blocks.reverse().join('') : text.slice(from);
  const startLine = total - count + 1;
  /** The first of the N lines asked for: those from it to startLine - 1 did not fit. */
  const wantedFrom = Math.max(1, total - n + 1);
  let message = 'ok';
  if (partial) message = `the last line is longer than ${cap} bytes: its last ${bytes} bytes returned; raise max_bytes (up to ${LIMITS.maxOutputBytes.max}), or read it by bytes with byte_offset/byte_length`;
  else if (truncated) {
    message = `lines ${startLine}-${total} of ${total} returned, cut at ${cap} bytes: ` +
      `the earlier lines asked for with offset ${wantedFrom}, limit ${startLine - wantedFrom}`;
  }
  return {
    data: {
      path: args.path, encoding, content,
      start_line: count > 0 ? startLine : null, end_line: count > 0 ? total : null,
      total_lines: total, next_offset: null, truncated, ...(partial ? { partial_line: true } : {}),
    },
    message,
  };
}

/** Offset of the first JSON syntax error (JSON.parse does not always say where). */
export function jsonErrorOffset(t: string): number | null {
  let i = 0;
  const ws = () => { while (i < t.length && ' \t\n\r'.includes(t[i]!)) i++; };
  const fail = (): never => { throw i; };
  const lit = (w: string) => { if (t.startsWith(w, i)) i += w.length; else fail(); };
  const str = () => {
    i++;
    while (i < t.length && t[i] !== '"') {
      if (t.charCodeAt(i) < 0x20) fail();
      if (t[i] === '\\') {
        i++;
        if (t[i] === 'u') { if (!/^[0-9a-fA-F]{4}$/.test(t.slice(i + 1, i + 5))) fail(); i += 4; }
        else if (!'"\\/bfnrt'.includes(t[i] ?? 'x')) fail();
      }
      i++;
    }
    if (i >= t.length) fail();
    i++;
  };
  const num = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(t.slice(i, i + 400));
    if (!m || m[0] === '' || m[0] === '-') fail();
    i += m![0].length;
  };
  const value = (depth: number): void => {
    if (depth > 5000) fail();
    ws();
    const c = t[i];
    if (c === '{') {
      i++; ws();
      if (t[i] === '}') { i++; return; }
      for (;;) {
        ws();
        if (t[i] !== '"') fail();
        str(); ws();
        if (t[i] !== ':') fail();
        i++;
        value(depth + 1); ws();
        if (t[i] === ',') { i++; continue; }
        if (t[i] === '}') { i++; return; }
        fail();
      }
    } else if (c === '[') {
      i++; ws();
      if (t[i] === ']') { i++; return; }
      for (;;) {
        value(depth + 1); ws();
        if (t[i] === ',') { i++; continue; }
        if (t[i] === ']') { i++; return; }
        fail();
      }
    } else if (c === '"') str();
    else if (c === 't') lit('true');
    else if (c === 'f') lit('false');
    else if (c === 'n') lit('null');
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) num();
    else fail();
  };
  try {
    value(0);
    ws();
    return i < t.length ? i : null;
  } catch (e) {
    return typeof e === 'number' ? e : null;
  }
}
