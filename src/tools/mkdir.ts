import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';
import { mkdirParents } from './common.js';

const Input = z.object({
  path: z.string().min(1).describe('Folder to create, inside the zone.'),
  parents: z.boolean().optional().describe('Create missing parent folders too, and succeed if the folder already exists (like mkdir -p).'),
}).strict();

export default defineTool({
  name: 'mkdir',
  description: 'Create a folder. With parents: true, missing parents are created and an existing folder is not an error. ' +
    'Returns the folders created.',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  mutates: true,
  run(ctx, args) {
    if (args.parents) {
      const created = mkdirParents(ctx.fs, args.path, ctx.cwd);
      const r = ctx.fs.resolve(args.path, ctx.cwd);
      return { data: { path: r.vpath, created }, message: created.length ? `created ${created.join(', ')}` : `${r.vpath} already exists` };
    }
    const r = ctx.fs.resolve(args.path, ctx.cwd);
    if (r.stat) {
      throw new NoshError('FILE_EXISTS', `mkdir: ${r.vpath} exists${r.stat.isDirectory() ? '' : ' (not a folder)'}`,
        r.stat.isDirectory() ? 'It is already there; set parents: true to accept an existing folder.' : 'Choose another name.', { path: r.vpath });
    }
    ctx.fs.mkdir(args.path, ctx.cwd);
    return { data: { path: r.vpath, created: [r.vpath] }, message: `created ${r.vpath}` };
  },
});
