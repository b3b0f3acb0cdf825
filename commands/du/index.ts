import type * as fs from 'node:fs';
import { defineCommand, OptionError } from '../../src/command/index.js';
import { quoteAlways, reasonOf } from '../../src/gnulib/fileops.js';
import { parseCount } from '../../src/gnulib/gnu-number.js';
import { walk } from '../../src/vfs/walk.js';

export default defineCommand({
  name: 'du',
  summary: 'Summarize disk usage of the set of FILEs, recursively for directories (walked inside the zone; symbolic links are not followed).',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', long: 'all', help: 'write counts for all files, not just directories' },
    { key: 'apparent', long: 'apparent-size', help: 'print apparent sizes rather than disk usage' },
    { key: 'unit', short: 'B', long: 'block-size', kind: 'string', arg: 'SIZE', parse: parseBlockSize, help: 'scale sizes by SIZE before printing them' },
    { key: 'b', short: 'b', long: 'bytes', help: "equivalent to '--apparent-size --block-size=1'" },
    { key: 'c', short: 'c', long: 'total', help: 'produce a grand total' },
    { key: 'depth', short: 'd', long: 'max-depth', kind: 'string', arg: 'N', parse: parseDepth, help: 'print the total for a directory (or file, with --all) only if it is N or fewer levels below the command line argument' },
    { key: 'unit', short: 'h', long: 'human-readable', value: 'human', help: 'print sizes in human readable format (e.g., 1K 234M 2G)' },
    { key: 'unit', long: 'si', value: 'si', help: 'like -h, but use powers of 1000 not 1024' },
    { key: 'unit', short: 'k', value: 'k', help: 'like --block-size=1K' },
    { key: 'unit', short: 'm', value: 'm', help: 'like --block-size=1M' },
    { key: 's', short: 's', long: 'summarize', help: 'display only a total for each argument' },
    { key: 'x', short: 'x', long: 'one-file-system', help: 'skip directories on different file systems (a zone is one: no effect)' },
    { key: 'z', short: '0', long: 'null', help: 'end each output line with NUL, not newline' },
  ],
  async run(ctx) {
    const v = ctx.values;
    let unit: Unit = v.unit ?? 'k';
    if (v.b) unit = v.unit === undefined || ctx.opts.order.findLast((o) => o.key === 'unit' || o.key === 'b')?.key === 'b' ? 1 : unit;
    const apparent = v.apparent === true || v.b === true;
    let maxDepth = v.depth ?? Infinity;
    if (v.s) {
      if (v.depth !== undefined && v.depth !== 0) {
        await ctx.warn(`warning: summarizing conflicts with --max-depth=${v.depth}`);
        await ctx.stderr.write("Try 'du --help' for more information.\n");
        return 1;
      }
      maxDepth = 0;
    }
    if (v.a && v.s) {
      await ctx.warn('cannot both summarize and show all entries');
      await ctx.stderr.write("Try 'du --help' for more information.\n");
      return 1;
    }
    const end = v.z ? '\0' : '\n';
    const sizeOf = (st: fs.Stats) => (apparent ? st.size : st.blocks * 512);
    const seen = new Set<string>();
    const once = (st: fs.Stats) => {
      if (st.isDirectory() || st.nlink < 2) return true;
      const id = `${st.dev}:${st.ino}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    };
    const print = (n: number, name: string) => ctx.stdout.write(`${format(n, unit)}\t${name}${end}`);
    let total = 0;
    let status = 0;
    for (const operand of ctx.operands.length ? ctx.operands : ['.']) {
      let st: fs.Stats;
      try {
        st = ctx.fs.lstat(operand, ctx.cwd);
      } catch (e) {
        await ctx.warn(`cannot access ${quoteAlways(operand)}: ${reasonOf(e)}`);
        status = 1;
        continue;
      }
      if (!st.isDirectory()) {
        if (once(st)) {
          total += sizeOf(st);
          await print(sizeOf(st), operand);
        }
        continue;
      }
      // Sizes of the directories being walked, innermost last.
      const stack: number[] = [];
      for (const ev of walk(ctx.fs, operand, ctx.cwd, { order: 'directory', postOrder: true, signal: ctx.signal })) {
        if (ev.kind === 'pre') {
          const own = ev.handle ? ev.handle.stat : ev.dir ? ctx.fs.lstatAt(ev.dir, ev.name) : st;
          stack.push(own && once(own) ? sizeOf(own) : 0);
        } else if (ev.kind === 'error') {
          await ctx.warn(`cannot read directory ${quoteAlways(ev.path)}: ${reasonOf(ev.error)}`);
          status = 1;
        } else if (ev.kind === 'post') {
          const n = stack.pop()!;
          if (stack.length > 0) stack[stack.length - 1]! += n;
          else total += n;
          if (ev.depth <= maxDepth) await print(n, ev.path);
        } else if (ev.kind === 'file') {
          const fst = ev.dir ? ctx.fs.lstatAt(ev.dir, ev.name) : null;
          if (!fst || !once(fst)) continue;
          const n = sizeOf(fst);
          stack[stack.length - 1]! += n;
          if (v.a && ev.depth <= maxDepth) await print(n, ev.path);
        }
      }
      // A directory that could not be opened still got its 'pre': its 'post' did not come.
      while (stack.length > 0) total += stack.pop()!;
    }
    if (v.c) await print(total, 'total');
    return status;
  },
});

/** 'human' (-h), 'si' (--si), or a block size in bytes ('k' 1024, 'm' 1048576). */
type Unit = 'human' | 'si' | 'k' | 'm' | number;

function parseDepth(value: string): number {
  if (!/^\s*\+?[0-9]+$/.test(value)) throw new OptionError(`invalid maximum depth ${quoteAlways(value)}`);
  return Number(value.trim());
}

function parseBlockSize(value: string): Unit {
  if (value === 'human-readable') return 'human';
  if (value === 'si') return 'si';
  const r = parseCount(/^[0-9]/.test(value) ? value : `1${value}`, 'invalid --block-size argument');
  if ('error' in r || r.value === 0) throw new OptionError(`invalid --block-size argument ${quoteAlways(value)}`, false);
  return r.value;
}

const LETTERS = ['', 'K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];

/** human_readable with human_ceiling: sizes rounded up, one decimal below 10. */
function format(bytes: number, unit: Unit): string {
  if (unit === 'k') unit = 1024;
  if (unit === 'm') unit = 1024 * 1024;
  if (typeof unit === 'number') return String(Math.ceil(bytes / unit));
  const base = unit === 'si' ? 1000 : 1024;
  if (bytes < base) return String(bytes);
  let x = bytes;
  let power = 0;
  while (x >= base && power < LETTERS.length - 1) {
    x /= base;
    power++;
  }
  let text: string;
  if (x < 10) {
    const t = Math.ceil(x * 10 - 1e-9) / 10;
    text = t >= 10 ? '10' : t.toFixed(1);
  } else {
    const n = Math.ceil(x - 1e-9);
    if (n >= base && power < LETTERS.length - 1) {
      power++;
      text = '1.0';
    } else text = String(n);
  }
  const letter = unit === 'si' && power === 1 ? 'k' : LETTERS[power]!;
  return text + letter;
}
