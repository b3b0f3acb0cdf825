import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';
import { Glob, walk } from './common.js';

const Input = z.object({
  path: z.string().min(1).optional().describe('Folder at the top of the tree (default: the working directory).'),
  depth: z.number().int().min(1).max(50).optional().describe('Levels to show (default 3).'),
  exclude: z.array(z.string().min(1)).optional().describe("Globs of names or relative paths to leave out, e.g. ['node_modules', '*.log']."),
  hidden: z.boolean().optional().describe('Include names starting with a dot (default false).'),
  max_entries: z.number().int().min(1).max(20_000).optional().describe('Stop after this many entries (default 500).'),
}).strict();

export default defineTool({
  name: 'tree',
  description: 'Show a folder as an indented tree (folders end with /), to get an overview of a project. Depth limit ' +
    '(default 3), exclude globs, hidden files, entry cap (default 500; truncated tells when it was reached).',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run(ctx, args) {
    const base = ctx.fs.resolveExisting(args.path ?? '.', ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks });
    if (!base.stat.isDirectory()) throw new NoshError('NOT_A_DIRECTORY', `tree: ${base.vpath} is not a folder`, 'Give a folder.', { path: base.vpath });
    const exclude = new Glob(args.exclude ?? [], 'exclude');
    const cap = args.max_entries ?? 500;
    const lines: string[] = [base.vpath === '/' ? '/' : base.vpath + '/'];
    let files = 0;
    let dirs = 0;
    let truncated = false;
    walk(ctx.fs, base.vpath, '/', {
      maxDepth: args.depth ?? 3,
      hidden: !!args.hidden,
      signal: ctx.signal,
      prune: (e) => exclude.matches(e.rel),
      visit(e) {
        if (exclude.matches(e.rel)) return;
        if (files + dirs >= cap) { truncated = true; return false; }
        if (e.type === 'dir') dirs++;
        else files++;
        lines.push('  '.repeat(e.depth) + e.name + (e.type === 'dir' ? '/' : e.type === 'symlink' ? '@' : ''));
      },
    });
    return {
      data: { path: base.vpath, tree: lines.join('\n') + '\n', dirs, files, truncated },
      message: `${dirs} folders, ${files} files` + (truncated ? ` (stopped at ${cap} entries: raise max_entries, lower depth or add exclude)` : ''),
    };
  },
});
