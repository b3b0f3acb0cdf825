/**
 * A versioned zone's repository: a git directory kept outside the zone's folder (see
 * Workspace.gitdirOf), read and written with isomorphic-git (pure JavaScript, no git binary).
 * History is one branch, `main`, and only ever grows: restore and revert add commits.
 * Used by the main thread (commits: src/versioning/commit.ts) and by a worker's `git`
 * command (reads, through the narrow RepoAccess of src/command).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type IsoGit from 'isomorphic-git';
import { NoshError } from '../errors.js';
import { chargeOf } from '../vfs/charge.js';

type Git = typeof IsoGit;
let gitModule: Promise<Git> | undefined;

/**
 * isomorphic-git, loaded on first use: it is the largest module of the exec path (a CommonJS
 * bundle, ~190 ms of CPU to parse and link under load), and a call in a zone that is not
 * versioned never needs it (start-up of the one-shot CLI and of every worker).
 */
export function loadGit(): Promise<Git> {
  return gitModule ??= import('isomorphic-git').then((m) => m.default);
}

export const BRANCH = 'main';
const HEAD_REF = `refs/heads/${BRANCH}`;

export interface Person {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Minutes, as isomorphic-git counts them (UTC: 0). */
  timezoneOffset: number;
}

export interface CommitInfo {
  oid: string;
  message: string;
  tree: string;
  parent: string[];
  author: Person;
  committer: Person;
}

export interface TreeItem {
  mode: string;
  path: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
}

/** The error of a repository that cannot be read: never a crash, the files are untouched. */
export function corrupt(what: string): NoshError {
  return new NoshError('INTERNAL_ERROR', `the zone's version history cannot be read (${what}); the files themselves are untouched`,
    'Tell the operator: the repository of this zone needs repair. Files can still be read and written.');
}

export class Repo {
  /** isomorphic-git's object cache, kept for the life of this Repo. */
  private readonly cache = {};

  /**
   * Bytes (chargeOf: what a quota counts) of the object files this Repo wrote: a commit adds
   * what it wrote to its zone's quota (see Versioning.counted). An object already there is not
   * written again by isomorphic-git, and costs nothing.
   */
  written = 0;

  /** node:fs for isomorphic-git, counting the object files it writes. */
  private readonly writeFs: typeof fs;

  constructor(readonly gitdir: string) {
    const objects = path.join(gitdir, 'objects') + path.sep;
    const writeFile = async (file: string, data: Uint8Array | string, opts?: fs.WriteFileOptions): Promise<void> => {
      await fs.promises.writeFile(file, data, opts as never);
      if (path.resolve(file).startsWith(objects)) {
        try { this.written += chargeOf(await fs.promises.lstat(file)); } catch { /* removed since */ }
      }
    };
    this.writeFs = { promises: { ...fs.promises, writeFile } } as unknown as typeof fs;
  }

  exists(): boolean {
    return fs.existsSync(path.join(this.gitdir, 'HEAD'));
  }

  async init(): Promise<void> {
    await fs.promises.mkdir(this.gitdir, { recursive: true });
    await (await loadGit()).init({ fs, gitdir: this.gitdir, bare: true, defaultBranch: BRANCH });
    this.written += await bytesBelow(this.gitdir);
  }

  /** The commit HEAD names, or undefined in a repository without commits. */
  async head(): Promise<string | undefined> {
    let text: string;
    try {
      text = (await fs.promises.readFile(path.join(this.gitdir, HEAD_REF), 'utf8')).trim();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return this.packedHead();
      throw corrupt('HEAD');
    }
    if (!/^[0-9a-f]{40}$/.test(text)) throw corrupt('HEAD');
    return text;
  }

  private async packedHead(): Promise<string | undefined> {
    try {
      const oid = await (await loadGit()).resolveRef({ fs, gitdir: this.gitdir, ref: HEAD_REF });
      return oid;
    } catch {
      return undefined;
    }
  }

