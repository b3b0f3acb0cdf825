/**
 * The link server's request handler (issue #21): `GET|HEAD /l/<id>?t=<token>` and
 * `/files/out?path=<path>&token=<token>`. Every file and folder is reached through the Vfs of
 * the link's zone, resolved again for the identity that made the link on every request (a user
 * who lost access to a group loses its links), with the zone's rules: a symlink out of the
 * zone, a blocked name, a path with `..` is refused. A host's own http server can mount it
 * (createLinkHandler(nosh)); `nosh http` runs it on its own port (server.ts).
 */
import * as fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NoshError } from '../errors.js';
import type { Nosh } from '../nosh.js';
import { engineOf } from '../nosh.js';
import type { Engine } from '../api/engine.js';
import type { Zone } from '../zones/workspace.js';
import { linksOf } from '../api/links.js';
import { Vfs, VfsError, baseName, type DirEntry } from '../vfs/index.js';
import { guessMime } from '../tools/mime.js';
import { parseToken, type LinkRecord } from '../links/index.js';
import { errorPage, listingPage, markdownPage, type ListedEntry } from './pages.js';
import { parseRange } from './range.js';

export interface HandlerOptions {
  /** The clock, unix seconds (tests). */
  now?: () => number;
  /** One line per request: method, link id, status, bytes, ms; never the token. Default: none. */
  log?: (line: string) => void;
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Listings and rendered Markdown: nothing but our styles and images of the server itself. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** A user's file (HTML, SVG, anything): a sandbox with no scripts and no origin of its own. */
export const FILE_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; media-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SMALL_FILE = 64 * 1024;
const MAX_MARKDOWN = 4 * 1024 * 1024;
const MAX_LISTED = 5000;
const MAX_PATH = 4096;

class HttpRefusal extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const INVALID = 'This link is not valid: it was changed, revoked or is for another file. Ask for a new link.';

/** The handler for an instance createNosh made (a runtime mounts it in its own server). */
export function createLinkHandler(nosh: Nosh, opts: HandlerOptions = {}): RequestHandler {
  return handlerFor(engineOf(nosh), opts);
}

/**
 * The zones of links, resolved for their makers. Resolving a zone makes its folders (a mkdir per
 * call), so a zone whose access cannot be lost is kept; a group zone (membership may end) and a
 * session zone (it expires) are resolved again on every request.
 */
class ZoneCache {
  private readonly zones = new Map<string, Zone>();
  constructor(private readonly engine: Engine) {}

  async of(rec: LinkRecord): Promise<Zone> {
    // a link's zone and maker never change: its id names them
    const key = rec.id;
    const hit = this.zones.get(key);
    if (hit) return hit;
    const known = this.engine.zoneOf({ zone: rec.zone, context: rec.context });
    const zone = known instanceof Promise ? await known : known;
    if (zone.kind !== 'group' && zone.kind !== 'session') {
      if (this.zones.size >= 1000) this.zones.clear();
      this.zones.set(key, zone);
    }
    return zone;
  }
}

export function handlerFor(engine: Engine, opts: HandlerOptions = {}): RequestHandler {
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const links = linksOf(engine);
  const zones = new ZoneCache(engine);
  return (req, res) => {
    const t0 = performance.now();
    const st = { id: '-', bytes: 0 };
    const log = opts.log;
    if (log) res.on('close', () => log(`${req.method} ${st.id} ${res.statusCode} ${st.bytes} ${(performance.now() - t0).toFixed(1)}ms`));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Content-Security-Policy', PAGE_CSP);
    res.setHeader('Cache-Control', 'private, no-store');
    serve(zones, links, now, req, res, st).catch((e) => {
      const status = e instanceof HttpRefusal ? e.status : 500;
      const msg = e instanceof HttpRefusal ? e.message : 'The server failed to answer this request.';
      sendError(req, res, status, msg, st);
    });
  };
}

function sendError(req: IncomingMessage, res: ServerResponse, status: number, message: string, st: { bytes: number }): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const json = /application\/json/.test(String(req.headers.accept ?? ''));
  const body = json
    ? JSON.stringify({ success: false, error: { code: status === 404 ? 'FILE_NOT_FOUND' : status === 403 ? 'PERMISSION_DENIED' : 'INVALID_ARGUMENT', message } })
    : errorPage(status, message);
  if (status === 405) res.setHeader('Allow', 'GET, HEAD');
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.removeHeader('Content-Disposition');
  res.removeHeader('ETag');
  res.removeHeader('Last-Modified');
  res.removeHeader('Accept-Ranges');
  res.removeHeader('Content-Range');
  send(req, res, status, json ? 'application/json' : 'text/html; charset=utf-8', Buffer.from(body), st);
}

