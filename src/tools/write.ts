import { z } from 'zod';
import { NoshError } from '../errors.js';
import { VfsError } from '../vfs/index.js';
import { defineTool } from './types.js';
import { mkdirParents, parentOf } from './common.js';

const Input = z.object({
  path: z.string().min(1).describe('File to write, inside the zone (/ is the zone root).'),
  content: z.string().optional().describe('Text to write (UTF-8). Give this or content_base64.'),
  content_base64: z.string().optional().describe('Bytes to write, base64-encoded (for binary files). Give this or content.'),
  mode: z.enum(['overwrite', 'append', 'create']).optional()
    .describe("overwrite (default): replace the file or create it; append: add to its end; create: fail with FILE_EXISTS if it exists."),
  create_dirs: z.boolean().optional().describe('Create missing parent folders (like mkdir -p). Default false.'),
}).strict();

export default defineTool({
  name: 'write',
  description: 'Write a file atomically (a crash leaves the old or the new content, never a mix). Text in content or bytes in ' +
    'content_base64; mode overwrite (default), append, or create (refuses an existing file with FILE_EXISTS). ' +
    'create_dirs makes missing parent folders. To change part of a file, prefer edit. Returns bytes_written, size, created.',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  mutates: true,
  run(ctx, args) {
    if ((args.content === undefined) === (args.content_base64 === undefined)) {
      throw new NoshError(args.content === undefined ? 'MISSING_PARAMETER' : 'INVALID_ARGUMENT',
        'write: give exactly one of content or content_base64', 'Use content for text, content_base64 for binary data.');
    }
    let bytes: Buffer;
    if (args.content !== undefined) bytes = Buffer.from(args.content, 'utf8');
    else {
      const b64 = args.content_base64!.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 === 1) {
        throw new NoshError('INVALID_ARGUMENT', 'write: content_base64 is not valid base64', 'Encode the bytes with standard base64 (A-Z a-z 0-9 + /, = padding).');
      }
      bytes = Buffer.from(b64, 'base64');
    }
    const mode = args.mode ?? 'overwrite';
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
