/**
 * What a link is (a row of the metadata store's `links` table, src/meta) and the signing secret
 * (`<base>/link-secret`, mode 0600). Links were once kept in `<base>/links.json`: readLegacyLinks
 * reads such a file (and its hit counts) so that the first process to open the store imports it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

export interface LinkRecord {
  id: string;
  /** Whose link it is ('user:<id>'): the scope signed into its tokens. */
  scope: string;
  /** The zone name and the identity it was resolved for when the link was made. */
  zone: string;
  context: { user?: string; conversation?: string; session?: string; groups?: string[] };
  /** Normalised virtual path ('/' is the zone root). */
  path: string;
  kind: 'file' | 'dir';
  download: boolean;
  created_at: number;
  /** Unix seconds. */
  expires_at: number;
  hits: number;
}

/** The link rows of the metadata store (MetaStore implements it). */
export interface LinkStore {
  /** Insert a link; a row with the same id already there is kept (imports run more than once). */
  putLinks(rows: readonly LinkRecord[]): Promise<void>;
  link(id: string): Promise<LinkRecord | undefined>;
  /** The links of a scope ('user:<id>'), oldest first. */
  linksOf(scope: string): Promise<LinkRecord[]>;
  /** Remove a link; false when there was none. */
  deleteLink(id: string): Promise<boolean>;
  /** Add counted hits (id -> hits since the last call) in one change; ids gone meanwhile are skipped. */
  addLinkHits(hits: ReadonlyMap<string, number>): Promise<void>;
}

/** The links of an old `links.json` (and its `links.hits.json` counts); [] when there is none or it is unreadable. */
export function readLegacyLinks(file: string): LinkRecord[] | undefined {
  let rows: LinkRecord[];
  try {
    rows = (JSON.parse(fs.readFileSync(file, 'utf8')) as { links: LinkRecord[] }).links;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return [];
  }
  let hits: Record<string, number> = {};
  try {
    hits = JSON.parse(fs.readFileSync(file.replace(/\.json$/, '.hits.json'), 'utf8')) as Record<string, number>;
  } catch { /* no counts */ }
  return (Array.isArray(rows) ? rows : []).filter((r) => r && typeof r.id === 'string' && typeof r.path === 'string')
    .map((r) => ({ ...r, context: r.context ?? {}, hits: (r.hits ?? 0) + (Number(hits[r.id]) || 0) }));
}

function atomicTemp(tmp: string, text: string): void {
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The signing secret: the configured one, or one made once and kept in `<base>/link-secret`
 * (mode 0600; a file readable by others is refused).
 */
export function loadSecret(base: string, configured?: string): Buffer {
  if (configured !== undefined) return Buffer.from(configured, 'utf8');
  const file = path.join(base, 'link-secret');
  fs.mkdirSync(base, { recursive: true });
  if (!fs.existsSync(file)) {
    // written whole under a temporary name, then linked into place: a process that starts at the
    // same moment sees either no file or the whole secret, and the first link wins
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    atomicTemp(tmp, randomBytes(32).toString('base64url'));
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      fs.unlinkSync(tmp);
    }
  }
  const st = fs.lstatSync(file);
  if (!st.isFile() || (st.mode & 0o077) !== 0) {
    throw new Error('the link secret file must be a regular file readable only by its owner (mode 0600)');
  }
  const text = fs.readFileSync(file, 'utf8').trim();
  if (text.length < 32) throw new Error('the link secret file is too short');
  return Buffer.from(text, 'utf8');
}
