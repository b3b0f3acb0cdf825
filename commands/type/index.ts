import { defineCommand } from '../../src/command/index.js';

/**
 * bash's type, for nosh's commands (there is no shell, so no aliases, functions or
 * builtins): "NAME is a nosh command", or "nosh: type: NAME: not found" (exit 1).
 */
export default defineCommand({
  name: 'type',
  summary: 'Display information about command type: whether each NAME is a command nosh runs in this zone.',
  usage: '[-afptP] NAME...',
  mutates: false,
  usageStatus: 2,
  reference: 'bash 5.2 type (nosh commands)',
  flags: [
    { key: 'a', short: 'a', help: 'display all locations (one here)' },
    { key: 't', short: 't', help: "output a single word: 'file' for a nosh command" },
    { key: 'P', short: 'P', help: 'as -p' },
    { key: 'p', short: 'p', help: "print the name of what would run (nosh: the name itself)" },
    { key: 'f', short: 'f', help: 'ignored (no shell functions)' },
  ],
  async run(ctx) {
    const v = ctx.values;
    let status = 0;
    for (const n of ctx.operands) {
      if (!ctx.commandExists?.(n)) {
        if (!v.t && !v.p && !v.P) await ctx.stderr.write(`nosh: type: ${n}: not found\n`);
        status = 1;
        continue;
      }
      await ctx.stdout.write(v.t ? 'file\n' : v.p || v.P ? `${n}\n` : `${n} is a nosh command\n`);
    }
    return status;
  },
});
