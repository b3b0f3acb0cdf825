import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool, type ToolContext, type ToolResult } from './types.js';
import { readCapped } from './common.js';
import { countByte } from '../command/count-byte.js';
import { asBuffer, nthSeparator } from '../command/head-tail.js';

/** Largest file `parse` reads whole. */
const PARSE_CAP = 20 * 1024 * 1024;

const Input = z.object({
  path: z.string().min(1).describe('File path inside the zone (/ is the zone root).'),
  offset: z.number().int().min(1).optional().describe('First line to return, 1-based (default 1).'),
  limit: z.number().int().min(1).optional().describe('Number of lines to return (default: all, within max_bytes).'),
  line_numbers: z.boolean().optional().describe('Prefix each line with its number and a tab, as cat -n.'),
  max_bytes: z.number().int().min(1).max(5_000_000).optional().describe('Cap on returned bytes (default: the output limit).'),
  encoding: z.enum(['utf-8', 'latin1', 'base64']).optional().describe('How to return the bytes (base64 for binary files).'),
  head: z.number().int().min(1).optional().describe('Return only the first N lines (instead of offset/limit).'),
  tail: z.number().int().min(1).optional().describe('Return only the last N lines (instead of offset/limit).'),
  parse: z.enum(['json']).optional().describe("Parse the whole file and return the value as `parsed` ('json'); fails with INVALID_ARGUMENT on bad JSON."),
}).strict();

export type ReadArgs = z.output<typeof Input>;

export default defineTool({
  name: 'read',
  description: 'Read a file. Text by line range (offset/limit, 1-based) or the first/last N lines (head/tail), optionally numbered; ' +
    'binary as base64; parse: "json" returns the parsed value. Returns content, start_line/end_line, total_lines, ' +
    'and truncated when cut by max_bytes (then continue with the offset given in the message; a single line longer than ' +
    'max_bytes comes back cut, with partial_line).',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run: readFile,
});

