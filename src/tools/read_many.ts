import { z } from 'zod';
import { LIMITS } from '../limits.js';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';
import { readFile } from './read.js';
import { withSuggestions } from './common.js';
import { errorBody } from '../runtime/error-body.js';

const Input = z.object({
  paths: z.array(z.string().min(1)).min(1).max(100).describe('Files to read (1 to 100), each inside the zone.'),
  offset: z.number().int().min(1).optional().describe('First line to return from each file, 1-based (default 1).'),
  limit: z.number().int().min(1).optional().describe('Lines to return from each file (default: all, within the byte budget).'),
  line_numbers: z.boolean().optional().describe('Prefix each line with its number and a tab, as cat -n.'),
  max_bytes_per_file: z.number().int().min(1).max(LIMITS.maxOutputBytes.max).optional().describe('Cap on bytes returned per file (default: the output limit shared by all files).'),
  encoding: z.enum(['utf-8', 'latin1', 'base64']).optional().describe('How to return the bytes (base64 for binary files).'),
}).strict();

export default defineTool({
  name: 'read_many',
  description: 'Read several files in one call. Each path gets its own result: {path, success, data} like read, or ' +
    '{path, success: false, error} (one missing file does not fail the others). The output limit is shared: ' +
    'later files may come back truncated; read the rest with read from their next_offset (next_byte_offset for base64).',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run(ctx, args) {
    let budget = ctx.limits.maxOutputBytes;
    const results: unknown[] = [];
    let failed = 0;
    for (const path of args.paths) {
      if (ctx.signal.aborted) throw new NoshError('CANCELLED', 'read_many cancelled');
      const cap = Math.max(1, Math.min(budget, args.max_bytes_per_file ?? budget));
      try {
        const r = readFile(ctx, { path, offset: args.offset, limit: args.limit, line_numbers: args.line_numbers, encoding: args.encoding, max_bytes: cap });
        const data = r.data as { content: string };
        budget = Math.max(0, budget - Buffer.byteLength(data.content));
        results.push({ path, success: true, data, message: r.message ?? 'ok' });
      } catch (e) {
        failed++;
        results.push({ path, success: false, error: errorBody(withSuggestions(e, ctx.fs, ctx.cwd)) });
      }
    }
    return {
      data: { results, read: args.paths.length - failed, failed },
      message: failed === 0 ? `read ${args.paths.length} files` : `${failed} of ${args.paths.length} files failed; see each result's error`,
    };
  },
});
