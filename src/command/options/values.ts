/** The values record behind `ctx.values` (its type, Values, is declared in ../types.ts). */
import type { OptionItem } from '../types.js';

/** The values record: the last parsed value per key, arrays for `repeat` flags. */
export function collectValues(order: readonly OptionItem[]): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const o of order) {
    const v = o.spec?.parse || o.spec?.choices ? o.parsed : (o.spec?.kind ?? 'boolean') === 'boolean' && o.spec?.value === undefined ? true : o.value;
    if (o.spec?.repeat) ((out[o.key] ??= []) as unknown[]).push(v);
    else out[o.key] = v;
  }
  return out;
}
