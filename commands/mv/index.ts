import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import {
  NO_BACKUP_CONTROL, OperandError, backupOptions, destNotOlder, errnoOf, isDotOrDotDot, lastComponent, planTargets,
  Prompter, quoteAlways, renameAside, sameFile, type BackupOptions,
} from '../../src/gnulib/fileops.js';
import { moveAcross } from '../../src/gnulib/move-across.js';
import { VfsError } from '../../src/vfs/index.js';
import type { Stats } from 'node:fs';

interface MvOptions {
  noClobber: boolean;
  /** -i: ask before overwriting (the answers read from standard input). */
  interactive: boolean;
  verbose: boolean;
  /** -u: a file is moved only over an older one. */
  update: boolean;
  backup: BackupOptions;
}

/** What GNU mv remembers across the SOURCE operands of one command. */
interface MvState {
  /** dev:ino of files renamed so far (not the last): never overwritten by a later SOURCE. */
  created: Set<string>;
  /** dev:ino of each source directory met, and the destination it was meant for. */
  dirs: Map<string, string>;
  prompt: Prompter;
}

export default defineCommand({
  name: 'mv',
  summary: 'Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY (inside the zone).',
  usage: 'SOURCE... DEST',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'backup', long: 'backup', kind: 'optional', arg: 'CONTROL', value: NO_BACKUP_CONTROL, help: 'make a backup of each existing destination file (renamed aside)' },
    { key: 'backup', short: 'b', value: NO_BACKUP_CONTROL, help: 'like --backup but does not accept an argument' },
    { key: 'overwrite', short: 'f', long: 'force', value: 'force', help: 'do not prompt before overwriting' },
    { key: 'overwrite', short: 'i', long: 'interactive', value: 'interactive', help: 'prompt before overwrite (on standard error; the answers are lines of standard input, y or Y for yes)' },
    { key: 'overwrite', short: 'n', long: 'no-clobber', value: 'no-clobber', help: 'do not overwrite an existing file' },
    { key: 'S', short: 'S', long: 'suffix', kind: 'string', arg: 'SUFFIX', help: "override the usual backup suffix ('~')" },
    { key: 't', short: 't', long: 'target-directory', kind: 'string', arg: 'DIRECTORY', help: 'move all SOURCE arguments into DIRECTORY' },
    { key: 'T', short: 'T', long: 'no-target-directory', help: 'treat DEST as a normal file' },
    { key: 'u', short: 'u', long: 'update', help: 'move only when the SOURCE file is newer than the destination file or when the destination file is missing' },
    { key: 'v', short: 'v', long: 'verbose', help: 'explain what is being done' },
  ],
  notes: '-f, -i and -n: the one given last wins.\n'
    + 'CONTROL: none/off, numbered/t, existing/nil (the default), simple/never. A backup is the\n'
    + 'existing destination renamed to NAME~ or NAME.~N~ beside it.',
  async run(ctx) {
    // -f and -n: the one given last wins, as in GNU mv.
    const o: MvOptions = {
      noClobber: ctx.values.overwrite === 'no-clobber', interactive: ctx.values.overwrite === 'interactive',
      verbose: ctx.values.v === true, update: ctx.values.u === true, backup: { type: 'none', suffix: '~' },
    };
    let pairs;
    try {
      // GNU dies on a second -t while parsing; its backup checks come after, then the operands.
      if (ctx.opts.count('t') <= 1) o.backup = backupOptions(ctx.opts, o.noClobber);
      pairs = planTargets(ctx, UsageError).pairs;
    } catch (e) {
      if (!(e instanceof OperandError)) throw e;
      await ctx.warn(e.message);
      return 1;
    }
    const state: MvState = { created: new Set(), dirs: new Map(), prompt: new Prompter(ctx) };
    let ok = true;
    for (let i = 0; i < pairs.length; i++) {
      const { src, dst, name } = pairs[i]!;
      if (!(await moveOne(ctx, src, dst, o, state, i === pairs.length - 1, name === ''))) ok = false;
    }
    return ok ? 0 : 1;
  },
});

/**
 * GNU mv (copy.c, move mode): first rename(2) with RENAME_NOREPLACE; when that fails, stat
 * both ends, refuse what must not be overwritten, then rename again (replacing) and report
 * what rename(2) says. The renames are emulated from what the Vfs resolves, then done by it.
 */
