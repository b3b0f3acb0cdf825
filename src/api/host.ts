import * as path from 'node:path';
import { z } from 'zod';
import { NoshError } from '../errors.js';
import { commandNames, loadCommand } from '../../commands/index.js';
import { roleMayWrite, type Context } from '../zones/context.js';
import { ContextSchema } from '../zones/context-schema.js';
import { countFiles, scanBytes } from '../zones/quota.js';
import { STALE_TEMP_SECONDS, expireSessions, removeStaleTemps } from '../zones/maintenance.js';
import { gitdirsUnder, packLoose } from '../versioning/pack.js';
import { validateFileName } from '../zones/transfer.js';
import { removeStaleMetaTemps, type WriteAccess } from '../meta/index.js';
import type { HostEngine, Invocation, MethodInfo } from './method.js';
import { orderKey } from './write-order.js';
import { cleanOwnerships, expireLocks } from './ownership.js';

export type { HostEngine, ZoneToolOptions, ZoneToolResult } from './method.js';

/** A method the main thread serves; `runs`: whether its work is a worker tool (import, transfer) or the main thread's own. */
export interface HostMethod extends MethodInfo {
  runs: 'main' | 'worker';
  run(engine: HostEngine, args: Record<string, unknown>, call: Pick<Invocation, 'timeoutMs' | 'progress'>): Promise<{ data: unknown; message?: string }>;
}

const Ctx = { context: ContextSchema.optional().describe('Who is calling: user, conversation, session, groups, role.') };

/** Transfers between zones (Fileshed's bridges): which pairs exist and whether they move or copy. */
const BRIDGES: { from: string; to: string; move: boolean }[] = [
  { from: 'uploads', to: 'storage', move: true },
  { from: 'uploads', to: 'documents', move: true },
  { from: 'storage', to: 'documents', move: false },
  { from: 'documents', to: 'storage', move: true },
  { from: 'storage', to: 'group', move: false },
  { from: 'documents', to: 'group', move: false },
  { from: 'storage', to: 'share', move: false },
  { from: 'documents', to: 'share', move: false },
  { from: 'output', to: 'share', move: false },
];

const HELP = `nosh: a file workspace. Zones:
- storage: your files (read/write). output: Storage/output, for generated files.
- documents: versioned files. uploads: files the user gave in this conversation (read-only; delete allowed).
- group:<id>: shared with a group you belong to. share: visible to every user. session:<id>: scratch space removed after its TTL.
Workflow: look with exec "ls -la" / "tree -L 2" / "find . -name '*.md'", read with read {path, offset, limit},
search with exec "grep -rn PATTERN ." or search, change with edit (exact str_replace) or write; save command
output with exec {command, stdout_file}. Move uploads into storage with transfer {from: "uploads", to: "storage", path}.
No shell: no ; && > $() or variables; one command line (pipes allowed) per exec call.`;