function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: Buffer, st: { bytes: number }): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', body.length);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  st.bytes = body.length;
  res.end(body);
}

/** A path as the request names it: absolute, no `.`/`..`/empty segment, no backslash, no NUL. */
function checkedPath(p: string | null): string {
  if (p === null || p === '' || p.length > MAX_PATH || !p.startsWith('/') || p.includes('\\') || p.includes('\0')) throw new HttpRefusal(403, INVALID);
  if (p === '/') return p;
  const segs = p.slice(1).split('/');
  if (segs.some((s) => s === '' || s === '.' || s === '..')) throw new HttpRefusal(403, INVALID);
  return p;
}

function within(rec: LinkRecord, p: string): boolean {
  if (p === rec.path) return true;
  return rec.kind === 'dir' && p.startsWith(rec.path === '/' ? '/' : rec.path + '/');
}

async function serve(zones: ZoneCache, links: ReturnType<typeof linksOf>, now: () => number, req: IncomingMessage, res: ServerResponse, st: { id: string; bytes: number }): Promise<void> {
  const raw = req.url ?? '/';
  if (raw.length > 8 * 1024) throw new HttpRefusal(414, 'The address is too long.');
  // the request target as given (origin form): its path as sent, its query parsed
  if (!raw.startsWith('/')) throw new HttpRefusal(400, 'Bad address.');
  const q = raw.indexOf('?');
  const url = { pathname: q < 0 ? raw : raw.slice(0, q), searchParams: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
  let token: string | null;
  let vpath: string;
  let rec: LinkRecord | undefined;
  const short = /^\/l\/([A-Za-z0-9_-]{6,64})$/.exec(url.pathname);
  // the link id goes to the log line, a refused method's too
  st.id = short ? short[1]! : parseToken(url.searchParams.get('token') ?? '')?.id ?? '-';
  if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpRefusal(405, 'Only GET and HEAD are served.');
  if (short) {
    token = url.searchParams.get('t');
    st.id = short[1]!;
    rec = await links.get(st.id);
    if (!rec || token === null) throw new HttpRefusal(403, INVALID);
    vpath = rec.path;
  } else if (url.pathname === '/files/out') {
    token = url.searchParams.get('token');
    vpath = checkedPath(url.searchParams.get('path'));
    const claimed = token === null ? undefined : parseToken(token);
    if (!claimed) throw new HttpRefusal(403, INVALID);
    st.id = claimed.id;
    rec = await links.get(claimed.id);
    if (!rec) throw new HttpRefusal(403, INVALID);
  } else {
    throw new HttpRefusal(404, 'Nothing is served here: links look like /l/<id>?t=<token>.');
  }
  if (!links.verify(rec, vpath, token!) || !within(rec, vpath)) throw new HttpRefusal(403, INVALID);
  if (now() >= rec.expires_at) throw new HttpRefusal(403, 'This link has expired. Ask for a new link.');
  let vfs: Vfs;
  try {
    const zone = await zones.of(rec);
    vfs = new Vfs(zone.root, zone.policy);
  } catch (e) {
    if (e instanceof NoshError || e instanceof VfsError) throw new HttpRefusal(403, 'The files of this link are no longer shared with its maker.');
    throw e;
  }
  const download = rec.download || url.searchParams.get('download') === '1';
  try {
    // a file is opened at once (one resolution); a folder answers EISDIR and is listed
    let opened: ReturnType<Vfs['openRead']> | undefined;
    try {
      opened = vfs.openRead(vpath);
    } catch (e) {
      if (!(e instanceof VfsError && e.errno === 'EISDIR')) throw e;
    }
    if (opened) await file(opened, links, rec, vpath, download, url.searchParams.get('raw') === '1', req, res, st);
    else listing(vfs, links, rec, vpath, req, res, st);
    links.countHit(rec.id);
  } catch (e) {
    if (e instanceof VfsError) {
      const missing = e.errno === 'ENOENT' || e.errno === 'ENOTDIR';
      throw new HttpRefusal(missing ? 404 : 403, missing ? 'The file of this link is gone.' : 'This file is not shared (zone rules).');
    }
    throw e;
  }
}

/**
 * A relative reference of a rendered Markdown file (`b.md`, `../img.png`, `/docs/x.md` from the
 * zone's root): the tokenised URL of the same link when its target stays inside what the link
 * shares, else undefined (the element is left inert). The query is dropped, a #fragment kept.
 */
export function relativeHref(links: ReturnType<typeof linksOf>, rec: LinkRecord, from: string, ref: string): string | undefined {
  const hash = ref.indexOf('#');
  const frag = hash < 0 ? '' : ref.slice(hash);
  let p = hash < 0 ? ref : ref.slice(0, hash);
  const q = p.indexOf('?');
  if (q >= 0) p = p.slice(0, q);
  if (p === '') return undefined;
  try {
    p = decodeURIComponent(p);
  } catch {
    return undefined;
  }
  if (p.includes('\\') || p.includes('\0')) return undefined;
  const segs = p.startsWith('/') ? [] : from.split('/').slice(1, -1);
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (segs.length === 0) return undefined;
      segs.pop();
    } else segs.push(seg);
  }
  const target = '/' + segs.join('/');
  if (target.length > MAX_PATH || !within(rec, target)) return undefined;
  return links.fileHref(rec, target) + (frag.length > 1 ? '#' + encodeURIComponent(decodeFrag(frag.slice(1))) : '');
}

