import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';

/**
 * dos2unix / unix2dos 7.4.3 (Fileshed's convert_eol), ASCII mode: dos2unix turns each CRLF
 * into LF (a lone CR stays) and drops a UTF-8 BOM (-b keeps it); unix2dos turns each LF not
 * after a CR into CRLF and keeps a BOM (-r drops it); -m adds one. A file holding a control
 * byte other than TAB, LF, FF or CR is binary and skipped unless -f. Files are converted in
 * place (old-file mode, atomic through the Vfs, mode kept) or, after -n, INFILE to OUTFILE;
 * with no file, standard input to standard output. Not offered: code pages (-iso, -437...),
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
      const data = await ctx.stdin.readAll();
      const r = conv.convert(data, null);
      if (r) await ctx.stdout.write(r);
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

  /** The converted bytes, or null for a binary input (reported on stderr as dos2unix does, `name` given). */
  convert(data: Buffer, name: string | null, report?: (m: string) => void): Buffer | null {
    if (!this.force) {
      let line = 1;
      for (let i = 0; i < data.length; i++) {
        const c = data[i]!;
        if (c === 0x0a) line++;
        else if (c < 0x20 && c !== 0x09 && c !== 0x0c && c !== 0x0d) {
          report?.(`Binary symbol 0x${c.toString(16).toUpperCase().padStart(2, '0')} found at line ${line}`);
          if (name !== null) return null;
          break;
        }
      }
    }
    let body = data;
    const hasBom = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
    if (hasBom) body = body.subarray(3);
    const out: number[] = [];
    if ((hasBom && this.bom === 'keep') || this.bom === 'add') out.push(0xef, 0xbb, 0xbf);
    for (let i = 0; i < body.length; i++) {
      const c = body[i]!;
      if (this.toUnix) {
        if (c === 0x0d && body[i + 1] === 0x0a) continue;
        out.push(c);
      } else {
        if (c === 0x0a && (i === 0 || body[i - 1] !== 0x0d)) out.push(0x0d);
        out.push(c);
      }
    }
    return Buffer.from(out);
  }

  async file(input: string, output: string): Promise<number> {
    const { ctx } = this;
    let data: Buffer;
    let st;
    try {
      st = ctx.fs.stat(input, ctx.cwd);
      if (!st.isFile()) {
        await this.say(`Skipping ${input}, not a regular file.`);
        return 0;
      }
      data = ctx.fs.readFile(input, ctx.cwd);
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      if (this.quiet) return 0;
      await this.warn(`${input}: ${e.reason}`);
      await this.warn(`Skipping ${input}, not a regular file.`);
      return 2;
    }
    const notes: string[] = [];
    const out = this.convert(data, input, (m) => notes.push(m));
    for (const n of notes) await this.say(n);
    if (out === null) {
      await this.say(`Skipping binary file ${input}`);
      return 0;
    }
    const fmt = this.toUnix ? 'Unix' : 'DOS';
    await this.say(input === output ? `converting file ${input} to ${fmt} format...` : `converting file ${input} to file ${output} in ${fmt} format...`);
    try {
      ctx.fs.writeFile(output, out, ctx.cwd);
      if (input !== output) ctx.fs.chmod(output, st.mode & 0o7777, ctx.cwd);
      if (this.keepDate) ctx.fs.utimes(output, st.atimeMs / 1000, st.mtimeMs / 1000, ctx.cwd);
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      await this.warn(`Failed to write to temporary output file ${output}: ${e.reason}`);
      return 1;
    }
    return 0;
  }
}
