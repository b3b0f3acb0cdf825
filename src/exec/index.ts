export { executeTask } from './execute.js';
export { errorBody } from '../runtime/error-body.js';
export { hintFor } from '../runtime/hints.js';
export { runPipeline } from './pipeline.js';
export type { PipelineResult, PipelineRequest } from './pipeline.js';
export type { TaskRequest, TaskResult, TaskResponse, TaskTool, ToolContext, ToolResult } from './task.js';
