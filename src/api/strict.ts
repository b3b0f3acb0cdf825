/**
 * Calls that come back from OpenAI's strict function calling: every property is present, and an
 * optional one the model did not mean to give is `null` (`nosh schemas --format openai --strict`
 * types it as a union with null). `nullsAsAbsent` turns those nulls back into "not given" before
 * the method's schema parses the call; the engine applies it to every call, so the library, RPC
 * and MCP all take strict-mode arguments. A null for a REQUIRED property is kept, and refused by
 * the schema as before (INVALID_ARGUMENT); so is a null anywhere the schema has no optional key.
 */
import type { z } from 'zod';

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
/** Optional on input: `.optional()` and `.default()` (zod marks both `optin: 'optional'`). */
const isOptional = (s: z.ZodType): boolean => (s as unknown as { _zod: { optin?: string } })._zod.optin === 'optional';
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A copy of `value` without the null-valued properties that `schema` (a method's zod input)
 * declares optional and that do not accept null themselves, at any depth (objects, arrays,
 * unions of objects). The value is not changed; anything the schema does not describe is kept.
 */
export function nullsAsAbsent(schema: z.ZodType | undefined, value: unknown, depth = 0): unknown {
  if (!schema || value === null || typeof value !== 'object' || depth > 32) return value;
  const def = defOf(schema);
  switch (def.type) {
    case 'optional': case 'default': case 'prefault': case 'nullable': case 'readonly': case 'catch': case 'nonoptional':
      return nullsAsAbsent(def.innerType, value, depth + 1);
    case 'pipe':
      return nullsAsAbsent(def.in, value, depth + 1);
    case 'array':
      return Array.isArray(value) ? value.map((e) => nullsAsAbsent(def.element, e, depth + 1)) : value;
    case 'union': {
      if (!isPlainObject(value)) return value;
      // the object option whose keys cover the value's (how a strict-mode call names its branch)
      const option = def.options?.find((o) => {
        const shape = objectShape(o);
        return shape !== undefined && Object.keys(value).every((k) => k in shape);
      });
      return nullsAsAbsent(option, value, depth + 1);
    }
    case 'object': {
      if (!isPlainObject(value)) return value;
      const shape = def.shape ?? {};
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const prop = Object.hasOwn(shape, k) ? shape[k] : undefined;
        if (v === null && prop && isOptional(prop) && !prop.safeParse(null).success) continue;
        out[k] = nullsAsAbsent(prop, v, depth + 1);
      }
      return out;
    }
    default:
      return value;
  }
}

function objectShape(s: z.ZodType): Record<string, z.ZodType> | undefined {
  let d = defOf(s);
  while (d.innerType && d.type !== 'object') d = defOf(d.innerType);
  return d.type === 'object' ? d.shape : undefined;
}