async function moveOne(ctx: CommandContext, src: string, dst: string, o: MvOptions, state: MvState, last: boolean, noName: boolean): Promise<boolean> {
  const q = (p: string) => quoteAlways(p);
  // SOURCE '/' into a directory: GNU renames to the empty name inside it, which does not exist.
  if (noName) {
    try {
      statSlash(ctx, src);
    } catch (e) {
      await ctx.warn(`cannot stat ${q(src)}: ${reasonOf(e)}`);
      return false;
    }
    await ctx.warn(`cannot move ${q(src)} to ${q(dst)}: No such file or directory`);
    return false;
  }
  const backups = o.backup.type !== 'none';
  let backup: string | null = null;
  let err = renameErrno(ctx, src, dst, true);
  // -n: the destination exists, nothing more is looked at.
  if (err === 'EEXIST' && o.noClobber) return true;
  let s: Stats | undefined;
  if (err !== null || !last) {
    const name = err === null ? dst : src;
    try {
      s = statSlash(ctx, src);
    } catch (e) {
      await ctx.warn(`cannot stat ${q(name)}: ${reasonOf(e)}`);
      return false;
    }
  }
  if (err !== null) {
    let d: Stats | null = null;
    try {
      d = statSlash(ctx, dst);
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT') {
        await ctx.warn(`cannot stat ${q(dst)}: ${reasonOf(e)}`);
        return false;
      }
    }
    if (d) {
      if (!o.noClobber && !(backups ? entryOf(ctx, src) !== entryOf(ctx, dst) : sameFileOk(ctx, src, s!, dst, d))) {
        await ctx.warn(`${q(src)} and ${q(dst)} are the same file`);
        return false;
      }
      // -u: a destination at least as new is left alone (and the source stays).
      if (o.update && !s!.isDirectory() && destNotOlder(ctx.fs, ctx.cwd, src, s!, dst, d, false, false)) return true;
      if (o.noClobber) return true;
      // -i: GNU's abandon_move (any source type); declined, the source stays.
      if (o.interactive && !(await state.prompt.overwrite(dst))) return true;
      // With backups a directory may replace a file and a file a directory: DEST is renamed aside.
      if (!d.isDirectory()) {
        if (s!.isDirectory() && !backups) {
          await ctx.warn(`cannot overwrite non-directory ${q(dst)} with directory ${q(src)}`);
          return false;
        }
        if (o.backup.type !== 'numbered' && state.created.has(devIno(d))) {
          await ctx.warn(`will not overwrite just-created ${q(dst)} with ${q(src)}`);
          return false;
        }
      } else if (!s!.isDirectory() && !backups) {
        await ctx.warn(`cannot overwrite directory ${q(dst)} with non-directory`);
        return false;
      }
      if (backups && !isDotOrDotDot(lastComponent(src))) {
        backup = await renameAside(ctx, src, s!, dst, o.backup, 'moved');
        if (backup === null) return false;
      }
    }
  }
  if (s?.isDirectory()) {
    // A source directory named twice: GNU's remember_copied (dev/ino to destination name).
    const here = entryOf(ctx, dst);
    const earlier = state.dirs.get(devIno(s));
    if (earlier === undefined) state.dirs.set(devIno(s), here);
    else if (entryOf(ctx, src) === earlier) {
      await ctx.warn(`cannot copy a directory, ${q(src)}, into itself, ${q(dst)}`);
      return false;
    } else if (here === earlier) {
      await ctx.warn(`warning: source directory ${q(src)} specified more than once`);
      return true;
    } else {
      await ctx.warn(`will not create hard link ${q(dst)} to directory ${q(earlier.slice(1))}`);
      return false;
    }
  }
  if (err === 'EEXIST' || backup !== null) err = renameErrno(ctx, src, dst, false);
  if (err === 'EINVAL') {
    await ctx.warn(`cannot move ${q(src)} to a subdirectory of itself, ${q(dst)}`);
    return false;
  }
  if (err === null) {
    try {
      ctx.fs.rename(src, dst, ctx.cwd);
    } catch (e) {
      err = errnoOf(e);
    }
    // Different file systems (a mount inside the zone): copy, then remove, as GNU mv.
    if (err === 'EXDEV') {
      try {
        moveAcross(ctx.fs, ctx.fs.resolve(src, ctx.cwd).vpath, ctx.fs.resolve(dst, ctx.cwd).vpath);
        err = null;
      } catch (e) {
        err = errnoOf(e);
      }
    }
  }
  if (err !== null) {
    await ctx.warn(`cannot move ${q(src)} to ${q(dst)}: ${new VfsError(err, src).reason}`);
    // GNU forgets the source directory it remembered (forget_created).
    if (s) state.dirs.delete(devIno(s));
    return false;
  }
  if (o.verbose) await ctx.stdout.write(`renamed ${q(src)} -> ${q(dst)}${backup ? ` (backup: ${q(backup)})` : ''}\n`);
  if (!last && s) state.created.add(devIno(s));
  return true;
}

function reasonOf(e: unknown): string {
  return new VfsError(errnoOf(e), '').reason;
}

function devIno(st: { dev: number; ino: number }): string {
  return `${st.dev}:${st.ino}`;
}

