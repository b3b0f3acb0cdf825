import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import {
  UMASK, adjustMode, compileMode, isDotOrDotDot, lastComponent, quoteAlways, reasonOf,
} from '../../src/gnulib/fileops.js';
import { VfsError } from '../../src/vfs/index.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';

export default defineCommand({
  name: 'mkdir',
  summary: 'Create the DIRECTORY(ies), if they do not already exist.',
  usage: 'DIRECTORY...',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'm', short: 'm', long: 'mode', kind: 'string', arg: 'MODE', help: 'set file mode (as in chmod), not a=rwx - umask' },
    { key: 'p', short: 'p', long: 'parents', help: 'no error if existing, make parent directories as needed' },
    { key: 'v', short: 'v', long: 'verbose', help: 'print a message for each created directory' },
  ],
  async run(ctx) {
    if (ctx.operands.length === 0) throw new UsageError('missing operand');
    let mode: DirMode | null = null;
    const spec = ctx.values.m;
    if (spec !== undefined) {
      const changes = compileMode(spec);
      if (!changes) {
        await ctx.warn(`invalid mode ${gnuQuote(spec)}`);
        return 1;
      }
      mode = adjustMode(0o777, true, UMASK, changes);
    }
    const parents = ctx.values.p === true;
    const verbose = ctx.values.v === true;
    let status = 0;
    for (const dir of ctx.operands) {
      try {
        if (parents) await makeAncestors(ctx, dir, verbose);
        if (parents && isExistingDir(ctx, dir)) continue;
        makeDir(ctx, dir);
        if (verbose) await ctx.stdout.write(`mkdir: created directory ${quoteAlways(dir)}\n`);
        if (mode !== null) {
          const made = (makeMode(mode) & 0o1777) | (ctx.fs.lstat(dir, ctx.cwd).mode & 0o2000);
          ctx.fs.chmod(dir, finalMode(mode, made), ctx.cwd);
        }
      } catch (e) {
        if (e instanceof AncestorError) await ctx.warn(`cannot create directory ${gnuQuote(e.prefix)}: ${e.reason}`);
        else await ctx.warn(`cannot create directory ${gnuQuote(dir)}: ${reasonOf(e)}`);
        status = 1;
      }
    }
    return status;
  },
});

/**
 * mkdir -m as gnulib's make_dir_parents and dirchownmod: the umask does not apply to what
 * MODE computes; when special bits are involved the directory is made without group/other
 * write first, then only the bits MODE touched are set if they differ ('a+t' gives 1755).
 */
interface DirMode { mode: number; bits: number }

function makeMode(m: DirMode): number {
  const keepSpecial = ((m.bits & 0o6000) | (m.mode & 0o1000)) === 0;
  return keepSpecial ? m.mode : m.mode & ~0o022;
}

/** `made`: the bits mkdir(2) gave (makeMode, setgid inherited from the parent). */
function finalMode(m: DirMode, made: number): number {
  return (made ^ m.mode) & m.bits ? m.mode | (made & ~m.bits) : made;
}

/** mkdir(2): '.' or '..' last (a/., new/..//) gives the lookup's error, else EEXIST; an existing last component, a symbolic link too (trailing slash or not), is EEXIST. */
function makeDir(ctx: CommandContext, dir: string): void {
  if (isDotOrDotDot(lastComponent(dir))) {
    ctx.fs.resolveExisting(dir, ctx.cwd);
    throw new VfsError('EEXIST', dir);
  }
  if (ctx.fs.resolve(dir.replace(/(.)\/+$/, '$1'), ctx.cwd).stat) throw new VfsError('EEXIST', dir);
  ctx.fs.mkdir(dir, ctx.cwd);
}

class AncestorError extends Error {
  constructor(readonly prefix: string, readonly reason: string) {
    super(`${prefix}: ${reason}`);
  }
}

function isExistingDir(ctx: CommandContext, path: string): boolean {
  try {
    return ctx.fs.stat(path, ctx.cwd).isDirectory();
  } catch {
    return false;
  }
}

/** mkdir -p: create each missing ancestor named in the operand, as written ('a', 'a/b'). */
async function makeAncestors(ctx: CommandContext, dir: string, verbose: boolean): Promise<void> {
  const re = /[^/]+/g;
  const comps: { end: number; name: string }[] = [];
  for (let m = re.exec(dir); m; m = re.exec(dir)) comps.push({ end: m.index + m[0].length, name: m[0] });
  for (const c of comps.slice(0, -1)) {
    if (c.name === '.' || c.name === '..') continue;
    const prefix = dir.slice(0, c.end);
    try {
      const r = ctx.fs.resolve(prefix, ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks });
      if (r.stat) {
        if (!r.stat.isDirectory()) throw new VfsError(r.stat.isSymbolicLink() ? 'ESYMLINK' : 'ENOTDIR', prefix);
        continue;
      }
      ctx.fs.mkdir(prefix, ctx.cwd);
    } catch (e) {
      throw new AncestorError(prefix, reasonOf(e));
    }
    if (verbose) await ctx.stdout.write(`mkdir: created directory ${quoteAlways(prefix)}\n`);
  }
}
