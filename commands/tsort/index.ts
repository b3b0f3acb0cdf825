import { defineCommand, UsageError } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteAlways } from '../../src/gnulib/quote.js';

interface Item {
  str: string;
  printed: boolean;
  count: number;
  /** Successors, the last recorded first (GNU prepends). */
  top: Item[];
  qlink: Item | null;
}

/**
 * GNU tsort (coreutils 9.1): Knuth's algorithm T as tsort.c runs it, items visited in strcmp
 * order (its search tree walked in order), loops reported on standard error and broken one
 * relation at a time (exit 1). Tokens are separated by space, tab and newline only. A
 * directory reads as empty input, as tsort's stdio read does on Linux.
 */
export default defineCommand({
  name: 'tsort',
  summary: 'Write totally ordered list consistent with the partial ordering in FILE. With no FILE, or when FILE is -, read standard input.',
  usage: '[OPTION] [FILE]',
  mutates: false,
  usageStatus: 1,
  flags: [],
  async run(ctx) {
    if (ctx.operands.length > 1) throw new UsageError(`extra operand ${quoteAlways(ctx.operands[1]!)}`);
    const file = ctx.operands[0] ?? '-';
    let data: Buffer;
    try {
      data = file === '-' ? await ctx.stdin.readAll() : ctx.fs.readFile(file, ctx.cwd);
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      if (e.errno !== 'EISDIR') {
        await ctx.warn(`${file}: ${e.reason}`);
        return 1;
      }
      data = Buffer.alloc(0);
    }
    const items = new Map<string, Item>();
    const item = (s: string): Item => {
      let it = items.get(s);
      if (!it) {
        it = { str: s, printed: false, count: 0, top: [], qlink: null };
        items.set(s, it);
      }
      return it;
    };
    const tokens = data.toString('latin1').split(/[ \t\n]+/).filter((t) => t !== '');
    for (let i = 0; i < tokens.length; i += 2) {
      const j = item(tokens[i]!);
      if (i + 1 >= tokens.length) {
        await ctx.warn(`${file}: input contains an odd number of tokens`);
        return 1;
      }
      const k = item(tokens[i + 1]!);
      if (j !== k) {
        k.count++;
        j.top.unshift(k);
      }
    }
    const sorted = [...items.values()].sort((a, b) => (a.str < b.str ? -1 : a.str > b.str ? 1 : 0));
    let n = sorted.length;
    const out: string[] = [];
    let ok = true;
    while (n > 0) {
      const queue: Item[] = sorted.filter((k) => k.count === 0 && !k.printed);
      for (let q = 0; q < queue.length; q++) {
        const h = queue[q]!;
        out.push(Buffer.from(h.str, 'latin1').toString('latin1'));
        h.printed = true;
        n--;
        for (const s of h.top) {
          s.count--;
          if (s.count === 0) queue.push(s);
        }
      }
      if (n > 0) {
        if (out.length) {
          await ctx.stdout.write(Buffer.from(out.join('\n') + '\n', 'latin1'));
          out.length = 0;
        }
        await ctx.warn(`${file}: input contains a loop:`);
        ok = false;
        let loop: Item | null = null;
        const detect = async (k: Item): Promise<boolean> => {
          if (k.count <= 0) return false;
          if (loop === null) {
            loop = k;
            return false;
          }
          for (let p = 0; p < k.top.length; p++) {
            if (k.top[p] !== loop) continue;
            if (k.qlink) {
              while (loop) {
                const tmp: Item | null = loop.qlink;
                await ctx.warn(Buffer.from(loop.str, 'latin1').toString('utf8'));
                if (loop === k) {
                  k.top[p]!.count--;
                  k.top.splice(p, 1);
                  break;
                }
                loop.qlink = null;
                loop = tmp;
              }
              while (loop) {
                const tmp: Item | null = loop.qlink;
                loop.qlink = null;
                loop = tmp;
              }
              return true;
            }
            k.qlink = loop;
            loop = k;
            break;
          }
          return false;
        };
        do {
          for (const k of sorted) if (await detect(k)) break;
        } while (loop);
      }
    }
    if (out.length) await ctx.stdout.write(Buffer.from(out.join('\n') + '\n', 'latin1'));
    return ok ? 0 : 1;
  },
});
