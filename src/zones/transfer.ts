import { z } from 'zod';
import { NoshError } from '../errors.js';
import { baseName, VfsError, type Vfs } from '../vfs/index.js';
import { defineTool, type ToolDef } from '../tools/types.js';

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
    const copy = (from: string, to: string) => {
      const s = src.lstat(from, ctx.cwd);
      if (s.isSymbolicLink()) throw new VfsError('ESYMLINK', from);
      if (s.isDirectory()) {
        if (!dst.exists(to)) dst.mkdir(to);
        for (const e of src.readdir(from, ctx.cwd)) copy(`${from.replace(/\/+$/, '')}/${e.name}`, `${to.replace(/\/+$/, '')}/${e.name}`);
        return;
      }
      if (sameQuota && moveByRename(src, dst, from, to, ctx.cwd)) {
        copied.push(to);
        bytes += s.size;
        return;
      }
      dst.createWriter(to, '/').writeAll(src.readChunks(from, ctx.cwd));
      copied.push(to);
      bytes += s.size;
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
  const visit = (f: string, t: string) => {
    if (taken.length >= 10 || !dst.exists(t)) return;
    const s = src.lstat(f, cwd);
    if (s.isDirectory() && dst.lstat(t).isDirectory()) {
      for (const e of src.readdir(f, cwd)) visit(`${f.replace(/\/+$/, '')}/${e.name}`, `${t.replace(/\/+$/, '')}/${e.name}`);
      return;
    }
    taken.push(t);
  };
  visit(from, to);
  if (taken.length > 0) {
    throw new NoshError('FILE_EXISTS', `transfer: ${taken[0]} already exists in the destination zone${taken.length > 1 ? ` (and ${taken.length - 1}${taken.length >= 10 ? '+' : ''} more)` : ''}`,
      'Nothing was transferred. Pass overwrite: true to replace it, or dest: a new name.', { paths: taken });
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

function removeTree(fs: Vfs, path: string, cwd: string): void {
  const st = fs.lstat(path, cwd);
  if (st.isDirectory()) {
    for (const e of fs.readdir(path, cwd)) removeTree(fs, `${path.replace(/\/+$/, '')}/${e.name}`, cwd);
    fs.rmdir(path, cwd);
  } else fs.unlink(path, cwd);
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

export const ZONE_TOOLS: ReadonlyMap<string, ToolDef> = new Map(([transferTool, importTool] as ToolDef[]).map((t) => [t.name, t]));

/** A file name given to import: one path component, no NUL, not . or .., at most 255 bytes. */
export function validateFileName(name: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0') || Buffer.byteLength(name) > 255) {
    throw new NoshError('INVALID_ARGUMENT', `invalid file name ${JSON.stringify(name.slice(0, 60))}`,
      'A name is one path component: no slash, no NUL, not . or .., at most 255 bytes.');
  }
  return name;
}
