/**
 * The typed view of parsed options: `ctx.values`, one property per flag key, its type
 * inferred from the declaration (a parser's result, a boolean flag's `value` or `true`, a
 * string for a value flag; an array for a `repeat` flag).
 */
import type { FlagSpec } from '../types.js';

type One<S> = S extends { parse: (...a: never[]) => infer T }
  ? T
  : S extends { kind: 'string' | 'optional' }
    ? string
    : S extends { value: infer V extends string }
      ? V
      : true;

type ValueOf<S> = S extends { repeat: true } ? One<S>[] : One<S>;

/** `{ [key]?: value }` for a command's flags. */
export type Values<F extends readonly FlagSpec[]> = readonly FlagSpec[] extends F ? Record<string, unknown> : {
  -readonly [K in F[number]['key']]?: ValueOf<Extract<F[number], { key: K }>>;
};

/** One flag as getopt met it, in argv order. */
export interface OptionItem {
  key: string;
  /** The raw value: the argument, or a boolean flag's `value` ('true' if none). */
  value: string;
  /** As given: '-n', '--lines'. */
  flag: string;
  /** The parsed value (the raw one when the flag declares no parser). */
  parsed?: unknown;
  /** The declaration it came from. */
  spec?: FlagSpec;
}

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
