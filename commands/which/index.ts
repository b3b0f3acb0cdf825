import { defineCommand } from '../../src/command/index.js';

/**
 * which (debianutils 5.7) over nosh's commands: there is no PATH and no program file, so
 * each NAME that runs in this zone is printed as itself; exit 1 when any is missing.
 */
export default defineCommand({
  name: 'which',
  summary: 'Print each COMMAND that nosh runs in this zone (nosh commands have no program file: the name is printed). Exit 1 if any is not found.',
  usage: '[-a] COMMAND...',
  mutates: false,
  usageStatus: 2,
  reference: 'debianutils 5.7 (nosh commands)',
  flags: [{ key: 'a', short: 'a', help: 'print all matches' }],
  async run(ctx) {
    if (ctx.operands.length === 0) return 1;
    let status = 0;
    for (const n of ctx.operands) {
      if (ctx.commandExists?.(n)) await ctx.stdout.write(`${n}\n`);
      else status = 1;
    }
    return status;
  },
});
