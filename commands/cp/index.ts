import type { Stats } from 'node:fs';
import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import {
  NO_BACKUP_CONTROL, OperandError, UMASK, backupName, backupOptions, destNotOlder, errnoOf, isDotOrDotDot, lastComponent,
  planTargets, Prompter, quoteAlways, reasonOf, renameAside, sameFile, type BackupOptions,
} from '../../src/gnulib/fileops.js';
import { VfsError, type AtomicWriter } from '../../src/vfs/index.js';
import { walk, type WalkEvent } from '../../src/vfs/walk.js';

interface CpOptions {
  recursive: boolean;
  preserve: boolean;
  /** -a: a destination with several hard links is removed first (GNU's --preserve=links). */
  links: boolean;
  noClobber: boolean;
  /** -i: ask before overwriting (the answers read from standard input). */
  interactive: boolean;
  force: boolean;
  verbose: boolean;
  /** -u: a file is copied only over an older one. */
  update: boolean;
  backup: BackupOptions;
  /** --parents: DEST is DIRECTORY/SOURCE, the missing folders between made first. */
  parents: boolean;
}

/** A file met by name: GNU's F_triple (name, device, inode). */
interface Seen { name: string; st: Stats }

/** One cp invocation, with GNU copy.c's bookkeeping. */
interface CopyRun {
  ctx: CommandContext;
  o: CpOptions;
  prompt: Prompter;
  /** src_to_dest: a directory's (dev, ino) -> the destination name it was copied to. */
  copied: Map<string, string>;
  /** src_info / dest_info: kept only when two or more SOURCEs go into a directory. */
  sources: Seen[] | null;
  dests: Seen[] | null;
  /**
   * The command-line pair being copied, whether a directory was made for it yet, and
   * whether it met its own copy (then every directory being copied stops, as GNU's).
   */
  top: { src: string; dst: string; madeDir: boolean; intoSelf: boolean; noName: boolean };
  /**
   * --parents: GNU's new_dst, set when the last folder before a DEST was made (or cleared when
   * it existed) and kept for the next SOURCE without folders: that DEST is then taken to be
   * missing (GNU 9.1 fails with 'File exists' when it is not).
   */
  newDst: boolean;
}

