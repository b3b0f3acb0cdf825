// gzip, gunzip, zcat (gzip 1.12): streamed through node:zlib; files written atomically.
import { defineCommand, helpText, parseArgs, UsageError, versionText, type CommandContext } from '../../src/command/index.js';
import { VfsError, type AtomicWriter } from '../../src/vfs/index.js';
import { walk } from '../../src/vfs/walk.js';
import { setProgressTotalBytes } from '../../src/runtime/progress.js';
import { gunzip, gzip, GzipError, knownSuffix, NOT_GZIP, ratio, readHeader, ByteSource, strippedName, type DecodeInfo, type EncodeInfo } from '../../src/gnulib/gzip.js';

interface Opts {
  decompress: boolean;
  stdout: boolean;
  force: boolean;
  keep: boolean;
  list: boolean;
  test: boolean;
  quiet: boolean;
  verbose: boolean;
  recursive: boolean;
  level: number;
  /** -n: no name/time saved (compressing); -N: name and time restored (decompressing). */
  noName: boolean;
  name: boolean;
}

interface Run {
  ctx: CommandContext;
  o: Opts;
  /** 0, 2 (warning) or 1 (error): gzip's exit_code. */
  status: number;
  /** A fatal error met: no further file is treated. */
  stopped: boolean;
  listed: { files: number; in: number; out: number; headerBytes: number; headed: boolean };
  /** Bytes of the operands not read yet, for progress (-1: not known, e.g. stdin or -r). */
  after: number;
}

const DIGITS = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((d) => ({ key: 'level', short: String(d), value: String(d), help: d === 1 ? '-1 (fast) .. -9 (best): compression level' : '' }));

function mutates(args: string[], name?: string): boolean {
  if (name === 'zcat') return false;
  const flags = args.filter((a) => a.startsWith('-') && a !== '-');
  const short = flags.filter((a) => !a.startsWith('--')).join('');
  const long = flags.filter((a) => a.startsWith('--'));
  if (/[clt]/.test(short) || long.some((a) => /^--(stdout|to-stdout|list|test|help|version)/.test(a))) return false;
  return true;
}

const def = defineCommand({
  name: 'gzip',
  aliases: ['gunzip', 'zcat'],
  summary: 'Compress or uncompress FILEs (by default, compress FILES in-place).',
  usage: '[FILE]...',
  mutates: (args, name) => mutates(args, name),
  parse: 'raw',
  usageStatus: 1,
  reference: 'gzip 1.12',
  flags: [
    { key: 'c', short: 'c', long: 'stdout', help: 'write on standard output, keep original files unchanged' },
    { key: 'c', long: 'to-stdout', help: 'same as --stdout' },
    { key: 'd', short: 'd', long: 'decompress', help: 'decompress' },
    { key: 'd', long: 'uncompress', help: 'same as --decompress' },
    { key: 'f', short: 'f', long: 'force', help: 'force overwrite of output file and compress links' },
    { key: 'help', short: 'h', help: 'give this help' },
    { key: 'k', short: 'k', long: 'keep', help: "keep (don't delete) input files" },
    { key: 'l', short: 'l', long: 'list', help: 'list compressed file contents' },
    { key: 'n', short: 'n', long: 'no-name', help: 'do not save or restore the original name and timestamp' },
    { key: 'N', short: 'N', long: 'name', help: 'save or restore the original name and timestamp' },
    { key: 'q', short: 'q', long: 'quiet', help: 'suppress all warnings' },
    { key: 'r', short: 'r', long: 'recursive', help: 'operate recursively on directories' },
    { key: 't', short: 't', long: 'test', help: 'test compressed file integrity' },
    { key: 'v', short: 'v', long: 'verbose', help: 'verbose mode' },
    { key: 'version', short: 'V', help: 'display version number' },
    { key: 'Z', short: 'Z', help: 'not supported (LZW compression)' },
    ...DIGITS,
    { key: 'level', long: 'fast', value: '1', help: 'compress faster (-1)' },
    { key: 'level', long: 'best', value: '9', help: 'compress better (-9)' },
  ],
  notes: 'gunzip is gzip -d, zcat is gzip -dc. Messages are prefixed "gzip:" as gzip 1.12 prints them.\n'
    + 'Decompressed output is capped by the zone quota and the largest file size allowed.',
  async run(ctx) {
    let parsed;
    try {
      parsed = parseArgs(def, ctx.args);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      await ctx.stderr.write(`gzip: ${e.message}\nTry \`gzip --help' for more information.\n`);
      return 1;
    }
    const { opts, operands } = parsed;
    const info = opts.order.find((x) => x.key === 'help' || x.key === 'version');
    if (info) {
      await ctx.stdout.write(info.key === 'help' ? helpText(def) : versionText(def));
      return 0;
    }
    if (opts.has('Z')) {
      await ctx.stderr.write("gzip: -Z not supported in this version\nTry `gzip --help' for more information.\n");
      return 1;
    }
    const lastQv = opts.lastOf('q', 'v');
    const o: Opts = {
      decompress: opts.has('d') || ctx.name !== 'gzip',
      stdout: opts.has('c') || ctx.name === 'zcat',
      force: opts.has('f'),
      keep: opts.has('k'),
      list: opts.has('l'),
      test: opts.has('t'),
      quiet: lastQv === 'q',
      verbose: lastQv === 'v',
      recursive: opts.has('r'),
      level: Number(opts.get('level') ?? '6'),
      noName: opts.lastOf('n', 'N') === 'n',
      name: opts.lastOf('n', 'N') === 'N',
    };
    if (o.list || o.test) o.decompress = true;
    const r: Run = { ctx, o, status: 0, stopped: false, listed: { files: 0, in: 0, out: 0, headerBytes: 0, headed: false }, after: o.list ? -1 : operandBytes(ctx, operands) };
    for (const name of operands.length ? operands : ['-']) {
      if (r.stopped) return 1;
      if (name === '-') await treatStdin(r);
      else await treatFile(r, name, false);
    }
    if (o.list && r.listed.files > 1) {
      const l = r.listed;
      await ctx.stdout.write(`${o.verbose ? ' '.repeat(28) : ''}${String(l.in).padStart(19)} ${String(l.out).padStart(19)} ${ratio(l.out - (l.in - l.headerBytes), l.out)} (totals)\n`);
    }
    return r.status;
  },
});
export default def;

