import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';

const Input = z.object({
  path: z.string().min(1).describe('File path inside the zone (/ is the zone root).'),
  offset: z.number().int().min(1).optional().describe('First line to return, 1-based (default 1).'),
  limit: z.number().int().min(1).optional().describe('Number of lines to return (default: all, within max_bytes).'),
  line_numbers: z.boolean().optional().describe('Prefix each line with its number and a tab, as cat -n.'),
  max_bytes: z.number().int().min(1).max(5_000_000).optional().describe('Cap on returned bytes (default: the output limit).'),
  encoding: z.enum(['utf-8', 'latin1', 'base64']).optional().describe('How to return the bytes (base64 for binary files).'),
}).strict();

export default defineTool({
  name: 'read',
  description: 'Read a file. Text by line range (offset/limit, 1-based), optionally numbered; binary as base64. ' +
    'Returns content, the line range returned, total_lines when known, and truncated when cut by max_bytes.',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run(ctx, args) {
    const cap = args.max_bytes ?? ctx.limits.maxOutputBytes;
    const encoding = args.encoding ?? 'utf-8';
    if (encoding === 'base64') {
      const buf = ctx.fs.readFile(args.path, ctx.cwd);
      const cut = buf.subarray(0, cap);
      return { data: { path: args.path, encoding, content: cut.toString('base64'), size: buf.length, truncated: cut.length < buf.length } };
    }
    const first = args.offset ?? 1;
    const last = args.limit !== undefined ? first + args.limit - 1 : Infinity;
    const out: string[] = [];
    let bytes = 0;
    let lineNo = 0;
    let truncated = false;
    let carry = '';
    const decoder = new StringDecoder(encoding === 'latin1' ? 'latin1' : 'utf8');
    const take = (line: string) => {
      lineNo++;
      if (lineNo < first || lineNo > last || truncated) return;
      const text = args.line_numbers ? `${String(lineNo).padStart(6)}\t${line}` : line;
      const size = Buffer.byteLength(text);
      if (bytes + size > cap) { truncated = true; return; }
      out.push(text);
      bytes += size;
    };
    for (const chunk of ctx.fs.readChunks(args.path, ctx.cwd)) {
      const text = carry + decoder.write(chunk);
      let start = 0;
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', start)) {
        take(text.slice(start, i + 1));
        start = i + 1;
      }
      carry = text.slice(start);
      if (ctx.signal.aborted) throw new NoshError('CANCELLED', 'read cancelled');
    }
    carry += decoder.end();
    if (carry !== '') take(carry);
    const returned = out.length;
    return {
      data: {
        path: args.path, encoding, content: out.join(''),
        start_line: returned > 0 ? first : null, end_line: returned > 0 ? first + returned - 1 : null,
        total_lines: lineNo, truncated,
      },
      message: truncated ? `cut at ${cap} bytes: continue with offset ${first + returned}` : 'ok',
    };
  },
});
