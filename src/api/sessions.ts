/**
 * Shannon's session lifecycle as tools: list_workspaces (the caller's own session zones, every
 * one for the admin role) and delete_workspace. The owner of a session is the user who first
 * used it (session-owners/{id}, outside the zones: see Workspace.claimSession).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { NoshError } from '../errors.js';
import { roleMayWrite, type Context } from '../zones/context.js';
import { ContextSchema } from '../zones/context-schema.js';
import { validateId } from '../zones/ids.js';
import { countFiles } from '../zones/quota.js';
import type { HostMethod } from './host.js';

const Ctx = { context: ContextSchema.optional().describe('Who is calling: user, conversation, session, groups, role.') };

/** Sessions one list returns at most. */
const MAX_LISTED = 1000;

function ownerOf(base: string, id: string): string | undefined {
  try {
    return fs.readFileSync(path.join(base, 'session-owners', id), 'utf8');
  } catch {
    return undefined;
  }
}

export const SESSION_METHODS: HostMethod[] = [
  {
    name: 'list_workspaces',
    description: 'List your session workspaces (zone session:<id>): id, last use, when the TTL removes it, bytes and files. ' +
      'The admin role sees every user\'s sessions, with their owner.',
    input: z.object({ ...Ctx }).strict(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const ctx = (args.context ?? {}) as Context;
      const user = engine.workspace.userOf(ctx);
      const admin = ctx.role === 'admin';
      const base = engine.workspace.base;
      const ttl = engine.config.sessionTtlSeconds;
      let names: string[] = [];
      try {
        names = (await fs.promises.readdir(path.join(base, 'sessions'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
      } catch { /* no session yet */ }
      const out: Record<string, unknown>[] = [];
      let more = false;
      for (const id of names) {
        const owner = ownerOf(base, id);
        if (!admin && owner !== user) continue;
        if (out.length === MAX_LISTED) { more = true; break; }
        let st: fs.Stats;
        try { st = await fs.promises.lstat(path.join(base, 'sessions', id)); } catch { continue; }
        const used = await countFiles(path.join(base, 'sessions', id));
        out.push({ id, zone: `session:${id}`, ...(admin ? { owner: owner ?? null } : {}), last_used: new Date(st.mtimeMs).toISOString(),
          expires_at: new Date(st.mtimeMs + ttl * 1000).toISOString(), bytes: used.bytes, files: used.files,
          ...(id === ctx.session ? { current: true } : {}) });
      }
      return { data: { workspaces: out, ttl_seconds: ttl, ...(more ? { truncated: true } : {}) },
        message: `${out.length} session workspace${out.length === 1 ? '' : 's'}${more ? ` (the first ${MAX_LISTED})` : ''}` };
    },
  },
  {
    name: 'delete_workspace',
    description: 'Delete a session workspace (zone session:<id>) and everything in it, before its TTL would. Only your own sessions (the admin role: any).',
    input: z.object({ ...Ctx, session: z.string().min(1).describe('The session id (as list_workspaces gives it).') }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const ctx = (args.context ?? {}) as Context;
      const id = validateId('session', String(args.session));
      if (!roleMayWrite(ctx.role)) {
        throw new NoshError('ZONE_READONLY', `delete_workspace: the ${ctx.role} role is read-only`, 'Ask a developer to delete it, or let the TTL remove it.');
      }
      const user = engine.workspace.userOf(ctx);
      const base = engine.workspace.base;
      const root = path.join(base, 'sessions', id);
      const owner = ownerOf(base, id);
      if (!fs.existsSync(root) && owner === undefined) {
        throw new NoshError('FILE_NOT_FOUND', `no session workspace '${id}'`, 'list_workspaces shows your sessions.', { session: id });
      }
      if (owner !== user && ctx.role !== 'admin') {
        // the same answer as for an id nobody uses: another user's session ids are not revealed
        throw new NoshError('FILE_NOT_FOUND', `no session workspace '${id}'`, 'list_workspaces shows your sessions.', { session: id });
      }
      // In the zone's write order: a write under way finishes first, none starts in a half-removed folder.
      const counted = await countFiles(root).catch(() => ({ files: 0, bytes: 0 }));
      await engine.writes.whole(root, async () => {
        await fs.promises.rm(root, { recursive: true, force: true });
        await fs.promises.rm(path.join(base, 'session-owners', id), { force: true });
        return { data: null };
      });
      engine.workspace.quotas.forget(`session:${id}`);
      return { data: { deleted: `session:${id}`, bytes: counted.bytes, files: counted.files }, message: `deleted session:${id}` };
    },
  },
];
