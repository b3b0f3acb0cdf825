import { z } from 'zod';
import { NoshError } from '../errors.js';
import { baseName, VfsError, type Vfs } from '../vfs/index.js';
import { defineTool, type ToolDef } from '../tools/types.js';
import { applyTool } from './apply.js';
import { walk } from '../vfs/walk.js';

/**
 * Worker side of zone bridges and imports. They need two zones (or a write into a zone the
 * caller may not write), so they are not public tools: the engine builds their tasks.
 */

const TransferArgs = z.object({
  path: z.string().min(1),
  dest: z.string().min(1).optional(),
  move: z.boolean(),
  overwrite: z.boolean().optional(),
  create_dirs: z.boolean().optional(),
}).strict();

/** Copy (or move) a file or folder from the task's zone into the peer zone, file by file, atomically. */
export const transferTool = defineTool({
  name: '_transfer',
  description: 'internal: copy or move between zones',
  input: TransferArgs,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  mutates: false,
  run(ctx, args) {
    const dst = ctx.peer;
    if (!dst) throw new NoshError('INTERNAL_ERROR', 'transfer without a destination zone');
    const src = ctx.fs;
    const st = src.lstat(args.path, ctx.cwd);
    let target = args.dest ?? '/' + baseName(args.path);
    if (dst.exists(target) && dst.lstat(target).isDirectory() && !st.isDirectory()) target = target.replace(/\/*$/, '/') + baseName(args.path);
    if (args.create_dirs) mkdirParents(dst, target);
    // Nothing is copied before every destination is known to be free (or overwrite was asked):
    // a transfer that replaced a document silently lost it.
    if (!args.overwrite) refuseExisting(src, dst, args.path, target, ctx.cwd);
    // A move between zones of the same quota (uploads -> storage) renames: copying first would
    // need the file's size free a second time, refusing a move that changes nothing.
    const sameQuota = args.move && !!src.quota && src.quota.name === dst.quota?.name;
    const copied: string[] = [];
    let bytes = 0;
    const copyFile = (from: string, to: string, s: { size: number }) => {
      if (sameQuota && moveByRename(src, dst, from, to, ctx.cwd)) {
        copied.push(to);
        bytes += s.size;
        return;
      }
      dst.createWriter(to, '/').writeAll(src.readChunks(from, ctx.cwd));
      copied.push(to);
      bytes += s.size;
    };
    // Folders before their content (the one walk, pre-order), each entry lstat'ed when its turn comes.
    const copy = (from: string, to: string) => {
      const s = src.lstat(from, ctx.cwd);
      if (s.isSymbolicLink()) throw new VfsError('ESYMLINK', from);
      if (!s.isDirectory()) return copyFile(from, to, s);
      if (!dst.exists(to)) dst.mkdir(to);
      for (const ev of walk(src, trimSlashes(from), ctx.cwd, { order: 'directory', includeStart: false })) {
        if (ev.kind === 'error') throw ev.error;
        if (ev.kind !== 'pre' && ev.kind !== 'file') continue;
        const t = `${to.replace(/\/+$/, '')}/${ev.rel}`;
        const c = src.lstat(ev.path, ctx.cwd);
        if (c.isSymbolicLink()) throw new VfsError('ESYMLINK', ev.path);
        if (ev.kind === 'pre' && c.isDirectory()) {
          if (!dst.exists(t)) dst.mkdir(t);
          continue;
        }
        // Not what it was listed as (replaced meanwhile): taken as it is now.
        if (ev.kind === 'pre') ev.skip = true;
        if (c.isDirectory()) copy(ev.path, t);
        else copyFile(ev.path, t, c);
      }
    };
    copy(args.path, target);
    if (args.move && (!sameQuota || src.exists(args.path, ctx.cwd))) removeTree(src, args.path, ctx.cwd);
    return { data: { from: args.path, to: target, files: copied.length, bytes, moved: args.move } };
  },
});

/**
 * Move one file by rename(2) between two zones of one quota. The destination goes through every
 * check of a write (read-only, extension, parent folder, not a link, single hard link) by opening
 * and aborting a writer; false when rename is not possible (another filesystem): copy instead.
 */
function moveByRename(src: Vfs, dst: Vfs, from: string, to: string, cwd: string): boolean {
  const a = src.resolveExisting(from, cwd);
  if (!a.stat.isFile()) return false;
  const probe = dst.createWriter(to, '/');
  probe.abort();
  // Both folders held (Vfs.renameFileTo): a folder swapped since the checks cannot redirect it.
  return src.renameFileTo(from, cwd, dst, to);
}

/** FILE_EXISTS when a file of the source tree would replace one at the destination. */
function refuseExisting(src: Vfs, dst: Vfs, from: string, to: string, cwd: string): void {
  const taken: string[] = [];
  existing(src, dst, from, to, cwd, taken);
  if (taken.length > 0) {
    throw new NoshError('FILE_EXISTS', `transfer: ${taken[0]} already exists in the destination zone${taken.length > 1 ? ` (and ${taken.length - 1}${taken.length >= 10 ? '+' : ''} more)` : ''}`,
      'Nothing was transferred. Pass overwrite: true to replace it, or dest: a new name.', { paths: taken });
  }
}

/** The destination paths (up to 10) that the source tree `from` would write over. */
function existing(src: Vfs, dst: Vfs, from: string, to: string, cwd: string, taken: string[]): void {
  if (taken.length >= 10 || !dst.exists(to)) return;
  if (!src.lstat(from, cwd).isDirectory() || !dst.lstat(to).isDirectory()) {
    taken.push(to);
    return;
  }
  // The source tree (the one walk), not entering a folder that is new, or not a folder, at the destination.
  for (const ev of walk(src, trimSlashes(from), cwd, { order: 'directory', includeStart: false })) {
    if (taken.length >= 10) return;
    if (ev.kind === 'error') throw ev.error;
    if (ev.kind !== 'pre' && ev.kind !== 'file') continue;
    const t = `${to.replace(/\/+$/, '')}/${ev.rel}`;
    ev.skip = true;
    if (!dst.exists(t)) continue;
    if (src.lstat(ev.path, cwd).isDirectory() && dst.lstat(t).isDirectory()) {
      if (ev.kind === 'pre') ev.skip = false;
      else existing(src, dst, ev.path, t, cwd, taken); // a folder by now (replaced since listed)
    } else taken.push(t);
  }
}

/** The folders above a transfer's destination, made when create_dirs asks for them. */
function mkdirParents(dst: Vfs, target: string): void {
  const parts = target.split('/').filter(Boolean).slice(0, -1);
  let at = '';
  for (const p of parts) {
    at += '/' + p;
    if (!dst.exists(at)) dst.mkdir(at);
  }
}

/** Content before each folder (the one walk, post-order); each entry removed by its path. */
function removeTree(fs: Vfs, path: string, cwd: string): void {
  if (!fs.lstat(path, cwd).isDirectory()) return fs.unlink(path, cwd);
  for (const ev of walk(fs, trimSlashes(path), cwd, { order: 'directory', postOrder: true })) {
    if (ev.kind === 'error') throw ev.error;
    if (ev.kind === 'post') fs.rmdir(ev.depth === 0 ? path : ev.path, cwd);
    else if (ev.kind === 'file') removeTree(fs, ev.path, cwd);
  }
}

/** A path without its trailing slashes ('/' stays), as the entries below it are named. */
function trimSlashes(path: string): string {
  return path.replace(/\/+$/, '') || '/';
}

const ImportArgs = z.object({
  name: z.string(),
  content_base64: z.string(),
  overwrite: z.boolean().optional(),
}).strict();

/** Write one imported file into the uploads zone (the runtime's door; agents cannot write there). */
export const importTool = defineTool({
  name: '_import',
  description: 'internal: import a file into uploads',
  input: ImportArgs,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  mutates: true,
  run(ctx, args) {
    const data = Buffer.from(args.content_base64, 'base64');
    if (!args.overwrite && ctx.fs.exists('/' + args.name)) {
      throw new NoshError('FILE_EXISTS', `import: ${args.name} already exists in uploads`,
        'Nothing was written. Pass overwrite: true to replace it, or import under another name.', { path: '/' + args.name });
    }
    ctx.fs.writeFile('/' + args.name, data, '/');
    return { data: { name: args.name, bytes: data.length } };
  },
});

export const ZONE_TOOLS: ReadonlyMap<string, ToolDef> = new Map(([transferTool, importTool, applyTool] as ToolDef[]).map((t) => [t.name, t]));

/** A file name given to import: one path component, no NUL, not . or .., at most 255 bytes. */
export function validateFileName(name: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0') || Buffer.byteLength(name) > 255) {
    throw new NoshError('INVALID_ARGUMENT', `invalid file name ${JSON.stringify(name.slice(0, 60))}`,
      'A name is one path component: no slash, no NUL, not . or .., at most 255 bytes.');
  }
  return name;
}
