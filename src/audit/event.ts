import * as path from 'node:path';
import type { ResolvedConfig } from '../config.js';
import type { Envelope } from '../errors.js';
import type { Change } from '../vfs/index.js';
import { Auditor, FileSink, MAX_CHANGES, MAX_COMMAND, MAX_PATHS, REFUSAL_CODES, cut, type AuditCallback, type AuditChange, type AuditEvent } from './log.js';

/** What the engine learns while running a call that the envelope does not show. */
export interface AuditNote {
  changes?: Change[];
  /** Changes in the second zone of a transfer. */
  peerChanges?: Change[];
  /** Refusals a command met and reported on stderr (the call itself succeeded with an exit status). */
  refusals?: { code: string; path: string }[];
}

/** The sinks a config and a library callback ask for; undefined when the log is off. */
export function auditorFor(config: ResolvedConfig, base: string, callback?: AuditCallback): { auditor: Auditor; file?: FileSink } | undefined {
  const sinks: AuditCallback[] = [];
  const a = config.audit;
  // A one-folder setup (root without base) writes no file unless one is named.
  const name = a.file ?? (config.root !== undefined && config.base === undefined ? false : 'audit.log');
  let file: FileSink | undefined;
  if (name !== false && name !== 'off') {
    file = new FileSink(path.resolve(base, name), a.maxBytes, a.keep);
    sinks.push(file.write);
  }
  if (callback) sinks.push(callback);
  return sinks.length === 0 ? undefined : { auditor: new Auditor(sinks), file };
}

interface Request {
  zone?: unknown;
  root?: unknown;
  context?: unknown;
  command?: unknown;
  cmd?: unknown;
  args?: unknown;
  [k: string]: unknown;
}

/**
 * The audit lines of one finished call (none for a call that neither was refused nor changed
 * anything). `req`: the request as given (exec's or the method's params); only names, ids,
 * virtual paths and the command line are taken from it.
 */
export function auditEvents(config: ResolvedConfig, method: string, req: Request | undefined, env: Envelope<unknown>,
  note: AuditNote, ms: number): AuditEvent[] {
  const r = (req && typeof req === 'object' ? req : {}) as Request;
  const refusal = !env.success && REFUSAL_CODES.has(env.error.code);
  const inner = env.success ? note.refusals ?? [] : [];
  const changed = (note.changes?.length ?? 0) + (note.peerChanges?.length ?? 0) > 0;
  if (!refusal && inner.length === 0 && !changed) return [];

  const ctx = (r.context && typeof r.context === 'object' ? r.context : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? cut(v) : undefined);
  const who: Partial<AuditEvent> = {
    user: str(ctx.user) ?? config.companion?.user ?? config.defaultUser,
    role: str(ctx.role),
    session: str(ctx.session),
    conversation: str(ctx.conversation),
    ...zonesOf(config, method, r, ctx),
  };
  const what: Partial<AuditEvent> = { method: cut(method, 100) };
  if (method === 'exec') what.command = commandOf(r);
  if (typeof r.cwd === 'string' && r.cwd !== '/') what.cwd = cut(r.cwd);
  const data = env.success ? env.data as { exit_code?: unknown } | undefined : undefined;
  const exit = typeof data?.exit_code === 'number' ? { exit_code: data.exit_code } : {};
  const time = new Date().toISOString();
  const head = (event: AuditEvent['event']) => ({ time, event, ...clean(who), ...what }) as AuditEvent;
  const out: AuditEvent[] = [];
  if (refusal || inner.length > 0) {
    const paths = new Set<string>();
    if (!env.success) {
      const p = env.error.details?.path;
      if (typeof p === 'string') paths.add(cut(p));
    }
    for (const x of inner) paths.add(cut(x.path));
    for (const p of requestPaths(method, r)) paths.add(cut(p));
    out.push({ ...head('refused'), ...(paths.size ? { paths: [...paths].slice(0, MAX_PATHS) } : {}),
      result: env.success ? inner[0]!.code : env.error.code, ...exit, ms: round(ms) });
  }
  if (changed) {
    const all: AuditChange[] = [...(note.changes ?? []).map(change), ...(note.peerChanges ?? []).map((c) => ({ ...change(c), zone: who.to_zone }))];
    out.push({ ...head('change'), changes: all.slice(0, MAX_CHANGES), ...(all.length > MAX_CHANGES ? { changes_total: all.length } : {}),
      result: env.success ? 'ok' : env.error.code, ...exit, ms: round(ms) });
  }
  return out;
}

function change(c: Change): AuditChange {
  return c.to !== undefined ? { op: c.op, path: cut(c.path), to: cut(c.to) } : { op: c.op, path: cut(c.path) };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function clean<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Zone names as the engine resolves them. A library `root` (a host folder) is logged as the
 * zone "root" only.
 */
function zonesOf(config: ResolvedConfig, method: string, r: Request, ctx: Record<string, unknown>): { zone?: string; to_zone?: string } {
  if (method === 'transfer') return { zone: nameOf(r.from), to_zone: nameOf(r.to) };
  if (method === 'import') return { zone: 'uploads' };
  if (r.root !== undefined) return { zone: 'root' };
  const zone = typeof r.zone === 'string' ? r.zone : config.root !== undefined ? 'root' : 'storage';
  if (zone === 'session' && typeof ctx.session === 'string') return { zone: cut(`session:${ctx.session}`) };
  return { zone: cut(zone) };

  function nameOf(v: unknown): string | undefined {
    return typeof v === 'string' ? cut(v) : undefined;
  }
}

/** Virtual paths a request names (never content). */
function requestPaths(method: string, r: Request): string[] {
  const keys = method === 'transfer' ? ['path', 'dest'] : method === 'import' ? ['name']
    : method === 'exec' ? [] : ['path', 'from', 'to'];
  const out: string[] = [];
  for (const k of keys) if (typeof r[k] === 'string') out.push(r[k] as string);
  if (method !== 'exec' && Array.isArray(r.paths)) for (const p of r.paths.slice(0, MAX_PATHS)) if (typeof p === 'string') out.push(p);
  return out;
}

/** The command line of an exec request (argv joined, quoted where needed), cut. */
function commandOf(r: Request): string | undefined {
  let line: string | undefined;
  if (typeof r.command === 'string') line = r.command;
  else if (typeof r.cmd === 'string') {
    const args = Array.isArray(r.args) ? r.args.filter((a): a is string => typeof a === 'string') : [];
    line = [r.cmd, ...args].map(quote).join(' ');
  }
  return line === undefined ? undefined : cut(line, MAX_COMMAND);
}

function quote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