  /** Point main at `oid`: written to a lock file, then renamed (a crash leaves the old or the new value). */
  async setHead(oid: string): Promise<void> {
    const ref = path.join(this.gitdir, HEAD_REF);
    await fs.promises.mkdir(path.dirname(ref), { recursive: true });
    const lock = ref + '.lock';
    const had = await fs.promises.lstat(ref).then((st) => chargeOf(st), () => 0);
    const fh = await fs.promises.open(lock, 'w');
    try {
      await fh.writeFile(oid + '\n');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(lock, ref);
    this.written += await fs.promises.lstat(ref).then((st) => chargeOf(st), () => 0) - had;
  }

  async readCommit(oid: string): Promise<CommitInfo> {
    try {
      const r = await (await loadGit()).readCommit({ fs, gitdir: this.gitdir, oid, cache: this.cache });
      return { oid: r.oid, ...r.commit } as CommitInfo;
    } catch (e) {
      throw notFoundOr(e, `commit ${oid.slice(0, 7)}`);
    }
  }

  async readTree(oid: string): Promise<TreeItem[]> {
    try {
      return (await (await loadGit()).readTree({ fs, gitdir: this.gitdir, oid, cache: this.cache })).tree as TreeItem[];
    } catch (e) {
      throw notFoundOr(e, `tree ${oid.slice(0, 7)}`);
    }
  }

  async readBlob(oid: string): Promise<Uint8Array> {
    try {
      return (await (await loadGit()).readBlob({ fs, gitdir: this.gitdir, oid, cache: this.cache })).blob;
    } catch (e) {
      throw notFoundOr(e, `blob ${oid.slice(0, 7)}`);
    }
  }

  async writeBlob(blob: Uint8Array): Promise<string> {
    return (await loadGit()).writeBlob({ fs: this.writeFs, gitdir: this.gitdir, blob });
  }

  async writeTree(tree: TreeItem[]): Promise<string> {
    return (await loadGit()).writeTree({ fs: this.writeFs, gitdir: this.gitdir, tree });
  }

  async writeCommit(c: { message: string; tree: string; parent: string[]; author: Person; committer: Person }): Promise<string> {
    return (await loadGit()).writeCommit({ fs: this.writeFs, gitdir: this.gitdir, commit: c });
  }

  /** The entry at `filepath` (relative, '/'-separated) of a tree, or undefined. */
  async entryAt(treeOid: string, filepath: string): Promise<TreeItem | undefined> {
    const parts = filepath.split('/').filter((p) => p !== '');
    let tree = treeOid;
    let found: TreeItem | undefined = { mode: '040000', path: '', oid: treeOid, type: 'tree' };
    for (const part of parts) {
      if (found?.type !== 'tree') return undefined;
      found = (await this.readTree(tree)).find((e) => e.path === part);
      if (!found) return undefined;
      tree = found.oid;
    }
    return found;
  }

  /** Every file below a tree: path (relative to it) -> entry, in git's order. */
  async flatten(treeOid: string, prefix = '', out = new Map<string, TreeItem>()): Promise<Map<string, TreeItem>> {
    for (const e of await this.readTree(treeOid)) {
      const p = prefix + e.path;
      if (e.type === 'tree') await this.flatten(e.oid, p + '/', out);
      else out.set(p, { ...e, path: p });
    }
    return out;
  }

  /** Tags: name -> the object they name (an annotated tag's object id for annotated ones). */
  async tags(): Promise<string[]> {
    return (await (await loadGit()).listTags({ fs, gitdir: this.gitdir })).sort();
  }

  async resolveRef(ref: string): Promise<string | undefined> {
    try {
      return await (await loadGit()).resolveRef({ fs, gitdir: this.gitdir, ref });
    } catch {
      return undefined;
    }
  }

  async expandOid(prefix: string): Promise<string | undefined> {
    try {
      return await (await loadGit()).expandOid({ fs, gitdir: this.gitdir, oid: prefix, cache: this.cache });
    } catch {
      return undefined;
    }
  }

  async readTag(oid: string): Promise<{ object: string; type: string; tag: string; tagger: Person; message: string } | undefined> {
    try {
      return (await (await loadGit()).readTag({ fs, gitdir: this.gitdir, oid, cache: this.cache })).tag as never;
    } catch {
      return undefined;
    }
  }

  async writeLightTag(name: string, oid: string): Promise<void> {
    await (await loadGit()).writeRef({ fs, gitdir: this.gitdir, ref: `refs/tags/${name}`, value: oid });
  }

  async writeAnnotatedTag(name: string, oid: string, tagger: Person, message: string): Promise<void> {
    const tagOid = await (await loadGit()).writeTag({ fs: this.writeFs, gitdir: this.gitdir, tag: { object: oid, type: 'commit', tag: name, tagger, message } });
    await (await loadGit()).writeRef({ fs, gitdir: this.gitdir, ref: `refs/tags/${name}`, value: tagOid });
  }

  async deleteTag(name: string): Promise<void> {
    await (await loadGit()).deleteRef({ fs, gitdir: this.gitdir, ref: `refs/tags/${name}` });
  }
}

/** Bytes (chargeOf) of the files below a small folder (a new git directory). */
async function bytesBelow(dir: string): Promise<number> {
  let n = 0;
  for (const d of await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) n += await bytesBelow(p);
    else if (d.isFile()) n += await fs.promises.lstat(p).then((st) => chargeOf(st), () => 0);
  }
  return n;
}

function notFoundOr(e: unknown, what: string): NoshError {
  if ((e as { code?: string }).code === 'NotFoundError') return new NoshError('FILE_NOT_FOUND', `${what} is not in the zone's history`, 'List versions with history or git log.');
  return corrupt(what);
}
