import { defineCommand } from '../../src/command/index.js';
import { CopyOut, FatalError } from '../../src/gnulib/text-lines.js';
import { joinedInputs, tabStops, type TabStops } from '../../src/gnulib/tab-stops.js';

/**
 * GNU unexpand (coreutils 9.1): runs of blanks to tabs, streamed; the files are one stream,
 * as GNU reads them. The obsolete `-N` form (unexpand -4) is not offered: write -t 4.
 */
export default defineCommand({
  name: 'unexpand',
  summary: 'Convert blanks in each FILE to tabs, writing to standard output. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', long: 'all', help: 'convert all blanks, instead of just initial blanks' },
    { key: 'first-only', long: 'first-only', help: 'convert only leading sequences of blanks (overrides -a)' },
    { key: 't', short: 't', long: 'tabs', kind: 'string', arg: 'LIST', help: "have tabs N characters apart instead of 8 (enables -a), or use a comma separated list of tab positions (the last may be prefixed with '/' or '+')" },
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
    const entire = !ctx.opts.has('first-only') && (ctx.opts.has('a') || ctx.opts.has('t'));
    const out = new CopyOut(ctx.stdout);
    const failed = { value: false };
    const pendingBlank: number[] = [];
    let convert = true;
    let column = 0;
    let nextTab = 0;
    const idx = { i: 0 };
    let oneBlankBeforeStop = false;
    let prevBlank = true;
    let pending = 0;
    // c: a byte, or -1 at the end of the input (GNU's EOF goes through the same steps).
    const step = (c: number): void => {
      if (convert) {
        const blank = c === 0x20 || c === 0x09;
        let handled = false;
        if (blank) {
          nextTab = tabs.next(column, idx);
          if (nextTab < 0) convert = false;
          if (convert) {
            if (c === 0x09) {
              column = nextTab;
              if (pending) pendingBlank[0] = 0x09;
            } else {
              column++;
              if (!(prevBlank && column === nextTab)) {
                if (column === nextTab) oneBlankBeforeStop = true;
                pendingBlank[pending++] = c;
                prevBlank = true;
                handled = true;
              } else pendingBlank[0] = c = 0x09;
            }
            if (!handled) pending = oneBlankBeforeStop ? 1 : 0;
          }
        } else if (c === 0x08) {
          if (column) column--;
          nextTab = column;
          if (idx.i) idx.i--;
        } else column++;
        if (handled) return;
        if (pending) {
          if (pending > 1 && oneBlankBeforeStop) pendingBlank[0] = 0x09;
          for (let i = 0; i < pending; i++) out.byte(pendingBlank[i]!);
          pending = 0;
          oneBlankBeforeStop = false;
        }
        prevBlank = blank;
        convert = convert && (entire || blank);
      }
      if (c < 0) return;
      out.byte(c);
      if (c === 0x0a) {
        convert = true;
        column = 0;
        nextTab = 0;
        idx.i = 0;
        oneBlankBeforeStop = false;
        prevBlank = true;
        pending = 0;
      }
    };
    for await (const chunk of joinedInputs(ctx, failed)) {
      for (let k = 0; k < chunk.length; k++) step(chunk[k]!);
      if (out.full) await out.flush();
    }
    step(-1);
    await out.flush();
    return failed.value ? 1 : 0;
  },
});
