import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CommandDef } from './types.js';

/**
 * Commands are the modules in commands/ (NAME.ts or NAME/index.ts, default export). They are found by
 * file name and imported on first use, so adding a command is adding a file.
 */
const COMMANDS_DIR = new URL('../../commands/', import.meta.url);
const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const cache = new Map<string, CommandDef>();
let available: Map<string, string> | null = null;

function files(): Map<string, string> {
  if (available) return available;
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  available = new Map();
  for (const f of fs.readdirSync(fileURLToPath(COMMANDS_DIR), { withFileTypes: true })) {
    if (f.isFile() && f.name.endsWith(ext) && !f.name.endsWith('.d.ts') && !f.name.startsWith('_') && f.name !== `index${ext}`) {
      available.set(f.name.slice(0, -ext.length), f.name);
    } else if (f.isDirectory() && NAME.test(f.name) && fs.existsSync(new URL(`${f.name}/index${ext}`, COMMANDS_DIR))) {
      // A command as a folder: commands/NAME/index.ts and its engine modules beside it.
      available.set(f.name, `${f.name}/index${ext}`);
    }
  }
  return available;
}

export function commandNames(): string[] {
  return [...files().keys()].sort();
}

export function hasCommand(name: string): boolean {
  return NAME.test(name) && files().has(name);
}

/** A command's declaration if loadCommand has loaded it already (no import). */
export function loadedCommand(name: string): CommandDef | undefined {
  return cache.get(name);
}

export async function loadCommand(name: string): Promise<CommandDef | undefined> {
  const hit = cache.get(name);
  if (hit) return hit;
  if (!hasCommand(name)) return undefined;
  const mod = (await import(new URL(files().get(name)!, COMMANDS_DIR).href)) as { default: CommandDef };
  cache.set(name, mod.default);
  return mod.default;
}

export async function loadAllCommands(): Promise<CommandDef[]> {
  const defs = await Promise.all(commandNames().map((n) => loadCommand(n)));
  return defs.filter((d): d is CommandDef => d !== undefined);
}
