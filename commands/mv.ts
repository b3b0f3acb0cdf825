import { defineCommand, type CommandContext } from '../src/command/index.js';
import { errnoOf, forEachTarget, isDotOrDotDot, lastComponent, quoteAlways, reasonOf, sameFile } from '../src/command/fileops.js';
import { VfsError } from '../src/vfs/index.js';

interface MvOptions {
  noClobber: boolean;
  verbose: boolean;
}

export default defineCommand({
  name: 'mv',
  summary: 'Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY (inside the zone).',
  usage: 'SOURCE... DEST',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'f', short: 'f', long: 'force', help: 'do not prompt before overwriting' },
    { key: 'n', short: 'n', long: 'no-clobber', help: 'do not overwrite an existing file' },
    { key: 't', short: 't', long: 'target-directory', kind: 'string', arg: 'DIRECTORY', help: 'move all SOURCE arguments into DIRECTORY' },
    { key: 'T', short: 'T', long: 'no-target-directory', help: 'treat DEST as a normal file' },
    { key: 'v', short: 'v', long: 'verbose', help: 'explain what is being done' },
  ],
  notes: 'Not supported: -i (nosh never prompts), -b, -u.',
  async run(ctx) {
    // -f and -n: the one given last wins, as in GNU mv.
    const o: MvOptions = { noClobber: ctx.opts.lastOf('f', 'n') === 'n', verbose: ctx.opts.has('v') };
    return forEachTarget(ctx, (src, dst) => moveOne(ctx, src, dst, o));
  },
});

async function moveOne(ctx: CommandContext, src: string, dst: string, o: MvOptions): Promise<boolean> {
  const cannotMove = (reason: string) => ctx.warn(`cannot move ${quoteAlways(src)} to ${quoteAlways(dst)}: ${reason}`);
  let s;
  try {
    s = ctx.fs.resolveExisting(src, ctx.cwd);
    if (/\/$/.test(src) && !s.stat.isDirectory()) throw new VfsError(s.stat.isSymbolicLink() ? 'ESYMLINK' : 'ENOTDIR', src);
  } catch (e) {
    await ctx.warn(`cannot stat ${quoteAlways(src)}: ${reasonOf(e)}`);
    return false;
  }
  if (isDotOrDotDot(lastComponent(src)) || s.parts.length === 0) {
    await cannotMove('Device or resource busy');
    return false;
  }
  let d;
  try {
    d = ctx.fs.resolve(dst, ctx.cwd);
  } catch (e) {
    const errno = errnoOf(e);
    if (/\/$/.test(dst) && (errno === 'ENOTDIR' || errno === 'ESYMLINK')) await ctx.warn(`cannot stat ${quoteAlways(dst)}: ${reasonOf(e)}`);
    else await cannotMove(reasonOf(e));
    return false;
  }
  if (/\/$/.test(dst) && (d.stat ? !d.stat.isDirectory() : !s.stat.isDirectory())) {
    // 'DEST/' names a directory: never rename onto a file or a symbolic link spelled that way.
    if (d.stat) await ctx.warn(`cannot stat ${quoteAlways(dst)}: ${new VfsError(d.stat.isSymbolicLink() ? 'ESYMLINK' : 'ENOTDIR', dst).reason}`);
    else await cannotMove('Not a directory');
    return false;
  }
  if (d.stat && sameFile(d.stat, s.stat)) {
    await ctx.warn(`${quoteAlways(src)} and ${quoteAlways(dst)} are the same file`);
    return false;
  }
  const srcIsDir = s.stat.isDirectory();
  if (srcIsDir && (d.vpath.startsWith(s.vpath + '/') || d.vpath === s.vpath)) {
    await ctx.warn(`cannot move ${quoteAlways(src)} to a subdirectory of itself, ${quoteAlways(dst)}`);
    return false;
  }
  if (d.stat) {
    if (o.noClobber) return true;
    if (d.stat.isDirectory() && !srcIsDir) {
      await ctx.warn(`cannot overwrite directory ${quoteAlways(dst)} with non-directory`);
      return false;
    }
    if (!d.stat.isDirectory() && srcIsDir) {
      await ctx.warn(`cannot overwrite non-directory ${quoteAlways(dst)} with directory ${quoteAlways(src)}`);
      return false;
    }
  }
  try {
    ctx.fs.rename(src, dst, ctx.cwd);
  } catch (e) {
    await cannotMove(reasonOf(e));
    return false;
  }
  if (o.verbose) await ctx.stdout.write(`renamed ${quoteAlways(src)} -> ${quoteAlways(dst)}\n`);
  return true;
}
