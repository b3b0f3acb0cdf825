export { WorkerPool } from './pool.js';
export type { CancelSignal, PoolOptions } from './pool.js';
export { enableLinearRegexFallback } from './regex-flags.js';
