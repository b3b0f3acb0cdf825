import { defineCommand, OptionError } from '../../src/command/index.js';
import { quoteAlways } from '../../src/gnulib/fileops.js';

/** The fixed, documented answer (the host's is not shown): see the README's "Known deviations". */
export const UNAME = {
  s: 'Linux',
  n: 'nosh',
  r: 'nosh',
  v: 'nosh virtual workspace (no shell)',
  m: 'unknown',
  p: 'unknown',
  i: 'unknown',
  o: 'GNU/Linux',
} as const;

type Field = keyof typeof UNAME;
const ORDER: Field[] = ['s', 'n', 'r', 'v', 'm', 'p', 'i', 'o'];

export default defineCommand({
  name: 'uname',
  summary: 'Print certain system information. With no OPTION, same as -s. nosh answers a fixed, documented value (Linux nosh nosh ... unknown GNU/Linux), never the host\'s.',
  usage: '',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', long: 'all', help: 'print all information, in the following order, except omit -p and -i if unknown' },
    { key: 's', short: 's', long: 'kernel-name', help: 'print the kernel name' },
    { key: 'n', short: 'n', long: 'nodename', help: 'print the network node hostname' },
    { key: 'r', short: 'r', long: 'kernel-release', help: 'print the kernel release' },
    { key: 'v', short: 'v', long: 'kernel-version', help: 'print the kernel version' },
    { key: 'm', short: 'm', long: 'machine', help: 'print the machine hardware name' },
    { key: 'p', short: 'p', long: 'processor', help: 'print the processor type (non-portable)' },
    { key: 'i', short: 'i', long: 'hardware-platform', help: 'print the hardware platform (non-portable)' },
    { key: 'o', short: 'o', long: 'operating-system', help: 'print the operating system' },
  ],
  async run(ctx) {
    if (ctx.operands.length > 0) throw new OptionError(`extra operand ${quoteAlways(ctx.operands[0]!)}`);
    const v = ctx.values as Record<string, unknown>;
    const all = v.a === true;
    let fields = ORDER.filter((f) => v[f] === true || (all && !((f === 'p' || f === 'i') && UNAME[f] === 'unknown')));
    if (fields.length === 0) fields = ['s'];
    await ctx.stdout.write(fields.map((f) => UNAME[f]).join(' ') + '\n');
    return 0;
  },
});
