/**
 * nosh as a library: `const nosh = await createNosh(config)`, then `nosh.exec(...)` or
 * `nosh.call(method, params)`. Every call returns an envelope; nothing throws for a bad
 * request or a failing command.
 */

export type { NoshConfig, ResolvedConfig } from './config.js';
export type { ExecData, ExecOptions, ExecRequest } from './api/exec.js';
export type { Envelope, ErrorBody, ErrorCode } from './errors.js';
export { NoshError, ERROR_CODES } from './errors.js';
export type { ZonePolicy } from './vfs/index.js';
export type { MethodInfo, Surface } from './api/methods.js';
export { createNosh, type CreateOptions, type Nosh } from './nosh.js';
export { LIMITS } from './limits.js';
export { listMethods } from './api/methods.js';
export { bindIdentity, type Binding } from './api/identity.js';
export { startSessionSweep, type Sweeper } from './api/upkeep.js';
export type { AfterWrite, CallOptions, WriteEvent } from './api/engine.js';
export type { Context, Role } from './zones/context.js';
export type { GroupProvider } from './zones/workspace.js';
export type { AuditEvent, AuditChange, AuditCallback } from './audit/log.js';
export { createLinkHandler, startHttpServer, type HandlerOptions, type HttpOptions, type RequestHandler } from './http/server.js';
