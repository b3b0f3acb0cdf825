import type { Stats } from 'node:fs';
import { defineCommand, type CommandContext } from '../src/command/index.js';
import {
  UMASK, errnoOf, forEachTarget, quoteAlways, reasonOf, sameFile,
} from '../src/command/fileops.js';
import { VfsError, type AtomicWriter } from '../src/vfs/index.js';

interface CpOptions {
  recursive: boolean;
  preserve: boolean;
  noClobber: boolean;
  force: boolean;
  verbose: boolean;
}

export default defineCommand({
  name: 'cp',
  summary: 'Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.',
  usage: 'SOURCE... DEST',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', long: 'archive', help: 'same as -rp here (symbolic links are skipped, hard links copied as separate files)' },
    { key: 'f', short: 'f', long: 'force', help: 'if an existing destination file cannot be written (several hard links), remove it and try again' },
    { key: 'n', short: 'n', long: 'no-clobber', help: 'do not overwrite an existing file' },
    { key: 'p', short: 'p', help: 'preserve mode and timestamps' },
    { key: 'r', short: 'r', long: 'recursive', help: 'copy directories recursively' },
    { key: 'r', short: 'R', help: 'same as -r' },
    { key: 't', short: 't', long: 'target-directory', kind: 'string', arg: 'DIRECTORY', help: 'copy all SOURCE arguments into DIRECTORY' },
    { key: 'T', short: 'T', long: 'no-target-directory', help: 'treat DEST as a normal file' },
    { key: 'v', short: 'v', long: 'verbose', help: 'explain what is being done' },
  ],
  notes: 'nosh never creates symbolic links: with -r a symbolic link met is skipped with a warning (exit 1);\n'
    + 'without -r a symbolic link SOURCE is followed only when the zone policy allows it.',
  async run(ctx) {
    const o: CpOptions = {
      recursive: ctx.opts.has('r') || ctx.opts.has('a'),
      preserve: ctx.opts.has('p') || ctx.opts.has('a'),
      noClobber: ctx.opts.has('n'),
      force: ctx.opts.has('f'),
      verbose: ctx.opts.has('v'),
    };
    return forEachTarget(ctx, (src, dst) => copyTop(ctx, src, dst, o));
  },
});

function childOf(dir: string, name: string): string {
  return (dir.endsWith('/') && dir.length > 1 ? dir.slice(0, -1) : dir) + '/' + name;
}

async function copyTop(ctx: CommandContext, src: string, dst: string, o: CpOptions): Promise<boolean> {
  let s;
  try {
    s = ctx.fs.resolveExisting(src, ctx.cwd, { followFinal: !o.recursive && ctx.fs.policy.followSymlinks });
    if (/\/$/.test(src) && !s.stat.isDirectory()) throw new VfsError(s.stat.isSymbolicLink() ? 'ESYMLINK' : 'ENOTDIR', src);
  } catch (e) {
    await ctx.warn(`cannot stat ${quoteAlways(src)}: ${reasonOf(e)}`);
    return false;
  }
  if (s.stat.isDirectory()) {
    if (!o.recursive) {
      await ctx.warn(`-r not specified; omitting directory ${quoteAlways(src)}`);
      return false;
    }
    let d;
    try {
      d = ctx.fs.resolve(dst, ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks });
    } catch (e) {
      await ctx.warn(`cannot stat ${quoteAlways(dst)}: ${reasonOf(e)}`);
      return false;
    }
    if (d.stat && sameFile(d.stat, s.stat)) {
      await ctx.warn(`${quoteAlways(src)} and ${quoteAlways(dst)} are the same file`);
      return false;
    }
    if (d.vpath.startsWith(s.vpath === '/' ? '/' : s.vpath + '/')) {
      await ctx.warn(`cannot copy a directory, ${quoteAlways(src)}, into itself, ${quoteAlways(dst)}`);
      return false;
    }
  }
  return copyEntry(ctx, src, dst, s.stat, o);
}

/** Copy one entry whose (l)stat is known; recursion for directories. */
async function copyEntry(ctx: CommandContext, src: string, dst: string, st: Stats, o: CpOptions): Promise<boolean> {
  if (ctx.signal.aborted) throw new VfsError('EINTR', src);
  if (st.isSymbolicLink()) {
    if (o.recursive) {
      await ctx.warn(`not copying symbolic link ${quoteAlways(src)}: nosh does not create symbolic links`);
    } else {
      await ctx.warn(`cannot stat ${quoteAlways(src)}: ${new VfsError('ESYMLINK', src).reason}`);
    }
    return false;
  }
  if (!st.isDirectory() && !st.isFile()) {
    await ctx.warn(`cannot copy special file ${quoteAlways(src)}: ${new VfsError('ESPECIAL', src).reason}`);
    return false;
  }
  let dstStat: Stats | null;
  try {
    dstStat = ctx.fs.resolve(dst, ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks }).stat;
    if (dstStat && /\/$/.test(dst) && !dstStat.isDirectory()) throw new VfsError('ENOTDIR', dst);
  } catch (e) {
    // A missing parent is reported when the copy is created.
    if (errnoOf(e) === 'ENOENT') dstStat = null;
    else {
      await ctx.warn(`cannot stat ${quoteAlways(dst)}: ${reasonOf(e)}`);
      return false;
    }
  }
  if (dstStat && sameFile(dstStat, st)) {
    await ctx.warn(`${quoteAlways(src)} and ${quoteAlways(dst)} are the same file`);
    return false;
  }
  return st.isDirectory() ? copyDir(ctx, src, dst, st, dstStat, o) : copyFile(ctx, src, dst, st, dstStat, o);
}

