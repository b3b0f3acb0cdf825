import { defineCommand, UsageError } from '../../src/command/index.js';
import { quoteAlways } from '../../src/gnulib/fileops.js';

const UNIT: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };

/** Pauses for the sum of its operands; the call's timeout (ctx.signal) ends it early, as a timeout. */
export default defineCommand({
  name: 'sleep',
  summary: "Pause for NUMBER seconds. SUFFIX may be 's' for seconds (the default), 'm' for minutes, 'h' for hours or 'd' for days. NUMBER need not be an integer. Given two or more arguments, pause for the sum of their values. Bounded by the call's timeout.",
  usage: 'NUMBER[SUFFIX]...',
  mutates: false,
  usageStatus: 1,
  flags: [],
  async run(ctx) {
    if (ctx.operands.length === 0) throw new UsageError('missing operand');
    let seconds = 0;
    let bad = false;
    for (const op of ctx.operands) {
      const m = /^\s*\+?((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|inf(?:inity)?)([smhd]?)$/i.exec(op);
      if (!m) {
        await ctx.warn(`invalid time interval ${quoteAlways(op)}`);
        bad = true;
        continue;
      }
      seconds += (/^inf/i.test(m[1]!) ? Infinity : Number(m[1])) * UNIT[m[2]!]!;
    }
    if (bad) {
      await ctx.stderr.write("Try 'sleep --help' for more information.\n");
      return 1;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(ctx.signal.reason ?? new Error('aborted'));
      };
      if (ctx.signal.aborted) return onAbort();
      // setTimeout's longest delay is 2^31-1 ms; longer sleeps end by the signal anyway.
      const timer = setTimeout(() => {
        ctx.signal.removeEventListener('abort', onAbort);
        resolve();
      }, Math.min(seconds * 1000, 2 ** 31 - 1));
      ctx.signal.addEventListener('abort', onAbort, { once: true });
    });
    return 0;
  },
});
