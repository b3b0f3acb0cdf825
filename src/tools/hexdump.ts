import { z } from 'zod';
import { defineTool } from './types.js';

/** Most bytes one call dumps. */
const MAX_LENGTH = 64 * 1024;

const Input = z.object({
  path: z.string().min(1).describe('File to dump, inside the zone.'),
  offset: z.number().int().min(0).optional().describe('First byte to show (default 0). At or past the end: an empty dump.'),
  length: z.number().int().min(1).max(MAX_LENGTH).optional().describe(`Bytes to show (default 512, at most ${MAX_LENGTH}).`),
  format: z.enum(['canonical', 'xxd', 'plain']).optional()
    .describe("'canonical' (default, hexdump -C: offset, 16 hex bytes, |ASCII|), 'xxd' (xxd: offset, grouped hex, ASCII) or 'plain' (xxd -p: hex digits only, 60 a line)."),
}).strict();

const printable = (b: number) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.');
const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');

/** hexdump -C lines (util-linux), offsets counted from `base`, ending with the offset after the last byte. */
export function canonical(buf: Buffer, base: number): string {
  let out = '';
  for (let i = 0; i < buf.length; i += 16) {
    const row = buf.subarray(i, i + 16);
    let h = '';
    for (let k = 0; k < 16; k++) {
      h += k < row.length ? hex(row[k]!, 2) + ' ' : '   ';
      if (k === 7) h += ' ';
    }
    out += `${hex(base + i, 8)}  ${h} |${[...row].map(printable).join('')}|\n`;
  }
  return out + (buf.length ? `${hex(base + buf.length, 8)}\n` : '');
}

/** xxd's default lines: 16 bytes, in groups of 2. */
export function xxdLines(buf: Buffer, base: number): string {
  let out = '';
  for (let i = 0; i < buf.length; i += 16) {
    const row = buf.subarray(i, i + 16);
    let h = '';
    for (let k = 0; k < 16; k++) {
      h += k < row.length ? hex(row[k]!, 2) : '  ';
      if (k % 2 === 1) h += ' ';
    }
    out += `${hex(base + i, 8)}: ${h} ${[...row].map(printable).join('')}\n`;
  }
  return out;
}

function plain(buf: Buffer): string {
  const s = buf.toString('hex');
  let out = '';
  for (let i = 0; i < s.length; i += 60) out += s.slice(i, i + 60) + '\n';
  return out;
}

export default defineTool({
  name: 'hexdump',
  description: 'Show the bytes of a file in hexadecimal, for binary files read cannot show as text: a window of `length` bytes ' +
    `(default 512, at most ${MAX_LENGTH / 1024} KiB) from \`offset\`, as hexdump -C (default), xxd or plain hex. Returns the dump ` +
    'text, the file size, and next_offset to page on (null at the end).',
  input: Input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  mutates: false,
  run(ctx, args) {
    const r = ctx.fs.openRandom(args.path, ctx.cwd);
    try {
      const offset = args.offset ?? 0;
      const want = args.length ?? 512;
      const size = r.size;
      const n = Math.max(0, Math.min(want, size - offset));
      const buf = Buffer.alloc(n);
      let got = 0;
      while (got < n) {
        const k = r.readAt(buf.subarray(got), offset + got, n - got);
        if (k <= 0) break;
        got += k;
      }
      const bytes = buf.subarray(0, got);
      const format = args.format ?? 'canonical';
      const dump = format === 'canonical' ? canonical(bytes, offset) : format === 'xxd' ? xxdLines(bytes, offset) : plain(bytes);
      const end = offset + got;
      return {
        data: { path: args.path, size, offset, length: got, format, dump, next_offset: end < size ? end : null },
        message: `${got} bytes of ${args.path} from offset ${offset} (${size} bytes in all)`,
      };
    } finally {
      r.close();
    }
  },
});