export const HOST_METHODS: HostMethod[] = [
  {
    name: 'stats',
    description: 'Usage of your zones: bytes and files per zone, quota used and limit, files and folders against the file limit; versions_bytes: the git history of versioned zones (counted in the quota). Use before large writes.',
    input: z.object({ ...Ctx }).strict(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const ctx = (args.context ?? {}) as Context;
      const zones: Record<string, unknown> = {};
      const quotas: Record<string, unknown> = {};
      const groups = (await engine.workspace.groupsOf(engine.workspace.userOf(ctx), ctx)).filter((g) => !ctx.groups || ctx.groups.includes(g));
      const names = ['storage', 'documents', ...(ctx.conversation ? ['uploads'] : []), 'share', ...(ctx.session ? [`session:${ctx.session}`] : []),
        ...groups.map((g) => `group:${g}`)];
      for (const name of names) {
        const zone = await engine.zoneOf({ zone: name, context: ctx });
        zones[zone.name] = { ...await countFiles(zone.root), ...(zone.gitdir ? { versions_bytes: await scanBytes([zone.gitdir]) } : {}) };
        if (zone.quota) {
          const used = engine.workspace.quotas.used(zone.quota.name) ?? 0;
          quotas[zone.quota.name] = { used, limit: zone.quota.limit, free: Math.max(0, zone.quota.limit - used),
            versions_bytes: engine.workspace.quotas.versions(zone.quota.name) ?? 0,
            files: engine.workspace.quotas.files(zone.quota.name) ?? 0, max_files: zone.quota.maxFiles };
        }
      }
      return { data: { zones, quotas } };
    },
  },
  {
    name: 'parameters',
    description: 'The effective limits, quotas, zones and policies of this workspace (no host paths).',
    input: z.object({ ...Ctx }).strict(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run(engine) {
      const c = engine.config;
      return { data: {
        limits: c.limits, quotas: c.quotas, zones: engine.workspace.zoneNames(), zone_policies: c.zones,
        mounts: c.mounts.map(({ path: _hidden, ...m }) => m), session_ttl_seconds: c.sessionTtlSeconds,
        roles: { developer: 'read and write', generalist: 'read-only', critic: 'read-only', admin: 'read and write; every user\'s session workspaces' },
      } };
    },
  },
  {
    name: 'allowed_commands',
    description: 'The commands exec accepts in a zone for your role (read-only zones and roles get only the non-mutating ones).',
    input: z.object({ zone: z.string().optional().describe('Zone name (default storage).'), ...Ctx }).strict(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const zone = await engine.zoneOf({ zone: args.zone as string | undefined, context: args.context as Context });
      // By the name exec is called with (egrep and fgrep are grep's module under their own names),
      // with the same checks exec makes before it runs a stage.
      const named = await Promise.all(commandNames().map(async (name) => ({ name, def: (await loadCommand(name))! })));
      const allowed = named.filter(({ name, def }) => {
        if (zone.policy.allowedCommands && !zone.policy.allowedCommands.includes(name)) return false;
        if (!zone.policy.readonly) return true;
        return def.mutates !== true || def.readOnlyMode === true || (zone.policy.allowDelete && (name === 'rm' || name === 'rmdir'));
      });
      return { data: { zone: zone.name, readonly: zone.policy.readonly, commands: allowed.map(({ name, def }) => ({ name, summary: def.summary, conditional: typeof def.mutates === 'function' })) } };
    },
  },
  {
    name: 'help',
    description: 'A short guide to the zones, the workflow and examples. Read it first.',
    input: z.object({ ...Ctx }).strict(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run() {
      return { data: { text: HELP } };
    },
  },
  {
    name: 'maintenance',
    description: 'Operator task: remove expired session zones, stale temporary files, expired locked edits (and their working copies) and the ownership rows of group files deleted outside nosh; pack the loose objects of versioned zones; optionally recount quota usage from disk.',
    input: z.object({ ...Ctx, rescan: z.boolean().optional().describe('Recount quota usage from disk (repairs drift).') }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const base = engine.workspace.base;
      const sessions = await expireSessions(base, engine.config.sessionTtlSeconds);
      for (const id of sessions) engine.workspace.quotas.forget(`session:${id}`);
      const temps = await removeStaleTemps(engine.workspace.writableFolders(), STALE_TEMP_SECONDS) + await removeStaleMetaTemps(base);
      let packed = 0;
      for (const gitdir of await gitdirsUnder(path.join(base, 'versions'))) {
        const n = await packLoose(gitdir);
        // the pack replaced the loose objects: the quotas holding this history count it afresh
        if (n > 0) await engine.workspace.quotas.recountVersions(gitdir);
        packed += n;
      }
      const rescan = args.rescan ? await engine.workspace.quotas.rescan() : undefined;
      const locks = await expireLocks(engine);
      const rows = await cleanOwnerships(engine.meta, base);
      return { data: { expired_sessions: sessions, stale_temp_files: temps, expired_locks: locks, stale_ownership_rows: rows, packed_objects: packed, ...(rescan ? { rescan } : {}) } };
    },
  },
  {
    name: 'import',
    description: 'Runtime only: put a file the user uploaded into the uploads zone of the conversation (content or base64).',
    input: z.object({
      ...Ctx,
      name: z.string().describe('File name (one path component).'),
      content: z.string().optional().describe('Text content.'),
      content_base64: z.string().optional().describe('Bytes, base64.'),
      overwrite: z.boolean().optional().describe('Replace a file of that name (default: FILE_EXISTS).'),
    }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    runs: 'worker',
    async run(engine, args, call) {
      const name = validateFileName(String(args.name));
      if ((args.content === undefined) === (args.content_base64 === undefined)) {
        throw new NoshError('MISSING_PARAMETER', 'give content or content_base64', 'Pass exactly one of them.');
      }
      const ctx = (args.context ?? {}) as Context;
      if (!roleMayWrite(ctx.role)) {
        throw new NoshError('ZONE_READONLY', `import: the ${ctx.role} role is read-only`, 'Import with a developer context (or none).');
      }
      // No await for a zone already known: calls take their place in the write order in the
      // order they come only if none of them waits for a turn of the event loop before it.
      const known = engine.zoneOf({ zone: 'uploads', context: ctx });
      const zone = known instanceof Promise ? await known : known;
      const writable = { ...zone, policy: { ...zone.policy, readonly: false } };
      const b64 = (args.content_base64 as string | undefined) ?? Buffer.from(String(args.content), 'utf8').toString('base64');
      const key = orderKey(zone);
      return engine.writes.file(key.root, `${key.prefix}/${name}`, () =>
        engine.runZoneTool(writable, '_import', { name, content_base64: b64, overwrite: args.overwrite === true }, { context: args.context as Context, timeoutMs: call.timeoutMs,
          commit: { method: 'import', message: args.message as string | undefined } }));
    },
  },
  {
    name: 'transfer',
    description: 'Move or copy a file or folder between zones: uploads->storage|documents (move), storage->documents (copy), ' +
      'documents->storage (move), storage|documents->group:<id> (copy, with an ownership mode), storage|documents|output->share (copy).',
    input: z.object({
      ...Ctx,
      from: z.string().describe('Source zone.'),
      to: z.string().describe('Destination zone.'),
      path: z.string().min(1).describe('Path in the source zone.'),
      dest: z.string().optional().describe('Path in the destination zone (default: same name at its root).'),
      mode: z.enum(['owner', 'group', 'owner_ro']).optional().describe('Ownership mode of the files a group copy creates: owner (only you change them), group (every member), owner_ro (nobody until you change it). Default: group.'),
      overwrite: z.boolean().optional().describe('Replace files that exist at the destination (default: FILE_EXISTS, nothing transferred).'),
      create_dirs: z.boolean().optional().describe('Create the destination\'s missing parent folders.'),
    }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    runs: 'worker',
    async run(engine, args, call) {
      const ctx = (args.context ?? {}) as Context;
      const kind = (z0: string) => z0.split(':')[0]!;
      const bridge = BRIDGES.find((b) => b.from === kind(String(args.from)) && b.to === kind(String(args.to)));
      if (!bridge) {
        throw new NoshError('INVALID_ARGUMENT', `no transfer from ${args.from} to ${args.to}`,
          `Possible: ${BRIDGES.map((b) => `${b.from}->${b.to}`).join(', ')}.`);
      }
      // As import: no await for zones already known, so that the transfer keeps its place.
      const srcKnown = engine.zoneOf({ zone: String(args.from), context: ctx });
      const dstKnown = engine.zoneOf({ zone: String(args.to), context: ctx });
      const src = srcKnown instanceof Promise ? await srcKnown : srcKnown;
      const dst = dstKnown instanceof Promise ? await dstKnown : dstKnown;
      if (dst.policy.readonly) throw new NoshError('ZONE_READONLY', `${dst.name} is read-only for you`, '');
      if (bridge.move && src.policy.readonly && !src.policy.allowDelete) throw new NoshError('ZONE_READONLY', `${src.name} is read-only for you`, '');
      const out = await engine.writes.whole([orderKey(src).root, orderKey(dst).root], () =>
        engine.runZoneTool(src, '_transfer', { path: args.path, dest: args.dest, move: bridge.move, overwrite: args.overwrite === true,
          create_dirs: args.create_dirs === true }, { peer: dst, context: ctx, timeoutMs: call.timeoutMs,
          commit: { method: 'transfer', message: args.message as string | undefined, groupMode: args.mode as WriteAccess | undefined,
            progress: call.progress } }));
      return out;
    },
  },
];

