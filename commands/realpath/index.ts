import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import { canonicalize, isPathPrefix, relativePath, type CanonMode } from '../../src/gnulib/canonicalize.js';
import { reasonOf } from '../../src/gnulib/fileops.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';

export default defineCommand({
  name: 'realpath',
  summary: 'Print the resolved absolute file name; all but the last component must exist. '
    + 'Names are virtual paths inside the zone: symlinks are resolved through the zone (one that leads out of it is refused), never to a host path.',
  usage: 'FILE...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'mode', short: 'E', long: 'canonicalize', value: 'all-but-last', help: 'all but the last component must exist (default)' },
    { key: 'mode', short: 'e', long: 'canonicalize-existing', value: 'existing', help: 'all components of the path must exist' },
    { key: 'mode', short: 'm', long: 'canonicalize-missing', value: 'missing', help: 'no path components need exist or be a directory' },
    { key: 'links', short: 'L', long: 'logical', value: 'logical', help: 'resolve \'..\' components before symlinks' },
    { key: 'links', short: 'P', long: 'physical', value: 'physical', help: 'resolve symlinks as encountered (default)' },
    { key: 'q', short: 'q', long: 'quiet', help: 'suppress most error messages' },
    { key: 'relTo', long: 'relative-to', kind: 'string', arg: 'DIR', help: 'print the resolved path relative to DIR' },
    { key: 'relBase', long: 'relative-base', kind: 'string', arg: 'DIR', help: 'print absolute paths unless paths below DIR' },
    { key: 's', short: 's', long: 'strip', help: 'don\'t expand symlinks' },
    { key: 's', long: 'no-symlinks', help: 'same as -s' },
    { key: 'z', short: 'z', long: 'zero', help: 'end each output line with NUL, not newline' },
  ],
  async run(ctx) {
    if (ctx.operands.length === 0) throw new UsageError('missing operand');
    const v = ctx.values;
    const mode: CanonMode = v.mode ?? 'all-but-last';
    const follow = v.s !== true;
    const logical = v.links === 'logical';
    const canon = (p: string) => canonicalize(ctx.fs, p, ctx.cwd, mode, follow, logical);
    const needDir = mode === 'existing';
    const relTo = v.relTo ?? v.relBase;
    let canTo: string | null = null;
    let canBase: string | null = null;
    if (relTo !== undefined) {
      canTo = await canonDir(ctx, canon, relTo, needDir);
      if (canTo === null) return 1;
    }
    if (v.relBase !== undefined) {
      canBase = v.relBase === relTo ? canTo : await canonDir(ctx, canon, v.relBase, needDir);
      if (canBase === null) return 1;
      // --relative-to is a no-op when --relative-base is not its prefix.
      if (!isPathPrefix(canBase, canTo!)) canTo = canBase = null;
    }
    const end = v.z ? '\0' : '\n';
    let status = 0;
    for (const file of ctx.operands) {
      let name: string;
      try {
        name = canon(file);
      } catch (e) {
        if (!v.q) await ctx.warn(`${quoteNameColon(file)}: ${reasonOf(e)}`);
        status = 1;
        continue;
      }
      if (canTo !== null && (canBase === null || isPathPrefix(canBase, name))) name = relativePath(name, canTo);
      await ctx.stdout.write(name + end);
    }
    return status;
  },
});

/** --relative-to / --relative-base: canonicalized as the operands are; GNU dies when that fails. */
async function canonDir(ctx: CommandContext, canon: (p: string) => string, dir: string, needDir: boolean): Promise<string | null> {
  try {
    const c = canon(dir);
    if (needDir && !ctx.fs.stat(c, '/').isDirectory()) {
      await ctx.warn(`${quoteNameColon(dir)}: Not a directory`);
      return null;
    }
    return c;
  } catch (e) {
    await ctx.warn(`${quoteNameColon(dir)}: ${reasonOf(e)}`);
    return null;
  }
}