async function copyDir(ctx: CommandContext, src: string, dst: string, st: Stats, dstStat: Stats | null, o: CpOptions): Promise<boolean> {
  if (dstStat && !dstStat.isDirectory()) {
    await ctx.warn(`cannot overwrite non-directory ${quoteAlways(dst)} with directory ${quoteAlways(src)}`);
    return false;
  }
  const created = !dstStat;
  if (created) {
    try {
      ctx.fs.mkdir(dst, ctx.cwd);
    } catch (e) {
      await ctx.warn(`cannot create directory ${quoteAlways(dst)}: ${reasonOf(e)}`);
      return false;
    }
    if (o.verbose) await ctx.stdout.write(`${quoteAlways(src)} -> ${quoteAlways(dst)}\n`);
  }
  let entries;
  try {
    entries = ctx.fs.readdir(src, ctx.cwd);
  } catch (e) {
    await ctx.warn(`cannot access ${quoteAlways(src)}: ${reasonOf(e)}`);
    return false;
  }
  // GNU reads a directory's names, then copies them in inode order (savedir's fast-read order).
  const children: { name: string; st: Stats }[] = [];
  let ok = true;
  for (const ent of entries) {
    try {
      children.push({ name: ent.name, st: ctx.fs.lstat(childOf(src, ent.name), ctx.cwd) });
    } catch (e) {
      await ctx.warn(`cannot stat ${quoteAlways(childOf(src, ent.name))}: ${reasonOf(e)}`);
      ok = false;
    }
  }
  children.sort((a, b) => a.st.ino - b.st.ino);
  for (const c of children) {
    if (!(await copyEntry(ctx, childOf(src, c.name), childOf(dst, c.name), c.st, o))) ok = false;
  }
  try {
    if (o.preserve) {
      ctx.fs.chmod(dst, st.mode & 0o7777, ctx.cwd);
      ctx.fs.utimes(dst, st.atimeMs / 1000, st.mtimeMs / 1000, ctx.cwd);
    } else if (created && (st.mode & 0o777 & ~UMASK) !== 0o755) {
      ctx.fs.chmod(dst, st.mode & 0o777 & ~UMASK, ctx.cwd);
    }
  } catch (e) {
    await ctx.warn(`preserving permissions for ${quoteAlways(dst)}: ${reasonOf(e)}`);
    ok = false;
  }
  return ok;
}

async function copyFile(ctx: CommandContext, src: string, dst: string, st: Stats, dstStat: Stats | null, o: CpOptions): Promise<boolean> {
  if (dstStat?.isDirectory()) {
    await ctx.warn(`cannot overwrite directory ${quoteAlways(dst)} with non-directory`);
    return false;
  }
  if (dstStat && o.noClobber) return true;
  if (!dstStat && /\/$/.test(dst)) {
    // open("dir/x/", O_CREAT) fails on the missing parent first (ENOENT), else on the slash.
    const parent = dst.replace(/\/+$/, '').replace(/[^/]*$/, '') || '.';
    await ctx.warn(`cannot create regular file ${quoteAlways(dst)}: ${ctx.fs.exists(parent, ctx.cwd) ? 'Not a directory' : 'No such file or directory'}`);
    return false;
  }
  let writer: AtomicWriter;
  try {
    writer = openWriter(ctx, dst, st, o);
  } catch (e) {
    await ctx.warn(`cannot create regular file ${quoteAlways(dst)}: ${reasonOf(e)}`);
    return false;
  }
  // Streamed chunk by chunk into a temp file; renamed over DEST only when complete.
  let reading = true;
  try {
    for (const chunk of ctx.fs.readChunks(src, ctx.cwd)) {
      reading = false;
      writer.write(chunk);
      reading = true;
      if (ctx.signal.aborted) throw new VfsError('EINTR', dst);
    }
    reading = false;
    writer.commit();
  } catch (e) {
    writer.abort();
    const what = reading ? `error reading ${quoteAlways(src)}` : `error writing ${quoteAlways(dst)}`;
    await ctx.warn(`${what}: ${reasonOf(e)}`);
    return false;
  }
  if (o.verbose) await ctx.stdout.write(`${quoteAlways(src)} -> ${quoteAlways(dst)}\n`);
  if (o.preserve) {
    try {
      ctx.fs.chmod(dst, st.mode & 0o7777, ctx.cwd);
      ctx.fs.utimes(dst, st.atimeMs / 1000, st.mtimeMs / 1000, ctx.cwd);
    } catch (e) {
      await ctx.warn(`preserving times for ${quoteAlways(dst)}: ${reasonOf(e)}`);
      return false;
    }
  }
  return true;
}

function openWriter(ctx: CommandContext, dst: string, st: Stats, o: CpOptions): AtomicWriter {
  try {
    return ctx.fs.createWriter(dst, ctx.cwd, { mode: st.mode & 0o777 });
  } catch (e) {
    // -f: a destination that cannot be written through (several hard links) is removed first.
    if (o.force && errnoOf(e) === 'EHARDLINK') {
      ctx.fs.unlink(dst, ctx.cwd);
      return ctx.fs.createWriter(dst, ctx.cwd, { mode: st.mode & 0o777 });
    }
    throw e;
  }
}

