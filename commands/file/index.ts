import { defineCommand } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { classify, type Kind } from './magic.js';

/**
 * file (libmagic 5.44) for the types agents meet: empty, directory, symbolic link (never
 * followed; -L refused), text (ASCII / UTF-8 / ISO-8859 / non-ISO, with BOM, line
 * terminators, very long lines, escapes, overstriking), scripts by their #! line, JSON,
 * XML, HTML, PNG, GIF, JPEG, PDF, gzip, Zip, tar, ELF; anything else is "data". The
 * first 64 KiB of a file are read (as libmagic's default bytes_max is 1 MiB: a text file
 * whose first non-text byte comes later is still called text by nosh).
 */
export default defineCommand({
  name: 'file',
  summary: 'Determine type of FILEs (the common types: text, scripts, JSON, images, archives, ELF; anything else is "data").',
  usage: '[-bi] [--mime-type] [--mime-encoding] FILE...',
  mutates: false,
  usageStatus: 1,
  reference: 'file-5.44 (common types)',
  flags: [
    { key: 'b', short: 'b', long: 'brief', help: 'do not prepend filenames to output lines' },
    { key: 'i', short: 'i', long: 'mime', help: 'output MIME type strings (--mime-type and --mime-encoding)' },
    { key: 'mt', long: 'mime-type', help: 'output the MIME type' },
    { key: 'me', long: 'mime-encoding', help: 'output the MIME encoding' },
    { key: 'h', short: 'h', long: 'no-dereference', help: "don't follow symlinks (default)" },
  ],
  gnuLongOptions: ['apple', 'brief', 'checking-printout', 'compile', 'debug', 'dereference', 'exclude', 'exclude-quiet', 'extension', 'files-from',
    'help', 'keep-going', 'list', 'magic-file', 'mime', 'mime-encoding', 'mime-type', 'no-buffer', 'no-dereference', 'no-pad', 'no-sandbox',
    'parameter', 'preserve-date', 'print0', 'raw', 'separator', 'special-files', 'uncompress', 'uncompress-noreport', 'version'],
  async run(ctx) {
    const v = ctx.values;
    if (ctx.operands.length === 0) {
      await ctx.stderr.write('Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n'
        + '            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n'
        + '            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n'
        + '            <file> ...\n       file -C [-m <magicfiles>]\n       file [--help]\n');
      return 1;
    }
    const mode = v.i ? 'mime' : v.mt ? 'type' : v.me ? 'encoding' : 'text';
    const width = Math.max(...ctx.operands.map((n) => Buffer.byteLength(n))) + 1;
    let out = '';
    for (const name of ctx.operands) {
      const k = describe(ctx, name);
      let desc: string;
      if (mode === 'text') desc = k.text;
      else if (mode === 'type') desc = k.mime;
      else if (mode === 'encoding') desc = k.encoding;
      else desc = k.error ? k.text : `${k.mime}; charset=${k.encoding}`;
      if (k.error && mode !== 'text') desc = k.text;
      if (v.b) out += desc + '\n';
      else out += `${name}:`.padEnd(width + (Buffer.byteLength(name) - name.length) * 0) + ' ' + desc + '\n';
    }
    await ctx.stdout.write(out);
    return 0;
  },
});

function describe(ctx: Parameters<Parameters<typeof defineCommand>[0]['run']>[0], name: string): Kind & { error?: boolean } {
  let st;
  try {
    st = ctx.fs.lstat(name, ctx.cwd);
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    return { text: `cannot open \`${name}' (${e.reason})`, mime: '', encoding: '', error: true };
  }
  if (st.isSymbolicLink()) {
    let target = '';
    try {
      target = ctx.fs.readlink(name, ctx.cwd);
    } catch {
      /* unreadable: named without target */
    }
    let broken = true;
    try {
      // The target, from the link's folder (checked inside the zone; a target outside is "broken").
      const dir = name.includes('/') ? name.slice(0, name.lastIndexOf('/') + 1) : '';
      broken = target === '' || !ctx.fs.exists(target.startsWith('/') ? target : dir + target, ctx.cwd);
    } catch {
      broken = true;
    }
    return { text: `${broken ? 'broken ' : ''}symbolic link to ${target}`, mime: 'inode/symlink', encoding: 'binary' };
  }
  if (st.isDirectory()) return { text: 'directory', mime: 'inode/directory', encoding: 'binary' };
  if (!st.isFile()) return { text: 'data', mime: 'application/octet-stream', encoding: 'binary' };
  if (st.size === 0) return { text: 'empty', mime: 'inode/x-empty', encoding: 'binary' };
  let head: Buffer;
  try {
    const r = ctx.fs.openRandom(name, ctx.cwd);
    try {
      head = Buffer.alloc(Math.min(st.size, 65536));
      const got = r.readAt(head, 0, head.length);
      head = head.subarray(0, got);
    } finally {
      r.close();
    }
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    return { text: `cannot open \`${name}' (${e.reason})`, mime: '', encoding: '', error: true };
  }
  return classify(head, st.size, (st.mode & 0o111) !== 0);
}
