import { defineCommand, UsageError } from '../../src/command/index.js';
import { quoteAlways } from '../../src/gnulib/quote.js';

/** GNU whoami (coreutils 9.1): the context user nosh runs for (never a host account). */
export default defineCommand({
  name: 'whoami',
  summary: 'Print the user name associated with the current effective user ID. Same as id -un. (In nosh: the user of the call\'s context.)',
  usage: '[OPTION]...',
  mutates: false,
  usageStatus: 1,
  flags: [],
  async run(ctx) {
    if (ctx.operands.length) throw new UsageError(`extra operand ${quoteAlways(ctx.operands[0]!)}`);
    await ctx.stdout.write(`${ctx.user ?? 'default'}\n`);
    return 0;
  },
});
