/**
 * Link tokens: `<id>.<expiry>.<signature>`, the signature an HMAC-SHA256 over the link id, its
 * scope (whose link it is), its zone, the path served and the expiry (unix seconds), compared
 * in constant time. The id and the expiry are in clear (they are not secret); changing any byte
 * of the token breaks the signature or names another link.
 */
import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';

/** The secret, as bytes or (the server's, made once) a KeyObject: no key import per request. */
export type Secret = Buffer | KeyObject;

export interface Signed {
  id: string;
  scope: string;
  zone: string;
  /** Normalised virtual path in the zone ('/a/b'). */
  path: string;
  /** Unix seconds. */
  expires: number;
}

const ID = /^[A-Za-z0-9_-]{6,64}$/;

/** The MAC of what a token signs. */
export function macOf(secret: Secret, s: Signed): Buffer {
  // NUL never occurs in any field (ids and zones are validated, paths refused with it)
  return createHmac('sha256', secret).update(['nosh-link-v1', s.id, s.scope, s.zone, s.path, String(s.expires)].join('\0')).digest();
}

export function signToken(secret: Secret, s: Signed): string {
  return `${s.id}.${s.expires}.${macOf(secret, s).toString('base64url')}`;
}

/** The id and expiry a token claims, before any check (undefined: not a token's shape). */
export function parseToken(token: string): { id: string; expires: number; sig: string } | undefined {
  const m = /^([A-Za-z0-9_-]{6,64})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m || !ID.test(m[1]!)) return undefined;
  return { id: m[1]!, expires: Number(m[2]), sig: m[3]! };
}

/** Whether `token` is the signature of `s` (constant-time compare of the MACs). */
export function verifyToken(secret: Secret, token: string, s: Signed): boolean {
  const t = parseToken(token);
  if (!t || t.id !== s.id || t.expires !== s.expires) return false;
  const given = Buffer.from(t.sig, 'base64url');
  const want = macOf(secret, s);
  // base64url of 32 bytes is 43 characters, but a last character may carry unused bits: the
  // text must be the canonical one, or two tokens would pass for one signature
  return given.length === want.length && timingSafeEqual(given, want) && given.toString('base64url') === t.sig;
}
