import { OptionError, defineCommand, parseArgs, type CommandDef } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteAlways } from '../../src/gnulib/quote.js';
import { InputError, delimited, quoted, type Item } from './input.js';

/** GNU's default and largest command line (bytes of the arguments, each with its NUL). */
const MAX_CHARS = 131072;
/** -P 0 ("as many as possible") and larger -P values: commands at once, all in this task's worker. */
const MAX_PROCS = 32;

function count(option: string, min: number) {
  return (v: string): number => {
    if (!/^\s*[-+]?\d+$/.test(v)) throw new OptionError(`invalid number "${v}" for ${option} option`);
    const n = Number(v);
    if (n < min) throw new OptionError(`value ${v} for ${option} option should be >= ${min}`);
    return n;
  };
}

/** -d's value: one character, or an escape (\n \t \\ \0 \x41 \012). */
function delimiter(v: string): number {
  const simple: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };
  if (v.length === 1) return v.charCodeAt(0);
  const bad = () => new OptionError(`Invalid input delimiter specification ${v}: the delimiter must be either a single character or an escape sequence starting with \\.`, false);
  if (v[0] !== '\\') throw bad();
  if (v.length === 2 && simple[v[1]!] !== undefined) return simple[v[1]!]!;
  let m = /^\\x([0-9a-fA-F]+)$/.exec(v);
  if (m) return parseInt(m[1]!, 16) & 255;
  m = /^\\([0-7]+)$/.exec(v);
  if (m) return parseInt(m[1]!, 8) & 255;
  throw bad();
}

