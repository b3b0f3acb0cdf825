import { defineCommand } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { bytesOf } from '../../src/gnulib/digest.js';
import { bsdSum, formatOldSum, sysvSum } from '../../src/gnulib/sums.js';

export default defineCommand({
  name: 'sum',
  summary: 'Print or check BSD (16-bit) checksums. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'alg', short: 'r', value: 'bsd', help: 'use BSD sum algorithm (the default), use 1K blocks' },
    { key: 'alg', short: 's', long: 'sysv', value: 'sysv', help: 'use System V sum algorithm, use 512 bytes blocks' },
  ],
  async run(ctx) {
    const kind = ctx.values.alg === 'sysv' ? 'sysv' : 'bsd';
    const operands = ctx.operands.length > 0 ? ctx.operands : ['-'];
    let status = 0;
    for (const operand of operands) {
      const sum = kind === 'sysv' ? sysvSum() : bsdSum();
      try {
        const source = operand === '-' ? ctx.stdin : ctx.fs.readChunks(operand, ctx.cwd);
        for await (const chunk of source as AsyncIterable<Uint8Array>) sum.update(chunk);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await ctx.warn(`${quoteNameColon(operand)}: ${e.reason}`);
        status = 1;
        continue;
      }
      const line = formatOldSum(kind, sum.finish(), ctx.operands.length > 0 ? bytesOf(operand) : undefined);
      await ctx.stdout.write(Buffer.from(line + '\n', 'latin1'));
    }
    return status;
  },
});
