/**
 * Locked edits (issue #20 part 3, Fileshed's shed_lockedit_*): a file is locked for one user
 * and conversation, edited on a working copy in the editzone (outside every zone's visible
 * tree: <base>/editzone/<id>/work/<name>), and written back atomically by lockedit_save (one
 * commit in a versioned zone). While it is locked, every other writer gets FILE_LOCKED (the
 * guard: src/api/ownership.ts, src/vfs/guard.ts); reads are allowed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { NoshError } from '../errors.js';
import type { Context } from '../zones/context.js';
import { ContextSchema } from '../zones/context-schema.js';
import type { Zone } from '../zones/workspace.js';
import { baseName, normalizeVirtual } from '../vfs/index.js';
import type { FileLock } from '../meta/index.js';
import { buildTask, toEnvelope } from './exec.js';
import { dropLock, lockDir, relOf } from './ownership.js';
import { orderKey } from './write-order.js';
import type { HostMethod } from './host.js';
import type { HostEngine } from './method.js';

const Ctx = { context: ContextSchema.optional().describe('Who is calling: user, conversation, session, groups, role.') };
const Where = {
  zone: z.string().min(1).optional().describe('Zone of the file (default storage).'),
  path: z.string().min(1).describe('The locked file, inside the zone.'),
};

/** A lock's working copy as a zone: one folder holding only that file. */
function editZone(zone: Zone, dir: string): Zone {
  return { name: 'editzone', kind: 'root', root: path.join(dir, 'work'), versioned: false, policy: { ...zone.policy, readonly: false, allowDelete: false } };
}

interface Target {
  zone: Zone;
  key: string;
  rel: string;
  name: string;
  user: string;
  conversation: string;
}

async function targetOf(engine: HostEngine, args: Record<string, unknown>): Promise<Target> {
  const ctx = (args.context ?? {}) as Context;
  const zone = await engine.zoneOf({ zone: args.zone as string | undefined, context: ctx });
  const rel = relOf(normalizeVirtual(String(args.path), '/'));
  if (rel === '') throw new NoshError('IS_A_DIRECTORY', '/: the zone root is a folder', 'Lock a file, not a folder.');
  const caller = engine.callerOf(zone, ctx);
  return { zone, key: engine.keyOf(zone), rel, name: baseName('/' + rel), ...caller };
}

function lockData(l: FileLock, zoneName: string) {
  return { zone: zoneName, path: '/' + l.path, user: l.user, conversation: l.conversation,
    taken_at: new Date(l.takenAt).toISOString(), expires_at: new Date(l.expiresAt).toISOString() };
}

function lockedError(t: Target, l: FileLock): NoshError {
  const since = new Date(l.takenAt).toISOString();
  const expires = new Date(l.expiresAt).toISOString();
  return new NoshError('FILE_LOCKED', `/${t.rel}: locked by ${l.user} since ${since}, until ${expires}`,
    'Reads are allowed; retry after the holder saves or cancels, or ask the holder or the file\'s owner to force_unlock.',
    { path: '/' + t.rel, holder: l.user, conversation: l.conversation, since, expires });
}

/** The caller's own live lock of the file: NoshError when there is none or it expired. */
async function ownLock(engine: HostEngine, t: Target): Promise<FileLock> {
  const [l] = await engine.meta.locks(t.key, [t.rel]);
  if (!l || l.user !== t.user || l.conversation !== t.conversation) {
    if (l && l.expiresAt > Date.now()) throw lockedError(t, l);
    throw new NoshError('INVALID_ARGUMENT', `/${t.rel}: you hold no locked edit of it`, 'Open it with lockedit_open first.', { path: '/' + t.rel });
  }
  if (l.expiresAt <= Date.now()) {
    throw new NoshError('LOCK_EXPIRED', `/${t.rel}: your lock expired at ${new Date(l.expiresAt).toISOString()}`,
      'The working copy is kept until maintenance: read it with lockedit_exec (cat), then open the file again with lockedit_open and redo the change.',
      { path: '/' + t.rel, expires: new Date(l.expiresAt).toISOString() });
  }
  return l;
}

