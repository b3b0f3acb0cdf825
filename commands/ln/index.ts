import { defineCommand, UsageError } from '../../src/command/index.js';

/**
 * ln: nosh makes no links (DESIGN: no command creates a symlink or a hard link, so no link
 * can ever lead out of a zone or let a write reach a file twice). Every form is refused
 * with what to do instead: copy the file (cp), or refer to it by its own path.
 */
export default defineCommand({
  name: 'ln',
  summary: 'Make links between files: refused in nosh (no command creates links); copy with cp instead.',
  usage: '[OPTION]... [-T] TARGET LINK_NAME',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 's', short: 's', long: 'symbolic', help: 'make symbolic links instead of hard links (refused)' },
    { key: 'f', short: 'f', long: 'force', help: 'remove existing destination files' },
    { key: 'n', short: 'n', long: 'no-dereference', help: 'treat LINK_NAME as a normal file if it is a symbolic link to a directory' },
    { key: 'r', short: 'r', long: 'relative', help: 'with -s, create links relative to link location' },
    { key: 'v', short: 'v', long: 'verbose', help: 'print name of each linked file' },
    { key: 'T', short: 'T', long: 'no-target-directory', help: 'treat LINK_NAME as a normal file always' },
  ],
  async run(ctx) {
    if (ctx.operands.length === 0) throw new UsageError('missing file operand');
    const kind = ctx.values.s ? 'symbolic link' : 'hard link';
    const target = ctx.operands[0]!;
    const name = ctx.operands[1] ?? target.replace(/\/+$/, '').split('/').pop()!;
    await ctx.warn(`failed to create ${kind} '${name}': Operation not permitted (nosh creates no links: copy with cp ${target} ${name}, or use the path itself)`);
    return 1;
  },
});
