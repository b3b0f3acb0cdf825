import type { CommandDef, FlagSpec } from './types.js';

/** A usage error: the command prints it with GNU's "Try --help" line and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Parsed flags, in the order given. Values of boolean flags are their `value` or 'true'. */
export class ParsedOptions {
  readonly order: { key: string; value: string; flag: string }[] = [];

  has(key: string): boolean {
    return this.order.some((o) => o.key === key);
  }
  /** Last value given for key. */
  get(key: string): string | undefined {
    for (let i = this.order.length - 1; i >= 0; i--) if (this.order[i]!.key === key) return this.order[i]!.value;
    return undefined;
  }
  all(key: string): string[] {
    return this.order.filter((o) => o.key === key).map((o) => o.value);
  }
  count(key: string): number {
    return this.order.filter((o) => o.key === key).length;
  }
  /** Which of the keys was given last (for mutually overriding flags like ls -t / -S). */
  lastOf(...keys: string[]): string | undefined {
    for (let i = this.order.length - 1; i >= 0; i--) if (keys.includes(this.order[i]!.key)) return this.order[i]!.key;
    return undefined;
  }
}

export const HELP_FLAG: FlagSpec = { key: 'help', long: 'help', help: 'display this help and exit' };
export const VERSION_FLAG: FlagSpec = { key: 'version', long: 'version', help: 'output version information and exit' };

/** The options getopt sees: the command's own, then --help and --version, as every GNU tool has. */
export function allFlags(def: CommandDef): FlagSpec[] {
  return [...def.flags, HELP_FLAG, VERSION_FLAG];
}

/** The text of --help or --version, whichever getopt met first, if either was given: printed instead of running. */
export function infoAsked(def: CommandDef, opts: ParsedOptions): string | undefined {
  const o = opts.order.find((x) => x.key === 'help' || x.key === 'version');
  return o && (o.key === 'help' ? helpText(def) : versionText(def));
}

/** What --version prints: nosh's name for the tool and the one it reproduces. */
export function versionText(def: CommandDef): string {
  return `${def.name} (nosh) compatible with ${def.reference ?? 'GNU coreutils 9.1'}\n`;
}

/** getopt_long as GNU does it: bundling, attached values, '--', permutation, unambiguous long prefixes. */
export function parseArgs(def: CommandDef, args: string[]): { opts: ParsedOptions; operands: string[] } {
  const flags = allFlags(def);
  const opts = new ParsedOptions();
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const flag = findLong(flags, name, arg, def.gnuLongOptions);
      const kind = flag.kind ?? 'boolean';
      if (kind === 'boolean') {
        if (eq >= 0) throw new UsageError(`option '--${flag.long}' doesn't allow an argument`);
        opts.order.push({ key: flag.key, value: flag.value ?? 'true', flag: arg });
      } else if (eq >= 0) {
        opts.order.push({ key: flag.key, value: arg.slice(eq + 1), flag: `--${flag.long}` });
      } else if (kind === 'optional') {
        opts.order.push({ key: flag.key, value: flag.value ?? '', flag: arg });
      } else {
        if (i + 1 >= args.length) throw new UsageError(`option '--${flag.long}' requires an argument`);
        opts.order.push({ key: flag.key, value: args[++i]!, flag: `--${flag.long}` });
      }
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const ch = arg[j]!;
        const flag = flags.find((f) => f.short === ch);
        if (!flag) throw new UsageError(`invalid option -- '${ch}'`);
        const kind = flag.kind ?? 'boolean';
        if (kind === 'boolean') {
          opts.order.push({ key: flag.key, value: flag.value ?? 'true', flag: `-${ch}` });
          continue;
        }
        const rest = arg.slice(j + 1);
        if (rest !== '') opts.order.push({ key: flag.key, value: rest, flag: `-${ch}` });
        else if (kind === 'optional') opts.order.push({ key: flag.key, value: flag.value ?? '', flag: `-${ch}` });
        else {
          if (i + 1 >= args.length) throw new UsageError(`option requires an argument -- '${ch}'`);
          opts.order.push({ key: flag.key, value: args[++i]!, flag: `-${ch}` });
        }
        break;
      }
      continue;
    }
    operands.push(arg);
  }
  return { opts, operands };
}

export type WalkItem =
  | { key: string; value: string; flag: string }
  | { operand: string; afterDashDash: boolean }
  /** getopt fails here: `rest` (from the failing option on) makes parseArgs report it. */
  | { rest: string[] };

/**
 * getopt's walk in argv order, operands in place, for GNU commands that check option values
 * while parsing (the first bad value in argv order is the one reported). `digits`: 0-9 are
 * short options too (uniq -N), yielded with key '#'.
 */
