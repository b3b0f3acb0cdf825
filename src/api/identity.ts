/**
 * The trust boundary. Identity (user, conversation, session, groups, role) is bound by whoever
 * starts nosh: the flags and config of `nosh serve` / `nosh mcp` / `nosh exec`. What the other
 * end of the connection sends may only narrow it (a read-only role, a narrower zone), unless
 * the process that started nosh said at start that the other end is the runtime
 * (`--trust-request-context`): then a request's context is taken as the runtime's word.
 */
import { NoshError, type Envelope } from '../errors.js';
import { roleMayWrite, type Context } from '../zones/context.js';
import { envelopeOfError } from './exec.js';
import type { Nosh } from '../nosh.js';
import { RUNTIME_METHODS, type Surface } from './params.js';

export interface Binding {
  /** Zone of a call that names none. */
  zone?: string;
  /** The identity fixed at start. */
  context?: Context;
  /** The other end is the runtime, not the model: a request's context is accepted (over the flags). */
  trustRequestContext?: boolean;
  /** Which methods the other end may call: the model's tools, or also the runtime's methods. */
  surface: Surface;
}

/**
 * The context a request may run with: the bound one, narrowed by what the request asks. A
 * request that tries to change who it is (another user, a group it claims, a writing role over
 * a read-only one) is refused, never silently given the bound identity instead: the caller
 * must learn that its claim was not taken.
 */
export function narrowContext(bound: Context, asked: unknown): Context | Promise<Context> {
  if (asked === undefined) return bound;
  // zod is loaded when a request first sends a context (a one-shot CLI call never does)
  if (contextSchema === undefined) {
    return import('../zones/context-schema.js').then((m) => {
      contextSchema = m.ContextSchema;
      return narrowed(bound, asked);
    });
  }
  return narrowed(bound, asked);
}

let contextSchema: typeof import('../zones/context-schema.js').ContextSchema | undefined;

function narrowed(bound: Context, asked: unknown): Context {
  const req = contextSchema!.parse(asked);
  const out: Context = { ...bound };
  for (const key of Object.keys(req) as (keyof Context)[]) {
    const value = req[key];
    if (value === undefined) continue;
    if (key === 'role') {
      const role = value as Context['role'];
      // Any read-only role narrows; a writing role is only what the binding already has.
      if (role === bound.role || !roleMayWrite(role)) {
        out.role = role;
        continue;
      }
      throw refused('role', `the role is '${bound.role ?? 'developer'}' for this connection; a request may only ask for a read-only role (generalist, critic)`);
    }
    if (key === 'groups') throw refused('groups', 'group membership comes from the configuration or the runtime, never from a request');
    if (value !== bound[key]) throw refused(key, `${key} is fixed by whoever started nosh; a request cannot change it`);
  }
  return out;
}

function refused(key: string, why: string): NoshError {
  return new NoshError('PERMISSION_DENIED', `context.${key}: ${why}`,
    'Call without context: identity is set when nosh starts (nosh serve --user ID --role ROLE ...). A runtime serving ' +
    'several users over one nosh serve starts it with --trust-request-context.', { key });
}

/** A Nosh whose every call runs with the binding's identity, narrowed by the request. */
export function bindIdentity(nosh: Nosh, b: Binding): Nosh {
  const bound = b.context ?? {};
  const scope = <T extends { zone?: string; context?: unknown; root?: string }>(p: T): T | Promise<T> => {
    const zone = p.zone === undefined && p.root === undefined && b.zone !== undefined;
    const scoped = (context: Context): T => ({ ...p, ...(zone ? { zone: b.zone } : {}), context });
    if (b.trustRequestContext) return scoped({ ...bound, ...((p.context ?? {}) as Context) });
    const context = narrowContext(bound, p.context);
    return context instanceof Promise ? context.then(scoped) : scoped(context);
  };
  /** The refusal's envelope, logged (audit) with the identity the caller is bound to. */
  const refuse = (method: string, params: unknown, e: unknown) => {
    const env = envelopeOfError(e) as Envelope<never>;
    const p = typeof params === 'object' && params !== null && !Array.isArray(params) ? params : {};
    nosh.recordRefusal?.(method, { ...p, context: bound, zone: (p as { zone?: unknown }).zone ?? b.zone }, env);
    return Promise.resolve(env);
  };
  return {
    config: nosh.config,
    exec: (req, opts) => {
      try {
        const scoped = scope(req);
        return scoped instanceof Promise ? scoped.then((r) => nosh.exec(r, opts), (e) => refuse('exec', req, e)) : nosh.exec(scoped, opts);
      } catch (e) {
        return refuse('exec', req, e);
      }
    },
    call: (method, params, opts) => {
      try {
        if (b.surface === 'model' && RUNTIME_METHODS.has(method)) {
          throw new NoshError('PERMISSION_DENIED', `'${method}' is a runtime method, not offered on this connection`,
            'The runtime that started nosh calls it (library call, or nosh serve --trust-request-context).',
            { method });
        }
        // params that are not an object are the engine's to refuse (INVALID_ARGUMENT), unscoped
        const p = params ?? {};
        if (typeof p !== 'object' || Array.isArray(p)) return nosh.call(method, p, opts);
        const scoped = scope(p as { zone?: string; context?: unknown });
        return scoped instanceof Promise ? scoped.then((r) => nosh.call(method, r, opts), (e) => refuse(method, params, e)) : nosh.call(method, scoped, opts);
      } catch (e) {
        return refuse(method, params, e);
      }
    },
    methods: (role, surface) => nosh.methods(role ?? bound.role, surface ?? b.surface),
    recordRefusal: (m, p, e) => nosh.recordRefusal?.(m, { ...(p as object), context: bound }, e),
    ready: () => nosh.ready?.() ?? Promise.resolve(),
    close: () => nosh.close(),
  };
}