/** lstat as GNU's fstatat(AT_SYMLINK_NOFOLLOW): a trailing slash follows a link and requires a directory. */
function statSlash(ctx: CommandContext, path: string): Stats {
  const st = ctx.fs.resolveExisting(path, ctx.cwd).stat;
  if (path.endsWith('/') && !st.isDirectory()) throw new VfsError('ENOTDIR', path);
  return st;
}

/** 'a//' gives 'a', '///' gives '/' (gnulib strip_trailing_slashes). */
function stripSlashes(path: string): string {
  const s = path.replace(/\/+$/, '');
  return s === '' && path !== '' ? '/' : s;
}

/** The directory entry a path names (its final symlink not followed), for same_name. */
function entryOf(ctx: CommandContext, path: string): string {
  try {
    return ctx.fs.resolve(stripSlashes(path), ctx.cwd).vpath;
  } catch {
    return '\0' + path;
  }
}

/**
 * What rename(2) on Linux says for OLD -> NEW (null: it would succeed). The final component
 * is never followed, whatever its trailing slash. '.', '..' and the root are busy; with
 * noReplace an existing NEW is EEXIST.
 */
function renameErrno(ctx: CommandContext, from: string, to: string, noReplace: boolean): string | null {
  let a: Entry;
  let b: Entry;
  try {
    a = entry(ctx, from);
    b = entry(ctx, to);
  } catch (e) {
    return errnoOf(e);
  }
  if (a.special) return 'EBUSY';
  if (b.special) return noReplace ? 'EEXIST' : 'EBUSY';
  if (!a.stat) return 'ENOENT';
  if (noReplace && b.stat) return 'EEXIST';
  const aDir = a.stat.isDirectory();
  if (!aDir && (from.endsWith('/') || to.endsWith('/'))) return 'ENOTDIR';
  if (a.vpath === b.vpath) return null;
  if (b.vpath.startsWith(a.vpath + '/')) return 'EINVAL';
  if (!b.stat) return null;
  if (a.vpath.startsWith(b.vpath + '/')) return 'ENOTEMPTY';
  if (sameFile(a.stat, b.stat)) return null;
  if (aDir) {
    if (!b.stat.isDirectory()) return 'ENOTDIR';
    if (ctx.fs.readdir(to, ctx.cwd).length > 0) return 'ENOTEMPTY';
  } else if (b.stat.isDirectory()) return 'EISDIR';
  return null;
}

interface Entry {
  vpath: string;
  stat: Stats | null;
  /** '.', '..' or the root: not a name rename(2) can take. */
  special: boolean;
}

function entry(ctx: CommandContext, path: string): Entry {
  const stripped = stripSlashes(path);
  if (path !== '' && (stripped === '/' || isDotOrDotDot(lastComponent(stripped)))) {
    const r = ctx.fs.resolveExisting(path, ctx.cwd);
    return { vpath: r.vpath, stat: r.stat, special: true };
  }
  const r = ctx.fs.resolve(stripped, ctx.cwd);
  return { vpath: r.vpath, stat: r.stat, special: r.parts.length === 0 };
}

/** GNU copy.c same_file_ok in move mode (symlinks never dereferenced). */
function sameFileOk(ctx: CommandContext, src: string, s: Stats, dst: string, d: Stats): boolean {
  const same = sameFile(s, d);
  if (s.isSymbolicLink() && d.isSymbolicLink()) return !same && entryOf(ctx, src) !== entryOf(ctx, dst);
  if (d.isSymbolicLink()) return true;
  if (same && d.nlink > 1 && entryOf(ctx, src) !== entryOf(ctx, dst)) return false;
  if (!s.isSymbolicLink()) return !same;
  // SOURCE is a link and DEST is not: moving a link onto what it points to loses the file.
  const target = linkTarget(ctx, src);
  if (target === 'unknown') return false;
  if (target === null) return true;
  if (d.nlink > 1) return target.vpath !== entryOf(ctx, dst);
  return !sameFile(target.stat, d);
}

/**
 * Where a symlink leads, as stat(2) would find it (null: nowhere, as a dangling link).
 * Without the policy to follow links, the targets are read and resolved as names, so a link
 * is never moved onto its own file; 'unknown' when even that cannot be told.
 */
function linkTarget(ctx: CommandContext, link: string): { vpath: string; stat: Stats } | null | 'unknown' {
  let path = entryOf(ctx, link);
  for (let hops = 0; hops < 40; hops++) {
    let text;
    try {
      text = ctx.fs.readlink(path, '/');
    } catch {
      return null;
    }
    if (text === '(outside the zone)') return null;
    try {
      const r = ctx.fs.resolve(text, path.slice(0, path.lastIndexOf('/')) || '/');
      if (!r.stat) return null;
      if (!r.stat.isSymbolicLink()) return { vpath: r.vpath, stat: r.stat };
      path = r.vpath;
    } catch (e) {
      return errnoOf(e) === 'ESYMLINK' ? 'unknown' : null;
    }
  }
  return null;
}