export default defineCommand({
  name: 'cp',
  summary: 'Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.',
  usage: 'SOURCE... DEST',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', long: 'archive', help: 'same as -rp here (symbolic links are skipped, hard links copied as separate files)' },
    { key: 'backup', long: 'backup', kind: 'optional', arg: 'CONTROL', value: NO_BACKUP_CONTROL, help: 'make a backup of each existing destination file (renamed aside)' },
    { key: 'backup', short: 'b', value: NO_BACKUP_CONTROL, help: 'like --backup but does not accept an argument' },
    { key: 'f', short: 'f', long: 'force', help: 'if an existing destination file cannot be written (several hard links), remove it and try again' },
    { key: 'overwrite', short: 'i', long: 'interactive', value: 'interactive', help: 'prompt before overwrite (on standard error; the answers are lines of standard input, y or Y for yes; overrides a previous -n)' },
    { key: 'overwrite', short: 'n', long: 'no-clobber', value: 'no-clobber', help: 'do not overwrite an existing file (overrides a previous -i)' },
    { key: 'parents', long: 'parents', help: 'use full source file name under DIRECTORY' },
    { key: 'P', short: 'P', long: 'no-dereference', help: 'never follow symbolic links in SOURCE (what nosh does with -r; accepted)' },
    { key: 'p', short: 'p', help: 'preserve mode and timestamps' },
    { key: 'r', short: 'r', long: 'recursive', help: 'copy directories recursively' },
    { key: 'r', short: 'R', help: 'same as -r' },
    { key: 'S', short: 'S', long: 'suffix', kind: 'string', arg: 'SUFFIX', help: "override the usual backup suffix ('~')" },
    { key: 't', short: 't', long: 'target-directory', kind: 'string', arg: 'DIRECTORY', help: 'copy all SOURCE arguments into DIRECTORY' },
    { key: 'T', short: 'T', long: 'no-target-directory', help: 'treat DEST as a normal file' },
    { key: 'u', short: 'u', long: 'update', help: 'copy only when the SOURCE file is newer than the destination file or when the destination file is missing' },
    { key: 'v', short: 'v', long: 'verbose', help: 'explain what is being done' },
  ],
  notes: 'nosh never creates symbolic links: with -r a symbolic link met is skipped with a warning (exit 1);\n'
    + 'without -r a symbolic link SOURCE is followed only when the zone policy allows it.\n'
    + 'CONTROL: none/off, numbered/t, existing/nil (the default), simple/never. A backup is the\n'
    + 'existing destination renamed to NAME~ or NAME.~N~ beside it.',
  async run(ctx) {
    const v = ctx.values;
    const o: CpOptions = {
      recursive: v.r === true || v.a === true,
      preserve: v.p === true || v.a === true,
      links: v.a === true,
      // -i and -n: the one given last wins, as in GNU cp.
      noClobber: v.overwrite === 'no-clobber',
      interactive: v.overwrite === 'interactive',
      force: v.f === true,
      verbose: v.v === true,
      update: v.u === true,
      backup: { type: 'none', suffix: '~' },
      parents: v.parents === true,
    };
    let pairs;
    try {
      // GNU dies on a second -t while parsing; its backup checks come after, then the operands.
      if (ctx.opts.count('t') <= 1) o.backup = backupOptions(ctx.opts, o.noClobber);
      pairs = destinations(ctx);
    } catch (e) {
      if (!(e instanceof OperandError)) throw e;
      await ctx.warn(e.message);
      return 1;
    }
    const many = pairs.length >= 2;
    const r: CopyRun = { ctx, o, prompt: new Prompter(ctx), copied: new Map(), sources: many ? [] : null, dests: many ? [] : null, top: { src: '', dst: '', madeDir: false, intoSelf: false, noName: false }, newDst: false };
    let ok = true;
    for (const { src, dst, noName, srcAt } of pairs) {
      r.top = { src, dst, madeDir: false, intoSelf: false, noName: noName ?? false };
      if (srcAt !== undefined) {
        const made = await makeParents(r, dst, srcAt);
        if (made === null) ok = false;
        else if (!(await copyTop(r, src, dst))) ok = false;
        if (made && !(await reProtect(r, made))) ok = false;
        continue;
      }
      if (noName === undefined && isForcedSelfBackup(ctx, o, src, dst)) {
        // GNU's special case: 'cp --force --backup FILE FILE' is 'cp --force FILE FILE~'.
        const saved = o.backup;
        const to = backupName(ctx.fs, ctx.cwd, dst, o.backup);
        r.o = { ...o, backup: { type: 'none', suffix: saved.suffix } };
        r.top.dst = to;
        if (!(await copyTop(r, src, to))) ok = false;
        continue;
      }
      if (!(await copyTop(r, src, dst))) ok = false;
    }
    return ok ? 0 : 1;
  },
});

/**
 * The (SOURCE, DEST) pairs as GNU's do_copy names them: into a directory, DIR/BASE with the
 * directory's trailing slashes dropped (file_name_concat), and 'x/..' goes to DIR/. itself.
 */
function destinations(ctx: CommandContext): { src: string; dst: string; noName?: boolean; srcAt?: number }[] {
  const plan = planTargets(ctx, UsageError);
  const files = ctx.operands;
  const last = files[files.length - 1]!;
  const target = ctx.opts.get('t') ?? (!ctx.opts.has('T') && plan.pairs[0]?.dst !== last ? last : undefined);
  if (target === undefined && ctx.opts.has('parents')) throw new UsageError('with --parents, the destination must be a directory');
  if (target === undefined) return plan.pairs;
  if (ctx.opts.has('parents')) return plan.pairs.map(({ src }) => ({ src, ...parentsConcat(target, src) }));
  return plan.pairs.map(({ src }) => {
    const base = lastComponent(src).replace(/\/+$/, '');
    return { src, dst: fileNameConcat(target, base === '..' ? '.' : base), noName: base === '' };
  });
}

/** 'cp --force --backup FILE FILE' (the same string, an existing regular file; not into a directory). */
function isForcedSelfBackup(ctx: CommandContext, o: CpOptions, src: string, dst: string): boolean {
  if (!o.force || o.backup.type === 'none' || src !== dst) return false;
  try {
    return ctx.fs.stat(dst, ctx.cwd).isFile();
  } catch {
    return false;
  }
}

