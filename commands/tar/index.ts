// tar (GNU tar 1.34): c/x/t with -f, -z, -v, -C, --exclude, -O, --strip-components, -k, over
// tar-stream; gzip through commands/gzip's codec. Links, devices and FIFOs are never created.
// Extraction is all or nothing: files are written into a staging folder and moved into place
// at the end; a quota or size stop removes the staging folder and the folders it made.
import type { Stats } from 'node:fs';
import { Readable } from 'node:stream';
import * as tarStream from 'tar-stream';
import { defineCommand, helpText, parseArgs, UsageError, versionText, type CommandContext } from '../../src/command/index.js';
import { isLimitError, VfsError, type DirHandle, type WalkFile } from '../../src/vfs/index.js';
import { walk } from '../../src/vfs/walk.js';
import { components, DestTree, splitLast, StagingFolder, topOf } from '../../src/gnulib/extract-tree.js';
import { addProgress, setProgressTotalBytes } from '../../src/runtime/progress.js';
import { gunzip, gzipBlocks, GzipError, type DecodeInfo } from '../../src/gnulib/gzip.js';
import { TAR_BLOCK, TarOut, type TarHeader } from './ustar.js';
import { excluder, hasDotDot, leadingPrefix, Lister, MAX_NAME_BYTES, stripComponents } from './names.js';

const TRY = "Try 'tar --help' or 'tar --usage' for more information.\n";
const ARG_LETTERS = new Set(['f', 'C']);

interface Run {
  ctx: CommandContext;
  verbose: boolean;
  z: boolean;
  errors: boolean;
  prefixes: Set<string>;
  exclude: (name: string) => boolean;
  dir: string;
  /** x: the staging folder, the files staged in it (in archive order) and the folders made. */
  stage?: Stage;
}

interface Stage {
  /** The destination (-C), held: its folders are reached and made relative to it. */
  tree: DestTree;
  folder: StagingFolder;
  /** Staged files in archive order: the staged name, the folder below the destination and the name there. */
  files: { staged: string; dir: string; name: string; rest: string }[];
  /** Folders made, below the destination (removed again if the extraction stops). */
  made: string[];
  /**
   * Top folders of the destination met so far: true when it did not exist (staged whole in the
   * staging folder, moved into place with one rename), false when entries go file by file.
   */
  fresh: Map<string, boolean>;
  /** The entries staged below fresh top folders, in archive order (path below the destination). */
  nested: { rel: string; isDir: boolean; top: string }[];
  /** -k: an existing file is an error, not replaced. */
  keep: boolean;
}


class Fatal extends Error {}

type TarEntry = AsyncIterable<Buffer> & { header: tarStream.Header; resume(): unknown };

function mutates(args: string[]): boolean {
  const first = args[0] ?? '';
  const letters = first.startsWith('-') ? args.filter((a) => /^-[^-]/.test(a)).join('') : first;
  if (args.some((a) => a === '--list' || a === '--help' || a === '--version' || a === '--to-stdout')) return false;
  if (/t/.test(letters) || (/x/.test(letters) && /O/.test(letters))) return false;
  return true;
}

