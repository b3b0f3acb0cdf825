/**
 * Commits of versioned zones, in the main thread. A call that changed files hands the paths
 * it changed (the Vfs's change list) to `commit`: only those paths are read from the zone
 * and only the trees along them are rewritten (never a walk of the whole zone), and one
 * commit holds them all. Commits of one repository run one after another (per gitdir), so
 * history is one line.
 *
 * Crash safety: `begin` writes a marker (nosh-dirty) into the git directory before a writing
 * call runs, and the commit that leaves nothing in flight removes it. A process killed in
 * between leaves the marker: the next open of the repository (next start) compares the whole
 * zone with HEAD once and commits what differs. A commit that fails keeps its paths for the
 * next commit (and the marker stays).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NoshError } from '../errors.js';
import { addVersionBytes, type QuotaHandle } from '../vfs/charge.js';
import { BlockMatcher, type ZonePolicy } from '../vfs/policy.js';
import { TMP_MARK } from '../vfs/temp-name.js';
import { Repo, type Person, type TreeItem } from './repo.js';

const DIRTY = 'nosh-dirty';
export const CONVERSATION_TRAILER = 'Nosh-Conversation';
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Error codes of a call stopped midway, whose changes are not known. */
const STOPPED = new Set(['TIMEOUT', 'CANCELLED', 'MEMORY_LIMIT', 'INTERNAL_ERROR', 'NO_SPACE', 'QUOTA_EXCEEDED']);

export interface VersionedZone {
  root: string;
  gitdir: string;
  policy: ZonePolicy;
  /** The quota the zone counts against: the objects a commit writes count too. */
  quota?: QuotaHandle;
}

export interface CommitRequest {
  /** Virtual paths ('/a/b') the call changed (files, or folders whose whole content changed). */
  paths: string[];
  /** The user the commit is authored by. */
  user: string;
  /** The commit message (the call's `message`, or one naming the call). */
  message: string;
  /** The conversation of the call: a trailer of the commit (undo finds a conversation's changes by it). */
  conversation?: string;
  /**
   * Told as the commit moves: `files` of the `total` changed paths written into the tree (a
   * folder path counts once, when its whole content is in), `bytes` of file content hashed.
   */
  onProgress?: (p: CommitProgress) => void;
}

export interface CommitProgress { files: number; bytes: number; total: number }

/** The counts of one commit, passed down the tree walk. */
class Tally {
  readonly p: CommitProgress;
  constructor(total: number, private readonly tell: (p: CommitProgress) => void) {
    this.p = { files: 0, bytes: 0, total };
    this.report();
  }

  add(files: number, bytes: number): void {
    this.p.files += files;
    this.p.bytes += bytes;
    this.report();
  }

  private report(): void {
    this.tell({ ...this.p });
  }
}

interface RepoState {
  repo: Repo;
  /** The end of the last commit (commits of one repository run in turn). */
  chain: Promise<unknown>;
  /** Calls begun and not yet committed. */
  inFlight: number;
  /** Paths of failed commits, for the next one. */
  pending: Set<string>;
  /** The whole zone must be compared with HEAD (first use, a crash, a call that failed midway). */
  full: boolean;
  opened: boolean;
  /** Whether a marker left by an earlier process was looked for. */
  checked: boolean;
  /** The repository made ready (see begin). */
  ready: Promise<void>;
}

export const COMMITTER: Omit<Person, 'timestamp'> = { name: 'nosh', email: 'nosh@nosh', timezoneOffset: 0 };

export class Versioning {
  private readonly repos = new Map<string, RepoState>();

  private state(gitdir: string): RepoState {
    let s = this.repos.get(gitdir);
    if (!s) this.repos.set(gitdir, (s = { repo: new Repo(gitdir), chain: Promise.resolve(), inFlight: 0, pending: new Set(), full: false, opened: false, checked: false, ready: Promise.resolve() }));
    return s;
  }

