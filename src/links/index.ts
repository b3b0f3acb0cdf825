/**
 * Shareable links (issue #21): a link is a row of the metadata store (src/meta, table `links`)
 * and the tokens signed for it. The link's own path has its token; a folder link signs each
 * entry of its listings with the same id and expiry, so a listing's entries open without a link
 * of their own. Hits are counted in memory and added to the rows in one change every few
 * seconds and at close: serving a file never waits for a write of the store.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { loadSecret, readLegacyLinks, type LinkRecord, type LinkStore } from './store.js';
import { macOf, parseToken, signToken, type Signed } from './token.js';

export type { LinkRecord, LinkStore } from './store.js';
export { loadSecret, readLegacyLinks } from './store.js';
export { signToken, verifyToken, parseToken } from './token.js';

export interface LinkSettings {
  secret?: string;
  publicUrl?: string;
  defaultExpiresSeconds: number;
  maxExpiresSeconds: number;
}

export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:8080';

/** How often counted hits are added to the store (and at close). */
export const HIT_FLUSH_MS = 5000;

export class Links {
  readonly publicUrl: string;
  private key: KeyObject | undefined;
  private hits = new Map<string, number>();
  private readonly macs = new Map<string, Buffer>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** The import of an old links.json, once, before the first use of the store. */
  private ready: Promise<void> | undefined;
  private imported = false;

  /**
   * `secret`: loaded when a token is first signed or checked (a base that never makes a link gets
   * no secret file). `legacy`: an old `links.json` whose rows are imported on first use, the file
   * then renamed `links.json.imported`.
   */
  constructor(private readonly rows: LinkStore, private readonly secret: () => Buffer, readonly settings: LinkSettings, private readonly legacy?: string) {
    this.publicUrl = (settings.publicUrl ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, '');
  }

  private get hmacKey(): KeyObject {
    this.key ??= createSecretKey(this.secret());
    return this.key;
  }

  private store(): Promise<LinkStore> | LinkStore {
    if (!this.legacy || this.imported) return this.rows;
    this.ready ??= this.importLegacy(this.legacy).then(() => { this.imported = true; }, () => { this.ready = undefined; });
    return this.ready.then(() => this.rows);
  }

  private async importLegacy(file: string): Promise<void> {
    const rows = readLegacyLinks(file);
    if (rows === undefined) return;
    await this.rows.putLinks(rows);
    for (const f of [file, file.replace(/\.json$/, '.hits.json')]) {
      try {
        fs.renameSync(f, `${f}.imported`);
      } catch { /* another process imported it first */ }
    }
    fs.rmSync(`${file}.lock`, { force: true });
  }

  static newId(): string {
    return randomBytes(12).toString('base64url');
  }

  async create(rec: LinkRecord): Promise<void> {
    await (await this.store()).putLinks([rec]);
  }

  /** The link as stored (its hits: see list). */
  async get(id: string): Promise<LinkRecord | undefined> {
    const s = this.store();
    return (s instanceof Promise ? await s : s).link(id);
  }

  /** A scope's links, with the hits this process counted and has not written yet. */
  async list(scope: string): Promise<LinkRecord[]> {
    const rows = await (await this.store()).linksOf(scope);
    return rows.map((r) => ({ ...r, hits: r.hits + (this.hits.get(r.id) ?? 0) }));
  }

  async delete(id: string): Promise<boolean> {
    this.hits.delete(id);
    return (await this.store()).deleteLink(id);
  }

  /** Counted in memory; added to the store at most every HIT_FLUSH_MS and by flush(). */
  countHit(id: string): void {
    this.hits.set(id, (this.hits.get(id) ?? 0) + 1);
    this.timer ??= setTimeout(() => { void this.flush(); }, HIT_FLUSH_MS).unref();
  }

  /** Add the counted hits to the store (one change); a failure keeps them for the next flush. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.hits.size === 0) return this.flushing;
    const hits = this.hits;
    this.hits = new Map();
    this.flushing = this.flushing.then(async () => {
      try {
        await (await this.store()).addLinkHits(hits);
      } catch {
        for (const [id, n] of hits) this.hits.set(id, (this.hits.get(id) ?? 0) + n);
      }
    });
    return this.flushing;
  }

  /** The token of `vpath` under link `rec` (its own path, or an entry below a folder link). */
  token(rec: LinkRecord, vpath: string): string {
    return signToken(this.hmacKey, { id: rec.id, scope: rec.scope, zone: rec.zone, path: vpath, expires: rec.expires_at });
  }

  /**
   * Whether `token` signs `vpath` under `rec`. The MAC a (link, path) should have is kept once
   * computed (keyed by what is signed, never by the token given), so a link served again costs
   * one constant-time compare, not an HMAC.
   */
  verify(rec: LinkRecord, vpath: string, token: string): boolean {
    const s: Signed = { id: rec.id, scope: rec.scope, zone: rec.zone, path: vpath, expires: rec.expires_at };
    const t = parseToken(token);
    if (!t || t.id !== s.id || t.expires !== s.expires) return false;
    const key = `${s.id}\0${s.scope}\0${s.zone}\0${s.path}\0${s.expires}`;
    let want = this.macs.get(key);
    if (!want) {
      want = macOf(this.hmacKey, s);
      if (this.macs.size >= 10_000) this.macs.clear();
      this.macs.set(key, want);
    }
    const given = Buffer.from(t.sig, 'base64url');
    // the canonical text only (a last character's unused bits would give two tokens one MAC)
    return given.length === want.length && timingSafeEqual(given, want) && given.toString('base64url') === t.sig;
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

const byStore = new WeakMap<LinkStore, Links>();

/**
 * The links of a base, over its metadata store (one per store and process: the hits this
 * process counted live here). An old `<base>/links.json` is imported on first use.
 */
export function linksFor(store: LinkStore, base: string, settings: LinkSettings): Links {
  let l = byStore.get(store);
  if (!l) {
    l = new Links(store, () => loadSecret(base, settings.secret), settings, path.join(base, 'links.json'));
    byStore.set(store, l);
  }
  return l;
}

/** Write the hits counted over this store (the engine's close, before the store closes). */
export function flushLinks(store: LinkStore): Promise<void> {
  return byStore.get(store)?.flush() ?? Promise.resolve();
}
