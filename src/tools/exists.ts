import { z } from 'zod';
import { VfsError } from '../vfs/index.js';
import { defineTool } from './types.js';
import { typeOf } from './common.js';

const Input = z.object({
  path: z.string().min(1).describe('Path to test, inside the zone.'),
}).strict();

export default defineTool({
  name: 'exists',
  description: 'Does a path exist? Returns exists and, when it does, type (file, dir, symlink, other). A path the zone ' +
    'policy blocks is an error (BLOCKED_PATH), not false; use check_access to learn why.',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run(ctx, args) {
    try {
      const r = ctx.fs.resolve(args.path, ctx.cwd);
      if (!r.stat) return { data: { path: r.vpath, exists: false, type: null }, message: `${r.vpath} does not exist` };
      return { data: { path: r.vpath, exists: true, type: typeOf(r.stat) }, message: `${r.vpath} exists` };
    } catch (e) {
      if (e instanceof VfsError && (e.errno === 'ENOENT' || e.errno === 'ENOTDIR')) {
        return { data: { path: args.path, exists: false, type: null }, message: `${args.path} does not exist` };
      }
      throw e;
    }
  },
});