function decodeFrag(f: string): string {
  try {
    return decodeURIComponent(f);
  } catch {
    return f;
  }
}

function crumbsOf(links: ReturnType<typeof linksOf>, rec: LinkRecord, vpath: string): { name: string; href: string }[] {
  const root = rec.path;
  const rootName = root === '/' ? rec.zone : baseName(root);
  const steps = [{ name: rootName, href: links.fileHref(rec, root) }];
  if (vpath === root) return steps;
  const rest = vpath.slice(root === '/' ? 1 : root.length + 1).split('/');
  let at = root;
  for (const seg of rest) {
    at = at === '/' ? `/${seg}` : `${at}/${seg}`;
    steps.push({ name: seg, href: links.fileHref(rec, at) });
  }
  return steps;
}

function listing(vfs: Vfs, links: ReturnType<typeof linksOf>, rec: LinkRecord, vpath: string, req: IncomingMessage, res: ServerResponse, st: { bytes: number }): void {
  const all: DirEntry[] = vfs.readdir(vpath);
  const entries: ListedEntry[] = [];
  for (const d of all.slice(0, MAX_LISTED)) {
    const child = vpath === '/' ? `/${d.name}` : `${vpath}/${d.name}`;
    let s: fs.Stats;
    try {
      s = vfs.lstat(child);
    } catch {
      continue; // gone since the listing, or refused
    }
    const type: ListedEntry['type'] = s.isDirectory() ? 'dir' : s.isFile() ? 'file' : s.isSymbolicLink() ? 'symlink' : 'other';
    entries.push({ name: d.name, type, size: s.size, mtime: s.mtime, ...(type === 'dir' || type === 'file' ? { href: links.fileHref(rec, child) } : {}) });
  }
  const crumbs = crumbsOf(links, rec, vpath);
  const parent = crumbs.length > 1 ? crumbs[crumbs.length - 2]!.href : undefined;
  const html = listingPage(`${crumbs[crumbs.length - 1]!.name}/`, crumbs, parent, entries, Math.max(0, all.length - MAX_LISTED));
  send(req, res, 200, 'text/html; charset=utf-8', Buffer.from(html), st);
}

const INLINE = /^(text\/|image\/|application\/pdf$|application\/json$|audio\/|video\/)/;

function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

function etagOf(s: fs.Stats): string {
  return `"${s.ino.toString(36)}-${s.size.toString(36)}-${Math.floor(s.mtimeMs * 1000).toString(36)}"`;
}

function notModified(req: IncomingMessage, etag: string, mtime: Date): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) return inm.trim() === '*' || inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
  const ims = req.headers['if-modified-since'];
  if (ims === undefined) return false;
  const t = Date.parse(ims);
  return !Number.isNaN(t) && Math.floor(mtime.getTime() / 1000) * 1000 <= t;
}