const def = defineCommand({
  name: 'tar',
  summary: 'Create (c), extract (x) or list (t) tar archives; -z for gzip.',
  usage: '[OPTION...] [FILE]...',
  mutates: (args) => mutates(args),
  parse: 'raw',
  usageStatus: 2,
  reference: 'GNU tar 1.34',
  flags: [
    { key: 'c', short: 'c', long: 'create', help: 'create a new archive' },
    { key: 'x', short: 'x', long: 'extract', help: 'extract files from an archive' },
    { key: 'x', long: 'get', help: 'same as --extract' },
    { key: 't', short: 't', long: 'list', help: 'list the contents of an archive' },
    { key: 'f', short: 'f', long: 'file', kind: 'string', arg: 'ARCHIVE', help: 'use archive file ARCHIVE (- for standard input/output)' },
    { key: 'z', short: 'z', long: 'gzip', help: 'filter the archive through gzip' },
    { key: 'z', long: 'gunzip', help: 'same as --gzip' },
    { key: 'z', long: 'ungzip', help: 'same as --gzip' },
    { key: 'j', short: 'j', long: 'bzip2', help: 'refused: no bzip2 in nosh' },
    { key: 'J', short: 'J', long: 'xz', help: 'refused: no xz in nosh' },
    { key: 'v', short: 'v', long: 'verbose', help: 'verbosely list files processed' },
    { key: 'C', short: 'C', long: 'directory', kind: 'string', arg: 'DIR', help: 'change to directory DIR' },
    { key: 'exclude', long: 'exclude', kind: 'string', arg: 'PATTERN', help: 'exclude files matching PATTERN (a wildcard)' },
    { key: 'O', short: 'O', long: 'to-stdout', help: 'extract files to standard output' },
    { key: 'strip', long: 'strip-components', kind: 'string', arg: 'NUMBER', help: 'strip NUMBER leading components from file names on extraction' },
    { key: 'k', short: 'k', long: 'keep-old-files', help: "don't replace existing files when extracting, treat them as errors" },
    { key: 'nso', long: 'no-same-owner', help: 'extract files as yourself (always so in nosh)' },
  ],
  notes: 'Old style `tar czf a.tgz dir` is read as `tar -c -z -f a.tgz dir`. Symbolic and hard links,\n'
    + 'devices and FIFOs are neither archived nor extracted (skipped with a message, exit 2).',
  async run(ctx) {
    let parsed;
    try {
      parsed = parseArgs(def, oldStyle(ctx.args));
    } catch (e) {
      if (e instanceof Fatal) {
        await ctx.stderr.write(`tar: ${e.message}\n${TRY}`);
        return 2;
      }
      if (!(e instanceof UsageError)) throw e;
      await ctx.stderr.write(`tar: ${e.message}\n${TRY}`);
      return 64;
    }
    const { opts, operands } = parsed;
    const info = opts.order.find((x) => x.key === 'help' || x.key === 'version');
    if (info) {
      await ctx.stdout.write(info.key === 'help' ? helpText(def) : versionText(def));
      return 0;
    }
    const modes = ['c', 'x', 't'].filter((k) => opts.has(k));
    if (modes.length !== 1) {
      await ctx.stderr.write(modes.length === 0
        ? `tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\n${TRY}`
        : `tar: You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option\n${TRY}`);
      return 2;
    }
    for (const [k, prog] of [['j', 'bzip2'], ['J', 'xz']] as const) {
      if (opts.has(k)) {
        await ctx.stderr.write(`tar: -${k} (${prog}) is not available in nosh: no ${prog} decompressor; use -z (gzip) or an uncompressed archive\n`);
        return 2;
      }
    }
    const strip = Number(opts.get('strip') ?? '0');
    if (!Number.isInteger(strip) || strip < 0) {
      await ctx.stderr.write(`tar: Invalid number of elements: '${opts.get('strip')}'\n${TRY}`);
      return 2;
    }
    const r: Run = { ctx, verbose: opts.has('v'), z: opts.has('z'), errors: false, prefixes: new Set(), exclude: excluder(opts.all('exclude')), dir: opts.get('C') ?? '.' };
    const file = opts.get('f') ?? '-';
    try {
      if (modes[0] === 'c') {
        if (operands.length === 0) {
          await ctx.stderr.write('tar: Cowardly refusing to create an empty archive\n' + TRY);
          return 2;
        }
        await create(r, file, operands);
      } else {
        await read(r, file, operands, { extract: modes[0] === 'x', toStdout: opts.has('O'), keep: opts.has('k'), strip });
      }
    } catch (e) {
      if (!(e instanceof Fatal)) throw e;
      await ctx.stderr.write(`tar: ${e.message}\ntar: Error is not recoverable: exiting now\n`);
      return 2;
    }
    if (r.errors) {
      await ctx.stderr.write('tar: Exiting with failure status due to previous errors\n');
      return 2;
    }
    return 0;
  },
});
export default def;

