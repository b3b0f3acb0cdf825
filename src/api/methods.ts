import { z } from 'zod';
import { TOOLS } from '../tools/index.js';
import { ContextSchema, roleMayWrite, type Role } from '../zones/context.js';
import { HOST_METHODS } from './host.js';

/** Parameters every method takes: where to run. */
export const ZoneParams = {
  zone: z.string().min(1).optional().describe('Zone to work in: storage (default), documents, uploads, output, share, group:<id>, session:<id>, or a mount.'),
  context: ContextSchema.optional().describe('Who is calling: user, conversation, session, groups, role.'),
  cwd: z.string().optional().describe('Working directory inside the zone (default /).'),
};

export const ExecParams = z.object({
  ...ZoneParams,
  command: z.string().optional().describe("A command line, e.g. \"grep -rn TODO src | head -20\". Quotes, globs and pipes work; ; && > $() do not."),
  cmd: z.string().min(1).optional().describe('Argv form: the command name (args taken literally, no globbing).'),
  args: z.array(z.string()).optional().describe('Argv form: the arguments.'),
  stdin: z.string().optional().describe('Text given to the command on standard input.'),
  timeout_ms: z.number().int().positive().max(300_000).optional().describe('Time limit (default 30000).'),
  max_output_bytes: z.number().int().positive().max(5_000_000).optional().describe('Cap on returned stdout (default 50000).'),
  stdout_file: z.string().min(1).optional().describe('Write stdout to this file in the zone instead of returning it (the answer to >).'),
}).strict();

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
