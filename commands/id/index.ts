import { defineCommand, UsageError } from '../../src/command/index.js';
import { quoteAlways } from '../../src/gnulib/quote.js';

/** nosh's fixed numbers for the context user and its one group (there is no user database). */
export const NOSH_UID = 1000;

/**
 * GNU id (coreutils 9.1) for the context user only: uid and gid 1000, one group named as the
 * user (nosh has no user database; group membership is not shown). Another USER is
 * "no such user".
 */
export default defineCommand({
  name: 'id',
  summary: "Print user and group information for the specified USER, or (when USER omitted) for the current process. (In nosh: the call's context user, uid and gid 1000.)",
  usage: '[OPTION]... [USER]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', help: 'ignore, for compatibility with other versions' },
    { key: 'Z', short: 'Z', long: 'context', help: 'print only the security context of the process' },
    { key: 'g', short: 'g', long: 'group', help: 'print only the effective group ID' },
    { key: 'G', short: 'G', long: 'groups', help: 'print all group IDs' },
    { key: 'n', short: 'n', long: 'name', help: 'print a name instead of a number, for -ugG' },
    { key: 'r', short: 'r', long: 'real', help: 'print the real ID instead of the effective ID, with -ugG' },
    { key: 'u', short: 'u', long: 'user', help: 'print only the effective user ID' },
    { key: 'z', short: 'z', long: 'zero', help: 'delimit entries with NUL characters, not whitespace; not permitted in default format' },
  ],
  async run(ctx) {
    const v = ctx.values;
    const user = ctx.user ?? 'default';
    const only = [v.u, v.g, v.G].filter(Boolean).length;
    if (only > 1) throw new UsageError('cannot print "only" of more than one choice');
    if (v.Z) {
      await ctx.warn('--context (-Z) works only on an SELinux-enabled kernel');
      return 1;
    }
    if (only === 0 && (v.n || v.r)) throw new UsageError('cannot print only names or real IDs in default format');
    if (only === 0 && v.z) throw new UsageError('option --zero not permitted in default format');
    let status = 0;
    const users = ctx.operands.length ? ctx.operands : [null];
    for (const u of users) {
      if (u !== null && u !== user && u !== String(NOSH_UID)) {
        await ctx.warn(`${quoteAlways(u)}: no such user`);
        status = 1;
        continue;
      }
      const end = v.z ? '\0' : '\n';
      let line: string;
      if (v.u || v.g || v.G) line = (v.n ? user : String(NOSH_UID)) + end;
      else line = `uid=${NOSH_UID}(${user}) gid=${NOSH_UID}(${user}) groups=${NOSH_UID}(${user})\n`;
      await ctx.stdout.write(line);
    }
    return status;
  },
});
