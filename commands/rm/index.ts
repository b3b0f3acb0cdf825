import { defineCommand, infoAsked, parseArgs, UsageError, type CommandContext } from '../../src/command/index.js';
import { quoteName } from '../../src/gnulib/quote.js';
import { errnoOf, isDotOrDotDot, lastComponent, quoteAlways } from '../../src/gnulib/fileops.js';
import { VfsError, strerror } from '../../src/vfs/index.js';
import { walk } from '../../src/vfs/walk.js';
import type { DirHandle } from '../../src/vfs/vfs.js';

/** A child met by the walk: removed relative to its open directory (a path costs a lookup per level). */
interface At {
  dir: DirHandle;
  name: string;
}

interface RmOptions {
  force: boolean;
  recursive: boolean;
  dir: boolean;
  verbose: boolean;
}

const def = defineCommand({
  name: 'rm',
  summary: 'Remove (unlink) the FILE(s). Symbolic links are removed themselves, never followed.',
  usage: 'FILE...',
  mutates: true,
  usageStatus: 1,
  // Parsed in run: a getopt error gets GNU's hint for a file named like an option.
  parse: 'raw',
  flags: [
    { key: 'f', short: 'f', long: 'force', help: 'ignore nonexistent files and arguments, never prompt' },
    { key: 'r', short: 'r', long: 'recursive', help: 'remove directories and their contents recursively' },
    { key: 'r', short: 'R', help: 'same as -r' },
    { key: 'd', short: 'd', long: 'dir', help: 'remove empty directories' },
    { key: 'v', short: 'v', long: 'verbose', help: 'explain what is being done' },
    { key: 'preserve-root', long: 'preserve-root', help: "do not remove '/' (always on: the zone root is never removed)" },
  ],
  notes: 'Not supported: -i, -I, --interactive (nosh never prompts), --no-preserve-root.',
  async run(ctx) {
    let parsed;
    try {
      parsed = parseArgs(def, ctx.args);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      await ctx.warn(e.message);
      await ctx.stderr.write(`${leadingHyphenHint(ctx)}Try 'rm --help' for more information.\n`);
      return 1;
    }
    const info = infoAsked(def, parsed.opts);
    if (info !== undefined) {
      await ctx.stdout.write(info);
      return 0;
    }
    const opts = parsed.opts;
    const o: RmOptions = { force: opts.has('f'), recursive: opts.has('r'), dir: opts.has('d'), verbose: opts.has('v') };
    if (parsed.operands.length === 0) {
      if (o.force) return 0;
      throw new UsageError('missing operand');
    }
    let ok = true;
    for (const operand of parsed.operands) {
      if (!(await removeOperand(ctx, operand, o))) ok = false;
    }
    return ok ? 0 : 1;
  },
});
export default def;

/** GNU's diagnose_leading_hyphen: the first argument like '-x' that names a file gets a hint. */
function leadingHyphenHint(ctx: CommandContext): string {
  for (const arg of ctx.args) {
    if (arg.length < 2 || arg[0] !== '-') continue;
    try {
      // lstat("-f/") fails unless it is a directory.
      if (arg.endsWith('/') ? !ctx.fs.stat(arg, ctx.cwd).isDirectory() : !ctx.fs.lstat(arg, ctx.cwd)) continue;
    } catch {
      continue;
    }
    return `Try 'rm ./${quoteName(arg)}' to remove the file ${quoteAlways(arg)}.\n`;
  }
  return '';
}

/** fts's spelling of a command-line path: two or more trailing slashes become one. */
function ftsPath(path: string): string {
  if (path.length > 2 && path.endsWith('/')) return path.replace(/\/+$/, '/');
  return path;
}

function ignorable(o: RmOptions, errno: string): boolean {
  return o.force && (errno === 'ENOENT' || errno === 'ENOTDIR' || errno === 'EINVAL');
}

async function fail(ctx: CommandContext, path: string, errno: string, e?: unknown): Promise<false> {
  // a group file of another member, or a locked one: the reason names its owner or holder
  const reason = e instanceof VfsError && (errno === 'EOWNER' || errno === 'ELOCKED') ? e.reason : strerror(errno);
  await ctx.warn(`cannot remove ${quoteAlways(path)}: ${reason}`);
  return false;
}