/** gnulib file_name_concat: DIR's trailing slashes dropped, one '/' before NAME. */
function fileNameConcat(dir: string, name: string): string {
  return /^\/+$/.test(dir) ? dir + name : `${dir.replace(/\/+$/, '')}/${name}`;
}

const idOf = (st: Stats) => `${st.dev}:${st.ino}`;

/**
 * --parents: gnulib file_name_concat of DIRECTORY and all of SOURCE (its trailing slashes
 * dropped): 'd' and '/a/b' give 'd/a/b'. srcAt is where SOURCE starts in the result.
 */
function parentsConcat(dir: string, src: string): { dst: string; srcAt: number } {
  const name = /^\/+$/.test(src) ? '/' : src.replace(/\/+$/, '');
  const base = lastComponent(dir).replace(/\/+$/, '');
  const head = dir.slice(0, dir.length - lastComponent(dir).length) + base;
  if (base === '') {
    // DIRECTORY is the root: one leading slash of SOURCE is skipped.
    const rest = name.startsWith('/') ? name.slice(1) : name;
    return { dst: head + rest, srcAt: head.length };
  }
  const sep = name.startsWith('/') ? '' : '/';
  return { dst: head + sep + name, srcAt: head.length + sep.length };
}

/** gnulib dir_len: the length of PATH's leading directories, without the slashes before the last name. */
function dirLen(path: string): number {
  const prefix = path.startsWith('/') ? 1 : 0;
  let len = path.length - lastComponent(path).length;
  while (prefix < len && path[len - 1] === '/') len--;
  return len;
}

/** A folder met by --parents whose mode or times are set after the copy (GNU's dir_attr). */
interface DirAttr { path: string; st: Stats; mode: number; restoreMode: boolean }

/**
 * GNU's make_dir_parents_private: each missing folder of DEST after DIRECTORY is made with
 * its source folder's mode (and -v prints 'SRC -> DEST', unquoted). Null on an error; else
 * the folders whose attributes re_protect sets after the copy (deepest first).
 */
async function makeParents(r: CopyRun, dst: string, srcAt: number): Promise<DirAttr[] | null> {
  const { ctx, o } = r;
  const attrs: DirAttr[] = [];
  const len = dirLen(dst);
  if (len <= srcAt) return attrs;
  const statOf = (p: string): Stats | null => {
    try {
      return ctx.fs.stat(p, ctx.cwd);
    } catch {
      return null;
    }
  };
  const dstDir = dst.slice(0, len);
  const whole = statOf(dstDir);
  if (whole) {
    // All the folders exist: nothing is made or changed (not even with -p), as GNU's.
    if (!whole.isDirectory()) {
      await ctx.warn(`${quoteAlways(dstDir)} exists but is not a directory`);
      return null;
    }
    r.newDst = false;
    return attrs;
  }
  let slash = srcAt;
  while (dst[slash] === '/') slash++;
  while ((slash = dst.indexOf('/', slash)) !== -1) {
    const dir = dst.slice(0, slash);
    const src = dst.slice(srcAt, slash);
    const have = statOf(dir);
    let attr: DirAttr | null = null;
    if (!have || o.preserve) {
      let st: Stats;
      try {
        st = ctx.fs.stat(src, ctx.cwd);
        if (!st.isDirectory()) throw new VfsError('ENOTDIR', src);
      } catch (e) {
        await ctx.warn(`failed to get attributes of ${quoteAlways(src)}: ${reasonOf(e)}`);
        return null;
      }
      attr = { path: dir, st, mode: st.mode & 0o7777, restoreMode: false };
      attrs.unshift(attr);
    }
    if (!have) {
      r.newDst = true;
      const srcMode = attr!.mode;
      // -p: group and other write are left out until the copy is done.
      const omitted = o.preserve ? srcMode & 0o022 : 0;
      let mode: number;
      try {
        ctx.fs.mkdir(dir, ctx.cwd);
        // mkdir(2) with the source's mode: the umask applies, the sticky bit is kept.
        mode = srcMode & 0o1777 & ~omitted & ~UMASK;
        ctx.fs.chmod(dir, mode, ctx.cwd);
      } catch (e) {
        await ctx.warn(`cannot make directory ${quoteAlways(dir)}: ${reasonOf(e)}`);
        return null;
      }
      if (o.verbose) await ctx.stdout.write(`${src} -> ${dir}\n`);
      if (!o.preserve && (mode & 0o700) !== 0o700) {
        attr!.mode = mode;
        attr!.restoreMode = true;
      }
      if ((mode | 0o700) !== mode) {
        try {
          ctx.fs.chmod(dir, mode | 0o700, ctx.cwd);
        } catch (e) {
          await ctx.warn(`setting permissions for ${quoteAlways(dir)}: ${reasonOf(e)}`);
          return null;
        }
      }
    } else if (!have.isDirectory()) {
      await ctx.warn(`${quoteAlways(dir)} exists but is not a directory`);
      return null;
    } else {
      r.newDst = false;
    }
    while (dst[slash] === '/') slash++;
  }
  return attrs;
}

