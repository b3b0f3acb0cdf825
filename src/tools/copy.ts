import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool, type ToolContext } from './types.js';
import { checkAborted, joinV, mkdirParents, parentOf } from './common.js';
import { walk } from '../vfs/walk.js';

const Input = z.object({
  from: z.string().min(1).describe('Existing file or folder to copy, inside the zone.'),
  to: z.string().min(1).describe('Destination path. If it is an existing folder, the copy goes inside it, keeping its name.'),
  recursive: z.boolean().optional().describe('Required to copy a folder (copies everything below it; symlinks inside are skipped).'),
  overwrite: z.boolean().optional().describe('Replace existing destination files (default false: FILE_EXISTS).'),
  create_dirs: z.boolean().optional().describe('Create missing parent folders of the destination.'),
}).strict();

interface Counts { files: number; dirs: number; bytes: number; skipped: string[]; skippedTotal: number }

/** Skipped entries named in the result; past it they are only counted (100k symlinks made a 17 MB answer). */
const SKIPPED_LISTED = 1000;

function skip(counts: Counts, path: string): void {
  if (counts.skipped.length < SKIPPED_LISTED) counts.skipped.push(path);
  counts.skippedTotal++;
}

export default defineTool({
  name: 'copy',
  description: 'Copy a file, or a folder with recursive: true, inside the zone. Streams the bytes (any size), each file written ' +
    'atomically, permissions kept. If `to` is an existing folder the copy goes inside it. Existing files are only ' +
    'replaced with overwrite: true. Symlinks and special files inside a copied folder are skipped and listed.',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  mutates: true,
  run(ctx, args) {
    const src = ctx.fs.resolveExisting(args.from, ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks });
    if (args.create_dirs) mkdirParents(ctx.fs, parentOf(args.to).dir, ctx.cwd);
    let dst = ctx.fs.resolve(args.to, ctx.cwd);
    if (dst.stat?.isDirectory()) {
      if (src.parts.length === 0) throw new NoshError('INVALID_ARGUMENT', 'copy: cannot copy the zone root into a folder of itself', 'Copy its entries one by one.');
      dst = ctx.fs.resolve(src.parts[src.parts.length - 1]!, dst.vpath);
    }
    if (dst.vpath === src.vpath) throw new NoshError('INVALID_ARGUMENT', `copy: ${src.vpath} and ${dst.vpath} are the same`, 'Give a different destination.');
    const counts: Counts = { files: 0, dirs: 0, bytes: 0, skipped: [], skippedTotal: 0 };
    if (src.stat.isDirectory()) {
      if (!args.recursive) throw new NoshError('INVALID_ARGUMENT', `copy: ${src.vpath} is a folder`, 'Set recursive: true to copy a folder and its content.', { path: src.vpath });
      if ((dst.vpath + '/').startsWith(src.vpath + '/')) {
        throw new NoshError('INVALID_ARGUMENT', `copy: cannot copy ${src.vpath} into itself (${dst.vpath})`, 'Choose a destination outside the folder.');
      }
      copyDir(ctx, src.vpath, dst.vpath, !!args.overwrite, counts);
    } else {
      copyFile(ctx, src.vpath, dst.vpath, !!args.overwrite, counts);
    }
    return {
      data: {
        from: src.vpath, to: dst.vpath, files: counts.files, dirs: counts.dirs, bytes: counts.bytes, skipped: counts.skipped,
        ...(counts.skippedTotal > counts.skipped.length ? { skipped_total: counts.skippedTotal } : {}),
      },
      message: `copied ${src.vpath} to ${dst.vpath}` + (counts.skippedTotal ? ` (${counts.skippedTotal} symlinks/special files skipped` +
        (counts.skippedTotal > counts.skipped.length ? `, the first ${counts.skipped.length} listed)` : ')') : ''),
    };
  },
});

function copyFile(ctx: ToolContext, from: string, to: string, overwrite: boolean, counts: Counts): void {
  checkAborted(ctx, 'copy');
  const st = ctx.fs.stat(from);
  if (!st.isFile()) {
    skip(counts, from);
    return;
  }
  const existing = ctx.fs.resolve(to).stat;
  if (existing && !overwrite) {
    throw new NoshError('FILE_EXISTS', `copy: ${to} exists`, 'Set overwrite: true to replace it, or choose another destination.', { path: to });
  }
  counts.bytes += ctx.fs.createWriter(to, '/', { mode: st.mode & 0o777 }).writeAll(ctx.fs.readChunks(from));
  counts.files++;
}

/** Each folder made before its content is copied (pre-order, readdir order); symlinks and special files skipped. */
function copyDir(ctx: ToolContext, from: string, to: string, overwrite: boolean, counts: Counts): void {
  for (const ev of walk(ctx.fs, from, '/', { order: 'directory' })) {
    const b = ev.rel ? joinV(to, ev.rel) : to;
    if (ev.kind === 'pre') {
      const st = ctx.fs.resolve(b).stat;
      if (st && !st.isDirectory()) throw new NoshError('FILE_EXISTS', `copy: ${b} exists and is not a folder`, 'Choose another destination.', { path: b });
      if (!st) {
        ctx.fs.mkdir(b);
        counts.dirs++;
      }
    } else if (ev.kind === 'error') throw ev.error;
    else if (ev.kind === 'file') {
      if (ev.type === 'file') copyFile(ctx, ev.path, b, overwrite, counts);
      else skip(counts, ev.path);
    }
  }
}
