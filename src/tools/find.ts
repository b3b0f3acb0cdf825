import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';
import { Glob, joinV, walk } from './common.js';

const Input = z.object({
  path: z.string().min(1).optional().describe('Folder to search below (default: the working directory).'),
  pattern: z.string().min(1).optional().describe("Glob: '*.py' matches names at any depth; 'src/**/test_*.py' matches paths relative to the folder."),
  type: z.enum(['file', 'dir', 'symlink', 'any']).optional().describe('Only entries of this type (default any).'),
  max_depth: z.number().int().min(1).max(100).optional().describe('How many levels to descend (default: no limit).'),
  hidden: z.boolean().optional().describe('Include names starting with a dot (default true, as find).'),
  exclude: z.array(z.string().min(1)).optional().describe("Globs of folders or files to skip, e.g. ['node_modules', '.git']."),
  max_results: z.number().int().min(1).max(100_000).optional().describe('Stop after this many results (default: the zone search limit).'),
  ignore_case: z.boolean().optional().describe('Match the pattern without regard to case.'),
}).strict();

export default defineTool({
  name: 'find',
  description: 'Find files and folders by name or path glob below a folder, with type filter, depth limit, exclude globs and a ' +
    'results cap (truncated tells when reached). Returns paths usable in other calls, sorted depth-first by name. ' +
    'To search file contents use search.',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run(ctx, args) {
    const base = ctx.fs.resolveExisting(args.path ?? '.', ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks });
    if (!base.stat.isDirectory()) throw new NoshError('NOT_A_DIRECTORY', `find: ${base.vpath} is not a folder`, 'Give a folder.', { path: base.vpath });
    const glob = new Glob(args.pattern ? [args.pattern] : [], 'pattern', !!args.ignore_case);
    const exclude = new Glob(args.exclude ?? [], 'exclude');
    const cap = args.max_results ?? ctx.limits.maxResults;
    const type = args.type ?? 'any';
    const matches: { path: string; type: string }[] = [];
    let truncated = false;
    walk(ctx.fs, base.vpath, '/', {
      maxDepth: args.max_depth ?? Infinity,
      hidden: args.hidden ?? true,
      signal: ctx.signal,
      prune: (e) => exclude.matches(e.rel),
      visit(e) {
        if (exclude.matches(e.rel)) return;
        if (type !== 'any' && e.type !== type) return;
        if (!glob.empty && !glob.matches(e.rel)) return;
        if (matches.length >= cap) { truncated = true; return false; }
        matches.push({ path: joinV(base.vpath, e.rel), type: e.type });
      },
    });
    return {
      data: { path: base.vpath, matches, count: matches.length, truncated },
      message: `${matches.length} found` + (truncated ? ` (stopped at ${cap}: narrow the pattern or raise max_results)` : ''),
    };
  },
});