/** `tar czf a.tgz dir`: the first word's letters become options, in order taking their arguments. */
function oldStyle(args: string[]): string[] {
  const first = args[0];
  if (first === undefined || first.startsWith('-')) return args;
  const rest = args.slice(1);
  const out: string[] = [];
  for (const ch of first) {
    out.push('-' + ch);
    if (ARG_LETTERS.has(ch)) {
      if (rest.length === 0) throw new Fatal(`Old option '${ch}' requires an argument.`);
      out.push(rest.shift()!);
    }
  }
  return [...out, ...rest];
}

async function error(r: Run, msg: string): Promise<void> {
  r.errors = true;
  await r.ctx.stderr.write(`tar: ${msg}\n`);
}

function reasonOf(e: unknown): string {
  if (e instanceof VfsError) return e.reason;
  throw e;
}

function joinPath(dir: string, name: string): string {
  if (name.startsWith('/')) return name;
  return dir === '.' ? name : `${dir.replace(/\/+$/, '')}/${name}`;
}

// ---- reading: t and x ----

interface ReadOpts { extract: boolean; toStdout: boolean; keep: boolean; strip: number }

function archiveInput(r: Run, file: string): AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  if (file === '-') return r.ctx.stdin;
  try {
    const f = r.ctx.fs.openRandom(file, r.ctx.cwd);
    f.close();
    // tar streams (no entry count up front): progress is the archive's bytes read against its size
    setProgressTotalBytes(f.size);
  } catch (e) {
    throw new Fatal(`${file}: Cannot open: ${reasonOf(e)}`);
  }
  return r.ctx.fs.readChunks(file, r.ctx.cwd);
}

async function read(r: Run, file: string, members: string[], o: ReadOpts): Promise<void> {
  const { ctx } = r;
  const raw = archiveInput(r, file);
  const info: DecodeInfo = { header: null, headerBytes: 0, inBytes: 0, outBytes: 0, trailingGarbage: false };
  const bytes = r.z ? gunzip(raw, info, Number.MAX_SAFE_INTEGER) : raw;
  // the destination first: a refused one stops before any byte is read (no stream left running)
  if (o.extract && !o.toStdout) r.stage = openStage(r, o.keep);
  const ex = tarStream.extract();
  const src = Readable.from(bytes as AsyncIterable<Uint8Array>, { objectMode: false });
  src.on('error', (e) => ex.destroy(e));
  src.pipe(ex);
  const lister = new Lister();
  const found = new Set<string>();
  const wanted = (name: string) => {
    const n = name.replace(/\/+$/, '');
    const hit = members.find((m) => n === m.replace(/\/+$/, '') || n.startsWith(m.replace(/\/+$/, '') + '/'));
    if (hit !== undefined) found.add(hit);
    return members.length === 0 || hit !== undefined;
  };
  let entries = 0;
  try {
    for await (const entry of ex) {
      entries++;
      addProgress(1);
      const h = entry.header;
      const name = h.name;
      if (!wanted(name) || r.exclude(name)) {
        entry.resume();
        continue;
      }
      const prefix = leadingPrefix(name);
      if (prefix && !r.prefixes.has(prefix)) {
        r.prefixes.add(prefix);
        await ctx.stderr.write(`tar: Removing leading \`${prefix}' from member names\n`);
      }
      if (!o.extract) {
        await ctx.stdout.write(r.verbose ? lister.line({ ...h, size: h.size ?? 0, mode: h.mode ?? 0, uid: h.uid ?? 0, gid: h.gid ?? 0, mtime: h.mtime ?? new Date(0), type: h.type ?? 'file' }) : name + '\n');
        entry.resume();
        continue;
      }
      if (o.toStdout) {
        if (h.type === 'file' || h.type === 'contiguous-file') for await (const c of entry) await ctx.stdout.write(c as Buffer);
        else entry.resume();
        continue;
      }
      if (r.verbose) await ctx.stdout.write(name + '\n');
      await extractEntry(r, entry as unknown as TarEntry, name, prefix, o);
    }
  } catch (e) {
    if (r.stage) undo(r, r.stage);
    if (e instanceof GzipError) throw new Fatal(`Child returned status 1 (gzip: ${e.message})`);
    if (e instanceof Fatal || e instanceof VfsError) throw e;
    if (entries === 0) {
      await error(r, 'This does not look like a tar archive');
      return;
    }
    throw new Fatal('Unexpected EOF in archive');
  }
  if (r.stage) await place(r, r.stage);
  for (const m of members) if (!found.has(m)) await error(r, `${m}: Not found in archive`);
}

