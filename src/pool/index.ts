export { WorkerPool } from './pool.js';
export type { PoolOptions } from './pool.js';
export { enableLinearRegexFallback } from './regex-flags.js';
