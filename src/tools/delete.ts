import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';
import { checkAborted } from './common.js';
import { walk } from '../vfs/walk.js';
import type { Vfs } from '../vfs/index.js';
import type { ToolContext } from './types.js';

const Input = z.object({
  path: z.string().min(1).describe('File, symlink or folder to delete, inside the zone. Never the zone root.'),
  recursive: z.boolean().optional().describe('Required to delete a folder that is not empty (deletes everything below it).'),
}).strict();

export default defineTool({
  name: 'delete',
  description: 'Delete a file, a symlink (the link itself, never its target) or a folder. A folder that is not empty needs ' +
    'recursive: true. The zone root cannot be deleted. Returns what was removed (files, dirs).',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  mutates: true,
  deleteOnly: true,
  run(ctx, args) {
    const r = ctx.fs.resolveExisting(args.path, ctx.cwd);
    if (r.parts.length === 0) {
      throw new NoshError('PERMISSION_DENIED', 'delete: refusing to delete the zone root', 'Delete the entries inside it one by one instead.', { path: args.path });
    }
    const counts = { files: 0, dirs: 0 };
    if (!r.stat.isDirectory()) {
      ctx.fs.unlink(r.vpath);
      counts.files++;
    } else {
      const entries = ctx.fs.readdir(r.vpath);
      if (entries.length > 0 && !args.recursive) {
        throw new NoshError('INVALID_ARGUMENT', `delete: ${r.vpath} is a folder with ${entries.length} entries`,
          'Set recursive: true to delete it and everything inside, or delete the entries first.', { path: r.vpath, entries: entries.length });
      }
      removeTree(ctx, ctx.fs, r.vpath, counts);
    }
    return {
      data: { path: r.vpath, type: r.stat.isDirectory() ? 'dir' : r.stat.isSymbolicLink() ? 'symlink' : 'file', deleted_files: counts.files, deleted_dirs: counts.dirs },
      message: `deleted ${r.vpath}` + (counts.files + counts.dirs > 1 ? ` (${counts.files} files, ${counts.dirs} folders)` : ''),
    };
  },
});

/** Contents before each folder (post-order, readdir order), each removed through its open parent folder. */
function removeTree(ctx: ToolContext, vfs: Vfs, dir: string, counts: { files: number; dirs: number }): void {
  for (const ev of walk(vfs, dir, '/', { order: 'directory', postOrder: true })) {
    if (ev.kind === 'pre') checkAborted(ctx, 'delete');
    else if (ev.kind === 'error') throw ev.error;
    else if (ev.kind === 'post') {
      if (ev.dir) vfs.rmdirAt(ev.dir, ev.name);
      else vfs.rmdir(ev.path);
      counts.dirs++;
    } else if (ev.kind === 'file') {
      vfs.unlinkAt(ev.dir!, ev.name);
      counts.files++;
    }
  }
}
