import { defineCommand, OptionError } from '../../src/command/index.js';
import { quoteAlways } from '../../src/gnulib/fileops.js';

/**
 * A fixed answer: a command runs on one worker thread of nosh's pool, and how many others
 * there are is not a command's business, so nproc reports 1 processing unit (--all too).
 */
export default defineCommand({
  name: 'nproc',
  summary: 'Print the number of processing units available to the current process. In nosh this is always 1 (a command runs on one worker thread).',
  usage: '',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'all', long: 'all', help: 'print the number of installed processors' },
    { key: 'ignore', long: 'ignore', kind: 'string', arg: 'N', parse: parseIgnore, help: 'if possible, exclude N processing units' },
  ],
  async run(ctx) {
    if (ctx.operands.length > 0) throw new OptionError(`extra operand ${quoteAlways(ctx.operands[0]!)}`);
    await ctx.stdout.write('1\n');
    return 0;
  },
});

function parseIgnore(value: string): number {
  if (!/^\s*\+?[0-9]+$/.test(value)) throw new OptionError(`invalid number: ${quoteAlways(value)}`, false);
  return Number(value.trim());
}