  /**
   * A writing call is about to run in the zone: mark the repository dirty until its commit.
   * Before the first writing call of this process (no other is running then), the repository
   * is made ready: created with the folder's files as its first commit, or, when a stopped
   * process or a failed call left changes uncommitted, those committed on their own.
   */
  async begin(zone: VersionedZone, user: string): Promise<void> {
    const s = this.state(zone.gitdir);
    this.check(s);
    if (s.inFlight++ === 0) {
      if (!s.opened || s.full) s.ready = this.after(s, () => this.counted(s, zone, () => this.prepare(s, zone, user)));
      try {
        fs.mkdirSync(zone.gitdir, { recursive: true });
        fs.writeFileSync(path.join(zone.gitdir, DIRTY), '');
      } catch { /* the commit will report a broken repository */ }
    }
    await s.ready.catch(() => undefined);
  }

  /** Before this process marks the repository: a marker already there was left by a process that stopped between a write and its commit. */
  private check(s: RepoState): void {
    if (s.checked) return;
    s.checked = true;
    if (fs.existsSync(path.join(s.repo.gitdir, DIRTY))) s.full = true;
  }

  /** The call ended without a list of changes (it failed or timed out): compare the whole zone before the next writer. */
  abandon(zone: VersionedZone, code: string): void {
    const s = this.state(zone.gitdir);
    // a refusal changed nothing; a run stopped midway (timeout, cancel, crash) may have
    if (STOPPED.has(code)) s.full = true;
    s.inFlight = Math.max(0, s.inFlight - 1);
  }

  /**
   * Run `work` counting what it wrote into the git directory (objects, a first repository)
   * against the zone's quota, whatever happened (the objects of a failed commit stay).
   */
  private async counted<T>(s: RepoState, zone: VersionedZone, work: () => Promise<T>): Promise<T> {
    const before = s.repo.written;
    try {
      return await work();
    } finally {
      addVersionBytes(zone.quota, s.repo.written - before);
    }
  }

