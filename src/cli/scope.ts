import type { Context, Nosh } from '../index.js';

export interface CallDefaults {
  zone?: string;
  context?: Context;
}

/**
 * A Nosh whose calls get the CLI's --zone and context flags when the request names none
 * (serve, mcp, repl): one process serves one user, its own requests may still say more.
 */
export function withDefaults(nosh: Nosh, d: CallDefaults): Nosh {
  const fill = <T extends { zone?: string; context?: Context; root?: string }>(p: T): T => {
    const zone = p.zone === undefined && p.root === undefined && d.zone !== undefined;
    if (!zone && !d.context) return p; // nothing to add (serve --root): no copy per call
    return {
      ...p,
      ...(zone ? { zone: d.zone } : {}),
      ...(d.context ? { context: { ...d.context, ...(p.context ?? {}) } } : {}),
    };
  };
  return {
    config: nosh.config,
    exec: (req, opts) => nosh.exec(fill(req), opts),
    call: (method, params, opts) => nosh.call(method, fill((params ?? {}) as { zone?: string; context?: Context }), opts),
    methods: (role) => nosh.methods(role ?? d.context?.role),
    close: () => nosh.close(),
  };
}
