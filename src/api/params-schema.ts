/** The parameters of exec and those every method takes, as zod schemas (the registry's; exec's fast check is execArgsOf in exec.ts). */
import { z } from 'zod';
import { ContextSchema } from '../zones/context-schema.js';
import { LIMITS } from '../limits.js';

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
