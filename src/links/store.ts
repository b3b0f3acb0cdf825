/**
 * The link store: one JSON file in the base, written atomically (temp, fsync, rename), and the
 * signing secret beside it (mode 0600). A narrow interface (create, get, list, delete, countHit)
 * so that the links can move to the metadata store of issue #20 without their callers changing.
 * Several processes may share the file (an MCP server creates links, `nosh http` serves them):
 * every read sees the file as it is now (re-read when its identity changed), every change is
 * read-modify-write of the current file.
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

export interface LinkStore {
  create(rec: LinkRecord): void;
  get(id: string): LinkRecord | undefined;
  list(scope: string): LinkRecord[];
  delete(id: string): boolean;
  countHit(id: string): void;
}

const HIT_FLUSH_MS = 2000;

function atomicTemp(tmp: string, text: string): void {
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function atomicWrite(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  atomicTemp(tmp, text);
  fs.renameSync(tmp, file);
}

const LOCK_WAIT_MS = 5000;
/** A lock file older than this was left by a process that died holding it. */
const LOCK_STALE_MS = 10_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

function takeLock(lock: string): void {
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lock, 'wx', 0o600));
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs > LOCK_STALE_MS) fs.rmSync(lock, { force: true });
    } catch { /* removed meanwhile */ }
    if (Date.now() > until) throw new Error('the link store is locked by another process; try again');
    Atomics.wait(pause, 0, 0, 5);
  }
}

/** The links of a base, in `<base>/links.json`. */
export class JsonLinkStore implements LinkStore {
  private rows = new Map<string, LinkRecord>();
  private seen = '';
  private hits = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly file: string) {}

  /** The file's identity: a rename by any process gives a new inode. */
  private identity(): string {
    try {
      const st = fs.statSync(this.file, { bigint: true });
      return `${st.ino}:${st.size}:${st.mtimeNs}`;
    } catch {
      return '';
    }
  }

  private load(): void {
    const id = this.identity();
    if (id === this.seen) return;
    let rows: LinkRecord[] = [];
    if (id !== '') {
      try {
        rows = (JSON.parse(fs.readFileSync(this.file, 'utf8')) as { links: LinkRecord[] }).links;
      } catch {
        return; // a file being replaced: keep the last good view
      }
    }
    this.rows = new Map(rows.map((r) => [r.id, r]));
    this.seen = id;
  }

  /** Read-modify-write of the file under its lock file (processes sharing the base take turns). */
  private change(fn: (rows: Map<string, LinkRecord>) => void): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const lock = `${this.file}.lock`;
    takeLock(lock);
    try {
      this.load();
      fn(this.rows);
      atomicWrite(this.file, JSON.stringify({ links: [...this.rows.values()] }));
      this.seen = this.identity();
    } finally {
      fs.rmSync(lock, { force: true });
    }
  }

  create(rec: LinkRecord): void {
    this.change((rows) => rows.set(rec.id, rec));
  }

  /** The link as stored (its hits: see list). */
  get(id: string): LinkRecord | undefined {
    this.load();
    return this.rows.get(id);
  }

  list(scope: string): LinkRecord[] {
    this.load();
    const counted = this.readHits();
    return [...this.rows.values()].filter((r) => r.scope === scope)
      .map((r) => ({ ...r, hits: r.hits + (counted[r.id] ?? 0) + (this.hits.get(r.id) ?? 0) }));
  }

  /** Hits are kept apart, in `<file>.hits` (a counter lost in a crash loses nothing else). */
  private get hitsFile(): string {
    return `${this.file.replace(/\.json$/, '')}.hits.json`;
  }

  private readHits(): Record<string, number> {
    try {
      return JSON.parse(fs.readFileSync(this.hitsFile, 'utf8')) as Record<string, number>;
    } catch {
      return {};
    }
  }

  delete(id: string): boolean {
    let found = false;
    this.change((rows) => { found = rows.delete(id); });
    this.hits.delete(id);
    return found;
  }

  /** Hits are counted in memory and written at most every HIT_FLUSH_MS (and by flush()). */
  countHit(id: string): void {
    this.hits.set(id, (this.hits.get(id) ?? 0) + 1);
    this.timer ??= setTimeout(() => this.flush(), HIT_FLUSH_MS).unref();
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.hits.size === 0) return;
    const hits = this.hits;
    this.hits = new Map();
    // not fsynced, and not the links' file: a serving process never waits on the disk for a count
    const lock = `${this.file}.lock`;
    try {
      takeLock(lock);
      try {
        this.load();
        const counted = this.readHits();
        const next: Record<string, number> = {};
        for (const id of this.rows.keys()) {
          const n = (counted[id] ?? 0) + (hits.get(id) ?? 0);
          if (n > 0) next[id] = n;
        }
        const tmp = `${this.hitsFile}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
        fs.writeFileSync(tmp, JSON.stringify(next), { mode: 0o600, flag: 'wx' });
        fs.renameSync(tmp, this.hitsFile);
      } finally {
        fs.rmSync(lock, { force: true });
      }
    } catch { /* counting is best effort */ }
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
