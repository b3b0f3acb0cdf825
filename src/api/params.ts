/** The parameters of exec and those every method takes: zod only, no registry (what exec needs at start-up). */
import { z } from 'zod';
import { NoshError } from '../errors.js';
import { ContextSchema } from '../zones/context.js';
import { LIMITS } from '../limits.js';

/**
 * The two surfaces of the registry: what the model may call (MCP tools, `nosh schemas`, a JSON-RPC
 * connection that does not trust request context) and what the runtime may call besides (the
 * library, trusted JSON-RPC): `context` and the runtime methods exist only on the latter.
 */
export type Surface = 'model' | 'runtime';

/** Runtime methods: import writes into the read-only uploads zone, maintenance is upkeep. */
export const RUNTIME_METHODS: ReadonlySet<string> = new Set(['import', 'maintenance']);

/** Parameters every method takes on the model's surface: where to run. */
export const PlaceParams = {
  zone: z.string().min(1).optional().describe('Zone to work in: storage (default), documents, uploads, output, share, group:<id>, session:<id>, or a mount.'),
  cwd: z.string().optional().describe('Working directory inside the zone (default /).'),
};

/** Parameters every method takes on the runtime's surface: where to run, and who is calling. */
export const ZoneParams = {
  zone: PlaceParams.zone,
  context: ContextSchema.optional().describe('Who is calling: user, conversation, session, groups, role (set by the runtime, never by the model).'),
  cwd: PlaceParams.cwd,
};

/** The time limit every method takes (exec, the typed tools, the host methods). */
export const TimeoutParam = {
  timeout_ms: z.number().int().positive().max(LIMITS.timeoutMs.max).optional()
    .describe(`Time limit of this call in ms (default ${LIMITS.timeoutMs.default}, max ${LIMITS.timeoutMs.max}); past it the call stops with TIMEOUT.`),
};

/** The commit message of a call that changes a versioned zone (documents, groups). */
export const MessageParam = {
  message: z.string().max(10_000).optional().describe('In a versioned zone (documents, group:<id>): the commit message of this change (default: one naming the call).'),
};

/** The ownership mode of the files a writing call creates in a group zone (issue #20). */
export const GroupModeParam = {
  group_mode: z.enum(['owner', 'group', 'owner_ro']).optional()
    .describe('In a group zone: who may change the files this call creates: owner (only you), group (every member), owner_ro (nobody until you change it). Default: group.'),
};

/** exec's parameters: the one schema of exec (the library's camelCase exec() is mapped onto it). */
export const ExecParams = z.object({
  ...ZoneParams,
  command: z.string().optional().describe("A command line, e.g. \"grep -rn TODO src | head -20\". Quotes, globs and pipes work; ; && > $() do not."),
  cmd: z.string().min(1).optional().describe('Argv form: the command name (args taken literally, no globbing).'),
  args: z.array(z.string()).optional().describe('Argv form: the arguments.'),
  stdin: z.string().optional().describe('Text given to the command on standard input.'),
  timeout_ms: z.number().int().positive().max(LIMITS.timeoutMs.max).optional().describe(`Time limit (default ${LIMITS.timeoutMs.default}).`),
  max_output_bytes: z.number().int().positive().max(LIMITS.maxOutputBytes.max).optional().describe(`Cap on returned stdout (default ${LIMITS.maxOutputBytes.default}).`),
  stdout_file: z.string().min(1).optional().describe('Write stdout to this file in the zone instead of returning it (the answer to >).'),
  ...MessageParam,
  ...GroupModeParam,
}).strict();

/** Array items and object keys a call's params may hold in all. */
export const MAX_PARAM_ITEMS = 100_000;

/**
 * Refuse params with more than MAX_PARAM_ITEMS items before zod sees them. Validation runs in
 * the main thread, which serves every caller: 5 M empty strings in `include` (a 15 MB RPC line)
 * made 5 M zod issues and stalled it for 30 s; no method needs that many. Returns whether a null
 * is anywhere in them (strict function calling sends one for an optional argument not given:
 * see strict.ts), so that the params are walked once.
 */
export function checkParamsSize(params: unknown): boolean {
  if (typeof params !== 'object') return false;
  if (params === null) return true;
  let items = 0;
  let nulls = false;
  const tooMany = () => new NoshError('INVALID_ARGUMENT', `params hold more than ${MAX_PARAM_ITEMS} array items and keys`,
    'Split the work into several calls, or use exec with a glob or a file list.', { limit: MAX_PARAM_ITEMS });
  const stack: object[] = [params];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      items += v.length;
      if (items > MAX_PARAM_ITEMS) throw tooMany();
      for (const e of v as unknown[]) {
        if (e === null) nulls = true;
        else if (typeof e === 'object') stack.push(e);
      }
    } else {
      for (const k in v) {
        if (++items > MAX_PARAM_ITEMS) throw tooMany();
        const e = (v as Record<string, unknown>)[k];
        if (e === null) nulls = true;
        else if (typeof e === 'object') stack.push(e);
      }
    }
  }
  return nulls;
}