/** The operands' bytes when they are all regular files (a cheap stat each), else -1. */
function operandBytes(ctx: CommandContext, operands: string[]): number {
  let sum = 0;
  for (const name of operands) {
    try {
      const st = ctx.fs.lstat(name, ctx.cwd);
      if (!st.isFile()) return -1;
      sum += st.size;
    } catch {
      return -1;
    }
  }
  return operands.length > 0 ? sum : -1;
}

/** Progress: a file of `size` bytes is read now; the total is it and the operands after it. */
function willRead(r: Run, size: number): void {
  if (r.after < 0) return;
  r.after = Math.max(0, r.after - size);
  setProgressTotalBytes(size + r.after);
}

function warnStatus(r: Run): void {
  if (r.status === 0) r.status = 2;
}

async function warn(r: Run, msg: string): Promise<void> {
  warnStatus(r);
  if (!r.o.quiet) await r.ctx.stderr.write(`gzip: ${msg}\n`);
}

async function fail(r: Run, name: string, e: unknown): Promise<void> {
  r.status = 1;
  if (e instanceof GzipError && e.fatal) r.stopped = true;
  if (e instanceof GzipError) await r.ctx.stderr.write(`\ngzip: ${name}: ${e.message}\n`);
  else if (e instanceof VfsError) await r.ctx.stderr.write(`gzip: ${name}: ${e.reason}\n`);
  else throw e;
}

/** The cap on bytes decompressed into a file: the largest file allowed. */
function limitOf(r: Run): number {
  return r.ctx.fs.policy.maxFileSize;
}

async function treatStdin(r: Run): Promise<void> {
  const { ctx, o } = r;
  if (o.list) {
    await fail(r, 'stdin', new GzipError('listing standard input is not supported'));
    return;
  }
  if (o.verbose && o.test) await ctx.stderr.write('stdin:\t');
  if (!o.decompress) {
    const info: EncodeInfo = { inBytes: 0, outBytes: 0, headerBytes: 0 };
    for await (const c of gzip(ctx.stdin, { level: o.level, name: null, mtime: 0 }, info)) await ctx.stdout.write(c);
    return;
  }
  await decodeTo(r, 'stdin', ctx.stdin, o.test ? null : (c) => ctx.stdout.write(c), Number.MAX_SAFE_INTEGER);
  if (o.verbose && o.test) await ctx.stderr.write(' OK\n');
}