/** GNU's re_protect: after the copy, -p gives each folder its source's times and mode; a folder made without u+rwx gets its mode back. */
async function reProtect(r: CopyRun, attrs: DirAttr[]): Promise<boolean> {
  const { ctx, o } = r;
  for (const { path, st, mode, restoreMode } of attrs) {
    if (o.preserve) {
      try {
        ctx.fs.utimes(path, st.atimeMs / 1000, st.mtimeMs / 1000, ctx.cwd);
      } catch (e) {
        await ctx.warn(`failed to preserve times for ${quoteAlways(path)}: ${reasonOf(e)}`);
        return false;
      }
    }
    if (o.preserve || restoreMode) {
      try {
        ctx.fs.chmod(path, mode, ctx.cwd);
      } catch (e) {
        await ctx.warn(`${o.preserve ? 'preserving' : 'failed to preserve'} permissions for ${quoteAlways(path)}: ${reasonOf(e)}`);
        return false;
      }
    }
  }
  return true;
}

/** gnulib dir_name: the leading directories without trailing slashes, '.' if none. */
function dirName(path: string): string {
  const lead = path.slice(0, path.length - lastComponent(path).length).replace(/\/+$/, '');
  return lead || (path.startsWith('/') ? '/' : '.');
}

/** gnulib same_name: the same last component in the same directory. */
function sameName(ctx: CommandContext, a: string, b: string): boolean {
  if (lastComponent(a).replace(/\/+$/, '') !== lastComponent(b).replace(/\/+$/, '')) return false;
  try {
    return sameFile(ctx.fs.lstat(dirName(a), ctx.cwd), ctx.fs.lstat(dirName(b), ctx.cwd));
  } catch {
    return false;
  }
}

const seen = (r: CopyRun, list: Seen[], name: string, st: Stats) => list.some((s) => sameFile(s.st, st) && sameName(r.ctx, s.name, name));

async function copyTop(r: CopyRun, src: string, dst: string): Promise<boolean> {
  const { ctx, o } = r;
  let st;
  try {
    st = ctx.fs.resolveExisting(src, ctx.cwd, { followFinal: !o.recursive && ctx.fs.policy.followSymlinks }).stat;
    if (/\/$/.test(src) && !st.isDirectory()) throw new VfsError(st.isSymbolicLink() ? 'ESYMLINK' : 'ENOTDIR', src);
  } catch (e) {
    await ctx.warn(`cannot stat ${quoteAlways(src)}: ${reasonOf(e)}`);
    return false;
  }
  return copyEntry(r, src, dst, st, true);
}

/**
 * The walk a recursive copy reads the source tree from (one per SOURCE directory), and the
 * event of the entry being copied in it: a directory copied is opened through its parent.
 */
interface Cursor { events: Generator<WalkEvent, void, undefined>; at: WalkEvent }

