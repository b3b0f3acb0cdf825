import type { CommandDef, OptionsView } from './types.js';
import { allFlags } from './options/parse.js';

export { UsageError, OptionError } from './options/errors.js';
export { parseArgs, allFlags, HELP_FLAG, VERSION_FLAG } from './options/parse.js';
export { ParsedOptions } from './options/parsed.js';
export type { Values, OptionItem } from './types.js';

/** The text of --help or --version, whichever getopt met first, if either was given: printed instead of running. */
export function infoAsked(def: CommandDef, opts: OptionsView): string | undefined {
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
