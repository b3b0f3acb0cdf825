/**
 * The group tools (issue #20, Fileshed's shed_group_*): the caller's groups, one group's members,
 * files by owner and mode and usage, and the owner's changes of a file's mode or owner.
 */
import { z } from 'zod';
import { NoshError } from '../errors.js';
import type { Context } from '../zones/context.js';
import { ContextSchema } from '../zones/context-schema.js';
import { countFiles } from '../zones/quota.js';
import { normalizeVirtual } from '../vfs/index.js';
import { WRITE_ACCESS, type Ownership } from '../meta/index.js';
import type { Zone } from '../zones/workspace.js';
import { relOf } from './ownership.js';
import { orderKey } from './write-order.js';
import type { HostMethod } from './host.js';
import type { HostEngine } from './method.js';

const Ctx = { context: ContextSchema.optional().describe('Who is calling: user, conversation, session, groups, role.') };
const Group = { group: z.string().min(1).describe('Group id (the zone group:<id>).') };

async function groupZone(engine: HostEngine, args: Record<string, unknown>): Promise<{ zone: Zone; key: string; user: string; ctx: Context }> {
  const ctx = (args.context ?? {}) as Context;
  const zone = await engine.zoneOf({ zone: `group:${String(args.group)}`, context: ctx });
  return { zone, key: engine.keyOf(zone), user: engine.workspace.userOf(ctx), ctx };
}

/** The row of a file the caller owns, for a change only its owner may make. */
async function ownedRow(engine: HostEngine, key: string, zone: Zone, user: string, p: string): Promise<Ownership> {
  const rel = relOf(normalizeVirtual(p, '/'));
  const [row] = await engine.meta.ownerships(key, [rel]);
  if (!row) {
    throw new NoshError('FILE_NOT_FOUND', `/${rel}: no ownership record in ${zone.name}`,
      'Only files created through nosh have an owner: check the path with list (it shows owner and mode).', { path: '/' + rel });
  }
  if (row.owner !== user) {
    throw new NoshError('PERMISSION_DENIED', `/${rel}: owned by ${row.owner}, mode ${row.mode}; only the owner may change it`,
      `Ask ${row.owner} to make this change.`, { path: '/' + rel, owner: row.owner, mode: row.mode });
  }
  return row;
}

function rowData(r: Ownership) {
  return { path: '/' + r.path, owner: r.owner, mode: r.mode, created_at: new Date(r.createdAt).toISOString(), updated_at: new Date(r.updatedAt).toISOString() };
}

export const GROUP_METHODS: HostMethod[] = [
  {
    name: 'group_list',
    description: 'The groups you belong to (each is the zone group:<id>).',
    input: z.object({ ...Ctx }).strict(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const ctx = (args.context ?? {}) as Context;
      const groups = (await engine.workspace.groupsOf(engine.workspace.userOf(ctx), ctx)).filter((g) => !ctx.groups || ctx.groups.includes(g));
      return { data: { groups: groups.map((g) => ({ id: g, zone: `group:${g}` })) } };
    },
  },
  {
    name: 'group_info',
    description: 'One group: its members, its files by owner and by mode (owner, group, owner_ro), and its usage.',
    input: z.object({ ...Group, ...Ctx }).strict(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const { zone, key } = await groupZone(engine, args);
      const rows = await engine.meta.ownershipsUnder(key, '');
      const byOwner: Record<string, string[]> = {};
      const byMode: Record<string, number> = Object.fromEntries(WRITE_ACCESS.map((m) => [m, 0]));
      for (const r of rows) {
        (byOwner[r.owner] ??= []).push('/' + r.path);
        byMode[r.mode]!++;
      }
      const used = zone.quota ? engine.workspace.quotas.used(zone.quota.name) ?? 0 : undefined;
      return { data: {
        group: String(args.group), zone: zone.name,
        members: engine.workspace.membersOf(String(args.group)) ?? null,
        files_by_owner: byOwner, files_by_mode: byMode,
        usage: { ...(await countFiles(zone.root)), ...(zone.quota ? { quota_used: used, quota_limit: zone.quota.limit } : {}) },
      } };
    },
  },
  {
    name: 'group_set_mode',
    description: 'Change who may write a group file you own: owner (only you), group (every member), owner_ro (nobody, you included, until you change it).',
    input: z.object({ ...Group, ...Ctx, path: z.string().min(1).describe('The file, inside the group zone.'),
      mode: z.enum(WRITE_ACCESS).describe('The new mode.') }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const { zone, key, user } = await groupZone(engine, args);
      return engine.writes.whole(orderKey(zone).root, async () => {
        const row = await ownedRow(engine, key, zone, user, String(args.path));
        const now = await engine.meta.updateOwnership(key, row.path, { mode: args.mode as Ownership['mode'] });
        return { data: rowData(now!), message: `mode of /${row.path}: ${now!.mode}` };
      });
    },
  },
  {
    name: 'group_chown',
    description: 'Give a group file you own to another member of the group (it keeps its mode).',
    input: z.object({ ...Group, ...Ctx, path: z.string().min(1).describe('The file, inside the group zone.'),
      owner: z.string().min(1).describe('The member who will own it.') }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const { zone, key, user } = await groupZone(engine, args);
      const to = String(args.owner);
      if (engine.workspace.membershipKnown && !(await engine.workspace.groupsOf(to, {})).includes(String(args.group))) {
        throw new NoshError('INVALID_ARGUMENT', `${to} is not a member of group ${args.group}`, 'Give the file to a member (group_info lists them).', { owner: to });
      }
      return engine.writes.whole(orderKey(zone).root, async () => {
        const row = await ownedRow(engine, key, zone, user, String(args.path));
        const now = await engine.meta.updateOwnership(key, row.path, { owner: to });
        return { data: rowData(now!), message: `/${row.path} now belongs to ${to}` };
      });
    },
  },
];