const def: CommandDef = defineCommand({
  name: 'xargs',
  summary: 'Run COMMAND (a nosh command, echo by default) with arguments read from standard input, in batches. '
    + 'Each batch runs inside this task and its limits; COMMAND must be allowed in the zone. -P N runs up to N commands at once '
    + '(in this task\'s worker, as async commands; their output is written as it comes, as GNU\'s).',
  usage: '[COMMAND [INITIAL-ARGS]...]',
  mutates: false,
  optionsEnd: 'first-operand',
  usageStatus: 1,
  reference: 'GNU findutils 4.9.0',
  runs: (args) => {
    try {
      const p = parseArgs(def, args);
      return p.operands.length > 0 ? p.operands : ['echo'];
    } catch {
      return undefined;
    }
  },
  flags: [
    { key: 'null', short: '0', long: 'null', help: 'items are separated by a null, not whitespace; disables quote and backslash processing and logical EOF processing' },
    { key: 'argFile', short: 'a', long: 'arg-file', kind: 'string', arg: 'FILE', help: 'read arguments from FILE, not standard input' },
    { key: 'delimiter', short: 'd', long: 'delimiter', kind: 'string', arg: 'CHARACTER', parse: delimiter, help: 'items in input stream are separated by CHARACTER, not by whitespace; disables quote and backslash processing and logical EOF processing' },
    { key: 'eof', short: 'E', kind: 'string', arg: 'END', help: 'set logical EOF string; if END occurs as a line of input, the rest of the input is ignored (ignored if -0 or -d was specified)' },
    { key: 'eof', short: 'e', long: 'eof', kind: 'optional', arg: 'END', value: '', help: 'equivalent to -E END if END is specified; otherwise, there is no end-of-file string' },
    { key: 'replace', short: 'I', kind: 'string', arg: 'R', help: 'same as --replace=R' },
    { key: 'replace', short: 'i', long: 'replace', kind: 'optional', arg: 'R', value: '{}', help: 'replace R in INITIAL-ARGS with names read from standard input, split at newlines; if R is unspecified, assume {}' },
    { key: 'maxLines', short: 'L', long: 'max-lines', kind: 'string', arg: 'MAX-LINES', parse: count('-L', 1), help: 'use at most MAX-LINES non-blank input lines per command line' },
    { key: 'maxLines', short: 'l', kind: 'optional', arg: 'MAX-LINES', value: '1', parse: count('-l', 1), help: 'similar to -L but defaults to at most one non-blank input line if MAX-LINES is not specified' },
    { key: 'maxArgs', short: 'n', long: 'max-args', kind: 'string', arg: 'MAX-ARGS', parse: count('-n', 1), help: 'use at most MAX-ARGS arguments per command line' },
    { key: 'procs', short: 'P', long: 'max-procs', kind: 'string', arg: 'MAX-PROCS', parse: count('-P', 0), help: 'run at most MAX-PROCS commands at a time (0: up to 32, all in this task)' },
    { key: 'noEmpty', short: 'r', long: 'no-run-if-empty', help: 'if there are no arguments, then do not run COMMAND; if this option is not given, COMMAND will be run at least once' },
    { key: 'maxChars', short: 's', long: 'max-chars', kind: 'string', arg: 'MAX-CHARS', parse: count('-s', 1), help: 'limit length of command line to MAX-CHARS' },
    { key: 'verbose', short: 't', long: 'verbose', help: 'print commands before executing them' },
    { key: 'exit', short: 'x', long: 'exit', help: 'exit if the size (see -s) is exceeded' },
  ],
  async run(ctx) {
    const v = ctx.values as {
      null?: true; argFile?: string; delimiter?: number; eof?: string; replace?: string; maxLines?: number;
      maxArgs?: number; noEmpty?: true; maxChars?: number; verbose?: true; exit?: true; procs?: number;
    };
    if (!ctx.run) {
      await ctx.warn('cannot run commands here');
      return 1;
    }
    const command = ctx.operands.length > 0 ? ctx.operands : ['echo'];
    const replace = v.replace === '' ? undefined : v.replace;
    // -I and -L exclude -n (the last given wins in GNU; here -I/-L win) and imply -x
    const maxLines = replace !== undefined ? 1 : v.maxLines;
    const maxArgs = replace !== undefined || maxLines !== undefined ? undefined : v.maxArgs;
    const mustFit = v.exit === true || replace !== undefined || maxLines !== undefined;
    const maxChars = Math.min(v.maxChars ?? MAX_CHARS, MAX_CHARS);
    const baseSize = command.reduce((n, a) => n + Buffer.byteLength(a, 'latin1') + 1, 0);
    if (replace === undefined && baseSize > maxChars) {
      await ctx.warn('cannot fit single argument within argument list size limit');
      return 1;
    }

    if ((v.null || v.delimiter !== undefined) && v.eof !== undefined && v.eof !== '') {
      await ctx.warn('warning: the -E option has no effect if -0 or -d is used.\n');
    }
    let data: Buffer;
    try {
      data = v.argFile !== undefined ? ctx.fs.readFile(v.argFile, ctx.cwd) : await ctx.stdin.readAll();
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      await ctx.warn(`Cannot open input file ${quoteAlways(v.argFile!)}: ${e.reason}`);
      return 1;
    }
    const childStdin = v.argFile !== undefined ? ctx.stdin : undefined;
    const items: Generator<Item> = v.null ? delimited(data, 0)
      : v.delimiter !== undefined ? delimited(data, v.delimiter)
        : quoted(data, v.eof === '' ? undefined : v.eof, replace !== undefined);

    let status = 0;
    let ran = false;
    const procs = v.procs === undefined ? 1 : v.procs === 0 ? MAX_PROCS : Math.min(v.procs, MAX_PROCS);
    /** Commands still running (-P), the first status that ends xargs, and a failure of the task itself. */
    const running = new Set<Promise<void>>();
    let stop: number | undefined;
    let failure: { error: unknown } | undefined;
    /** Start one command line when a slot is free; a non-undefined result ends xargs with that status. */
    const launch = async (args: string[]): Promise<number | undefined> => {
      while (running.size >= procs) await Promise.race(running);
      if (stop !== undefined || failure) return stop ?? 1;
      const p: Promise<void> = runOne(args).then(
        (end) => { if (end !== undefined) stop ??= end; },
        (error: unknown) => { failure ??= { error }; },
      ).finally(() => running.delete(p));
      running.add(p);
      if (procs === 1) await p;
      return stop ?? (failure ? 1 : undefined);
    };
    /** Run one command line (-t prints it first); the status that ends xargs, if it does. */
    const runOne = async (args: string[]): Promise<number | undefined> => {
      const argv = replace !== undefined
        ? command.map((a) => a.split(replace).join(args[0] ?? ''))
        : [...command, ...args];
      ran = true;
      if (v.verbose) await ctx.stderr.write(argv.join(' ') + '\n');
      const code = await ctx.run!(argv, childStdin);
      if (code === 255) {
        await ctx.warn(`${argv[0]}: exited with status 255; aborting`);
        return 124;
      }
      if (code === 126 || code === 127) return code;
      if (code > 128) {
        await ctx.warn(`${argv[0]}: terminated by signal ${code - 128}`);
        return 125;
      }
      if (code !== 0) status = 123;
      return undefined;
    };

    /** Reads the items and launches the batches; a number ends xargs with it, undefined: the commands' status. */
    const feed = async (): Promise<number | undefined> => {
      let batch: string[] = [];
      let size = baseSize;
      let lines = 0;
      try {
        for (const item of items) {
          const len = Buffer.byteLength(item.arg, 'latin1') + 1;
          if (replace !== undefined) {
            const end = await launch([item.arg]);
            if (end !== undefined) return end;
            continue;
          }
          if (baseSize + len > maxChars) {
            await ctx.warn('argument line too long');
            if (batch.length > 0) {
              const end = await launch(batch);
              if (end !== undefined) return end;
            }
            return 1;
          }
          if (size + len > maxChars) {
            if (mustFit && (maxLines !== undefined || maxArgs !== undefined)) {
              await ctx.warn('argument list too long');
              return 1;
            }
            const end = await launch(batch);
            if (end !== undefined) return end;
            batch = [];
            size = baseSize;
            lines = 0;
          }
          batch.push(item.arg);
          size += len;
          if (item.eol) lines++;
          if ((maxArgs !== undefined && batch.length >= maxArgs) || (maxLines !== undefined && lines >= maxLines)) {
            const end = await launch(batch);
            if (end !== undefined) return end;
            batch = [];
            size = baseSize;
            lines = 0;
          }
        }
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        if (batch.length > 0) {
          const end = await launch(batch);
          if (end !== undefined) return end;
        }
        await ctx.warn(e.message);
        return 1;
      }
      if (batch.length > 0 || (!ran && !v.noEmpty && replace === undefined)) {
        const end = await launch(batch);
        if (end !== undefined) return end;
      }
      return undefined;
    };
    const ended = await feed();
    // every command started ends before xargs does (GNU waits for its children too)
    while (running.size > 0) await Promise.race(running);
    if (failure) throw failure.error;
    return stop ?? ended ?? status;
  },
});

export default def;
