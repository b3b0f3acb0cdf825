import { defineCommand } from '../src/command/index.js';
import { quoteNameColon } from '../src/command/quote.js';
import type { AtomicWriter } from '../src/vfs/vfs.js';
import { VfsError } from '../src/vfs/index.js';

/**
 * GNU tee (coreutils 9.1): standard input to standard output and to every FILE. Each FILE
 * is written atomically through the Vfs: it appears, complete, when tee ends.
 */
export default defineCommand({
  name: 'tee',
  summary: 'Copy standard input to each FILE, and also to standard output.',
  usage: '[FILE]...',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', long: 'append', help: 'append to the given FILEs, do not overwrite' },
    { key: 'i', short: 'i', long: 'ignore-interrupts', help: 'ignore interrupt signals' },
  ],
  async run(ctx) {
    const append = ctx.opts.has('a');
    let status = 0;
    const writers: { name: string; w: AtomicWriter | null }[] = [];
    const fail = async (name: string, e: unknown) => {
      if (!(e instanceof VfsError)) throw e;
      await ctx.warn(`${quoteNameColon(name)}: ${e.reason}`);
      status = 1;
    };
    try {
      for (const name of ctx.operands) {
        try {
          writers.push({ name, w: ctx.fs.createWriter(name, ctx.cwd, { append }) });
        } catch (e) {
          await fail(name, e);
        }
      }
      for await (const chunk of ctx.stdin) {
        // Standard output first, as GNU (descriptor 0 of its list): a broken pipe stops tee
        // before the files get this chunk.
        await ctx.stdout.write(chunk);
        for (const entry of writers) {
          if (!entry.w) continue;
          try {
            entry.w.write(chunk);
          } catch (e) {
            entry.w.abort();
            entry.w = null;
            await fail(entry.name, e);
          }
        }
      }
      for (const entry of writers) {
        if (!entry.w) continue;
        try {
          entry.w.commit();
        } catch (e) {
          await fail(entry.name, e);
        }
        entry.w = null;
      }
    } finally {
      // Stopped early (broken pipe, output limit, abort): what was read so far is kept, as with GNU.
      for (const entry of writers) {
        if (!entry.w) continue;
        try {
          entry.w.commit();
        } catch {
          entry.w.abort();
        }
      }
    }
    return status;
  },
});
