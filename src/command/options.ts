import type { CommandDef, FlagSpec } from './types.js';
import { collectValues, type OptionItem } from './options/values.js';

export { parseArgs } from './options/parse.js';
export type { Values, OptionItem } from './options/values.js';

/** A usage error: the command prints it with GNU's "Try --help" line and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A usage error found at a place in argv with GNU's own form: `tryHelp` false when GNU prints
 * no "Try --help" line (a value die()d on), `status` when it is not the command's usageStatus.
 */
export class OptionError extends UsageError {
  constructor(message: string, readonly tryHelp = true, readonly status?: number) {
    super(message);
    this.name = 'OptionError';
  }
}

/** Parsed flags, in the order given. Values of boolean flags are their `value` or 'true'. */
export class ParsedOptions {
  readonly order: OptionItem[] = [];

  /** The typed values (see Values): the last parsed value per key, arrays for `repeat` flags. */
  values(): Record<string, unknown> {
    return collectValues(this.order);
  }

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