/** The destination held and the staging folder, hidden in it (the destination must exist, as for GNU tar -C). */
function openStage(r: Run, keep: boolean): Stage {
  let tree: DestTree | undefined;
  try {
    tree = DestTree.open(r.ctx.fs, r.dir, r.ctx.cwd);
    return { tree, folder: StagingFolder.make(r.ctx.fs, tree.base, 'tar'), files: [], made: [], fresh: new Map(), nested: [], keep };
  } catch (e) {
    tree?.close();
    throw new Fatal(`${r.dir}: Cannot open: ${reasonOf(e)}`);
  }
}

function stop(member: string, e: VfsError): Fatal {
  return new Fatal(`${member}: Cannot write: ${e.reason}; extraction stopped, nothing was extracted`);
}

/** A stop: the staged files, the staging folder and every folder the extraction made go. */
function undo(r: Run, st: Stage): void {
  closeStage(r, st);
  for (const d of [...st.made].reverse()) try { r.ctx.fs.rmdir(joinPath(r.dir, d), r.ctx.cwd); } catch { /* holds something of its own */ }
}

/** The staged files not moved into place and the staging folder removed; the destination let go. */
function closeStage(r: Run, st: Stage): void {
  st.folder.remove();
  st.tree.close();
  r.stage = undefined;
}

/**
 * The end: each fresh top folder moved into place with one rename (file by file when something
 * took its name meanwhile), then every flat staged file in archive order (a later member
 * replaces an earlier one).
 */
async function place(r: Run, st: Stage): Promise<void> {
  try {
    const byFile = new Set<string>();
    for (const [top, fresh] of st.fresh) {
      if (!fresh) continue;
      try {
        st.folder.moveTop(top, st.tree.base);
      } catch (e) {
        reasonOf(e);
        byFile.add(top);
      }
    }
    for (const n of st.nested) {
      if (!byFile.has(n.top)) continue;
      const [dirRel, name] = n.isDir ? [n.rel, ''] : splitLast(n.rel);
      try {
        const there = mkdirs(r, dirRel);
        if (n.isDir) continue;
        const old = r.ctx.fs.lstatAt(there, name);
        if (old?.isDirectory()) throw new VfsError('EISDIR', joinPath(r.dir, n.rel));
        if (old && st.keep) throw new VfsError('EEXIST', joinPath(r.dir, n.rel));
        st.folder.publishNested(n.rel, there, name);
      } catch (e) {
        await error(r, `${n.rel}: Cannot open: ${reasonOf(e)}`);
      }
    }
    for (const f of st.files) {
      try {
        const at = st.tree.reach(f.dir, false);
        // a folder made on the way has been changed since: refused as mkdirs() refuses it
        if (!('dir' in at)) throw new VfsError('link' in at ? 'ENOTDIR' : 'ENOENT', joinPath(r.dir, f.rest));
        st.folder.publish(f.staged, at.dir, f.name);
      } catch (e) {
        await error(r, `${f.rest}: Cannot open: ${reasonOf(e)}`);
      }
    }
  } finally {
    closeStage(r, st); // files not moved (refused, or an exception went through), then the folder
  }
}