/** GNU's copy_internal for one entry whose (l)stat is known; recursion for directories. */
async function copyEntry(r: CopyRun, src: string, dst: string, st: Stats, commandLine: boolean, cursor?: Cursor): Promise<boolean> {
  const { ctx, o } = r;
  if (ctx.signal.aborted) throw new VfsError('EINTR', src);
  if (st.isSymbolicLink()) {
    if (o.recursive) {
      await ctx.warn(`not copying symbolic link ${quoteAlways(src)}: nosh does not create symbolic links`);
    } else {
      await ctx.warn(`cannot stat ${quoteAlways(src)}: ${new VfsError('ESYMLINK', src).reason}`);
    }
    return false;
  }
  const isDir = st.isDirectory();
  if (isDir && !o.recursive) {
    await ctx.warn(`-r not specified; omitting directory ${quoteAlways(src)}`);
    return false;
  }
  if (!isDir && !st.isFile()) {
    await ctx.warn(`cannot copy special file ${quoteAlways(src)}: ${new VfsError('ESPECIAL', src).reason}`);
    return false;
  }
  const backups = o.backup.type !== 'none';
  if (commandLine && r.sources && !isDir) {
    // With backups a SOURCE named twice is copied twice (the first copy is backed up).
    if (!backups && seen(r, r.sources, src, st)) {
      await ctx.warn(`warning: source file ${quoteAlways(src)} specified more than once`);
      return true;
    }
    r.sources.push({ name: src, st });
  }
  let dstStat: Stats | null;
  // --parents: GNU's new_dst skips looking at DEST (see CopyRun.newDst).
  const assumeNew = commandLine && o.parents && r.newDst;
  if (assumeNew) dstStat = null;
  else {
    try {
      // A file is copied through a symbolic link DEST (if the policy follows links); a
      // directory meets the link itself, as GNU's lstat; so does a backup (the link is renamed).
      dstStat = ctx.fs.resolve(dst, ctx.cwd, { followFinal: !isDir && !backups && ctx.fs.policy.followSymlinks }).stat;
      if (dstStat && /\/$/.test(dst) && !dstStat.isDirectory()) throw new VfsError('ENOTDIR', dst);
    } catch (e) {
      // A missing parent is reported when the copy is created.
      if (errnoOf(e) === 'ENOENT') dstStat = null;
      else {
        await ctx.warn(`cannot stat ${quoteAlways(dst)}: ${reasonOf(e)}`);
        return false;
      }
    }
  }
  let backup: string | null = null;
  if (dstStat) {
    // -n never compares: an existing file is left alone, a directory merged. With backups
    // another name of the same file is fine (it is renamed aside), the same name is not.
    if (!o.noClobber && sameFile(dstStat, st) && !(backups && !sameName(ctx, src, dst))) {
      await ctx.warn(`${quoteAlways(src)} and ${quoteAlways(dst)} are the same file`);
      return false;
    }
    // -u: a destination at least as new is left alone (a directory is always merged).
    if (o.update && !isDir && destNotOlder(ctx.fs, ctx.cwd, src, st, dst, dstStat, !o.recursive, !backups)) return true;
    if (o.noClobber && !isDir) return true;
    if (o.interactive && !isDir && !(await r.prompt.overwrite(dst))) return true;
    if (!dstStat.isDirectory()) {
      if (isDir) {
        await ctx.warn(`cannot overwrite non-directory ${quoteAlways(dst)} with directory ${quoteAlways(src)}`);
        return false;
      }
      if (commandLine && r.dests && o.backup.type !== 'numbered' && seen(r, r.dests, dst, dstStat)) {
        await ctx.warn(`will not overwrite just-created ${quoteAlways(dst)} with ${quoteAlways(src)}`);
        return false;
      }
    } else if (!isDir) {
      await ctx.warn(`cannot overwrite directory ${quoteAlways(dst)} with non-directory`);
      return false;
    }
    // A file about to be replaced is renamed aside first (GNU's backup_file_rename); a
    // directory being merged into is not.
    if (backups && !isDotOrDotDot(lastComponent(src)) && !dstStat.isDirectory()) {
      backup = await renameAside(ctx, src, st, dst, o.backup, 'copied');
      if (backup === null) return false;
      dstStat = null;
    }
  }
  if (dstStat && o.links && !isDir && dstStat.nlink > 1) {
    try {
      ctx.fs.unlink(dst, ctx.cwd);
    } catch (e) {
      await ctx.warn(`cannot remove ${quoteAlways(dst)}: ${reasonOf(e)}`);
      return false;
    }
    dstStat = null;
    if (o.verbose) await ctx.stdout.write(`removed ${quoteAlways(dst)}\n`);
  }
  let ok: boolean;
  if (isDir && commandLine && r.top.noName) {
    // '/' into DIR: GNU makes DIR/ by the empty name after DIR, which mkdirat refuses.
    await ctx.warn(`cannot create directory ${quoteAlways(dst)}: No such file or directory`);
    return false;
  }
  if (isDir) {
    // Each directory copied is remembered: meeting it again is a copy into itself (the
    // directory just made for this SOURCE), a repeated SOURCE, or a hard link to a directory.
    const id = idOf(st);
    const earlier = r.copied.get(id);
    if (earlier === undefined) {
      if (commandLine) r.copied.set(id, dst);
    } else if (sameName(ctx, src, earlier)) {
      await ctx.warn(`cannot copy a directory, ${quoteAlways(r.top.src)}, into itself, ${quoteAlways(r.top.dst)}`);
      r.top.intoSelf = true;
      return false;
    } else if (sameName(ctx, dst, earlier)) {
      await ctx.warn(`warning: source directory ${quoteAlways(r.top.src)} specified more than once`);
      return true;
    } else {
      await ctx.warn(`will not create hard link ${quoteAlways(dst)} to directory ${quoteAlways(earlier)}`);
      return false;
    }
    ok = await copyDir(r, src, dst, st, dstStat, cursor);
    if (!ok && earlier === undefined && commandLine && !ctx.fs.exists(dst, ctx.cwd)) r.copied.delete(id);
  } else {
    // GNU announces a file before copying it (the copy may still fail).
    if (o.verbose) await ctx.stdout.write(`${quoteAlways(src)} -> ${quoteAlways(dst)}${backup ? ` (backup: ${quoteAlways(backup)})` : ''}\n`);
    ok = assumeNew && isPresent(ctx, dst)
      ? (await ctx.warn(`cannot create regular file ${quoteAlways(dst)}: File exists`), false)
      : await copyFile(r, src, dst, st, dstStat);
    if (!ok && backup) {
      // GNU's un_backup: the backup is renamed back when the copy failed.
      try {
        ctx.fs.rename(backup, dst, ctx.cwd);
        if (o.verbose) await ctx.stdout.write(`${quoteAlways(backup)} -> ${quoteAlways(dst)} (unbackup)\n`);
      } catch (e) {
        await ctx.warn(`cannot un-backup ${quoteAlways(dst)}: ${reasonOf(e)}`);
      }
    }
  }
  if (commandLine && r.dests) {
    try {
      r.dests.push({ name: dst, st: ctx.fs.lstat(dst, ctx.cwd) });
    } catch {
      // not created
    }
  }
  return ok;
}

