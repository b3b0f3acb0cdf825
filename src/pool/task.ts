import { executeTask, type TaskRequest, type TaskResponse, type TaskTool } from '../exec/index.js';

/**
 * The typed tools (and zod, which they use) are loaded on the first tool call: a worker
 * that only runs command lines starts without them (start-up of `nosh serve`).
 */
let toolTables: Promise<[typeof import('../tools/index.js'), typeof import('../zones/transfer.js')]> | undefined;

async function toolNamed(name: string): Promise<TaskTool | undefined> {
  toolTables ??= Promise.all([import('../tools/index.js'), import('../zones/transfer.js')]);
  const [{ TOOLS }, { ZONE_TOOLS }] = await toolTables;
  return TOOLS.get(name) ?? ZONE_TOOLS.get(name);
}

/** One worker task, a command line or a typed tool (what each lane of the pool runs). */
export function runTask(req: TaskRequest, signal?: AbortSignal): Promise<TaskResponse> {
  return executeTask(req, signal, toolNamed);
}
