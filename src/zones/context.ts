/**
 * Who is calling, without zod (the one-shot CLI loads this module): the schema that validates a
 * context a request sends is ContextSchema in context-schema.ts.
 */

/** Groups one context may name. */
export const MAX_GROUPS = 1000;

/** admin: a developer who also sees and deletes every user's session workspaces (list_workspaces, delete_workspace). */
export const ROLES = ['developer', 'generalist', 'critic', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling: every method takes it (ContextSchema checks it). Ids are validated when a zone needs them. */
export interface Context {
  user?: string;
  conversation?: string;
  session?: string;
  groups?: string[];
  role?: Role;
}

/** Roles that may change files. */
export function roleMayWrite(role: Role | undefined): boolean {
  return role === undefined || role === 'developer' || role === 'admin';
}