async function copyDir(r: CopyRun, src: string, dst: string, st: Stats, dstStat: Stats | null, cursor?: Cursor): Promise<boolean> {
  const { ctx, o } = r;
  const created = !dstStat;
  if (created) {
    try {
      if (isDotOrDotDot(lastComponent(dst))) throw new VfsError('ENOENT', dst);
      ctx.fs.mkdir(dst, ctx.cwd);
    } catch (e) {
      await ctx.warn(`cannot create directory ${quoteAlways(dst)}: ${reasonOf(e)}`);
      return false;
    }
    if (!r.top.madeDir) {
      r.top.madeDir = true;
      r.copied.set(idOf(ctx.fs.lstat(dst, ctx.cwd)), dst);
    }
    if (o.verbose) await ctx.stdout.write(`${quoteAlways(src)} -> ${quoteAlways(dst)}\n`);
  }
  // This directory's place in the SOURCE's walk, or a walk of its own (the SOURCE itself,
  // or a name listed as something else that is a directory by now).
  let events: Generator<WalkEvent, void, undefined>;
  let depth = 0;
  let own: Generator<WalkEvent, void, undefined> | undefined;
  if (cursor?.at.kind === 'pre') {
    ({ events, at: { depth } } = cursor);
    cursor.at.skip = false;
  } else {
    events = own = walk(ctx.fs, src, ctx.cwd, { order: 'directory', listEvents: true, postOrder: true });
    events.next(); // its 'pre': nothing read yet
  }
  let ok = true;
  try {
    const listed = events.next().value;
    if (!listed || listed.kind !== 'list') {
      await ctx.warn(`cannot access ${quoteAlways(src)}: ${reasonOf(listed?.error)}`);
      return false;
    }
    // GNU reads a directory's names, then copies them in inode order (savedir's fast-read
    // order); each is stat'ed when its turn comes (a directory's time may change meanwhile).
    const dir = listed.handle!;
    const inoOf = (name: string) => {
      try {
        return ctx.fs.lstatAt(dir, name)?.ino ?? 0;
      } catch {
        return 0;
      }
    };
    listed.entries = listed.entries!.map((e) => ({ e, ino: inoOf(e.name) })).sort((a, b) => a.ino - b.ino).map((x) => x.e);
    for (let next = events.next(); !next.done; next = events.next()) {
      const ev = next.value;
      // Its own 'post' ends it; a child directory not copied as one (skipped) has one too.
      if (ev.kind === 'post') {
        if (ev.depth === depth) break;
        continue;
      }
      // A child directory is opened only if copyDir is called for it.
      if (ev.kind === 'pre') ev.skip = true;
      const from = fileNameConcat(src, ev.name);
      let cst;
      try {
        cst = ctx.fs.lstatAt(ev.dir!, ev.name);
        if (!cst) throw new VfsError('ENOENT', from);
      } catch (e) {
        await ctx.warn(`cannot stat ${quoteAlways(from)}: ${reasonOf(e)}`);
        ok = false;
        continue;
      }
      if (!(await copyEntry(r, from, fileNameConcat(dst, ev.name), cst, false, { events, at: ev }))) ok = false;
      if (r.top.intoSelf) break;
    }
  } finally {
    own?.return();
  }
  try {
    if (o.preserve) {
      ctx.fs.chmod(dst, preservedMode(st, created ? null : dstStat), ctx.cwd);
      ctx.fs.utimes(dst, st.atimeMs / 1000, st.mtimeMs / 1000, ctx.cwd);
    } else if (created) {
      // mkdir(2) with the source's mode: the umask applies, the sticky bit is kept.
      ctx.fs.chmod(dst, st.mode & 0o1777 & ~UMASK, ctx.cwd);
    }
  } catch (e) {
    await ctx.warn(`preserving permissions for ${quoteAlways(dst)}: ${reasonOf(e)}`);
    ok = false;
  }
  return ok;
}