  /** Run `work` after the repository's earlier commits (commits of one repository run in turn). */
  private after<T>(s: RepoState, work: () => Promise<T>): Promise<T> {
    const run = s.chain.then(work);
    s.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * Commit the paths a call changed. Resolves to the new commit's id, or undefined when the
   * tree did not change. A failure throws a NoshError that says the change was made.
   */
  commit(zone: VersionedZone, req: CommitRequest): Promise<string | undefined> {
    const s = this.state(zone.gitdir);
    return this.after(s, () => this.counted(s, zone, () => this.commitNow(s, zone, req))).finally(() => {
      s.inFlight = Math.max(0, s.inFlight - 1);
    });
  }

  /** Open the repository for reading (history, git): made ready as before a first write, when no writer runs. */
  async open(zone: VersionedZone, user: string): Promise<Repo> {
    const s = this.state(zone.gitdir);
    this.check(s);
    if ((!s.opened || s.full) && s.inFlight === 0) await this.after(s, () => this.counted(s, zone, () => this.prepare(s, zone, user))).catch(() => undefined);
    return s.repo;
  }

  /** Create the repository (the folder's files are its first commit), or commit what was left uncommitted. */
  private async prepare(s: RepoState, zone: VersionedZone, user: string): Promise<void> {
    const repo = s.repo;
    let message = 'nosh: changes left uncommitted by an interrupted call';
    if (!repo.exists()) {
      await repo.init();
      message = 'nosh: the zone\'s files as they were when versioning began';
    } else if (!s.full) {
      s.opened = true;
      return;
    }
    await this.write(s, zone, ['/'], user, message);
    s.opened = true;
    s.full = false;
  }

  private async commitNow(s: RepoState, zone: VersionedZone, req: CommitRequest): Promise<string | undefined> {
    const paths = [...s.pending, ...req.paths];
    try {
      if (!s.opened && !s.repo.exists()) await this.prepare(s, zone, req.user);
      const message = req.conversation === undefined ? req.message : `${req.message.replace(/\n+$/, '')}\n\n${CONVERSATION_TRAILER}: ${req.conversation}`;
      const oid = paths.length > 0 ? await this.write(s, zone, paths, req.user, message, req.onProgress) : undefined;
      s.pending.clear();
      if (s.inFlight <= 1 && !s.full) fs.rmSync(path.join(zone.gitdir, DIRTY), { force: true });
      return oid;
    } catch (e) {
      for (const p of req.paths) s.pending.add(p);
      const why = e instanceof NoshError ? e.message : (e as NodeJS.ErrnoException).code ?? 'error';
      throw new NoshError('INTERNAL_ERROR', `the change was made, but it was not versioned: the commit failed (${why})`,
        'The files are changed; the next change to this zone commits them too. Tell the operator if this repeats.',
        { versioned: false });
    }
  }

  /** One commit of `paths` as they are in the zone now; undefined when the tree did not change. */
  private async write(s: RepoState, zone: VersionedZone, paths: string[], user: string, message: string,
    onProgress?: (p: CommitProgress) => void): Promise<string | undefined> {
    const repo = s.repo;
    const head = await repo.head();
    const parentTree = head === undefined ? undefined : (await repo.readCommit(head)).tree;
    const rels = paths.map((p) => p.split('/').filter((x) => x !== ''));
    const tally = onProgress && new Tally(rels.length, onProgress);
    const tree = (await applyChanges(repo, zone, parentTree, [], rels, tally)) ?? EMPTY_TREE;
    if (tree === parentTree || (head === undefined && tree === EMPTY_TREE)) return undefined;
    if (tree === EMPTY_TREE) await repo.writeTree([]); // every file removed: the commit needs the empty tree
    const now = Math.floor(Date.now() / 1000);
    const oid = await repo.writeCommit({
      message: message.endsWith('\n') ? message : message + '\n',
      tree,
      parent: head === undefined ? [] : [head],
      author: { name: user, email: `${user}@nosh`, timestamp: now, timezoneOffset: 0 },
      committer: { ...COMMITTER, timestamp: now },
    });
    await repo.setHead(oid);
    return oid;
  }
}

/** The virtual paths a change list touched (folders made are no change for git). */
export function changedPaths(changes: readonly { op: string; path: string; to?: string }[]): string[] {
  const out = new Set<string>();
  for (const c of changes) {
    if (c.op === 'mkdir' || c.op === 'meta') continue;
    out.add(c.path);
    if (c.to !== undefined) out.add(c.to);
  }
  return [...out];
}

/** How many files a list of changed paths names: a folder removed with the files in it counts as those files. */
export function fileCount(paths: readonly string[]): number {
  return paths.filter((p) => !paths.some((q) => q.startsWith(p + '/'))).length;
}

/**
 * The tree `treeOid` (at `dir`, relative components) with the entries named by `rels` (paths
 * relative to it) taken from the zone as they are now. Undefined for a tree left empty.
 */
async function applyChanges(repo: Repo, zone: VersionedZone, treeOid: string | undefined, dir: string[], rels: string[][], tally?: Tally): Promise<string | undefined> {
  if (rels.some((r) => r.length === 0)) {
    const oid = await snapshot(repo, zone, dir, tally);
    tally?.add(rels.length, 0);
    return oid;
  }
  const entries = new Map<string, TreeItem>();
  if (treeOid !== undefined) for (const e of await repo.readTree(treeOid)) entries.set(e.path, e);
  const byName = new Map<string, string[][]>();
  for (const r of rels) {
    const list = byName.get(r[0]!) ?? [];
    list.push(r.slice(1));
    byName.set(r[0]!, list);
  }
  for (const [name, subs] of byName) {
    const old = entries.get(name);
    const whole = subs.some((s) => s.length === 0);
    let next: TreeItem | undefined;
    if (whole || old?.type !== 'tree') {
      next = await entryFromDisk(repo, zone, dir, name, tally);
      tally?.add(subs.length, 0);
    } else {
      const st = lstatOrUndefined(hostPath(zone, [...dir, name]));
      if (st?.isDirectory() && visible(zone, dir, name, true)) {
        const oid = await applyChanges(repo, zone, old.oid, [...dir, name], subs, tally);
        next = oid === undefined ? undefined : { mode: '040000', path: name, oid, type: 'tree' };
      } else {
        next = await entryFromDisk(repo, zone, dir, name, tally);
        tally?.add(subs.length, 0);
      }
    }
    if (next) entries.set(name, next);
    else entries.delete(name);
  }
  if (entries.size === 0) return undefined;
  return repo.writeTree([...entries.values()]);
}

/** The entry `name` of the folder `dir` as it is in the zone: a blob, a tree, or nothing. */
async function entryFromDisk(repo: Repo, zone: VersionedZone, dir: string[], name: string, tally?: Tally): Promise<TreeItem | undefined> {
  const host = hostPath(zone, [...dir, name]);
  const st = lstatOrUndefined(host);
  if (!st) return undefined;
  if (st.isFile()) {
    if (!visible(zone, dir, name, false)) return undefined;
    const data = readNoFollow(host);
    if (data === undefined) return undefined;
    const oid = await repo.writeBlob(data);
    tally?.add(0, data.length);
    return { mode: st.mode & 0o111 ? '100755' : '100644', path: name, oid, type: 'blob' };
  }
  if (st.isDirectory() && visible(zone, dir, name, true)) {
    const oid = await snapshot(repo, zone, [...dir, name], tally);
    return oid === undefined ? undefined : { mode: '040000', path: name, oid, type: 'tree' };
  }
  return undefined; // symlinks, devices, FIFOs: never versioned
}

/** The tree of a whole folder of the zone (a folder moved in, a first commit, a recovery). */
async function snapshot(repo: Repo, zone: VersionedZone, dir: string[], tally?: Tally): Promise<string | undefined> {
  let names: string[];
  try {
    names = fs.readdirSync(hostPath(zone, dir));
  } catch {
    return undefined;
  }
  const items: TreeItem[] = [];
  for (const name of names) {
    const e = await entryFromDisk(repo, zone, dir, name, tally);
    if (e) items.push(e);
  }
  return items.length === 0 ? undefined : repo.writeTree(items);
}

/** What the zone shows: no blocked names, no disallowed extensions, no temp files, no .git. */
function visible(zone: VersionedZone, dir: string[], name: string, isDir: boolean): boolean {
  if (name === '.git' || name.startsWith(TMP_MARK)) return false;
  if (BlockMatcher.for(zone.policy.blockedPatterns).blocksComponent(dir, name, isDir)) return false;
  const ext = zone.policy.allowedExtensions;
  if (!isDir && ext) {
    const i = name.lastIndexOf('.');
    if (!ext.includes(i > 0 ? name.slice(i).toLowerCase() : '')) return false;
  }
  return true;
}

function hostPath(zone: VersionedZone, parts: string[]): string {
  return path.join(zone.root, ...parts);
}

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

function readNoFollow(p: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return undefined;
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A call's commit message: its own `message`, or one naming the call ("exec: sed -i s/a/b/ notes.md (1 file)"). */
export function commitMessage(about: { method: string; summary?: string; message?: string } | undefined, paths: readonly string[]): string {
  if (about?.message !== undefined && about.message.trim() !== '') return about.message;
  const n = fileCount(paths);
  const files = `(${n} file${n === 1 ? '' : 's'})`;
  let what = about?.summary;
  if (what === undefined) {
    what = paths.slice(0, 3).map((p) => p.replace(/^\//, '')).join(' ') + (n > 3 ? ' ...' : '');
  } else if (what.length > 100) {
    what = what.slice(0, 100) + '...';
  }
  return `${about?.method ?? 'change'}: ${what} ${files}`;
}

/** The error of a history call in a zone that is not versioned. */
export function notVersioned(zone: string): NoshError {
  return new NoshError('INVALID_ARGUMENT', `${zone} is not a versioned zone`,
    'Versions are kept for documents and group:<id> zones (and zones configured with versioned: true): work there, e.g. zone "documents".', { zone });
}
