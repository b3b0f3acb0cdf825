import { z } from 'zod';
import { NoshError } from '../errors.js';
import { defineTool } from './types.js';

const Input = z.object({
  path: z.string().min(1).describe('Text file to convert in place, inside the zone.'),
  to: z.enum(['lf', 'crlf']).describe("'lf' (Unix: CRLF becomes LF, as dos2unix) or 'crlf' (Windows: LF becomes CRLF, as unix2dos)."),
}).strict();

/**
 * The line ends of a text file rewritten in place, streamed (a chunk at a time into an atomic
 * write: a failure leaves the old file). As dos2unix / unix2dos: to lf turns each CR LF into LF
 * (a lone CR stays), to crlf turns each LF not already after a CR into CR LF. A binary file (a
 * NUL byte) is refused, as dos2unix skips it. The file's mode is kept.
 */
export default defineTool({
  name: 'convert_eol',
  description: "Convert a text file's line endings in place: to 'lf' (CRLF -> LF, as dos2unix) or 'crlf' (LF -> CRLF, as " +
    'unix2dos). Streams any size; binary files (with NUL bytes) are refused. Returns how many line ends changed and the ' +
    'sizes before and after; a file already in the wanted form is left untouched (changed: 0).',
  input: Input,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  mutates: true,
  run(ctx, args) {
    const r = ctx.fs.resolveExisting(args.path, ctx.cwd);
    if (!r.stat.isFile()) {
      throw new NoshError('INVALID_ARGUMENT', `${r.vpath} is not a regular file`, 'convert_eol converts one text file; list a folder with list.', { path: r.vpath });
    }
    const toCrlf = args.to === 'crlf';
    // A first pass counts what would change, so a file already in form is not rewritten.
    const count = (emit?: (b: Buffer) => void): number => {
      let changed = 0;
      let prevCr = false;
      for (const chunk of ctx.fs.readChunks(r.vpath)) {
        if (chunk.includes(0)) {
          throw new NoshError('INVALID_ARGUMENT', `${r.vpath} looks binary (it has NUL bytes): its line ends were not converted`,
            'convert_eol is for text files; inspect it with hexdump.', { path: r.vpath });
        }
        let start = 0;
        const pieces: Buffer[] = [];
        if (!toCrlf && prevCr && chunk[0] !== 0x0a && emit) pieces.push(Buffer.from([0x0d])); // a held CR that was not a CRLF
        for (let i = 0; i < chunk.length; i++) {
          const c = chunk[i]!;
          if (toCrlf) {
            if (c === 0x0a && !(i > 0 ? chunk[i - 1] === 0x0d : prevCr)) {
              changed++;
              if (emit) {
                pieces.push(chunk.subarray(start, i), CR);
                start = i;
              }
            }
          } else if (c === 0x0a && (i > 0 ? chunk[i - 1] === 0x0d : prevCr)) {
            changed++;
            if (emit && i > 0) {
              pieces.push(chunk.subarray(start, i - 1));
              start = i;
            }
          }
        }
        prevCr = chunk.length > 0 && chunk[chunk.length - 1] === 0x0d;
        // to lf: a CR at the end of a chunk is held until the next one says whether an LF follows
        const tail = !toCrlf && prevCr ? chunk.length - 1 : chunk.length;
        if (emit) {
          pieces.push(chunk.subarray(start, Math.max(start, tail)));
          for (const p of pieces) if (p.length) emit(p);
        }
      }
      if (emit && !toCrlf && prevCr) emit(CR);
      return changed;
    };
    const changed = count();
    const before = r.stat.size;
    const after = before + (toCrlf ? changed : -changed);
    if (changed > 0) {
      const w = ctx.fs.createWriter(r.vpath, '/');
      try {
        count((b) => w.write(b));
        w.commit();
      } catch (e) {
        w.abort();
        throw e;
      }
    }
    return {
      data: { path: r.vpath, to: args.to, changed, size_before: before, size_after: after },
      message: changed ? `${r.vpath}: ${changed} line end${changed === 1 ? '' : 's'} converted to ${args.to.toUpperCase()}` : `${r.vpath}: already ${args.to.toUpperCase()}, unchanged`,
    };
  },
});

const CR = Buffer.from([0x0d]);