async function drain(entry: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of entry) { /* skipped */ }
}

async function extractEntry(r: Run, entry: TarEntry, name: string, prefix: string, o: ReadOpts): Promise<void> {
  const { ctx } = r;
  const h = entry.header;
  if (name.includes('\0') || Buffer.byteLength(name) > MAX_NAME_BYTES) {
    await drain(entry);
    return error(r, `${name.slice(0, 64).replace(/\0/g, '\\0')}...: Cannot extract: member name refused (NUL byte or over ${MAX_NAME_BYTES} bytes)`);
  }
  if (hasDotDot(name)) {
    await drain(entry);
    return error(r, `${name}: Member name contains '..'`);
  }
  const rest = stripComponents(name.slice(prefix.length), o.strip);
  if (rest === null) return drain(entry);
  const parts = components(rest);
  const top = topOf(rest, h.type === 'directory');
  const nested = top !== null && isFresh(r, top);
  if (h.type === 'directory') {
    await drain(entry);
    try {
      if (nested) stagedDir(r, parts.join('/'), top);
      else mkdirs(r, parts.join('/'));
    } catch (e) {
      return error(r, `${rest}: Cannot mkdir: ${reasonOf(e)}`);
    }
    return;
  }
  if (h.type !== 'file' && h.type !== 'contiguous-file') {
    await drain(entry);
    const what = h.type === 'symlink' ? 'symlink' : h.type === 'link' ? 'hard link' : h.type === 'fifo' ? 'fifo' : 'device';
    return error(r, `${rest}: Cannot create ${what}: not supported (nosh never creates links, devices or FIFOs); skipped`);
  }
  const base = parts.pop();
  const dirRel = parts.join('/');
  if (nested) return extractNested(r, entry, `${dirRel}/${base}`, top, rest, o);
  // a member named as a top folder staged whole: a folder is there
  if (dirRel === '' && base !== undefined && r.stage!.fresh.get(base) === true) {
    await drain(entry);
    return error(r, `${rest}: Cannot open: Is a directory`);
  }
  let there;
  try {
    // a member that is the destination itself ('.' or './') is a folder there, not a file
    if (base === undefined) throw new VfsError('EISDIR', r.dir);
    there = mkdirs(r, dirRel);
  } catch (e) {
    await drain(entry);
    return error(r, `${rest}: Cannot open: ${reasonOf(e)}`);
  }
  let old = null;
  try {
    old = ctx.fs.lstatAt(there, base);
  } catch { /* a name the zone refuses: the staged writer below says so */ }
  const exists = old !== null;
  if (o.keep && exists) {
    await drain(entry);
    return error(r, `${rest}: Cannot open: File exists`);
  }
  if (old?.isDirectory()) {
    await drain(entry);
    return error(r, `${rest}: Cannot open: Is a directory`);
  }
  const st = r.stage!;
  // The staged name keeps the member's own name: the zone's extension and name rules see it.
  const staged = `${st.files.length}-${base}`;
  const mtime = h.mtime ? h.mtime.getTime() / 1000 : undefined;
  let w;
  try {
    // No fsync for a file the archive creates (GNU tar syncs nothing; a crash can lose its new
    // bytes, no old ones); one that replaces a file already there is synced (DESIGN). Its mode
    // and times are set on the open file, before the move.
    w = ctx.fs.createWriterAt(st.folder.dir, staged, { mode: 0o600, direct: true, durable: exists, finalMode: (h.mode ?? 0o644) & 0o777, finalTime: mtime });
    st.folder.pending.add(staged);
  } catch (e) {
    await drain(entry);
    if (isLimitError(e)) throw stop(rest, e);
    return error(r, `${rest}: Cannot open: ${reasonOf(e)}`);
  }
  // A write over the quota or a size limit stops the whole extraction (read() undoes it).
  try {
    for await (const c of entry) w.write(c as Buffer);
    w.commit();
  } catch (e) {
    w.abort();
    throw isLimitError(e) ? stop(rest, e) : e;
  }
  st.files.push({ staged, dir: dirRel, name: base, rest });
}

