import type { z } from 'zod';

export type { ToolContext, ToolResult } from '../exec/task.js';
import type { ToolContext, ToolResult } from '../exec/task.js';

/**
 * A typed file tool (read, write, edit, list...). Declared once: the same definition gives
 * the JSON-RPC method, the MCP tool, the function-calling schema and the worker code.
 */
export interface ToolDef<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Written for an LLM: what it does, when to use it, what it returns. */
  description: string;
  /** Arguments of the tool itself; zone/cwd/context parameters are added by the registry. */
  input: S;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean };
  /** Refused up front in read-only zones and roles. */
  mutates: boolean;
  /** In a read-only zone or role it runs read-only instead of being refused (as CommandDef.readOnlyMode). */
  readOnlyMode?: boolean;
  /** Only deletes: allowed in read-only zones that allow deleting (uploads). */
  deleteOnly?: boolean;
  /** Runs in a worker; throws NoshError / VfsError for failures. */
  run(ctx: ToolContext, args: z.output<S>): Promise<ToolResult> | ToolResult;
}

export function defineTool<S extends z.ZodType>(def: ToolDef<S>): ToolDef<S> {
  return def;
}
