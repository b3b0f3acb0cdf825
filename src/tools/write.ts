import { z } from 'zod';
import { NoshError } from '../errors.js';
import { VfsError } from '../vfs/index.js';
import { defineTool, type ToolContext, type ToolResult } from './types.js';
import { mkdirParents, parentOf } from './common.js';

const Input = z.object({
  path: z.string().min(1).describe('File to write, inside the zone (/ is the zone root).'),
  content: z.string().optional().describe('Text to write (UTF-8 unless encoding says otherwise). Give this or content_base64.'),
  encoding: z.enum(['utf-8', 'latin1', 'base64']).optional()
    .describe('How content turns into bytes: utf-8 (default), latin1 (one byte per character U+0000..U+00FF), or base64.'),
  offset: z.number().int().min(0).optional()
    .describe('Byte offset: write the bytes there, replacing as many bytes of the existing file (a patch; the file grows only if the write passes its end). The file must exist; offset may be at most its size.'),
  content_base64: z.string().optional().describe('Bytes to write, base64-encoded (for binary files). Give this or content.'),
  mode: z.enum(['overwrite', 'append', 'create']).optional()
    .describe("overwrite (default): replace the file or create it; append: add to its end; create: fail with FILE_EXISTS if it exists."),
  create_dirs: z.boolean().optional().describe('Create missing parent folders (like mkdir -p). Default false.'),
}).strict();

export default defineTool({
  name: 'write',
  description: 'Write a file atomically (a crash leaves the old or the new content, never a mix). Text in content or bytes in ' +
    'content_base64; mode overwrite (default), append, or create (refuses an existing file with FILE_EXISTS). ' +
    'create_dirs makes missing parent folders. offset patches bytes in place (the rest of the file is kept). ' +
    'To change part of a text file, prefer edit. Returns bytes_written, size, created.',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  mutates: true,
  run(ctx, args) {
    if ((args.content === undefined) === (args.content_base64 === undefined)) {
      throw new NoshError(args.content === undefined ? 'MISSING_PARAMETER' : 'INVALID_ARGUMENT',
        'write: give exactly one of content or content_base64', 'Use content for text, content_base64 for binary data.');
    }
    let bytes: Buffer;
    if (args.content !== undefined && args.encoding !== 'base64') {
      if (args.encoding === 'latin1' && /[^\u0000-\u00ff]/.test(args.content)) {
        throw new NoshError('INVALID_ARGUMENT', 'write: content has characters above U+00FF, which latin1 cannot hold', 'Use encoding utf-8, or base64 for arbitrary bytes.');
      }
      bytes = Buffer.from(args.content, args.encoding === 'latin1' ? 'latin1' : 'utf8');
    } else {
      const b64 = (args.content ?? args.content_base64!).replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 === 1) {
        throw new NoshError('INVALID_ARGUMENT', 'write: content_base64 is not valid base64', 'Encode the bytes with standard base64 (A-Z a-z 0-9 + /, = padding).');
      }
      bytes = Buffer.from(b64, 'base64');
    }
    const mode = args.mode ?? 'overwrite';
    if (args.offset !== undefined) return patchAt(ctx, args.path, args.offset, bytes, mode);
    let createdDirs: string[] = [];
    if (args.create_dirs) {
      const { dir } = parentOf(args.path);
      createdDirs = mkdirParents(ctx.fs, dir, ctx.cwd);
    }
    const before = ctx.fs.resolve(args.path, ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks });
    if (mode === 'create' && before.stat) {
      throw new NoshError('FILE_EXISTS', `${args.path}: file exists`, "Use mode 'overwrite' to replace it, 'append' to add to it, or edit to change part of it.", { path: args.path });
    }
    try {
      ctx.fs.writeFile(args.path, bytes, ctx.cwd, { append: mode === 'append', exclusive: mode === 'create' });
    } catch (e) {
      if (e instanceof VfsError && e.errno === 'ENOENT' && !args.create_dirs) {
        throw new NoshError('FILE_NOT_FOUND', `${args.path}: parent folder does not exist`, 'Set create_dirs: true to create it, or check the path with list.', { path: args.path });
      }
      throw e;
    }
    const size = mode === 'append' && before.stat ? before.stat.size + bytes.length : bytes.length;
    return {
      data: { path: before.vpath, bytes_written: bytes.length, size, created: before.stat === null, mode, ...(createdDirs.length ? { created_dirs: createdDirs } : {}) },
      message: `${before.stat === null ? 'created' : mode === 'append' ? 'appended to' : 'overwrote'} ${before.vpath} (${bytes.length} bytes written)`,
    };
  },
});

/** write with offset: the file's bytes at offset replaced, the whole file written again atomically. */
function patchAt(ctx: ToolContext, path: string, offset: number, bytes: Buffer, mode: string): ToolResult {
  if (mode !== 'overwrite') throw new NoshError('INVALID_ARGUMENT', `write: offset cannot be used with mode ${mode}`, 'Leave mode out (overwrite) to patch bytes in place.');
  const r = ctx.fs.resolve(path, ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks });
  if (!r.stat) throw new NoshError('FILE_NOT_FOUND', `${path}: no such file to patch`, 'offset patches an existing file; write it whole first (without offset).', { path });
  if (offset > r.stat.size) {
    throw new NoshError('INVALID_ARGUMENT', `write: offset ${offset} is past the end of ${r.vpath} (${r.stat.size} bytes)`, `Use an offset from 0 to ${r.stat.size}; ${r.stat.size} appends.`, { path: r.vpath, size: r.stat.size });
  }
  if (r.stat.size > ctx.limits.maxBufferBytes) {
    throw new NoshError('FILE_TOO_LARGE', `write: ${r.vpath} is ${r.stat.size} bytes, over the ${ctx.limits.maxBufferBytes} a patch may rewrite`, 'Patch a smaller file, or use exec (dd-like tools are not offered) to rebuild it.', { path: r.vpath });
  }
  const old = ctx.fs.readFile(path, ctx.cwd);
  const out = Buffer.alloc(Math.max(old.length, offset + bytes.length));
  old.copy(out, 0);
  bytes.copy(out, offset);
  ctx.fs.writeFile(path, out, ctx.cwd);
  return {
    data: { path: r.vpath, bytes_written: bytes.length, size: out.length, created: false, mode: 'patch', offset },
    message: `patched ${r.vpath}: ${bytes.length} bytes at offset ${offset} (size ${out.length})`,
  };
}
