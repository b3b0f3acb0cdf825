import { z } from 'zod';
import { MAX_GROUPS, ROLES, type Context } from './context.js';

/** Who is calling: every method takes it. Ids are validated when a zone needs them. */
export const ContextSchema = z.object({
  user: z.string().optional().describe('User id (default: the configured default user).'),
  conversation: z.string().optional().describe('Conversation id (for the uploads zone).'),
  session: z.string().optional().describe('Session id (for the session zone).'),
  // bounded: stats resolves (and creates the folder of) each group it lists, in the serving thread
  groups: z.array(z.string()).max(MAX_GROUPS).optional().describe(`Groups the user belongs to, as asserted by the runtime (at most ${MAX_GROUPS}).`),
  role: z.enum(ROLES).optional().describe('developer may write; generalist and critic are read-only; admin writes and manages every session workspace.'),
}).strict();

// The schema's output is the Context interface, both ways (a compile error otherwise).
type Parsed = z.output<typeof ContextSchema>;
const _same: [Parsed extends Context ? true : false, Required<Context> extends Required<Parsed> ? true : false] = [true, true];
void _same;