async function file(opened: { fd: number; stat: fs.Stats }, links: ReturnType<typeof linksOf>, rec: LinkRecord, vpath: string, download: boolean, raw: boolean,
  req: IncomingMessage, res: ServerResponse, st: { bytes: number }): Promise<void> {
  const { fd, stat } = opened;
  let handed = false;
  try {
    const name = baseName(vpath);
    // a small file is read whole once: its first bytes tell its type, and it is the body
    const whole = stat.size <= SMALL_FILE ? Buffer.alloc(stat.size) : undefined;
    const head = whole ?? Buffer.alloc(Math.min(512, stat.size));
    if (head.length > 0) readAll(fd, head, 0);
    let mime = guessMime(name, head).mime;
    const markdown = mime === 'text/markdown' || /\.markdown$/i.test(name);
    const etag = etagOf(stat);
    res.setHeader('Last-Modified', stat.mtime.toUTCString());
    res.setHeader('Cache-Control', 'private, no-cache');
    if (markdown && !download && !raw && stat.size <= MAX_MARKDOWN) {
      const tag = etag.slice(0, -1) + '-md"';
      res.setHeader('ETag', tag);
      if (notModified(req, tag, stat.mtime)) {
        res.statusCode = 304;
        res.end();
        return;
      }
      const text = whole ?? Buffer.alloc(stat.size);
      if (!whole) readAll(fd, text, 0);
      const crumbs = crumbsOf(links, rec, vpath);
      const html = markdownPage(name, crumbs, text.toString('utf8'), `${links.fileHref(rec, vpath)}&raw=1`, (ref) => relativeHref(links, rec, vpath, ref));
      send(req, res, 200, 'text/html; charset=utf-8', Buffer.from(html), st);
      return;
    }
    if (markdown) mime = 'text/plain';
    res.setHeader('ETag', etag);
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Security-Policy', FILE_CSP);
    res.setHeader('Content-Disposition', disposition(!download && INLINE.test(mime) ? 'inline' : 'attachment', name));
    const type = mime.startsWith('text/') ? `${mime}; charset=utf-8` : mime;
    if (notModified(req, etag, stat.mtime)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    let range = parseRange(req.headers.range, stat.size);
    const ifRange = req.headers['if-range'] as string | undefined;
    if (range.kind !== 'whole' && ifRange !== undefined && ifRange.trim() !== etag) range = { kind: 'whole' };
    if (range.kind === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${stat.size}`);
      res.removeHeader('Content-Disposition');
      res.setHeader('Content-Security-Policy', PAGE_CSP);
      send(req, res, 416, 'text/html; charset=utf-8', Buffer.from(errorPage(416, 'The range asked for is outside the file.')), st);
      return;
    }
    const start = range.kind === 'part' ? range.start : 0;
    const end = range.kind === 'part' ? range.end : stat.size - 1;
    const length = Math.max(0, end - start + 1);
    res.statusCode = range.kind === 'part' ? 206 : 200;
    if (range.kind === 'part') res.setHeader('Content-Range', `bytes ${start}-${end}/${stat.size}`);
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Length', length);
    if (req.method === 'HEAD' || length === 0) {
      res.end();
      return;
    }
    if (whole) {
      const buf = whole.subarray(start, end + 1);
      st.bytes = buf.length;
      res.end(buf);
      return;
    }
    // streamed from the opened, verified descriptor: constant memory for any size
    handed = true;
    const stream = fs.createReadStream('', { fd, start, end, autoClose: true, highWaterMark: 256 * 1024 });
    stream.on('data', (c) => { st.bytes += c.length; });
    res.on('close', () => stream.destroy());
    await new Promise<void>((resolve) => {
      stream.on('error', () => { res.destroy(); resolve(); });
      stream.on('end', resolve);
      res.on('close', resolve);
      stream.pipe(res);
    });
  } finally {
    if (!handed) fs.closeSync(fd);
  }
}

function readAll(fd: number, buf: Buffer, position: number): void {
  let n = 0;
  while (n < buf.length) {
    const got = fs.readSync(fd, buf, n, buf.length - n, position + n);
    if (got === 0) break;
    n += got;
  }
}