/** Decode into `sink` (null: test only); false after an error (reported). */
async function decodeTo(r: Run, name: string, input: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, sink: ((c: Buffer) => unknown) | null, limit: number): Promise<DecodeInfo | null> {
  const info: DecodeInfo = { header: null, headerBytes: 0, inBytes: 0, outBytes: 0, trailingGarbage: false };
  try {
    for await (const c of gunzip(input, info, limit)) if (sink) await sink(c);
  } catch (e) {
    await fail(r, name, e);
    return null;
  }
  if (info.trailingGarbage) {
    warnStatus(r);
    if (!r.o.quiet) await r.ctx.stderr.write(`\ngzip: ${name}: decompression OK, trailing garbage ignored\n`);
  }
  return info;
}

async function treatFile(r: Run, given: string, inWalk: boolean): Promise<void> {
  const { ctx, o } = r;
  let name = given;
  let st;
  try {
    st = ctx.fs.lstat(name, ctx.cwd);
  } catch (e) {
    if (!(e instanceof VfsError) || e.errno !== 'ENOENT' || !o.decompress || knownSuffix(name)) return fail(r, name, e);
    // gunzip NAME: NAME.gz (or another known suffix) is tried.
    const alt = ['.gz', '.z', '-gz', '-z', '_z'].map((s) => name + s).find((n) => ctx.fs.exists(n, ctx.cwd));
    if (!alt) return fail(r, name + '.gz', e);
    name = alt;
    st = ctx.fs.lstat(name, ctx.cwd);
  }
  if (st.isDirectory()) {
    if (!o.recursive) return warn(r, `${name} is a directory -- ignored`);
    for (const ev of walk(ctx.fs, name, ctx.cwd, { includeStart: false })) {
      if (r.stopped) return;
      if (ev.kind === 'error') await fail(r, ev.path, ev.error);
      else if (ev.kind === 'file') await treatFile(r, ev.path, true);
    }
    return;
  }
  if (!st.isFile()) return warn(r, `${name} is not a directory or a regular file - ignored`);
  if (o.list) return list(r, name);
  if (o.verbose) await ctx.stderr.write(`${name}:\t`);
  if (o.test) {
    if (await decodeFileTo(r, name, st.size, null)) {
      if (o.verbose) await ctx.stderr.write(' OK\n');
    }
    return;
  }
  if (o.stdout) {
    if (o.decompress) {
      const info = await decodeFileTo(r, name, st.size, (c) => ctx.stdout.write(c));
      if (info && o.verbose) await ctx.stderr.write(`${ratio(info.outBytes - (st.size - info.headerBytes), info.outBytes)} -- replaced with stdout\n`);
    } else {
      const info: EncodeInfo = { inBytes: 0, outBytes: 0, headerBytes: 0 };
      try {
        willRead(r, st.size);
        for await (const c of gzip(ctx.fs.readChunks(name, ctx.cwd), encodeOpts(r, name, st.mtimeMs), info)) await ctx.stdout.write(c);
      } catch (e) {
        return fail(r, name, e);
      }
      if (o.verbose) await ctx.stderr.write(`${ratio(info.inBytes - (info.outBytes - info.headerBytes), info.inBytes)} -- replaced with stdout\n`);
    }
    return;
  }
  if (st.nlink > 1 && !o.force) return warn(r, `${name} has ${st.nlink - 1} other link${st.nlink > 2 ? 's' : ''} -- file ignored`);
  let out: string;
  if (o.decompress) {
    const s = strippedName(name);
    if (s === null) {
      if (inWalk) return;
      return warn(r, `${name}: unknown suffix -- ignored`);
    }
    out = s;
  } else {
    if (knownSuffix(name)) {
      if (inWalk) return;
      if (!o.quiet) await ctx.stderr.write(`gzip: ${name} already has ${knownSuffix(name)} suffix -- unchanged\n`);
      return;
    }
    out = name + '.gz';
  }
  if (o.decompress) {
    // The magic is checked before the output name (gzip's get_method comes first).
    try {
      await readHeader(new ByteSource(ctx.fs.readChunks(name, ctx.cwd)));
    } catch (e) {
      return fail(r, name, e);
    }
  }
  if (o.decompress && o.name) {
    const stored = await storedName(r, name);
    if (stored) out = name.slice(0, name.lastIndexOf('/') + 1) + stored;
  }
  if (ctx.fs.exists(out, ctx.cwd) && !o.force) {
    if (o.verbose) await ctx.stderr.write('\n');
    return warn(r, `${out} already exists;\tnot overwritten`);
  }
  let w: AtomicWriter;
  try {
    w = ctx.fs.createWriter(out, ctx.cwd, { mode: st.mode & 0o777 });
  } catch (e) {
    return fail(r, out, e);
  }
  let mtime = st.mtimeMs / 1000;
  let shown: string;
  try {
    if (o.decompress) {
      const info = await decodeFileTo(r, name, st.size, (c) => w.write(c));
      if (!info) {
        w.abort();
        return;
      }
      if (o.name && info.header?.mtime) mtime = info.header.mtime;
      shown = ratio(info.outBytes - (st.size - info.headerBytes), info.outBytes);
    } else {
      const info: EncodeInfo = { inBytes: 0, outBytes: 0, headerBytes: 0 };
      willRead(r, st.size);
      for await (const c of gzip(ctx.fs.readChunks(name, ctx.cwd), encodeOpts(r, name, st.mtimeMs), info)) w.write(c);
      shown = ratio(info.inBytes - (info.outBytes - info.headerBytes), info.inBytes);
    }
    w.commit();
  } catch (e) {
    w.abort();
    return fail(r, o.decompress ? name : name, e);
  }
  try {
    ctx.fs.utimes(out, st.atimeMs / 1000, mtime, ctx.cwd);
    if (!o.keep) ctx.fs.unlink(name, ctx.cwd);
  } catch (e) {
    return fail(r, name, e);
  }
  if (o.verbose) await ctx.stderr.write(`${shown} -- ${o.keep ? 'created' : 'replaced with'} ${out}\n`);
}

