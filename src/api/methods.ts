/**
 * The method registry: every method of the API is one entry (src/api/method.ts): exec, the typed
 * tools, the host methods. The engine dispatches over it, and RPC, MCP and `nosh schemas` list it.
 */
import { z } from 'zod';
import { ok } from '../errors.js';
import { TOOLS, type ToolDef } from '../tools/index.js';
import { roleMayWrite, type Context, type Role } from '../zones/context.js';
import { normalizeVirtual } from '../vfs/paths.js';
import { HOST_METHODS, type HostMethod } from './host.js';
import { VERSION_METHODS } from './versions.js';
import { GROUP_METHODS } from './groups.js';
import { LOCKEDIT_METHODS } from './lockedit.js';
import { SESSION_METHODS } from './sessions.js';
import { LINK_METHODS } from './links.js';
import { EXEC_HANDLER, type ExecArgs } from './exec.js';
import { RUNTIME_METHODS, type Surface } from './params.js';
import { ExecParams, GroupModeParam, MessageParam, TimeoutParam, ZoneParams } from './params-schema.js';
import type { Method, MethodInfo } from './method.js';
import { orderKey } from './write-order.js';
import type { WriteAccess } from '../meta/index.js';
import { withOwnership } from './ownership.js';
import { runInline, runsInline } from './inline.js';

export { ExecParams, ZoneParams } from './params-schema.js';
export type { Surface } from './params.js';
export type { MethodInfo, Method } from './method.js';

/**
 * Mutating tools that change only the file named by their `path` (zone root + normalised
 * virtual path is the key of WriteOrder.file); the other mutating tools may change any file.
 */
const ONE_FILE = new Set(['write', 'edit']);

/** How long a worker may run a tool that stops itself at its own timeout_ms (search): past that, with room to answer. */
const OWN_DEADLINE_GRACE_MS = 5000;

/** A typed tool as a registry entry: its arguments plus where and when it runs; the work is done in a worker. */
function toolMethod(t: ToolDef): Method {
  const shape = (t.input as unknown as z.ZodObject).shape;
  // A tool with a timeout_ms of its own (search: stop and return what was found) keeps it.
  const ownTimeout = Object.hasOwn(shape, 'timeout_ms');
  const order = !t.mutates ? 'read' : ONE_FILE.has(t.name) ? 'file' : 'zone';
  const input = (t.input as unknown as z.ZodObject).extend(ZoneParams).extend(ownTimeout ? {} : TimeoutParam).extend(t.mutates ? { ...MessageParam, ...GroupModeParam } : {});
  return {
    name: t.name,
    description: t.description,
    input,
    annotations: t.annotations,
    surfaces: ['model', 'runtime'],
    readOnlyRoles: t.annotations.readOnlyHint,
    runs: 'worker',
    order,
    inline: order === 'read' && runsInline(t.name, {}),
    async handler(engine, params, call) {
      const { zone: name, cwd, context, message, group_mode: groupMode, ...args } = params as { zone?: string; cwd?: string; context?: Context; timeout_ms?: number;
        message?: string; group_mode?: WriteAccess };
      let timeoutMs = call.timeoutMs;
      if (ownTimeout) timeoutMs = args.timeout_ms === undefined ? engine.config.limits.timeoutMs
        : Math.max(engine.config.limits.timeoutMs, args.timeout_ms + OWN_DEADLINE_GRACE_MS);
      else delete args.timeout_ms;
      const known = engine.zoneOf({ zone: name, context });
      const zone = known instanceof Promise ? await known : known;
      const commit = order === 'read' ? undefined : { method: t.name, message, groupMode, progress: call.progress };
      const only = order === 'file' ? normalizeVirtual((args as { path: string }).path, cwd ?? '/') : undefined;
      const inline = order === 'read' && runsInline(t.name, args, timeoutMs) ? runInline : undefined;
      const run = () => engine.runZoneTool(zone, t.name, args, { context, cwd, signal: call.signal, timeoutMs, commit, onlyPath: only, inline });
      const key = orderKey(zone);
      const out = await (order === 'read' ? run()
        : order === 'file' ? engine.writes.file(key.root, key.prefix + only!, run)
        : engine.writes.whole(key.root, run));
      ({ changes: call.note.changes, peerChanges: call.note.peerChanges } = out);
      if (zone.kind === 'group' && (t.name === 'stat' || t.name === 'list')) return ok(await withOwnership(engine.meta, engine.keyOf(zone), t.name, out.data), out.message);
      return ok(out.data, out.message);
    },
  };
}

/** A host method as a registry entry; import and transfer take their place in the write order themselves. */
function hostMethod(h: HostMethod): Method {
  const { run, runs, ...info } = h;
  return {
    ...info,
    input: info.input.extend(TimeoutParam).extend(h.annotations.readOnlyHint || h.name === 'maintenance' ? {} : MessageParam),
    surfaces: RUNTIME_METHODS.has(h.name) ? ['runtime'] : ['model', 'runtime'],
    readOnlyRoles: h.annotations.readOnlyHint,
    runs,
    order: h.annotations.readOnlyHint ? 'read' : 'own',
    async handler(engine, args, call) {
      const out = await run(engine, args, { timeoutMs: call.timeoutMs, progress: call.progress });
      const o = out as { changes?: typeof call.note.changes; peerChanges?: typeof call.note.peerChanges };
      ({ changes: call.note.changes, peerChanges: call.note.peerChanges } = o);
      return ok(out.data, out.message ?? 'ok');
    },
  };
}

/** Every method, by name, in registry order: exec, the typed tools, the host methods. */
export const METHODS: ReadonlyMap<string, Method> = new Map(
  [{ ...EXEC_HANDLER, input: ExecParams } as Method<ExecArgs> as unknown as Method, ...[...TOOLS.values()].map(toolMethod), ...[...HOST_METHODS, ...VERSION_METHODS, ...GROUP_METHODS, ...LOCKEDIT_METHODS, ...SESSION_METHODS, ...LINK_METHODS].map(hostMethod)].map((m) => [m.name, m]));

/**
 * The methods offered to a role on a surface. A read-only role sees only what it may use; the
 * model's surface has no `context` parameter and no runtime method (import, maintenance).
 */
export function listMethods(role?: Role, surface: Surface = 'runtime'): MethodInfo[] {
  const all = surface === 'model' ? modelMethods() : runtimeMethods();
  if (roleMayWrite(role)) return all;
  return all.filter((m) => METHODS.get(m.name)!.readOnlyRoles);
}

let cached: MethodInfo[] | undefined;
let cachedModel: MethodInfo[] | undefined;

function info(m: Method): MethodInfo {
  return { name: m.name, description: m.description, input: m.input, annotations: m.annotations };
}

function runtimeMethods(): MethodInfo[] {
  cached ??= [...METHODS.values()].filter((m) => m.surfaces.includes('runtime')).map(info);
  return cached;
}

/** The methods the model may call, each without `context`. */
function modelMethods(): MethodInfo[] {
  cachedModel ??= [...METHODS.values()].filter((m) => m.surfaces.includes('model'))
    .map((m) => info(m.input.shape.context ? { ...m, input: m.input.omit({ context: true }) } : m));
  return cachedModel;
}