/**
 * Is the top folder `top` of the destination new (staged whole)? Decided when first met: it
 * does not exist there and no file of that name was staged for the destination itself.
 */
function isFresh(r: Run, top: string): boolean {
  const st = r.stage!;
  let fresh = st.fresh.get(top);
  if (fresh === undefined) {
    try {
      fresh = r.ctx.fs.lstatAt(st.tree.base, top) === null && !st.files.some((f) => f.dir === '' && f.name === top);
    } catch (e) {
      reasonOf(e);
      fresh = false; // a name the zone refuses: the per-file path says so
    }
    st.fresh.set(top, fresh);
  }
  return fresh;
}

/** mkdir -p of `rel` (below the destination, in a fresh top folder) in the staging folder. The folder, held. */
function stagedDir(r: Run, rel: string, top: string): DirHandle {
  const st = r.stage!;
  const at = st.folder.reach(rel, true);
  if (!('dir' in at)) throw new VfsError('ENOTDIR', joinPath(r.dir, rel));
  st.nested.push({ rel, isDir: true, top });
  return at.dir;
}

/** A file member of a fresh top folder, written at its own name in the staged folder. */
async function extractNested(r: Run, entry: TarEntry, rel: string, top: string, rest: string, o: ReadOpts): Promise<void> {
  const { ctx } = r;
  const h = entry.header;
  const st = r.stage!;
  const [dirRel, base] = splitLast(rel);
  let there: DirHandle;
  try {
    const at = st.folder.reach(dirRel, true);
    if (!('dir' in at)) throw new VfsError('ENOTDIR', joinPath(r.dir, dirRel));
    there = at.dir;
    // only an earlier member of the same name can be there (the folder is new)
    if (st.folder.nested.has(rel)) {
      if (o.keep) throw new VfsError('EEXIST', joinPath(r.dir, rel));
      st.folder.unlinkNested(rel);
      st.nested.splice(st.nested.findIndex((n) => n.rel === rel && !n.isDir), 1);
    }
  } catch (e) {
    await drain(entry);
    return error(r, `${rest}: Cannot open: ${reasonOf(e)}`);
  }
  const mtime = h.mtime ? h.mtime.getTime() / 1000 : undefined;
  let w;
  try {
    // a new file of a new folder: no fsync (as GNU tar), mode and times on the open file
    w = ctx.fs.createWriterAt(there, base, { mode: 0o600, direct: true, durable: false, finalMode: (h.mode ?? 0o644) & 0o777, finalTime: mtime });
    st.folder.nested.add(rel);
  } catch (e) {
    await drain(entry);
    if (isLimitError(e)) throw stop(rest, e);
    // a folder member of that name came first
    const isDir = e instanceof VfsError && e.errno === 'EEXIST' && ctx.fs.lstatAt(there, base)?.isDirectory();
    return error(r, `${rest}: Cannot open: ${isDir ? 'Is a directory' : reasonOf(e)}`);
  }
  try {
    for await (const c of entry) w.write(c as Buffer);
    w.commit();
  } catch (e) {
    w.abort();
    st.folder.nested.delete(rel);
    throw isLimitError(e) ? stop(rest, e) : e;
  }
  st.nested.push({ rel, isDir: false, top });
}

/**
 * mkdir -p of `rel` below the destination, one component at a time, relative to held folders;
 * an existing non-folder (a symlink too) stops it (ENOTDIR). The folder, held.
 */
