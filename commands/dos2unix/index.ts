import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { VfsError, type AtomicWriter } from '../../src/vfs/index.js';

/**
 * dos2unix / unix2dos 7.4.3 (Fileshed's convert_eol), ASCII mode: dos2unix turns each CRLF
 * into LF (a lone CR stays) and drops a UTF-8 BOM (-b keeps it); unix2dos turns each LF not
 * after a CR into CRLF and keeps a BOM (-r drops it); -m adds one. A file holding a control
 * byte other than TAB, LF, FF or CR is binary and skipped unless -f. Files are converted in
 * place (old-file mode, atomic through the Vfs, mode kept) or, after -n, INFILE to OUTFILE;
 * with no file, standard input to standard output. Streams: a file is read twice (the binary
 * check, then the conversion chunk by chunk into the new file), never held whole.
 * Not offered: code pages (-iso, -437...),
 * -7, -l, UTF-16, -i, symlink options.
 */
export default defineCommand({
  name: 'dos2unix',
  aliases: ['unix2dos'],
  summary: 'Convert text files between DOS (CRLF) and Unix (LF) line breaks, in place; with no file, standard input to standard output.',
  usage: '[options] [file ...] [-n infile outfile ...]',
  mutates: (args) => args.some((a) => !a.startsWith('-')),
  usageStatus: 1,
  reference: 'dos2unix 7.4.3 (2022-06-05)',
  flags: [
    { key: 'b', short: 'b', long: 'keep-bom', help: 'keep Byte Order Mark' },
    { key: 'f', short: 'f', long: 'force', help: 'force conversion of binary files' },
    { key: 'k', short: 'k', long: 'keepdate', help: 'keep output file date' },
    { key: 'm', short: 'm', long: 'add-bom', help: 'add Byte Order Mark (UTF-8)' },
    { key: 'n', short: 'n', long: 'newfile', help: 'write to new file: the operands after it are infile outfile pairs' },
    { key: 'o', short: 'o', long: 'oldfile', help: 'write to old file (default)' },
    { key: 'q', short: 'q', long: 'quiet', help: 'quiet mode, suppress all warnings' },
    { key: 'r', short: 'r', long: 'remove-bom', help: 'remove Byte Order Mark' },
    { key: 's', short: 's', long: 'safe', help: 'skip binary files (default)' },
  ],
  async run(ctx) {
    const toUnix = ctx.name !== 'unix2dos';
    const v = ctx.values;
    let bom: 'keep' | 'remove' | 'add' = toUnix ? 'remove' : 'keep';
    for (const o of ctx.opts.order) {
      if (o.key === 'b') bom = 'keep';
      else if (o.key === 'r') bom = 'remove';
      else if (o.key === 'm') bom = 'add';
    }
    const conv = new Converter(ctx, toUnix, bom, !!v.f, !!v.q, !!v.k);
    if (ctx.operands.length === 0) {
      for await (const out of conv.convert(ctx.stdin)) await ctx.stdout.write(out);
      return 0;
    }
    let status = 0;
    let newFile = false;
    let pending: string | null = null;
    for (const item of ctx.opts.inOrder(ctx.operands)) {
      if (!('operand' in item)) {
        if (item.key === 'n' || item.key === 'o') {
          if (pending !== null) {
            await conv.say(`target of file ${pending} not specified in new-file mode`, true);
            return 1;
          }
          newFile = item.key === 'n';
        }
        continue;
      }
      if (!newFile) {
        status = Math.max(status, await conv.file(item.operand, item.operand));
      } else if (pending === null) pending = item.operand;
      else {
        status = Math.max(status, await conv.file(pending, item.operand));
        pending = null;
      }
    }
    if (pending !== null) {
      await conv.say(`target of file ${pending} not specified in new-file mode`, true);
      return 1;
    }
    return status;
  },
});

class Converter {
  constructor(private readonly ctx: CommandContext, private readonly toUnix: boolean, private readonly bom: 'keep' | 'remove' | 'add',
    private readonly force: boolean, private readonly quiet: boolean, private readonly keepDate: boolean) {}

  async say(msg: string, always = false): Promise<void> {
    if (!this.quiet || always) await this.warn(msg);
  }

  /** Messages carry the name that ran (unix2dos is not dos2unix). */
  async warn(msg: string): Promise<void> {
    await this.ctx.stderr.write(`${this.ctx.name}: ${msg}\n`);
  }

