export { executeTask, errorBody, hintFor } from './execute.js';
export { runPipeline } from './pipeline.js';
export type { PipelineResult, PipelineRequest } from './pipeline.js';
export type { TaskRequest, TaskResult, TaskResponse } from './task.js';
