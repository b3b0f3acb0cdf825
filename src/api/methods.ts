import { z } from 'zod';
import { TOOLS } from '../tools/index.js';
import { roleMayWrite, type Role } from '../zones/context.js';
import { HOST_METHODS } from './host.js';
import { ExecParams, RUNTIME_METHODS, ZoneParams, type Surface } from './params.js';

export { ExecParams, ZoneParams } from './params.js';
export type { Surface } from './params.js';

export interface MethodInfo {
  name: string;
  description: string;
  input: z.ZodObject;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean };
}

const EXEC: MethodInfo = {
  name: 'exec',
  description: 'Run a Unix command line (ls, cat, grep, find, sed, head, wc, ...) in the zone, GNU-compatible output. ' +
    'No shell: no ; && > $() or variables; use stdout_file to save output. Returns exit_code, stdout, stderr, truncated.',
  input: ExecParams,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
};

/**
 * Every method of the API, from one registry: exec, the typed tools, the host methods. A
 * read-only role sees only what it may use; the model's surface has no `context` parameter and
 * no runtime method (import, maintenance).
 */
export function listMethods(role?: Role, surface: Surface = 'runtime'): MethodInfo[] {
  const all = surface === 'model' ? modelMethods() : allMethods();
  if (roleMayWrite(role)) return all;
  return all.filter((m) => m.name === 'exec' || m.annotations.readOnlyHint);
}

let cached: MethodInfo[] | undefined;
let cachedModel: MethodInfo[] | undefined;

/** The methods the model may call, each without `context`. */
function modelMethods(): MethodInfo[] {
  cachedModel ??= allMethods().filter((m) => !RUNTIME_METHODS.has(m.name))
    .map((m) => (m.input.shape.context ? { ...m, input: m.input.omit({ context: true }) } : m));
  return cachedModel;
}

/** Built once: extending every tool's schema with the zone parameters is not free. */
function allMethods(): MethodInfo[] {
  if (cached) return cached;
  const tools = [...TOOLS.values()].map((t): MethodInfo => ({
    name: t.name,
    description: t.description,
    input: (t.input as unknown as z.ZodObject).extend(ZoneParams),
    annotations: t.annotations,
  }));
  const host = HOST_METHODS.map(({ run: _run, ...info }) => info);
  cached = [EXEC, ...tools, ...host];
  return cached;
}
