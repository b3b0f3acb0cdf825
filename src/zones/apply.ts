import { z } from 'zod';
import { defineTool, type ToolDef } from '../tools/types.js';

const ApplyArgs = z.object({
  /** Files to set: content_base64 writes it, null removes it (a file that is not there is left so). */
  files: z.array(z.object({ path: z.string().min(1), content_base64: z.string().nullable() }).strict()).min(1),
}).strict();

/**
 * Set several files of a zone at once, through the Vfs (the versioning methods restore and
 * undo): every write atomic, parents made, one call so one commit.
 */
export const applyTool = defineTool({
  name: '_apply',
  description: 'internal: set or remove files (restore, undo)',
  input: ApplyArgs,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  mutates: true,
  run(ctx, args) {
    for (const f of args.files) {
      if (f.content_base64 === null) {
        if (ctx.fs.exists(f.path, '/')) ctx.fs.unlink(f.path, '/');
        continue;
      }
      const parts = f.path.split('/').filter((p) => p !== '');
      for (let i = 1; i < parts.length; i++) {
        const dir = '/' + parts.slice(0, i).join('/');
        if (!ctx.fs.exists(dir, '/')) ctx.fs.mkdir(dir, '/');
      }
      ctx.fs.writeFile(f.path, Buffer.from(f.content_base64, 'base64'), '/');
    }
    return { data: { files: args.files.length } };
  },
}) as ToolDef;
