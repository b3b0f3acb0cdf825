import { z } from 'zod';
import { TOOLS } from '../tools/index.js';
import { roleMayWrite, type Role } from '../zones/context.js';
import { HOST_METHODS } from './host.js';
import { ExecParams, ZoneParams } from './params.js';

export { ExecParams, ZoneParams } from './params.js';

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

/** Every method of the API, from one registry: exec, the typed tools, the host methods. A read-only role sees only what it may use. */
export function listMethods(role?: Role): MethodInfo[] {
  const all = allMethods();
  if (roleMayWrite(role)) return all;
  return all.filter((m) => m.name === 'exec' || m.annotations.readOnlyHint);
}

let cached: MethodInfo[] | undefined;

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