export function readFile(ctx: ToolContext, args: ReadArgs): ToolResult {
    const sel = [args.head !== undefined, args.tail !== undefined, args.offset !== undefined || args.limit !== undefined].filter(Boolean).length;
    if (sel > 1) throw new NoshError('INVALID_ARGUMENT', 'read: give only one of head, tail, or offset/limit', 'Use head: N for the first lines, tail: N for the last, offset/limit for a range.');
    if (args.parse === 'json') return parseJson(ctx, args);
    const cap = args.max_bytes ?? ctx.limits.maxOutputBytes;
    const encoding = args.encoding ?? 'utf-8';
    if (encoding === 'base64') {
      const buf = ctx.fs.readFile(args.path, ctx.cwd);
      const cut = buf.subarray(0, cap);
      return { data: { path: args.path, encoding, content: cut.toString('base64'), size: buf.length, truncated: cut.length < buf.length } };
    }
    if (args.tail !== undefined) return readTail(ctx, args, args.tail, cap, encoding);
    const first = args.offset ?? 1;
    const count = args.limit ?? args.head;
    return readRange(ctx, args, first, count !== undefined ? first + count - 1 : Infinity, cap, encoding);
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
    let size = 0;
    let lastByte = 0x0a;
    /** Line lineNo + 1 (a wanted one) up to where the file has been decoded. */
    let carry = '';
    const decoder = new StringDecoder(encoding === 'latin1' ? 'latin1' : 'utf8');
    /** Line `n` (its text with the newline, if any): returned whole, cut (the first only), or the end. */
    const take = (n: number, line: string): void => {
      const text = args.line_numbers ? `${String(n).padStart(6)}\t${line}` : line;
      const len = Buffer.byteLength(text);
      if (bytes + len > cap) {
        truncated = true;
        done = true;
        // A first line longer than the cap: its start, rather than nothing and the same offset again.
        if (out.length === 0) {
          out.push(cutBytes(text, cap, 'start'));
          bytes = Buffer.byteLength(out[0]!);
          partial = true;
        }
        return;
      }
      out.push(text);
      bytes += len;
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
    const returned = out.length;
    return {
      data: {
        path: args.path, encoding, content: out.join(''),
        start_line: returned > 0 ? first : null, end_line: returned > 0 ? first + returned - 1 : null,
        total_lines: total, truncated, ...(partial ? { partial_line: true } : {}),
      },
      message: partial ? longLine(first, cap, bytes) : truncated ? `cut at ${cap} bytes: continue with offset ${first + returned}` : 'ok',
    };
}

function longLine(line: number, cap: number, returned: number): string {
  return `line ${line} is longer than ${cap} bytes: ${returned} bytes of it returned; raise max_bytes (up to 5000000), ` +
    'or read it in pieces with exec (e.g. cut -b or head -c)';
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

/** The file's lines as text, each with its newline (the last one maybe without), streamed. */
function* textLines(ctx: ToolContext, path: string, encoding: string): Generator<string> {
  const decoder = new StringDecoder(encoding === 'latin1' ? 'latin1' : 'utf8');
  let carry = '';
  const pieces: string[] = []; // a line going on over several chunks, joined once it ends
  for (const chunk of ctx.fs.readChunks(path, ctx.cwd)) {
    if (ctx.signal.aborted) throw new NoshError('CANCELLED', 'read cancelled');
    const decoded = decoder.write(chunk);
    if (!decoded.includes('\n')) {
      pieces.push(decoded);
      continue;
    }
    if (pieces.length > 0) {
      carry += pieces.join('');
      pieces.length = 0;
    }
    const text = carry + decoded;
    let start = 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', start)) {
      yield text.slice(start, i + 1);
      start = i + 1;
    }
    carry = text.slice(start);
  }
  carry += pieces.join('') + decoder.end();
  if (carry !== '') yield carry;
}

function parseJson(ctx: ToolContext, args: ReadArgs): ToolResult {
  const buf = readCapped(ctx.fs, args.path, ctx.cwd, PARSE_CAP, 'parse');
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

/** The last N lines, streaming: memory holds at most N lines. */
function readTail(ctx: ToolContext, args: ReadArgs, n: number, cap: number, encoding: string): ToolResult {
  let ring: string[] = [];
  let lineNo = 0;
  const push = (line: string) => {
    lineNo++;
    ring.push(line);
    // Keep the last n lines; drop the older ones in batches (no O(n) shift per line).
    if (ring.length >= 2 * n + 1024) ring = ring.slice(ring.length - n);
  };
  for (const line of textLines(ctx, args.path, encoding)) push(line);
  if (ring.length > n) ring = ring.slice(ring.length - n);
  const first = lineNo - ring.length + 1;
  // Keep the end of the file when the cap cuts: drop lines from the front.
  const out: string[] = [];
  let bytes = 0;
  let truncated = false;
  let partial = false;
  for (let k = ring.length - 1; k >= 0; k--) {
    const text = args.line_numbers ? `${String(first + k).padStart(6)}\t${ring[k]}` : ring[k]!;
    const size = Buffer.byteLength(text);
    if (bytes + size > cap) {
      truncated = true;
      // The last line alone is longer than the cap: its end, rather than nothing.
      if (out.length === 0) {
        out.push(cutBytes(text, cap, 'end'));
        bytes = Buffer.byteLength(out[0]!);
        partial = true;
      }
      break;
    }
    out.unshift(text);
    bytes += size;
  }
  const start = lineNo - out.length + 1;
  return {
    data: {
      path: args.path, encoding, content: out.join(''),
      start_line: out.length > 0 ? start : null, end_line: out.length > 0 ? lineNo : null,
      total_lines: lineNo, truncated, ...(partial ? { partial_line: true } : {}),
    },
    message: partial ? `the last line is longer than ${cap} bytes: its last ${bytes} bytes returned; raise max_bytes (up to 5000000)`
      : truncated ? `cut at ${cap} bytes: earlier lines with offset/limit` : 'ok',
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
