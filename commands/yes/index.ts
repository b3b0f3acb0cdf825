import { defineCommand } from '../../src/command/index.js';

/**
 * Repeats its line until the output stops taking it: the returned stdout at its cap (the
 * write throws OutputLimitReached), a pipe whose reader has gone (BrokenPipe), or the call's
 * timeout (ctx.signal).
 */
export default defineCommand({
  name: 'yes',
  summary: "Repeatedly output a line with all specified STRING(s), or 'y'. In nosh it stops at the output cap, when its reader goes, or at the call's timeout.",
  usage: '[STRING]...',
  mutates: false,
  usageStatus: 1,
  optionsEnd: 'first-operand',
  flags: [],
  async run(ctx) {
    const line = (ctx.operands.length ? ctx.operands.join(' ') : 'y') + '\n';
    const unit = Buffer.from(line);
    const block = Buffer.alloc(Math.max(1, Math.floor(64 * 1024 / unit.length)) * unit.length);
    for (let at = 0; at < block.length; at += unit.length) unit.copy(block, at);
    for (;;) {
      if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('aborted');
      const room = ctx.stdout.room?.() ?? Infinity;
      // Past the cap by one byte at most: the write ends the call, the output says truncated.
      await ctx.stdout.write(room < block.length ? block.subarray(0, Math.max(room + 1, 1)) : block);
      // Let a timeout or a cancel in (a collecting stdout never makes the loop wait).
      await new Promise<void>((r) => setImmediate(r));
    }
  },
});