async function removeOperand(ctx: CommandContext, operand: string, o: RmOptions): Promise<boolean> {
  const path = ftsPath(operand);
  let r;
  try {
    r = ctx.fs.resolveExisting(operand, ctx.cwd);
  } catch (e) {
    let errno = errnoOf(e);
    // 'link/' whose target is missing or a loop: GNU's unlink of it fails with ENOTDIR.
    if ((errno === 'ENOENT' || errno === 'ELOOP') && isLinkWithSlash(ctx, path)) errno = 'ENOTDIR';
    return ignorable(o, errno) ? true : fail(ctx, path, errno);
  }
  const st = r.stat;
  if (!st.isDirectory()) {
    // 'file/' names a directory that is not there.
    if (/\/$/.test(operand)) {
      const errno = st.isSymbolicLink() ? 'ESYMLINK' : 'ENOTDIR';
      return ignorable(o, errno) ? true : fail(ctx, path, errno);
    }
    return unlinkOne(ctx, path, o);
  }
  if (!o.recursive) {
    if (!o.dir) return fail(ctx, path, 'EISDIR');
    if (!isEmptyDir(ctx, operand)) return fail(ctx, path, 'ENOTEMPTY');
  }
  if (isDotOrDotDot(lastComponent(operand))) {
    await ctx.warn(`refusing to remove '.' or '..' directory: skipping ${quoteAlways(path)}`);
    return false;
  }
  if (r.parts.length === 0 && o.recursive) {
    const same = path === '/' ? '' : ` (same as '/')`;
    await ctx.warn(`it is dangerous to operate recursively on ${quoteAlways(path)}${same}`);
    await ctx.warn('use --no-preserve-root to override this failsafe');
    return false;
  }
  if (r.parts.length === 0) return fail(ctx, path, 'EBUSY');
  return o.recursive ? removeTree(ctx, path, o) : rmdirOne(ctx, path, o);
}

function isEmptyDir(ctx: CommandContext, path: string): boolean {
  try {
    return ctx.fs.readdir(path, ctx.cwd).length === 0;
  } catch {
    return false;
  }
}

async function unlinkOne(ctx: CommandContext, path: string, o: RmOptions, at?: At): Promise<boolean> {
  try {
    if (at) ctx.fs.unlinkAt(at.dir, at.name);
    else ctx.fs.unlink(path, ctx.cwd);
  } catch (e) {
    const errno = errnoOf(e);
    return ignorable(o, errno) ? true : fail(ctx, path, errno, e);
  }
  if (o.verbose) await ctx.stdout.write(`removed ${quoteAlways(path)}\n`);
  return true;
}

/**
 * 'link/' (a symlink followed to its directory): Linux's rmdir(2) and unlink(2) refuse it
 * with ENOTDIR; GNU rm -r has removed what is inside the target, never the target itself.
 */
function isLinkWithSlash(ctx: CommandContext, path: string): boolean {
  if (!path.endsWith('/')) return false;
  try {
    return ctx.fs.lstat(path.replace(/\/+$/, ''), ctx.cwd).isSymbolicLink();
  } catch {
    return false;
  }
}

async function rmdirOne(ctx: CommandContext, path: string, o: RmOptions, at?: At): Promise<boolean> {
  try {
    if (at) ctx.fs.rmdirAt(at.dir, at.name);
    else if (isLinkWithSlash(ctx, path)) throw new VfsError('ENOTDIR', path);
    else ctx.fs.rmdir(path, ctx.cwd);
  } catch (e) {
    const errno = errnoOf(e);
    return ignorable(o, errno) ? true : fail(ctx, path, errno);
  }
  if (o.verbose) await ctx.stdout.write(`removed directory ${quoteAlways(path)}\n`);
  return true;
}

/** Depth-first, contents before the directory itself, in readdir order (as fts does): the one walk, post-order. */
async function removeTree(ctx: CommandContext, dir: string, o: RmOptions): Promise<boolean> {
  // Per directory being walked: could everything in it be removed? (A directory whose
  // contents could not all be removed is left; GNU says nothing more.)
  const ok: boolean[] = [];
  for (const ev of walk(ctx.fs, dir, ctx.cwd, { order: 'directory', postOrder: true })) {
    const at = ev.dir ? { dir: ev.dir, name: ev.name } : undefined;
    switch (ev.kind) {
      case 'pre':
        ok.push(true);
        break;
      case 'error':
        ok.pop();
        await fail(ctx, ev.path, errnoOf(ev.error));
        if (ok.length === 0) return false;
        ok[ok.length - 1] = false;
        break;
      case 'post': {
        const removed = ok.pop()! && (await rmdirOne(ctx, ev.path, o, at));
        if (ok.length === 0) return removed;
        if (!removed) ok[ok.length - 1] = false;
        break;
      }
      default:
        if (!(await unlinkOne(ctx, ev.path, o, at))) ok[ok.length - 1] = false;
    }
  }
  return false;
}
