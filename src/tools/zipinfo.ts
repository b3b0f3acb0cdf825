import { z } from 'zod';
import { NoshError } from '../errors.js';
import { ZipArchive, ZipError } from '../gnulib/zipread.js';
import { defineTool } from './types.js';

const Input = z.object({
  path: z.string().min(1).describe('The zip archive, inside the zone.'),
  limit: z.number().int().min(1).max(100000).optional().describe('Most entries to return (default 1000); the totals count every entry.'),
}).strict();

const METHODS: Record<number, string> = { 0: 'stored', 8: 'deflated', 9: 'deflate64', 12: 'bzip2', 14: 'lzma', 93: 'zstd', 99: 'aes' };

export default defineTool({
  name: 'zipinfo',
  description: 'List the entries of a zip archive as data (like zipinfo / unzip -l): name, size, compressed size, method, ' +
    'modified time (ISO 8601, UTC), is_dir, encrypted. Reads only the central directory: nothing is extracted.',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  async run(ctx, args) {
    const r = ctx.fs.openRandom(args.path, ctx.cwd);
    let zip: ZipArchive;
    try {
      zip = await ZipArchive.open(r, ctx.limits.archive);
    } catch (e) {
      r.close();
      if (e instanceof ZipError) {
        throw new NoshError('INVALID_ARGUMENT', `${args.path} is not a readable zip archive: ${e.message}`,
          'Check the file with `file` or `unzip -t`; only zip archives are read here (tar: use exec tar -tvf).', { path: args.path });
      }
      throw e;
    }
    try {
      const limit = args.limit ?? 1000;
      const all = zip.entries;
      const entries = all.slice(0, limit).map((e) => ({
        name: e.name,
        size: e.size,
        compressed: e.csize,
        method: METHODS[e.method] ?? `method ${e.method}`,
        modified: e.mtime.toISOString(),
        is_dir: e.isDir,
        encrypted: e.encrypted,
      }));
      const size = all.reduce((n, e) => n + e.size, 0);
      const compressed = all.reduce((n, e) => n + e.csize, 0);
      return {
        data: { path: args.path, count: all.length, total_size: size, total_compressed: compressed, entries, truncated: all.length > limit },
        message: `${all.length} entr${all.length === 1 ? 'y' : 'ies'}, ${size} bytes (${compressed} compressed)`,
      };
    } finally {
      zip.close();
      r.close();
    }
  },
});