export function* walkOptions(def: CommandDef, args: string[], digits = false): Generator<WalkItem> {
  const flags = allFlags(def);
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      for (const operand of args.slice(i + 1)) yield { operand, afterDashDash: true };
      return;
    }
    if (a.startsWith('--')) {
      let p: ReturnType<typeof parseArgs>;
      try {
        p = parseArgs(def, [a]);
      } catch (e) {
        const needsValue = e instanceof UsageError && e.message.endsWith('requires an argument') && i + 1 < args.length;
        if (!needsValue) return yield { rest: args.slice(i) };
        p = parseArgs(def, [a, args[++i]!]);
      }
      yield* p.opts.order;
      continue;
    }
    if (a.length < 2 || a[0] !== '-') {
      yield { operand: a, afterDashDash: false };
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const ch = a[j]!;
      if (digits && ch >= '0' && ch <= '9') {
        yield { key: '#', value: ch, flag: `-${ch}` };
        continue;
      }
      const f = flags.find((x) => x.short === ch);
      const kind = f?.kind ?? 'boolean';
      const rest = a.slice(j + 1);
      if (!f || (kind === 'string' && rest === '' && i + 1 >= args.length)) return yield { rest: ['-' + a.slice(j), ...args.slice(i + 1)] };
      if (kind === 'boolean') yield { key: f.key, value: f.value ?? 'true', flag: `-${ch}` };
      else {
        yield { key: f.key, value: rest !== '' ? rest : kind === 'optional' ? f.value ?? '' : args[++i]!, flag: `-${ch}` };
        break;
      }
    }
  }
}

/** `arg` is the whole word: getopt names it, "=value" included, when it is unknown or ambiguous. */
function findLong(flags: FlagSpec[], name: string, arg: string, gnuLong?: readonly string[]): FlagSpec {
  const exact = flags.find((f) => f.long === name);
  if (exact) return exact;
  if (gnuLong) {
    // getopt_long over GNU's whole table: an abbreviation may also match options nosh does not offer.
    const hits = gnuLong.includes(name) ? [name] : gnuLong.filter((l) => l.startsWith(name));
    const ours = hits.map((l) => flags.find((f) => f.long === l));
    // Options nosh lacks count one each: GNU's table gives them different values.
    const distinct = new Set(ours.map((f, k) => (f ? f.key + '\0' + (f.value ?? '') : `\0${hits[k]}`)));
    if (hits.length > 1 && distinct.size > 1) {
      throw new UsageError(`option '${arg}' is ambiguous; possibilities: ${hits.map((l) => `'--${l}'`).join(' ')}`);
    }
    if (ours[0]) return ours[0];
    throw new UsageError(`unrecognized option '${arg}'`);
  }
  const prefixed = flags.filter((f) => f.long?.startsWith(name));
  const distinct = new Set(prefixed.map((f) => f.key + '\0' + (f.value ?? '')));
  if (name !== '' && prefixed.length > 0 && distinct.size === 1) return prefixed[0]!;
  if (prefixed.length > 1 && name !== '') {
    const list = prefixed.map((f) => `'--${f.long}'`).join(' ');
    throw new UsageError(`option '${arg}' is ambiguous; possibilities: ${list}`);
  }
  throw new UsageError(`unrecognized option '${arg}'`);
}

/** --help text generated from the declaration (never written by hand). */
export function helpText(def: CommandDef): string {
  const lines = [`Usage: ${def.name} [OPTION]... ${def.usage}`.trimEnd(), def.summary, ''];
  const rows = allFlags(def).map((f) => {
    const names = [f.short ? `-${f.short}` : '', f.long ? `--${f.long}` : ''].filter(Boolean);
    let left = names.join(', ');
    if (f.kind === 'string') left += f.long ? `=${f.arg ?? 'VALUE'}` : ` ${f.arg ?? 'VALUE'}`;
    if (f.kind === 'optional') left += f.long ? `[=${f.arg ?? 'VALUE'}]` : `[${f.arg ?? 'VALUE'}]`;
    if (!f.short) left = '    ' + left;
    return { left: '  ' + left, help: f.help };
  });
  const width = Math.min(30, Math.max(...rows.map((r) => r.left.length)) + 2);
  for (const r of rows) {
    lines.push(r.left.length >= width ? `${r.left}\n${' '.repeat(width)}${r.help}` : r.left.padEnd(width) + r.help);
  }
  if (def.notes) lines.push('', def.notes);
  return lines.join('\n') + '\n';
}