function mkdirs(r: Run, rel: string): DirHandle {
  const st = r.stage!;
  const at = st.tree.reach(rel, true, (made) => st.made.push(made));
  if ('link' in at) throw new VfsError('ENOTDIR', joinPath(r.dir, at.link));
  if (!('dir' in at)) throw new VfsError('ENOENT', joinPath(r.dir, at.missing));
  return at.dir;
}

// ---- creating ----

async function create(r: Run, file: string, operands: string[]): Promise<void> {
  const { ctx } = r;
  const writer = file === '-' ? null : openArchive(r, file);
  const verboseOut = file === '-' ? ctx.stderr : ctx.stdout;
  const tar = archiveBlocks(r, operands, verboseOut);
  try {
    for await (const c of r.z ? gzipBlocks(tar, 6) : tar) {
      if (writer) writer.write(c);
      else await ctx.stdout.write(c);
    }
    writer?.commit();
  } catch (e) {
    writer?.abort();
    if (e instanceof VfsError) throw new Fatal(`${file}: Cannot write: ${e.reason}`);
    throw e;
  }
}

function openArchive(r: Run, file: string) {
  try {
    // No fsync for a new archive (GNU tar syncs nothing; a crash can lose its new bytes, no old
    // ones); an archive that replaces a file is synced before its rename (DESIGN).
    return r.ctx.fs.createWriter(file, r.ctx.cwd, { durable: r.ctx.fs.exists(file, r.ctx.cwd) });
  } catch (e) {
    throw new Fatal(`${file}: Cannot open: ${reasonOf(e)}`);
  }
}

type Out = { write(s: string): unknown };

/** The archive's bytes, in 1 MiB blocks (ustar.ts). */
async function* archiveBlocks(r: Run, operands: string[], verboseOut: Out): AsyncGenerator<Buffer> {
  const out = new TarOut();
  for (const operand of operands) yield* addOperand(r, out, operand, verboseOut);
  out.end();
  yield* out.takeAll();
}

async function* addOperand(r: Run, out: TarOut, operand: string, verboseOut: Out): AsyncGenerator<Buffer> {
  const { ctx } = r;
  const path = joinPath(r.dir, operand);
  let st;
  try {
    st = ctx.fs.lstat(path, ctx.cwd);
  } catch (e) {
    await error(r, `${operand}: Cannot stat: ${reasonOf(e)}`);
    return;
  }
  const prefix = leadingPrefix(operand);
  if (prefix && !r.prefixes.has(prefix)) {
    r.prefixes.add(prefix);
    await ctx.stderr.write(`tar: Removing leading \`${prefix}' from member names\n`);
  }
  const stored = operand.slice(prefix.length).replace(/\/+$/, '') || '.';
  if (!st.isDirectory()) {
    yield* addOne(r, out, path, stored, st, verboseOut);
    return;
  }
  for (const ev of walk(ctx.fs, path, ctx.cwd, { postOrder: true })) {
    if (ev.kind === 'post') {
      // the files read through this folder came from inside the zone (checked once per folder)
      if (ev.handle) ctx.fs.verifyDir(ev.handle);
      continue;
    }
    const name = ev.rel ? `${stored}/${ev.rel}` : stored;
    if (ev.kind === 'error') {
      await error(r, `${name}: Cannot open: ${reasonOf(ev.error)}`);
      continue;
    }
    if (ev.kind !== 'pre' && ev.kind !== 'file') continue;
    if (ev.depth > 0 && r.exclude(name)) {
      ev.skip = true;
      continue;
    }
    if (ev.kind === 'file' && ev.type === 'file' && ev.dir) {
      // a listed file: opened through the folder the walk holds (one open and fstat)
      let f: WalkFile;
      try {
        f = ctx.fs.openListedFileAt(ev.dir, ev.name);
      } catch (e) {
        await error(r, `${name}: Cannot open: ${reasonOf(e)}`);
        continue;
      }
      try {
        if (r.verbose) await verboseOut.write(name + '\n');
        const read: Read = (b, off, len) => f.read(b, off, len);
        const left = fileStart(out, name, f.stat!, f.size, read);
        if (left > 0) yield* fileRest(r, out, name, f.size, left, read);
        else if (out.pending > 0) for (const b of out.take()) yield b;
      } finally {
        f.close();
      }
      continue;
    }
    let est;
    try {
      est = ev.dir ? ctx.fs.lstatAt(ev.dir, ev.name) : ctx.fs.lstat(ev.path, ctx.cwd);
    } catch (e) {
      await error(r, `${name}: Cannot stat: ${reasonOf(e)}`);
      continue;
    }
    if (est === null) {
      await error(r, `${name}: Cannot stat: No such file or directory`);
      continue;
    }
    yield* addOne(r, out, ev.path, name, est, verboseOut);
  }
}