  /** The first binary symbol of a file (a control byte other than TAB, LF, FF, CR) as dos2unix reports it, or null. */
  async binarySymbol(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<string | null> {
    let line = 1;
    for await (const chunk of chunks as AsyncIterable<Uint8Array>) {
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i]!;
        if (c >= 0x20) continue;
        if (c === 0x0a) line++;
        else if (c !== 0x09 && c !== 0x0c && c !== 0x0d) return `Binary symbol 0x${c.toString(16).toUpperCase().padStart(2, '0')} found at line ${line}`;
      }
    }
    return null;
  }

  /** The converted bytes of a stream, chunk by chunk (a CR at a chunk's end waits for the next one). */
  async *convert(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Buffer> {
    let head: Buffer | null = Buffer.alloc(0);
    let pendingCr = false;
    this.eat = false;
    for await (const chunk of chunks as AsyncIterable<Uint8Array>) {
      let body = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let bom: Buffer | null = null;
      if (head !== null) {
        // The first three bytes decide the BOM.
        head = Buffer.concat([head, body]);
        if (head.length < 3) continue;
        body = head;
        head = null;
        const hasBom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
        if (hasBom) body = body.subarray(3);
        if ((hasBom && this.bom === 'keep') || this.bom === 'add') bom = Buffer.from([0xef, 0xbb, 0xbf]);
      }
      if (body.length === 0 && bom === null) continue;
      const out = this.toUnix ? this.toUnixChunk(body, pendingCr) : this.toDosChunk(body);
      if (this.toUnix) pendingCr = body.length > 0 ? body[body.length - 1] === 0x0d : pendingCr;
      const all = bom ? Buffer.concat([bom, out]) : out;
      if (all.length) yield all;
    }
    if (head !== null) {
      // Fewer than three bytes in all.
      const hasBom = false;
      const bom = this.bom === 'add' && !hasBom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0);
      const out = this.toUnix ? this.toUnixChunk(head, false) : this.toDosChunk(head);
      pendingCr = this.toUnix && head.length > 0 && head[head.length - 1] === 0x0d;
      if (bom.length + out.length) yield Buffer.concat([bom, out]);
    }
    if (pendingCr) yield Buffer.from([0x0d]);
  }

  /** CRLF to LF in one chunk; a CR held from the chunk before is written unless this one starts with LF; a CR at the end is held. */
  private toUnixChunk(body: Buffer, heldCr: boolean): Buffer {
    const out = Buffer.allocUnsafe(body.length + 1);
    let n = 0;
    if (heldCr && body.length === 0) return out.subarray(0, 0);
    if (heldCr && body[0] !== 0x0a) out[n++] = 0x0d;
    let at = 0;
    for (let i = body.indexOf(0x0d); i >= 0; i = body.indexOf(0x0d, i + 1)) {
      if (i === body.length - 1) break;
      if (body[i + 1] !== 0x0a) continue;
      n += body.copy(out, n, at, i);
      at = i + 1;
    }
    const end = body.length > 0 && body[body.length - 1] === 0x0d ? body.length - 1 : body.length;
    if (end > at) n += body.copy(out, n, at, end);
    return out.subarray(0, n);
  }

  /**
   * LF to CRLF in one chunk, as unix2dos's state machine: a CR takes the byte after it as it is
   * (a CRLF stays; in CR CR LF the second CR is taken, so the LF gains a CR); `eat` carries
   * "the byte before was such a CR" across chunks.
   */
  private eat = false;
  private toDosChunk(body: Buffer): Buffer {
    let count = 0;
    for (let i = body.indexOf(0x0a); i >= 0; i = body.indexOf(0x0a, i + 1)) count++;
    const out = Buffer.allocUnsafe(body.length + count);
    let n = 0;
    let at = 0;
    let i = 0;
    let cr = -2;
    let lf = -2;
    const len = body.length;
    while (i < len) {
      if (this.eat) {
        this.eat = false;
        i++;
        continue;
      }
      if (cr !== -1 && cr < i) cr = body.indexOf(0x0d, i);
      if (lf !== -1 && lf < i) lf = body.indexOf(0x0a, i);
      const j = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      if (j < 0) break;
      if (j === cr) this.eat = true;
      else {
        n += body.copy(out, n, at, j);
        out[n++] = 0x0d;
        at = j;
      }
      i = j + 1;
    }
    n += body.copy(out, n, at, len);
    return out.subarray(0, n);
  }

  async file(input: string, output: string): Promise<number> {
    const { ctx } = this;
    let st;
    let binary: string | null = null;
    try {
      st = ctx.fs.stat(input, ctx.cwd);
      if (!st.isFile()) {
        await this.say(`Skipping ${input}, not a regular file.`);
        return 0;
      }
      if (!this.force) binary = await this.binarySymbol(ctx.fs.readChunks(input, ctx.cwd));
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      if (this.quiet) return 0;
      await this.warn(`${input}: ${e.reason}`);
      await this.warn(`Skipping ${input}, not a regular file.`);
      return 2;
    }
    if (binary !== null) {
      await this.say(binary);
      await this.say(`Skipping binary file ${input}`);
      return 0;
    }
    const fmt = this.toUnix ? 'Unix' : 'DOS';
    await this.say(input === output ? `converting file ${input} to ${fmt} format...` : `converting file ${input} to file ${output} in ${fmt} format...`);
    let w: AtomicWriter | null = null;
    try {
      w = ctx.fs.createWriter(output, ctx.cwd);
      for await (const out of this.convert(ctx.fs.readChunks(input, ctx.cwd))) w.write(out);
      w.commit();
      w = null;
      if (input !== output) ctx.fs.chmod(output, st.mode & 0o7777, ctx.cwd);
      if (this.keepDate) ctx.fs.utimes(output, st.atimeMs / 1000, st.mtimeMs / 1000, ctx.cwd);
    } catch (e) {
      w?.abort();
      if (!(e instanceof VfsError)) throw e;
      await this.warn(`Failed to write to temporary output file ${output}: ${e.reason}`);
      return 1;
    }
    return 0;
  }
}
