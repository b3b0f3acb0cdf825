import { z } from 'zod';

/** Groups one context may name. */
export const MAX_GROUPS = 1000;

/** admin: a developer who also sees and deletes every user's session workspaces (list_workspaces, delete_workspace). */
export const ROLES = ['developer', 'generalist', 'critic', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling: every method takes it. Ids are validated when a zone needs them. */
export const ContextSchema = z.object({
  user: z.string().optional().describe('User id (default: the configured default user).'),
  conversation: z.string().optional().describe('Conversation id (for the uploads zone).'),
  session: z.string().optional().describe('Session id (for the session zone).'),
  // bounded: stats resolves (and creates the folder of) each group it lists, in the serving thread
  groups: z.array(z.string()).max(MAX_GROUPS).optional().describe(`Groups the user belongs to, as asserted by the runtime (at most ${MAX_GROUPS}).`),
  role: z.enum(ROLES).optional().describe('developer may write; generalist and critic are read-only; admin writes and manages every session workspace.'),
}).strict();

export type Context = z.output<typeof ContextSchema>;

/** Roles that may change files. */
export function roleMayWrite(role: Role | undefined): boolean {
  return role === undefined || role === 'developer' || role === 'admin';
}
