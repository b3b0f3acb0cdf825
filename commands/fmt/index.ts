import { defineCommand, OptionError, type ObsoleteMatch } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { gnuQuote, xstrtoumax } from '../../src/gnulib/gnu-number.js';
import { quoteAlways } from '../../src/gnulib/quote.js';
import { FmtEngine } from './engine.js';

/**
 * GNU fmt (coreutils 9.1): Ross Paterson's paragraph filler, its costs and limits
 * (1000 words, 5000 characters a paragraph before a partial flush) kept as they are.
 * Streamed: a file is read through the Vfs chunk by chunk; output goes out every 64 KiB,
 * within a paragraph too (a paragraph is formatted in pieces of at most 1000 words / 5000
 * characters, as GNU's, so a 1 GB one-paragraph file needs no more memory than a small one,
 * written to a file or returned). Standard input is pushed into the engine a chunk at a time:
 * it stops before a line that is not all there (memory: the longest line). A pipe's
 * back-pressure is waited for after each paragraph and whenever more input is read.
 */
export default defineCommand({
  name: 'fmt',
  summary: 'Reformat each paragraph in the FILE(s), writing to standard output. The option -WIDTH is an abbreviated form of --width=DIGITS.',
  usage: '[-WIDTH] [OPTION]... [FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'c', short: 'c', long: 'crown-margin', help: 'preserve indentation of first two lines' },
    { key: 'p', short: 'p', long: 'prefix', kind: 'string', arg: 'STRING', help: 'reformat only lines beginning with STRING, reattaching the prefix to reformatted lines' },
    { key: 's', short: 's', long: 'split-only', help: 'split long lines, but do not refill' },
    { key: 't', short: 't', long: 'tagged-paragraph', help: 'indentation of first line different from second' },
    { key: 'u', short: 'u', long: 'uniform-spacing', help: 'one space between words, two after sentences' },
    { key: 'w', short: 'w', long: 'width', kind: 'string', arg: 'WIDTH', help: 'maximum line width (default of 75 columns)' },
    { key: 'g', short: 'g', long: 'goal', kind: 'string', arg: 'WIDTH', help: 'goal width (default of 93% of width)' },
  ],
  obsoleteLeading: (args): ObsoleteMatch | null => {
    const a = args[0];
    if (a === undefined || !/^-[0-9]/.test(a)) return null;
    return { items: [{ flag: '-w', value: a.slice(1) }], words: 1 };
  },
  digits: {
    reject: (d) => new OptionError(`invalid option -- ${d}; -WIDTH is recognized only when it is the first\noption; use -w N instead`),
  },
  async run(ctx) {
    const v = ctx.values;
    let maxWidth = 75;
    let goal: number;
    const width = (s: string, max: number) => {
      const r = xstrtoumax(s, '');
      const msg = `invalid width: ${gnuQuote(s)}`;
      if (r.err === 'ok' && r.value <= BigInt(max)) return Number(r.value);
      if (r.err === 'ok') throw new OptionError(`${msg}: ${r.value > 1073741823n ? 'Value too large for defined data type' : 'Numerical result out of range'}`, false);
      if (r.err === 'overflow') throw new OptionError(`${msg}: Value too large for defined data type`, false);
      throw new OptionError(msg, false);
    };
    if (v.w !== undefined) maxWidth = width(v.w, 2500);
    if (v.g !== undefined) {
      goal = width(v.g, maxWidth);
      if (v.w === undefined) maxWidth = goal + 10;
    } else goal = Math.floor((maxWidth * (2 * (100 - 7) + 1)) / 200);
    let prefix = '';
    let prefixLead = 0;
    if (v.p !== undefined) {
      const p = Buffer.from(v.p, 'utf8').toString('latin1');
      const m = /^ */.exec(p)![0].length;
      prefixLead = m;
      prefix = p.slice(m);
    }
    const opts = { crown: !!v.c, tagged: !!v.t, split: !!v.s, uniform: !!v.u, maxWidth, goal, prefix, prefixLead };
    let ok = true;
    const names = ctx.operands.length ? ctx.operands : ['-'];
    for (const name of names) {
      let source: Iterator<Uint8Array> | null = null;
      let stdin: AsyncIterator<Uint8Array> | null = null;
      if (name === '-') stdin = ctx.stdin[Symbol.asyncIterator]();
      else {
        try {
          const r = ctx.fs.openRandom(name, ctx.cwd);
          r.close();
          source = ctx.fs.readChunks(name, ctx.cwd)[Symbol.iterator]();
        } catch (e) {
          if (!(e instanceof VfsError)) throw e;
          if (e.errno !== 'EISDIR') {
            await ctx.warn(`cannot open ${quoteAlways(name)} for reading: ${e.reason}`);
            ok = false;
            continue;
          }
          source = null;
        }
      }
      if (source === null && stdin === null) {
        await ctx.warn('read error');
        ok = false;
        continue;
      }
      // A paragraph's output goes out every 64 KiB while it is made (one paragraph can be the
      // whole input); a pipe's waits are taken after the paragraph.
      const waits: Promise<void>[] = [];
      const engine = new FmtEngine(opts, source, (b) => {
        const p = ctx.stdout.write(b);
        if (p) waits.push(p);
      });
      const paragraphs = engine.run();
      for (let r = paragraphs.next(); !r.done; r = paragraphs.next()) {
        const out = engine.take();
        if (out.length) await ctx.stdout.write(out);
        if (waits.length) await Promise.all(waits.splice(0));
        if (r.value === false) {
          // standard input: the engine waits for the rest of a line
          const got = await stdin!.next();
          if (got.done) engine.end();
          else engine.feed(got.value);
        }
      }
      const out = engine.take();
      if (out.length) await ctx.stdout.write(out);
    }
    return ok ? 0 : 1;
  },
});
