import type { ToolDef } from './types.js';
import read from './read.js';

export type { ToolDef, ToolContext, ToolResult } from './types.js';
export { defineTool } from './types.js';

/** Every typed tool, by name. The worker and the main thread share this list. */
export const TOOLS: ReadonlyMap<string, ToolDef> = new Map(([read] as ToolDef[]).map((t) => [t.name, t]));