export const LOCKEDIT_METHODS: HostMethod[] = [
  {
    name: 'lockedit_open',
    description: 'Lock a file for editing (others get FILE_LOCKED until you save or cancel; reads stay allowed) and make a working copy. ' +
      'Edit it with lockedit_exec / lockedit_overwrite, then lockedit_save (or lockedit_cancel). Opening it again from this conversation returns your lock.',
    input: z.object({ ...Where, ...Ctx }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    runs: 'worker',
    async run(engine, args) {
      const t = await targetOf(engine, args);
      if (t.zone.policy.readonly) throw new NoshError('ZONE_READONLY', `${t.zone.name} is read-only for you`, 'Lock files of a zone you may write.');
      const st = (await engine.runZoneTool(t.zone, 'stat', { path: '/' + t.rel }, { context: args.context as Context })).data as { type: string };
      if (st.type !== 'file') throw new NoshError(st.type === 'dir' ? 'IS_A_DIRECTORY' : 'INVALID_ARGUMENT', `/${t.rel}: not a regular file`, 'Lock one file, not a folder or link.');
      const guard = await engine.guardOf(t.zone, args.context as Context);
      const rule = guard && Object.hasOwn(guard.rules, '/' + t.rel) ? guard.rules['/' + t.rel] : undefined;
      if (rule) {
        throw new NoshError('PERMISSION_DENIED', `/${t.rel}: owned by ${rule.owner}, mode ${rule.mode}`,
          rule.mode === 'owner_ro' ? 'Nobody may change it until its owner changes the mode (group_set_mode).' : `Only ${rule.owner} may edit it.`, { path: '/' + t.rel, ...rule });
      }
      return engine.writes.whole(orderKey(t.zone).root, async () => {
        const now = Date.now();
        const want: FileLock = { zone: t.key, path: t.rel, user: t.user, conversation: t.conversation, takenAt: now,
          expiresAt: now + engine.config.lockMaxAgeHours * 3600_000 };
        const got = await engine.meta.takeLock(want, now);
        const dir = lockDir(engine.workspace.base, want);
        if (!got.taken) {
          const l = got.lock;
          if (l.user !== t.user || l.conversation !== t.conversation) throw lockedError(t, l);
          if (fs.existsSync(path.join(dir, 'work', t.name))) return { data: { ...lockData(l, t.zone.name), reopened: true }, message: 'you already hold this lock' };
        }
        const lock = got.lock;
        try {
          await fs.promises.rm(dir, { recursive: true, force: true });
          await fs.promises.mkdir(path.join(dir, 'work'), { recursive: true });
          await fs.promises.writeFile(path.join(dir, 'lock.json'), JSON.stringify(lock));
          await engine.runZoneTool(t.zone, '_transfer', { path: '/' + t.rel, dest: '/' + t.name, move: false, overwrite: true },
            { peer: editZone(t.zone, dir), context: args.context as Context });
        } catch (e) {
          await dropLock(engine, lock);
          throw e;
        }
        return { data: { ...lockData(lock, t.zone.name), reopened: false }, message: `locked until ${new Date(lock.expiresAt).toISOString()}` };
      });
    },
  },
  {
    name: 'lockedit_exec',
    description: 'Run a command line on the working copy of a file you locked (its cwd is the editzone, which holds only that file, by its name).',
    input: z.object({
      ...Where, ...Ctx,
      command: z.string().min(1).describe('A command line, e.g. "sed -i s/old/new/ notes.md" (the file is in the cwd under its own name).'),
      stdin: z.string().optional().describe('Text given to the command on standard input.'),
    }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    runs: 'worker',
    async run(engine, args, call) {
      const t = await targetOf(engine, args);
      const l = await ownLock(engine, t);
      const ez = editZone(t.zone, lockDir(engine.workspace.base, l));
      const task = buildTask({ command: String(args.command), stdin: args.stdin as string | undefined } as never, undefined, ez.root, ez.policy, engine.config.limits);
      task.user = t.user;
      const env = toEnvelope(await (engine as unknown as { runTask: import('./method.js').MethodEngine['runTask'] }).runTask(task, call.timeoutMs), undefined, task.limits.maxOutputBytes);
      if (!env.success) throw new NoshError(env.error.code, env.error.message, env.error.hint, env.error.details);
      return { data: env.data, message: env.message };
    },
  },
  {
    name: 'lockedit_overwrite',
    description: 'Replace the content of the working copy of a file you locked.',
    input: z.object({ ...Where, ...Ctx, content: z.string().describe('The new content (UTF-8).') }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    runs: 'worker',
    async run(engine, args) {
      const t = await targetOf(engine, args);
      const l = await ownLock(engine, t);
      const ez = editZone(t.zone, lockDir(engine.workspace.base, l));
      const out = await engine.runZoneTool(ez, 'write', { path: '/' + t.name, content: String(args.content), mode: 'overwrite' });
      return { data: out.data, message: 'working copy replaced' };
    },
  },
  {
    name: 'lockedit_save',
    description: 'Write the working copy back to the file atomically (one commit in a versioned zone) and unlock it.',
    input: z.object({ ...Where, ...Ctx }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    runs: 'worker',
    async run(engine, args, call) {
      const t = await targetOf(engine, args);
      return engine.writes.whole(orderKey(t.zone).root, async () => {
        const l = await ownLock(engine, t);
        const ez = editZone(t.zone, lockDir(engine.workspace.base, l));
        const ctx = args.context as Context;
        const out = await engine.runZoneTool(ez, '_transfer', { path: '/' + t.name, dest: '/' + t.rel, move: false, overwrite: true },
          { peer: t.zone, context: ctx, timeoutMs: call.timeoutMs, commit: { method: 'lockedit_save', message: args.message as string | undefined } });
        await dropLock(engine, l);
        return { data: { zone: t.zone.name, path: '/' + t.rel, saved: true }, message: 'saved and unlocked', changes: out.peerChanges } as never;
      });
    },
  },
  {
    name: 'lockedit_cancel',
    description: 'Discard the working copy of a file you locked and unlock it (the file is unchanged).',
    input: z.object({ ...Where, ...Ctx }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    runs: 'main',
    async run(engine, args) {
      const t = await targetOf(engine, args);
      const [l] = await engine.meta.locks(t.key, [t.rel]);
      if (!l || l.user !== t.user || l.conversation !== t.conversation) await ownLock(engine, t); // throws the reason
      await dropLock(engine, l!);
      return { data: { zone: t.zone.name, path: '/' + t.rel, cancelled: true }, message: 'unlocked; the working copy was discarded' };
    },
  },
  {
    name: 'force_unlock',
    description: 'Break the lock of a file (its working copy is discarded): allowed to the lock holder, to the admin role, and to the file\'s owner in a group zone ' +
      '(or, outside group zones, to whoever may write the zone).',
    input: z.object({ ...Where, ...Ctx }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const t = await targetOf(engine, args);
      if (t.zone.policy.readonly) throw new NoshError('ZONE_READONLY', `${t.zone.name} is read-only for you`, '');
      const [l] = await engine.meta.locks(t.key, [t.rel]);
      if (!l) throw new NoshError('INVALID_ARGUMENT', `/${t.rel}: not locked`, 'Nothing to unlock.', { path: '/' + t.rel });
      const ctx = (args.context ?? {}) as { role?: string };
      let allowed = l.user === t.user || ctx.role === 'admin' || t.zone.kind !== 'group';
      if (!allowed) {
        const [row] = await engine.meta.ownerships(t.key, [t.rel]);
        allowed = row?.owner === t.user;
      }
      if (!allowed) {
        throw new NoshError('PERMISSION_DENIED', `/${t.rel}: only the lock holder (${l.user}), the file's owner or the admin role may break this lock`,
          'Ask the holder to save or cancel, or wait for the lock to expire.', { path: '/' + t.rel, holder: l.user });
      }
      await dropLock(engine, l);
      return { data: { ...lockData(l, t.zone.name), unlocked: true }, message: `lock of ${l.user} broken` };
    },
  },
];

