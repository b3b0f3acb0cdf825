/** The parameters of exec and those every method takes: zod only, no registry (what exec needs at start-up). */
import { z } from 'zod';
import { ContextSchema } from '../zones/context.js';

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
