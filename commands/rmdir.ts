import { defineCommand, UsageError, type CommandContext } from '../src/command/index.js';
import { errnoOf, isDotOrDotDot, lastComponent, quoteAlways } from '../src/command/fileops.js';
import { VfsError, strerror } from '../src/vfs/index.js';

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
    const o = { parents: ctx.opts.has('p'), verbose: ctx.opts.has('v'), ignore: ctx.opts.has('ignore') };
    let status = 0;
    for (const dir of ctx.operands) {
      const err = await removeOne(ctx, dir, o.verbose);
      if (err) {
        if (!(o.ignore && isNonEmpty(err))) {
          await ctx.warn(`failed to remove ${quoteAlways(dir)}: ${strerror(err)}`);
          status = 1;
        }
        continue;
      }
      if (!o.parents) continue;
      // rmdir -p: strip the last component, as written, and remove each ancestor in turn.
      let path = dir;
      for (;;) {
        path = path.replace(/\/+$/, '');
        const slash = path.lastIndexOf('/');
        if (slash <= 0) break;
        path = path.slice(0, slash).replace(/\/+$/, '');
        if (path === '') break;
        const perr = await removeOne(ctx, path, o.verbose);
        if (perr) {
          if (o.ignore && isNonEmpty(perr)) break;
          await ctx.warn(`failed to remove directory ${quoteAlways(path)}: ${strerror(perr)}`);
          status = 1;
          break;
        }
      }
    }
    return status;
  },
});

function isNonEmpty(errno: string): boolean {
  return errno === 'ENOTEMPTY' || errno === 'EEXIST';
}

/** rmdir(2) on one path; returns the errno name on failure. */
async function removeOne(ctx: CommandContext, path: string, verbose: boolean): Promise<string | null> {
  if (verbose) await ctx.stdout.write(`rmdir: removing directory, ${quoteAlways(path)}\n`);
  const last = lastComponent(path);
  if (isDotOrDotDot(last)) {
    // rmdir(2) refuses '.' with EINVAL; '..' is never empty.
    try {
      ctx.fs.resolveExisting(path, ctx.cwd);
    } catch (e) {
      return errnoOf(e);
    }
    return last.startsWith('..') ? 'ENOTEMPTY' : 'EINVAL';
  }
  try {
    ctx.fs.rmdir(path, ctx.cwd);
    return null;
  } catch (e) {
    if (e instanceof VfsError) return e.errno;
    throw e;
  }
}
