import { defineCommand } from '../../src/command/index.js';
import { CopyOut, FatalError } from '../../src/gnulib/text-lines.js';
import { joinedInputs, tabStops, type TabStops } from '../../src/gnulib/tab-stops.js';

/**
 * GNU expand (coreutils 9.1): tabs to spaces, streamed; the files are one stream, as GNU
 * reads them. The obsolete `-N` form (expand -4) is not offered: write -t 4.
 */
export default defineCommand({
  name: 'expand',
  summary: 'Convert tabs in each FILE to spaces, writing to standard output. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'i', short: 'i', long: 'initial', help: 'do not convert tabs after non blanks' },
    { key: 't', short: 't', long: 'tabs', kind: 'string', arg: 'LIST', help: "have tabs N characters apart, not 8, or use a comma separated list of tab positions (the last may be prefixed with '/' to repeat its size, or '+' to count from the last stop)" },
  ],
  async run(ctx) {
    let tabs: TabStops;
    try {
      tabs = tabStops(ctx.opts.all('t'));
    } catch (e) {
      if (!(e instanceof FatalError)) throw e;
      for (const m of e.message.split('\n')) await ctx.warn(m);
      return 1;
    }
    const entire = !ctx.opts.has('i');
    const out = new CopyOut(ctx.stdout);
    const failed = { value: false };
    let convert = true;
    let column = 0;
    const idx = { i: 0 };
    for await (const chunk of joinedInputs(ctx, failed)) {
      for (let k = 0; k < chunk.length; k++) {
        let c = chunk[k]!;
        if (convert) {
          if (c === 0x09) {
            let next = tabs.next(column, idx);
            if (next < 0) next = column + 1;
            while (++column < next) {
              out.byte(0x20);
              if (out.full) await out.flush();
            }
            c = 0x20;
          } else if (c === 0x08) {
            if (column) column--;
            if (idx.i) idx.i--;
          } else column++;
          convert = entire || c === 0x20 || c === 0x09;
        }
        out.byte(c);
        if (c === 0x0a) {
          convert = true;
          column = 0;
          idx.i = 0;
        }
      }
      if (out.full) await out.flush();
    }
    await out.flush();
    return failed.value ? 1 : 0;
  },
});
