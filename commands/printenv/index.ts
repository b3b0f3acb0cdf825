import { defineCommand } from '../../src/command/index.js';

/**
 * nosh commands run with an empty environment (no shell, no variables): printenv prints
 * nothing; a named variable is never set, so it exits 1 as GNU does for a missing one.
 */
export default defineCommand({
  name: 'printenv',
  summary: 'Print the values of the specified environment VARIABLE(s). If no VARIABLE is specified, print name and value pairs for them all. nosh runs commands with an empty environment: nothing is printed, and naming a variable exits 1.',
  usage: '[VARIABLE]...',
  mutates: false,
  usageStatus: 2,
  flags: [
    { key: 'z', short: '0', long: 'null', help: 'end each output line with NUL, not newline' },
  ],
  run(ctx) {
    return ctx.operands.length === 0 ? 0 : 1;
  },
});
