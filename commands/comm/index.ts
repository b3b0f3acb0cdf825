import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { FatalError, LineReader, OutBuffer } from '../../src/gnulib/text-lines.js';
import { openAsFopen } from '../../src/gnulib/helpers.js';

/**
 * GNU comm (coreutils 9.1) in the C locale: two sorted inputs merged line by line (both
 * streamed), lines compared as bytes. Order is checked as GNU does: by default only once a
 * line could not be paired (a warning per file, then "input is not in sorted order", exit 1).
 */
export default defineCommand({
  name: 'comm',
  summary: 'Compare sorted files FILE1 and FILE2 line by line. When FILE1 or FILE2 (not both) is -, read standard input.',
  usage: 'FILE1 FILE2',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: '1', short: '1', help: 'suppress column 1 (lines unique to FILE1)' },
    { key: '2', short: '2', help: 'suppress column 2 (lines unique to FILE2)' },
    { key: '3', short: '3', help: 'suppress column 3 (lines that appear in both files)' },
    { key: 'check', long: 'check-order', value: 'enabled', help: 'check that the input is correctly sorted, even if all input lines are pairable' },
    { key: 'check', long: 'nocheck-order', value: 'disabled', help: 'do not check that the input is correctly sorted' },
    { key: 'output-delimiter', long: 'output-delimiter', kind: 'string', arg: 'STR', help: 'separate columns with STR' },
    { key: 'total', long: 'total', help: 'output a summary' },
    { key: 'z', short: 'z', long: 'zero-terminated', help: 'line delimiter is NUL, not newline' },
  ],
  async run(ctx) {
    const delims = ctx.opts.all('output-delimiter');
    if (delims.some((d) => d !== delims[0])) {
      await ctx.warn('multiple output delimiters specified');
      return 1;
    }
    const ops = ctx.operands;
    if (ops.length < 2) throw new UsageError(ops.length === 0 ? 'missing operand' : `missing operand after ${gnuQuote(ops[ops.length - 1]!)}`);
    if (ops.length > 2) throw new UsageError(`extra operand ${gnuQuote(ops[2]!)}`);
    const sepStr = delims[0] ?? '\t';
    const sep = sepStr === '' ? Buffer.from([0]) : Buffer.from(sepStr, 'utf8');
    const check = ctx.opts.get('check') ?? 'default';
    const show = [!ctx.opts.has('1'), !ctx.opts.has('2'), !ctx.opts.has('3')];
    const eol = ctx.opts.has('z') ? 0 : 0x0a;
    const out = new OutBuffer(ctx.stdout);
    try {
      return await compare(ctx, ops, sep, show, check, eol, out);
    } catch (e) {
      if (!(e instanceof FatalError)) throw e;
      await out.flush();
      await ctx.warn(e.message);
      return 1;
    }
  },
});

async function compare(ctx: CommandContext, names: string[], sep: Buffer, show: boolean[], check: string, eol: number, out: OutBuffer): Promise<number> {
  let stdin: LineReader | undefined;
  const readers: LineReader[] = [];
  const current: (Buffer | null)[] = [null, null];
  const read = async (i: number): Promise<Buffer | null> => {
    try {
      return await readers[i]!.next();
    } catch (e) {
      if (e instanceof VfsError) throw new FatalError(`${quoteNameColon(names[i]!)}: ${e.reason}`);
      throw e;
    }
  };
  for (let i = 0; i < 2; i++) {
    const name = names[i]!;
    if (name === '-') readers.push((stdin ??= new LineReader(ctx.stdin, eol)));
    else {
      try {
        readers.push(new LineReader(openAsFopen(ctx, name), eol));
      } catch (e) {
        if (e instanceof VfsError) throw new FatalError(`${quoteNameColon(name)}: ${e.reason}`);
        throw e;
      }
    }
    current[i] = await read(i);
  }
  const eolBuf = Buffer.from([eol]);
  const totals = [0, 0, 0];
  const warned = [false, false];
  let seenUnpairable = false;
  const write = async (line: Buffer, col: number) => {
    if (!show[col]) return;
    if (col >= 1 && show[0]) out.add(sep);
    if (col === 2 && show[1]) out.add(sep);
    out.add(line);
    if (out.add(eolBuf)) await out.flush();
  };
  while (current[0] !== null || current[1] !== null) {
    const order = current[0] === null ? 1 : current[1] === null ? -1 : Buffer.compare(current[0], current[1]!);
    if (order === 0) {
      totals[2]++;
      await write(current[1]!, 2);
    } else {
      seenUnpairable = true;
      if (order < 0) {
        totals[0]++;
        await write(current[0]!, 0);
      } else {
        totals[1]++;
        await write(current[1]!, 1);
      }
    }
    for (let i = 0; i < 2; i++) {
      if (i === 0 ? order > 0 : order < 0) continue;
      const prev = current[i]!;
      current[i] = await read(i);
      const now = current[i];
      if (now === null || check === 'disabled' || (check === 'default' && !seenUnpairable) || warned[i]) continue;
      if (Buffer.compare(prev, now) > 0) {
        await out.flush();
        if (check === 'enabled') throw new FatalError(`file ${i + 1} is not in sorted order`);
        await ctx.warn(`file ${i + 1} is not in sorted order`);
        warned[i] = true;
      }
    }
  }
  // GNU closes standard input once per '-': the second fclose fails (before --total prints).
  if (names[0] === '-' && names[1] === '-') {
    await out.flush();
    await ctx.warn('-: Bad file descriptor');
    return 1;
  }
  if (ctx.opts.has('total')) {
    // GNU prints the total line with printf's %s: an empty delimiter is nothing there (a NUL between columns).
    const s = sep.length === 1 && sep[0] === 0 ? '' : sep.toString('latin1');
    out.add(Buffer.from(`${totals[0]}${s}${totals[1]}${s}${totals[2]}${s}total`, 'latin1'));
    out.add(eolBuf);
  }
  await out.flush();
  if (warned[0] || warned[1]) {
    await ctx.warn('input is not in sorted order');
    return 1;
  }
  return 0;
}