function headerOf(name: string, type: 'file' | 'directory', st: Stats, size: number): TarHeader {
  return {
    name, type, size, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid, uname: st.uid === 0 ? 'root' : '', gname: st.gid === 0 ? 'root' : '',
    mtime: (Math.trunc(st.mtimeMs) / 1000) | 0,
  };
}

/** A folder, or a file by its path (an operand; a walked entry that is not a listed file). */
async function* addOne(r: Run, out: TarOut, path: string, name: string, st: Stats, verboseOut: Out): AsyncGenerator<Buffer> {
  const { ctx } = r;
  if (st.isDirectory()) {
    if (r.verbose) await verboseOut.write(name + '/\n');
    out.header(headerOf(name + '/', 'directory', st, 0));
    yield* out.take();
    return;
  }
  if (!st.isFile()) {
    await error(r, `${name}: ${st.isSymbolicLink() ? 'symbolic link' : 'special file'} not archived (nosh stores regular files and folders only)`);
    return;
  }
  let f;
  try {
    f = ctx.fs.openRandom(path, ctx.cwd);
  } catch (e) {
    await error(r, `${name}: Cannot open: ${reasonOf(e)}`);
    return;
  }
  try {
    let pos = 0;
    const rf = f;
    const read: Read = (b, off, len) => {
      const n = rf.readAt(b.subarray(off, off + len), pos, len);
      pos += n;
      return n;
    };
    if (r.verbose) await verboseOut.write(name + '\n');
    const left = fileStart(out, name, st, st.size, read);
    if (left > 0) yield* fileRest(r, out, name, st.size, left, read);
    else if (out.pending > 0) for (const b of out.take()) yield b;
  } finally {
    f.close();
  }
}

type Read = (b: Uint8Array, off: number, len: number) => number;

/**
 * A regular file's header, then its bytes read straight into the archive's blocks: a small
 * file in one go (no generator of its own), a big one up to its first full block. The bytes
 * still to read (fileRest reads them); 0: the file is in, padded.
 */
function fileStart(out: TarOut, name: string, st: Stats, size: number, read: Read): number {
  out.header(headerOf(name, 'file', st, size));
  const left = out.copy(read, size, size > TAR_BLOCK);
  if (left === 0) out.pad(size);
  return left;
}

/** The rest of a file, block by block; zeros for what is missing if it shrank (as GNU tar). */
async function* fileRest(r: Run, out: TarOut, name: string, size: number, left: number, read: Read): AsyncGenerator<Buffer> {
  while (left > 0 && out.pending > 0) {
    for (const b of out.take()) yield b;
    const more = out.copy(read, left, true);
    if (more === left) break;
    left = more;
  }
  if (left > 0) {
    out.zeros(left);
    await error(r, `${name}: File shrank by ${left} bytes; padding with zeros`);
  }
  out.pad(size);
  if (out.pending > 0) for (const b of out.take()) yield b;
}
