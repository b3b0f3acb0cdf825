import { defineCommand } from '../../src/command/index.js';

export default defineCommand({
  name: 'pwd',
  summary: 'Print the full name of the current working directory (a path inside the zone).',
  usage: '',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'L', short: 'L', long: 'logical', help: 'use PWD from environment, even if it contains symlinks' },
    { key: 'P', short: 'P', long: 'physical', help: 'avoid all symlinks' },
  ],
  async run(ctx) {
    if (ctx.operands.length > 0) await ctx.warn('ignoring non-option arguments');
    await ctx.stdout.write(ctx.fs.resolveExisting(ctx.cwd).vpath + '\n');
    return 0;
  },
});
