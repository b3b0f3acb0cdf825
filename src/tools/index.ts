import type { ToolDef } from './types.js';
import { withSuggestions } from './common.js';
import read from './read.js';
import readMany from './read_many.js';
import write from './write.js';
import edit from './edit.js';
import del from './delete.js';
import move, { rename } from './move.js';
import copy from './copy.js';
import mkdir from './mkdir.js';
import exists from './exists.js';
import stat from './stat.js';
import list from './list.js';
import tree from './tree.js';
import find from './find.js';
import search from './search.js';
import checkAccess from './check_access.js';
import zip from './zip.js';
import unzip from './unzip.js';
import zipinfo from './zipinfo.js';
import hexdump from './hexdump.js';
import convertEol from './convert_eol.js';
import { sqlite, importCsv } from './sqlite.js';

export type { ToolDef, ToolContext, ToolResult } from './types.js';
export { defineTool } from './types.js';

const ALL = [read, readMany, write, edit, del, move, rename, copy, mkdir, exists, stat, list, tree, find, search, checkAccess, zip, unzip, zipinfo, hexdump, convertEol, sqlite, importCsv] as ToolDef[];

/** A FILE_NOT_FOUND from any tool names the closest existing entries in its hint. */
function withHints(t: ToolDef): ToolDef {
  return {
    ...t,
    async run(ctx, args) {
      try {
        return await t.run(ctx, args);
      } catch (e) {
        throw withSuggestions(e, ctx.fs, ctx.cwd);
      }
    },
  };
}

/** Every typed tool, by name. The worker and the main thread share this list. */
export const TOOLS: ReadonlyMap<string, ToolDef> = new Map(ALL.map((t) => [t.name, withHints(t)]));
