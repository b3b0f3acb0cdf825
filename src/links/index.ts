/**
 * Shareable links (issue #21): a link is a row of the link store and the tokens signed for it.
 * The link's own path has its token; a folder link signs each entry of its listings with the
 * same id and expiry, so a listing's entries open without a link of their own.
 */
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { JsonLinkStore, loadSecret, type LinkRecord, type LinkStore } from './store.js';
import { signToken, verifyToken } from './token.js';

export type { LinkRecord, LinkStore } from './store.js';
export { JsonLinkStore, loadSecret } from './store.js';
export { signToken, verifyToken, parseToken } from './token.js';

export interface LinkSettings {
  secret?: string;
  publicUrl?: string;
  defaultExpiresSeconds: number;
  maxExpiresSeconds: number;
}

export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:8080';

export class Links {
  readonly publicUrl: string;
  private key: Buffer | undefined;
  /** `secret`: loaded when a token is first signed or checked (a base that never makes a link gets no secret file). */
  constructor(readonly store: LinkStore, private readonly secret: () => Buffer, readonly settings: LinkSettings) {
    this.publicUrl = (settings.publicUrl ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, '');
  }

  private get hmacKey(): Buffer {
    this.key ??= this.secret();
    return this.key;
  }

  static newId(): string {
    return randomBytes(12).toString('base64url');
  }

  /** The token of `vpath` under link `rec` (its own path, or an entry below a folder link). */
  token(rec: LinkRecord, vpath: string): string {
    return signToken(this.hmacKey, { id: rec.id, scope: rec.scope, zone: rec.zone, path: vpath, expires: rec.expires_at });
  }

  verify(rec: LinkRecord, vpath: string, token: string): boolean {
    return verifyToken(this.hmacKey, token, { id: rec.id, scope: rec.scope, zone: rec.zone, path: vpath, expires: rec.expires_at });
  }

  /** The short URL of a link, absolute (its public URL). */
  url(rec: LinkRecord): string {
    return `${this.publicUrl}/l/${rec.id}?t=${this.token(rec, rec.path)}${rec.download ? '&download=1' : ''}`;
  }

  /** The URL of a path under a link, relative to the server (listings and breadcrumbs). */
  fileHref(rec: LinkRecord, vpath: string, download = false): string {
    return `/files/out?path=${encodeURIComponent(vpath)}&token=${this.token(rec, vpath)}${download ? '&download=1' : ''}`;
  }
}

const byBase = new Map<string, Links>();

/** The links of a base (one store and secret per base and process). */
export function linksFor(base: string, settings: LinkSettings): Links {
  const key = `${path.resolve(base)}\0${settings.secret ?? ''}\0${settings.publicUrl ?? ''}`;
  let l = byBase.get(key);
  if (!l) {
    l = new Links(new JsonLinkStore(path.join(base, 'links.json')), () => loadSecret(base, settings.secret), settings);
    byBase.set(key, l);
  }
  return l;
}