async function copyFile(r: CopyRun, src: string, dst: string, st: Stats, dstStat: Stats | null): Promise<boolean> {
  const { ctx, o } = r;
  if (!dstStat && ctx.fs.policy.followSymlinks && isSymlink(ctx, dst)) {
    await ctx.warn(`not writing through dangling symlink ${quoteAlways(dst)}`);
    return false;
  }
  if (!dstStat && isDotOrDotDot(lastComponent(dst))) {
    await ctx.warn(`cannot create regular file ${quoteAlways(dst)}: No such file or directory`);
    return false;
  }
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
  if (o.preserve) {
    try {
      ctx.fs.chmod(dst, preservedMode(st, dstStat), ctx.cwd);
      ctx.fs.utimes(dst, st.atimeMs / 1000, st.mtimeMs / 1000, ctx.cwd);
    } catch (e) {
      await ctx.warn(`preserving times for ${quoteAlways(dst)}: ${reasonOf(e)}`);
      return false;
    }
  }
  return true;
}

function isPresent(ctx: CommandContext, path: string): boolean {
  try {
    return ctx.fs.lstat(path, ctx.cwd) !== null;
  } catch {
    return false;
  }
}

function isSymlink(ctx: CommandContext, path: string): boolean {
  try {
    return ctx.fs.resolve(path, ctx.cwd).stat?.isSymbolicLink() ?? false;
  } catch {
    return false;
  }
}

/**
 * -p: the source's mode. GNU sets it as an ACL, which leaves the special bits (sticky here)
 * of an existing destination alone when the source has none.
 */
function preservedMode(src: Stats, dst: Stats | null): number {
  return src.mode & 0o7000 ? src.mode & 0o7777 : (src.mode & 0o777) | ((dst?.mode ?? 0) & 0o7000);
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
