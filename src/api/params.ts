/** What every call's parameters share, without zod (the one-shot CLI loads this): the surfaces, the size check. Their schemas: params-schema.ts. */
import { NoshError } from '../errors.js';

/**
 * The two surfaces of the registry: what the model may call (MCP tools, `nosh schemas`, a JSON-RPC
 * connection that does not trust request context) and what the runtime may call besides (the
 * library, trusted JSON-RPC): `context` and the runtime methods exist only on the latter.
 */
export type Surface = 'model' | 'runtime';

/** Runtime methods: import writes into the read-only uploads zone, maintenance is upkeep. */
export const RUNTIME_METHODS: ReadonlySet<string> = new Set(['import', 'maintenance']);

/** Array items and object keys a call's params may hold in all. */
export const MAX_PARAM_ITEMS = 100_000;

/**
 * Refuse params with more than MAX_PARAM_ITEMS items before zod sees them. Validation runs in
 * the main thread, which serves every caller: 5 M empty strings in `include` (a 15 MB RPC line)
 * made 5 M zod issues and stalled it for 30 s; no method needs that many. Returns whether a null
 * is anywhere in them (strict function calling sends one for an optional argument not given:
 * see strict.ts), so that the params are walked once.
 */
export function checkParamsSize(params: unknown): boolean {
  if (typeof params !== 'object') return false;
  if (params === null) return true;
  let items = 0;
  let nulls = false;
  const tooMany = () => new NoshError('INVALID_ARGUMENT', `params hold more than ${MAX_PARAM_ITEMS} array items and keys`,
    'Split the work into several calls, or use exec with a glob or a file list.', { limit: MAX_PARAM_ITEMS });
  const stack: object[] = [params];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      items += v.length;
      if (items > MAX_PARAM_ITEMS) throw tooMany();
      for (const e of v as unknown[]) {
        if (e === null) nulls = true;
        else if (typeof e === 'object') stack.push(e);
      }
    } else {
      for (const k in v) {
        if (++items > MAX_PARAM_ITEMS) throw tooMany();
        const e = (v as Record<string, unknown>)[k];
        if (e === null) nulls = true;
        else if (typeof e === 'object') stack.push(e);
      }
    }
  }
  return nulls;
}
