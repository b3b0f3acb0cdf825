import { defineCommand, type FlagSpec } from '../../src/command/index.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';

const FLAGS: FlagSpec[] = [
  { key: 'a', short: 'a', long: 'multiple', help: 'support multiple arguments and treat each as a NAME' },
  { key: 's', short: 's', long: 'suffix', kind: 'string', arg: 'SUFFIX', help: 'remove a trailing SUFFIX; implies -a' },
  { key: 'z', short: 'z', long: 'zero', help: 'end each output line with NUL, not newline' },
];

export default defineCommand({
  name: 'basename',
  summary: 'Print NAME with any leading directory components removed. If specified, also remove a trailing SUFFIX. (Text only: the file system is not consulted.)',
  usage: 'NAME [SUFFIX]\n  or:  basename OPTION... NAME...',
  mutates: false,
  usageStatus: 1,
  flags: FLAGS,
  preprocess: optionsEndAtFirstOperand,
  async run(ctx) {
    const ops = ctx.operands;
    const multiple = ctx.opts.has('a') || ctx.opts.has('s');
    const tryLine = `Try '${ctx.name} --help' for more information.\n`;
    if (ops.length === 0) {
      await ctx.stderr.write(`${ctx.name}: missing operand\n${tryLine}`);
      return 1;
    }
    if (!multiple && ops.length > 2) {
      await ctx.stderr.write(`${ctx.name}: extra operand ${gnuQuote(ops[2]!)}\n${tryLine}`);
      return 1;
    }
    const end = ctx.opts.has('z') ? '\0' : '\n';
    const bytes = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
    const names = multiple ? ops : [ops[0]!];
    const suffix = multiple ? ctx.opts.get('s') : ops[1];
    let out = '';
    for (const n of names) out += baseName(bytes(n), suffix === undefined ? undefined : bytes(suffix)) + end;
    await ctx.stdout.write(Buffer.from(out, 'latin1'));
    return 0;
  },
});

/**
 * GNU basename parses with getopt "+as:z": options stop at the first NAME, so a later
 * '-s' or '--zero' is a NAME. A '--' goes before the first operand to say so.
 */
function optionsEndAtFirstOperand(args: string[]): string[] {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return args;
    if (a === '-' || !a.startsWith('-')) return [...args.slice(0, i), '--', ...args.slice(i)];
    if (takesNextArg(a)) i++;
  }
  return args;
}

/** Is the next argument this option's value ('-s SUF', '-zs SUF', '--suf SUF')? */
function takesNextArg(a: string): boolean {
  if (a.startsWith('--')) {
    if (a.includes('=')) return false;
    const name = a.slice(2);
    const matches = FLAGS.filter((f) => f.long?.startsWith(name));
    const flag = matches.find((f) => f.long === name) ?? (matches.length === 1 ? matches[0] : undefined);
    return flag?.kind === 'string';
  }
  for (let j = 1; j < a.length; j++) {
    const flag = FLAGS.find((f) => f.short === a[j]);
    if (!flag) return false;
    if (flag.kind === 'string') return j === a.length - 1;
  }
  return false;
}

/** gnulib base_name + strip_trailing_slashes + basename's remove_suffix. */
export function baseName(name: string, suffix?: string): string {
  let base = name.replace(/\/+$/, '');
  if (base === '') return name === '' ? '' : '/';
  base = base.slice(base.lastIndexOf('/') + 1);
  // The suffix goes only when something remains of the name.
  if (suffix !== undefined && suffix.length < base.length && base.endsWith(suffix)) base = base.slice(0, base.length - suffix.length);
  return base;
}
