import * as fs from 'node:fs';
import { z } from 'zod';
import { defineTool } from './types.js';
import { isoTime, typeOf } from './common.js';
import { guessMime, looksText } from './mime.js';
import { countByte } from '../gnulib/count-byte.js';

/** Text files up to this size get a line count. */
const LINE_COUNT_CAP = 10 * 1024 * 1024;

const Input = z.object({
  path: z.string().min(1).describe('File or folder to describe, inside the zone.'),
}).strict();

export default defineTool({
  name: 'stat',
  description: 'Describe a file or folder: type, size, mime type (magic bytes, then extension), is_text, line_count for text ' +
    'files up to 10 MB, mode as an octal string, mtime/ctime/atime/birthtime (ISO 8601), entries for folders, target for symlinks.',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run(ctx, args) {
    const r = ctx.fs.resolveExisting(args.path, ctx.cwd);
    const st = r.stat;
    const type = typeOf(st);
    const data: Record<string, unknown> = {
      path: r.vpath,
      name: r.parts[r.parts.length - 1] ?? '/',
      type,
      size: st.size,
      mode: (st.mode & 0o7777).toString(8).padStart(4, '0'),
      nlink: st.nlink,
      mtime: isoTime(st.mtimeMs),
      ctime: isoTime(st.ctimeMs),
      atime: isoTime(st.atimeMs),
      birthtime: isoTime(st.birthtimeMs),
    };
    if (type === 'symlink') data.target = ctx.fs.readlink(r.vpath);
    if (type === 'dir') data.entries = ctx.fs.readdir(r.vpath).length;
    if (type === 'file' && st.size > ctx.fs.policy.maxFileSize) {
      // Its content may not be read here (maxFileSize): described by its name alone.
      Object.assign(data, { mime: guessMime(String(data.name), Buffer.alloc(0)).mime, is_text: null, line_count: null, too_large: true });
    } else if (type === 'file') {
      const { fd } = ctx.fs.openRead(r.vpath);
      let head: Buffer;
      try {
        head = Buffer.alloc(Math.min(st.size, 8192));
        const n = head.length ? fs.readSync(fd, head, 0, head.length, 0) : 0;
        head = head.subarray(0, n);
      } finally {
        fs.closeSync(fd);
      }
      const { mime } = guessMime(String(data.name), head);
      const text = looksText(head) && !/^(image|audio|video)\/(?!svg)|^application\/(pdf|zip|gzip|x-|vnd\.sqlite|wasm|octet)/.test(mime);
      data.mime = mime;
      data.is_text = text;
      if (text && head.length === st.size) {
        // the head is the whole file: counted from it, without opening the file again
        data.line_count = countByte(head, 0x0a) + (head.length > 0 && head[head.length - 1] !== 0x0a ? 1 : 0);
      } else if (text && st.size <= LINE_COUNT_CAP) {
        let lines = 0;
        let last = 0x0a;
        for (const chunk of ctx.fs.readChunks(r.vpath)) {
          lines += countByte(chunk, 0x0a);
          if (chunk.length) last = chunk[chunk.length - 1]!;
        }
        data.line_count = lines + (st.size > 0 && last !== 0x0a ? 1 : 0);
      } else data.line_count = null;
    }
    return { data, message: `${r.vpath}: ${type}, ${st.size} bytes` };
  },
});
