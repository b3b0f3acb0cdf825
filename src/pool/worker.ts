import { executeTask, type TaskRequest, type TaskResponse } from '../exec/index.js';

/** Piscina worker entry: one task in, one plain-data response out. Buffers are transferred. */
export default async function runTask(req: TaskRequest): Promise<TaskResponse> {
  return executeTask(req);
}