function encodeOpts(r: Run, name: string, mtimeMs: number): { level: number; name: string | null; mtime: number } {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return { level: r.o.level, name: r.o.noName ? null : base, mtime: r.o.noName ? 0 : Math.floor(mtimeMs / 1000) };
}

async function decodeFileTo(r: Run, name: string, size: number, sink: ((c: Buffer) => unknown) | null): Promise<DecodeInfo | null> {
  let chunks;
  try {
    chunks = r.ctx.fs.readChunks(name, r.ctx.cwd);
    willRead(r, size);
  } catch (e) {
    await fail(r, name, e);
    return null;
  }
  return decodeTo(r, name, chunks, sink, sink ? limitOf(r) : Number.MAX_SAFE_INTEGER);
}

/** -N: the name stored in the header, without folders (never a path); null if none. */
async function storedName(r: Run, name: string): Promise<string | null> {
  try {
    const h = await readHeader(new ByteSource(r.ctx.fs.readChunks(name, r.ctx.cwd)));
    const base = h.name?.slice(h.name.lastIndexOf('/') + 1) ?? '';
    return base === '' || base === '.' || base === '..' ? null : base;
  } catch {
    return null;
  }
}

/** -l: sizes from the first header and the last trailer (as gzip, a multi-member file shows its last member's size). */
async function list(r: Run, name: string): Promise<void> {
  const { ctx, o } = r;
  let h;
  let crc = 0;
  let out = 0;
  let size = 0;
  let mtimeMs = 0;
  try {
    mtimeMs = ctx.fs.stat(name, ctx.cwd).mtimeMs;
    const rd = ctx.fs.openRandom(name, ctx.cwd);
    try {
      size = rd.size;
      const head = Buffer.alloc(Math.min(size, 64 * 1024));
      rd.readAt(head, 0);
      h = await readHeader(new ByteSource([head]));
      if (size < h.length + 8) throw new GzipError('unexpected end of file');
      const t = Buffer.alloc(8);
      rd.readAt(t, size - 8);
      crc = t.readUInt32LE(0);
      out = t.readUInt32LE(4);
    } finally {
      rd.close();
    }
  } catch (e) {
    return fail(r, name, e);
  }
  const l = r.listed;
  if (!l.headed) {
    l.headed = true;
    let line = o.verbose ? 'method  crc     date  time  ' : '';
    if (!o.quiet) line += `${'compressed'.padStart(19)} ${'uncompressed'.padStart(19)}  ratio uncompressed_name\n`;
    if (line) await ctx.stdout.write(line);
  }
  let line = '';
  if (o.verbose) {
    // No time in the header: the file's own (gzip's time_stamp from stat).
    const d = new Date(h.mtime ? h.mtime * 1000 : mtimeMs);
    const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
    line += `defla ${crc.toString(16).padStart(8, '0')} ${mon}${String(d.getUTCDate()).padStart(3)} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')} `;
  }
  const hb = h.length + 8;
  const shown = strippedName(name) ?? name;
  line += `${String(size).padStart(19)} ${String(out).padStart(19)} ${ratio(out - (size - hb), out)} ${shown}\n`;
  await ctx.stdout.write(line);
  l.files++;
  l.in += size;
  l.out += out;
  l.headerBytes = hb;
}

export { NOT_GZIP };
