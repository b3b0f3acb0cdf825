import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import { errnoOf, isDotOrDotDot, lastComponent, quoteAlways } from '../../src/gnulib/fileops.js';
import { VfsError, strerror } from '../../src/vfs/index.js';

interface RmdirOptions {
  parents: boolean;
  verbose: boolean;
  ignore: boolean;
}

export default defineCommand({
  name: 'rmdir',
  summary: 'Remove the DIRECTORY(ies), if they are empty.',
  usage: 'DIRECTORY...',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'ignore', long: 'ignore-fail-on-non-empty', help: 'ignore each failure to remove a non-empty directory' },
    { key: 'p', short: 'p', long: 'parents', help: "remove DIRECTORY and its ancestors; e.g., 'rmdir -p a/b' is similar to 'rmdir a/b a'" },
    { key: 'v', short: 'v', long: 'verbose', help: 'output a diagnostic for every directory processed' },
  ],
  async run(ctx) {
    if (ctx.operands.length === 0) throw new UsageError('missing operand');
    const o: RmdirOptions = { parents: ctx.values.p === true, verbose: ctx.values.v === true, ignore: ctx.values.ignore === true };
    let status = 0;
    for (const dir of ctx.operands) {
      if (o.verbose) await ctx.stdout.write(`rmdir: removing directory, ${quoteAlways(dir)}\n`);
      const err = rmdirErrno(ctx, dir);
      if (err) {
        if (ignorable(ctx, o, err, dir)) continue;
        // GNU: 'link/' fails with ENOTDIR (Linux does not follow it); said plainly when
        // the link does lead to a directory (or leads nowhere it can follow).
        const reason = err === 'ENOTDIR' && linkNotFollowed(ctx, dir) ? 'Symbolic link not followed' : strerror(err);
        await ctx.warn(`failed to remove ${quoteAlways(dir)}: ${reason}`);
        status = 1;
      } else if (o.parents && !(await removeParents(ctx, dir, o))) status = 1;
    }
    return status;
  },
});

/** rmdir -p: strip the last component, as written, and remove each ancestor in turn (GNU remove_parents). */
async function removeParents(ctx: CommandContext, dir: string, o: RmdirOptions): Promise<boolean> {
  let path = stripTrailingSlashes(dir);
  for (;;) {
    let slash = path.lastIndexOf('/');
    if (slash < 0) return true;
    while (slash > 0 && path[slash] === '/') slash--;
    path = path.slice(0, slash + 1);
    if (o.verbose) await ctx.stdout.write(`rmdir: removing directory, ${quoteAlways(path)}\n`);
    const err = rmdirErrno(ctx, path);
    if (!err) continue;
    if (ignorable(ctx, o, err, path)) return true;
    await ctx.warn(`failed to remove ${err === 'ENOTDIR' ? '' : 'directory '}${quoteAlways(path)}: ${strerror(err)}`);
    return false;
  }
}

/** gnulib strip_trailing_slashes: 'a//' gives 'a', '///' gives '/'. */
function stripTrailingSlashes(path: string): string {
  const stripped = path.replace(/\/+$/, '');
  return stripped === '' && path !== '' ? '/' : stripped;
}

/** --ignore-fail-on-non-empty: ENOTEMPTY, or a refusal (EBUSY for the root...) of a directory that has entries. */
function ignorable(ctx: CommandContext, o: RmdirOptions, errno: string, dir: string): boolean {
  if (!o.ignore) return false;
  if (errno === 'ENOTEMPTY' || errno === 'EEXIST') return true;
  if (!['EACCES', 'EPERM', 'EROFS', 'EBUSY'].includes(errno)) return false;
  try {
    return ctx.fs.readdir(dir, ctx.cwd).length > 0;
  } catch {
    return false;
  }
}

/** GNU's test after ENOTDIR on 'DIR/': the target is a directory or cannot be reached, and DIR is a symlink. */
function linkNotFollowed(ctx: CommandContext, dir: string): boolean {
  if (!dir.endsWith('/')) return false;
  try {
    if (!ctx.fs.stat(dir, ctx.cwd).isDirectory()) return false;
  } catch (e) {
    if (errnoOf(e) === 'ENOTDIR') return false;
  }
  try {
    return ctx.fs.lstat(stripTrailingSlashes(dir), ctx.cwd).isSymbolicLink();
  } catch {
    return false;
  }
}

/** rmdir(2) on one path, as Linux does it; returns the errno name on failure. */
function rmdirErrno(ctx: CommandContext, path: string): string | null {
  const last = lastComponent(path);
  try {
    if (isDotOrDotDot(last)) {
      // rmdir(2) refuses '.' with EINVAL; '..' is never empty.
      ctx.fs.resolveExisting(path, ctx.cwd);
      return last.startsWith('..') ? 'ENOTEMPTY' : 'EINVAL';
    }
    // 'link/': Linux's rmdir(2) does not follow a final symlink, even with a trailing slash.
    if (path.endsWith('/') && ctx.fs.resolve(stripTrailingSlashes(path), ctx.cwd).stat?.isSymbolicLink()) return 'ENOTDIR';
    ctx.fs.rmdir(path, ctx.cwd);
    return null;
  } catch (e) {
    if (e instanceof VfsError) return e.errno;
    throw e;
  }
}
