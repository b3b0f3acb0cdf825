import { defineCommand } from '../../src/command/index.js';

/**
 * nosh commands run with an empty environment: env prints the NAME=VALUE assignments it is
 * given (the environment it would pass on) and nothing else. Running a COMMAND is refused:
 * nosh has no child processes; run the command itself.
 */
export default defineCommand({
  name: 'env',
  summary: 'Print the environment (empty in nosh), with the NAME=VALUE assignments given. Running a COMMAND through env is not supported: run it directly.',
  usage: '[NAME=VALUE]... [COMMAND [ARG]...]',
  mutates: false,
  usageStatus: 125,
  troubleStatus: 125,
  optionsEnd: 'first-operand',
  flags: [
    { key: 'i', short: 'i', long: 'ignore-environment', help: 'start with an empty environment (always so in nosh)' },
    { key: 'z', short: '0', long: 'null', help: 'end each output line with NUL, not newline' },
    { key: 'u', short: 'u', long: 'unset', kind: 'string', repeat: true, arg: 'NAME', help: 'remove variable from the environment' },
  ],
  async run(ctx) {
    const vars = new Map<string, string>();
    for (const name of ctx.values.u ?? []) vars.delete(name);
    let at = 0;
    for (; at < ctx.operands.length; at++) {
      const a = ctx.operands[at]!;
      const eq = a.indexOf('=');
      if (eq <= 0) break;
      vars.set(a.slice(0, eq), a.slice(eq + 1));
    }
    if (at < ctx.operands.length) {
      await ctx.warn(`cannot run ${ctx.operands[at]}: running a command through env is not supported in nosh (run it directly)`);
      return 125;
    }
    const end = ctx.values.z ? '\0' : '\n';
    for (const [k, val] of vars) await ctx.stdout.write(`${k}=${val}${end}`);
    return 0;
  },
});
