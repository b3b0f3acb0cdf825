import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool, type ToolContext, type ToolResult } from './types.js';
import { mkdirParents, parentOf } from './common.js';
import { VfsError } from '../vfs/index.js';
import { moveAcross } from '../gnulib/move-across.js';

const Input = z.object({
  from: z.string().min(1).describe('Existing file or folder to move, inside the zone.'),
  to: z.string().min(1).describe('New path. If it is an existing folder, the entry is moved inside it, keeping its name.'),
  overwrite: z.boolean().optional().describe('Replace an existing file at the destination (default false: FILE_EXISTS). Folders are never replaced.'),
  create_dirs: z.boolean().optional().describe('Create missing parent folders of the destination.'),
}).strict();

export type MoveArgs = z.output<typeof Input>;

export function moveEntry(ctx: ToolContext, args: MoveArgs, tool: string): ToolResult {
  const src = ctx.fs.resolveExisting(args.from, ctx.cwd);
  if (src.parts.length === 0) throw new NoshError('PERMISSION_DENIED', `${tool}: cannot move the zone root`, 'Move the entries inside it instead.');
  if (args.create_dirs) mkdirParents(ctx.fs, parentOf(args.to).dir, ctx.cwd);
  let dst = ctx.fs.resolve(args.to, ctx.cwd);
  if (dst.stat?.isDirectory() && dst.vpath !== src.vpath) {
    dst = ctx.fs.resolve(src.parts[src.parts.length - 1]!, dst.vpath);
  }
  if (dst.vpath === src.vpath) {
    return { data: { from: src.vpath, to: dst.vpath, moved: false }, message: 'source and destination are the same' };
  }
  if (src.stat.isDirectory() && (dst.vpath + '/').startsWith(src.vpath + '/')) {
    throw new NoshError('INVALID_ARGUMENT', `${tool}: cannot move ${src.vpath} into itself (${dst.vpath})`, 'Choose a destination outside the folder.');
  }
  if (dst.stat) {
    if (dst.stat.isDirectory()) {
      throw new NoshError('FILE_EXISTS', `${tool}: ${dst.vpath} is an existing folder`, 'Delete it first or choose another name.', { path: dst.vpath });
    }
    if (!args.overwrite) {
      throw new NoshError('FILE_EXISTS', `${tool}: ${dst.vpath} exists`, 'Set overwrite: true to replace it, or choose another name.', { path: dst.vpath });
    }
    if (src.stat.isDirectory()) {
      throw new NoshError('FILE_EXISTS', `${tool}: cannot replace the file ${dst.vpath} with a folder`, 'Delete the file first or choose another name.', { path: dst.vpath });
    }
  }
  try {
    ctx.fs.rename(src.vpath, dst.vpath);
  } catch (e) {
    // Different file systems (a mount inside the zone): copy, then remove, as GNU mv.
    if (!(e instanceof VfsError && e.errno === 'EXDEV')) throw e;
    moveAcross(ctx.fs, src.vpath, dst.vpath);
  }
  return { data: { from: src.vpath, to: dst.vpath, moved: true, replaced: dst.stat !== null }, message: `moved ${src.vpath} to ${dst.vpath}` };
}

export default defineTool({
  name: 'move',
  description: 'Move or rename a file or folder inside the zone (atomic rename). If `to` is an existing folder the entry goes ' +
    'inside it. An existing destination file is only replaced with overwrite: true. Returns the final from/to paths.',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  mutates: true,
  run: (ctx, args) => moveEntry(ctx, args, 'move'),
});

export const rename = defineTool({
  name: 'rename',
  description: 'Rename or move a file or folder inside the zone; the same as move (same arguments: from, to, overwrite, create_dirs).',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  mutates: true,
  run: (ctx, args) => moveEntry(ctx, args, 'rename'),
});
