import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandNames, hasCommand, isReader, loadAllCommands, loadCommand } from '../../commands/index.js';

const dir = new URL('../../commands/', import.meta.url);

describe('the static command registry', () => {
  it('lists every command folder, and nothing else', () => {
    const folders = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    for (const f of folders) expect(hasCommand(f), `commands/${f}/ is not in commands/index.ts`).toBe(true);
    for (const name of commandNames()) {
      const def = fs.existsSync(new URL(`${name}/index.ts`, dir));
      const alias = !def && folders.some((f) => f !== name);
      expect(def || alias, `${name} has no folder`).toBe(true);
    }
  });

  it('loads each command under its name or one of its declared aliases', async () => {
    for (const name of commandNames()) {
      const def = (await loadCommand(name))!;
      expect(def, name).toBeDefined();
      expect([def.name, ...(def.aliases ?? [])], name).toContain(name);
    }
  });

  it('lists every alias a command declares', async () => {
    for (const def of await loadAllCommands()) {
      for (const alias of def.aliases ?? []) expect(hasCommand(alias), `${def.name}'s alias ${alias}`).toBe(true);
    }
  });

  it('knows the reading commands without importing them: exactly those declared mutates: false that run no other', async () => {
    for (const name of commandNames()) {
      const def = (await loadCommand(name))!;
      expect(isReader(name), name).toBe(def.mutates === false && def.runs === undefined && def.readOnlyMode !== true);
    }
    expect(isReader('toString')).toBe(false);
  });

  it('knows no name outside the map (no prototype keys)', () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', '../grep']) expect(hasCommand(name)).toBe(false);
  });
});
