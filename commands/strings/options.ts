// strings' command line as binutils 2.40 reads it: getopt_long in argv order (a bad value is
// fatal where getopt meets it), digits as options (`-8` is `-n 8`: the argv word holding the
// last digit is read whole after the loop, as strings.c does it), `-` alone as -a.
import { UsageError, parseArgs, type CommandDef } from '../../src/command/index.js';

/** binutils' usage text, which strings prints on stderr on any usage error. */
export const USAGE = `Usage: strings [option(s)] [file(s)]
 Display printable strings in [file(s)] (stdin by default)
 The options are:
  -a - --all                Scan the entire file, not just the data section [default]
  -d --data                 Only scan the data sections in the file
  -f --print-file-name      Print the name of the file before each string
  -n <number>               Locate & print any sequence of at least <number>
    --bytes=<number>         displayable characters.  (The default is 4).
  -t --radix={o,d,x}        Print the location of the string in base 8, 10 or 16
  -w --include-all-whitespace Include all whitespace as valid string characters
  -o                        An alias for --radix=o
  -T --target=<BFDNAME>     Specify the binary file format
  -e --encoding={s,S,b,l,B,L} Select character size and endianness:
                            s = 7-bit, S = 8-bit, {b,l} = 16-bit, {B,L} = 32-bit
  --unicode={default|show|invalid|hex|escape|highlight}
  -U {d|s|i|x|e|h}          Specify how to treat UTF-8 encoded unicode characters
  -s --output-separator=<string> String used to separate strings in output.
  @<file>                   Read options from <file>
  -h --help                 Display this information
  -v -V --version           Print the program's version number
strings: supported targets: elf64-x86-64 elf32-i386 elf32-iamcu elf32-x86-64 pei-i386 pe-x86-64 pei-x86-64 elf64-little elf64-big elf32-little elf32-big pe-bigobj-x86-64 pe-i386 pdb srec symbolsrec verilog tekhex binary ihex plugin
`;

/** Print USAGE (after `message`, a getopt diagnostic, if any) and exit 1. */
export class Usage extends Error {}
/** binutils' fatal(): "strings: MESSAGE", exit 1. */
export class Fatal extends Error {}

export interface StringsOptions {
  min: number;
  radix: 0 | 8 | 10 | 16;
  fileNames: boolean;
  whitespace: boolean;
  encoding: string;
  separator: string | undefined;
  info: 'help' | 'version' | undefined;
  operands: string[];
}

const UNICODE_MODES = ['default', 'd', 'locale', 'l', 'escape', 'e', 'invalid', 'i', 'hex', 'x', 'highlight', 'h'];

/** C's strtoul(s, &end, 0) as unsigned int: the value and whether the whole word was a number. */
function strtoulInt(s: string): { value: number; whole: boolean } {
  const m = /^[ \t\n\v\f\r]*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(s);
  if (!m) return { value: 0, whole: s === '' };
  const digits = m[2]!;
  let v = BigInt(digits.length > 1 && digits[0] === '0' && /[xX]/.test(digits[1]!) ? digits : digits.length > 1 && digits[0] === '0' ? '0o' + digits.slice(1) : digits);
  const max = (1n << 64n) - 1n;
  if (v > max) v = max;
  if (m[1] === '-') v = (max + 1n - v) & max;
  return { value: Number(v & 0xffffffffn), whole: m[0].length === s.length };
}

export function parseStrings(def: CommandDef, name: string, args: string[]): StringsOptions {
  const o: StringsOptions = { min: 4, radix: 0, fileNames: false, whitespace: false, encoding: 's', separator: undefined, info: undefined, operands: [] };
  const optionWords: string[] = [];
  let numericAt = -1;
  let i = 0;
  const apply = (key: string, value: string): void => {
    switch (key) {
      case 'f': o.fileNames = true; break;
      case 'w': o.whitespace = true; break;
      case 'o': o.radix = 8; break;
      case 'n': {
        const r = strtoulInt(value);
        if (!r.whole) throw new Fatal(`invalid integer argument ${value}`);
        o.min = r.value;
        break;
      }
      case 't': {
        const radix = value.length === 1 ? ({ o: 8, d: 10, x: 16 } as const)[value as 'o' | 'd' | 'x'] : undefined;
        if (radix === undefined) throw new Usage('');
        o.radix = radix;
        break;
      }
      case 'e':
        if (value.length !== 1) throw new Usage('');
        o.encoding = value;
        break;
      case 's': o.separator = value; break;
      case 'U':
        if (!UNICODE_MODES.includes(value)) throw new Fatal(`invalid argument to -U/--unicode: ${value}`);
        if (value !== 'default' && value !== 'd') throw new Fatal(`--unicode=${value} is not supported by nosh (only --unicode=default)`);
        break;
      case 'help': case 'version': o.info ??= key; break;
      // a, d (no object files: the whole file is scanned either way), T (only used with -d)
    }
  };
  const flagOf = (ch: string) => def.flags.find((f) => f.short === ch);
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      optionWords.push(a);
      o.operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      let p: ReturnType<typeof parseArgs>;
      try {
        p = parseArgs(def, [a]);
      } catch (e) {
        if (!(e instanceof UsageError)) throw e;
        if (!e.message.endsWith('requires an argument') || i + 1 >= args.length) throw new Usage(e.message);
        p = parseArgs(def, [a, args[i + 1]!]);
        optionWords.push(a);
        i++;
      }
      optionWords.push(args[i]!);
      for (const x of p.opts.order) apply(x.key, x.value);
      continue;
    }
    if (a.length < 2 || a[0] !== '-') {
      o.operands.push(a);
      continue;
    }
    optionWords.push(a);
    for (let j = 1; j < a.length; j++) {
      const ch = a[j]!;
      if (ch >= '0' && ch <= '9') {
        // numeric_opt = optind: past this word when the digit ends it, else still on it.
        numericAt = j === a.length - 1 ? i + 1 : i;
        continue;
      }
      const f = flagOf(ch);
      if (!f) throw new Usage(`invalid option -- '${ch}'`);
      if ((f.kind ?? 'boolean') === 'boolean') {
        apply(f.key, '');
        continue;
      }
      let value = a.slice(j + 1);
      if (value === '') {
        if (i + 1 >= args.length) throw new Usage(`option requires an argument -- '${ch}'`);
        value = args[++i]!;
        optionWords.push(value);
      }
      apply(f.key, value);
      break;
    }
  }
  if (o.info) return o;
  if (numericAt >= 0) {
    // argv[numeric_opt - 1] + 1 in getopt's permuted argv: the option words first, then the operands.
    const argv = [name, ...optionWords, ...o.operands];
    const word = (argv[numericAt] ?? '').slice(1);
    const r = strtoulInt(word);
    if (!r.whole) throw new Fatal(`invalid integer argument ${word}`);
    o.min = r.value;
  }
  if (o.min < 1) throw new Fatal(`invalid minimum string length ${o.min | 0}`);
  if (!'sSblBL'.includes(o.encoding)) throw new Usage('');
  return o;
}
