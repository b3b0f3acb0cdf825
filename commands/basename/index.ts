import { defineCommand } from '../../src/command/index.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';

export default defineCommand({
  name: 'basename',
  summary: 'Print NAME with any leading directory components removed. If specified, also remove a trailing SUFFIX. (Text only: the file system is not consulted.)',
  usage: 'NAME [SUFFIX]\n  or:  basename OPTION... NAME...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'multiple', short: 'a', long: 'multiple', help: 'support multiple arguments and treat each as a NAME' },
    { key: 'suffix', short: 's', long: 'suffix', kind: 'string', arg: 'SUFFIX', help: 'remove a trailing SUFFIX; implies -a' },
    { key: 'zero', short: 'z', long: 'zero', help: 'end each output line with NUL, not newline' },
  ],
  // GNU basename parses with getopt "+as:z": options stop at the first NAME, so a later
  // '-s' or '--zero' is a NAME.
  optionsEnd: 'first-operand',
  async run(ctx) {
    const ops = ctx.operands;
    const { multiple, suffix: suffixOpt, zero } = ctx.values;
    const isMultiple = multiple === true || suffixOpt !== undefined;
    const tryLine = `Try '${ctx.name} --help' for more information.\n`;
    if (ops.length === 0) {
      await ctx.stderr.write(`${ctx.name}: missing operand\n${tryLine}`);
      return 1;
    }
    if (!isMultiple && ops.length > 2) {
      await ctx.stderr.write(`${ctx.name}: extra operand ${gnuQuote(ops[2]!)}\n${tryLine}`);
      return 1;
    }
    const end = zero ? '\0' : '\n';
    const bytes = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
    const names = isMultiple ? ops : [ops[0]!];
    const suffix = isMultiple ? suffixOpt : ops[1];
    let out = '';
    for (const n of names) out += baseName(bytes(n), suffix === undefined ? undefined : bytes(suffix)) + end;
    await ctx.stdout.write(Buffer.from(out, 'latin1'));
    return 0;
  },
});

/** gnulib base_name + strip_trailing_slashes + basename's remove_suffix. */
export function baseName(name: string, suffix?: string): string {
  let base = name.replace(/\/+$/, '');
  if (base === '') return name === '' ? '' : '/';
  base = base.slice(base.lastIndexOf('/') + 1);
  // The suffix goes only when something remains of the name.
  if (suffix !== undefined && suffix.length < base.length && base.endsWith(suffix)) base = base.slice(0, base.length - suffix.length);
  return base;
}
