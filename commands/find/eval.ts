/**
 * The walk: one starting point at a time, directories read with ctx.fs.readdir (blocked
 * entries never appear) and sorted by name in byte order (GNU uses readdir order, which
 * is not reproducible; see the fixtures). Nothing is stat-ed unless a predicate asks:
 * readdir already gives the type. Depth-first recursion keeps one directory listing per
 * level in memory; output is batched and flushed in large chunks.
 */
import type { Stats } from 'node:fs';
import type { CommandContext } from '../../src/command/index.js';
import { VfsError, type DirEntry } from '../../src/vfs/index.js';
import { walk, type WalkEvent } from '../../src/vfs/walk.js';
import { linkTargetStat } from '../../src/gnulib/listing.js';
import { bytesOf, localeQuote, LsWidths, lsLine } from './printf.js';
import { Quit, type Entry, type EvalContext, type Node } from './types.js';
import type { FindPlan } from './parse.js';

const FLUSH_AT = 64 * 1024;

function typeOfStats(st: Stats): DirEntry['type'] {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'dir';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

export class Walker implements EvalContext {
  status = 0;
  readonly now: number;
  /** Pending output, written byte string by byte string into one block. */
  private block = Buffer.allocUnsafe(2 * FLUSH_AT);
  private used = 0;
  private errs: string[] = [];
  private pruned = false;
  private quit = false;
  private readonly widths = new LsWidths();
  /** Directories being walked under -L (dev:ino), to stop at file system loops. */
  private readonly ancestors = new Map<string, string>();

  constructor(private readonly ctx: CommandContext, private readonly plan: FindPlan, nowMs: number) {
    this.now = nowMs / 1000;
  }

  // ---- EvalContext --------------------------------------------------------------------

  stat(e: Entry): Stats | null {
    if (e.st !== undefined) return e.st;
    try {
      if (this.followHere(e)) e.st = this.ctx.fs.stat(e.path, this.ctx.cwd);
      else if (e.dir) {
        // One lstat relative to the open parent instead of a resolution from the root.
        e.st = this.ctx.fs.lstatAt(e.dir, e.name!);
        if (e.st === null) throw new VfsError('ENOENT', e.path);
      } else e.st = this.ctx.fs.lstat(e.path, this.ctx.cwd);
    } catch (err) {
      if (this.followHere(e) && !(err instanceof VfsError && err.errno === 'ELOOP')) {
        // A dangling link (or one leaving the zone) under -L is the link itself.
        try {
          e.st = this.ctx.fs.lstat(e.path, this.ctx.cwd);
          return e.st;
        } catch { /* report below */ }
      }
      this.warn(`${localeQuote(e.path)}: ${reason(err)}`, true);
      if (err instanceof VfsError && err.errno === 'ELOOP') e.loop = true;
      e.st = null;
    }
    return e.st;
  }

  private followHere(e: Entry): boolean {
    return this.plan.follow === 'L' || (this.plan.follow === 'H' && e.depth === 0);
  }

  /** Exact nanosecond times of the entry (as stat-ed), or null when they cannot be read. */
  times(e: Entry): { atime: bigint; mtime: bigint; ctime: bigint } | null {
    if (e.ns !== undefined) return e.ns;
    try {
      const follow = this.followHere(e);
      e.ns = e.dir && !follow ? this.ctx.fs.timesNsAt(e.dir, e.name!) : this.ctx.fs.timesNs(e.path, this.ctx.cwd, follow);
    } catch {
      e.ns = null;
    }
    return e.ns;
  }

  typeOf(e: Entry): string | null {
    if (e.type !== null && !(e.type === 'symlink' && this.followHere(e))) return e.type;
    const st = this.stat(e);
    if (st === null) return null;
    e.type = typeOfStats(st);
    return e.type;
  }

  out(bytes: string): void {
    if (this.used + bytes.length > this.block.length) {
      const bigger = Buffer.allocUnsafe(Math.max(2 * this.block.length, this.used + bytes.length));
      this.block.copy(bigger, 0, 0, this.used);
      this.block = bigger;
    }
    this.used += this.block.write(bytes, this.used, 'latin1');
  }

  warn(msg: string, fail = true): void {
    this.errs.push(msg);
    if (fail) this.status = 1;
  }

  prune(): void {
    this.pruned = true;
  }

  isEmpty(e: Entry): boolean {
    const ty = this.typeOf(e);
    if (ty === 'dir') {
      try {
        if (e.dir && e.type === 'dir' && !this.followHere(e)) {
          const h = this.ctx.fs.openListedDirAt(e.dir, e.name!);
          try {
            return h.entries().length === 0;
          } finally {
            h.close();
          }
        }
        return this.ctx.fs.readdir(e.path, this.ctx.cwd).length === 0;
      } catch (err) {
        this.warn(`${localeQuote(e.path)}: ${reason(err)}`);
        return false;
      }
    }
    if (ty === 'file') return this.stat(e)?.size === 0;
    return false;
  }

  remove(e: Entry): boolean {
    if (e.path === '.') return true;
    if (/(^|\/)\.\/*$/.test(e.path) && this.typeOf(e) === 'dir') {
      // rmdir("./") or rmdir("d/."): the kernel refuses a final "." with EINVAL.
      this.warn(`cannot delete ${localeQuote(e.path)}: Invalid argument`);
      return false;
    }
    try {
      // Met by the walk in an open directory: removed relative to it (a path costs a lookup per level).
      const at = e.dir && e.name !== undefined && this.plan.follow === 'P' ? e.dir : null;
      if (this.typeOf(e) === 'dir') {
        if (at) this.ctx.fs.rmdirAt(at, e.name!);
        else this.ctx.fs.rmdir(e.path, this.ctx.cwd);
      } else if (at) this.ctx.fs.unlinkAt(at, e.name!);
      else this.ctx.fs.unlink(e.path, this.ctx.cwd);
      return true;
    } catch (err) {
      this.warn(`cannot delete ${localeQuote(e.path)}: ${reason(err)}`);
      return false;
    }
  }

  linkTarget(e: Entry): string | null {
    try {
      return bytesOf(this.ctx.fs.readlink(e.path, this.ctx.cwd));
    } catch (err) {
      this.warn(`${localeQuote(e.path)}: ${reason(err)}`);
      return null;
    }
  }

  followStat(e: Entry): Stats | null | 'ELOOP' {
    const st = linkTargetStat(this.ctx.fs, e.path, this.ctx.cwd);
    if (st !== null) return st;
    // linkTargetStat gives up after 40 links, as the kernel does with ELOOP.
    return linkLoops(this.ctx.fs, e.path, this.ctx.cwd) ? 'ELOOP' : null;
  }

  lsLine(e: Entry): string | null {
    const st = this.stat(e);
    if (st === null) return null;
    const link = st.isSymbolicLink() ? this.linkTarget(e) : null;
    return lsLine(e.bytes, st, link, this.widths, Math.floor(this.now));
  }

  // ---- the walk -----------------------------------------------------------------------

  async run(): Promise<number> {
    for (const w of this.plan.warnings) this.warn(w, false);
    try {
      for (const p of this.plan.paths) {
        await this.visitRoot(p);
        if (this.quit) break;
      }
    } finally {
      await this.flush(true);
    }
    return this.status;
  }

  private async visitRoot(path: string): Promise<void> {
    const bytes = bytesOf(path);
    const e: Entry = { path, bytes, root: bytes, depth: 0, type: null };
    try {
      e.st = this.followHere(e) ? this.ctx.fs.stat(path, this.ctx.cwd) : this.ctx.fs.lstat(path, this.ctx.cwd);
    } catch (err) {
      let handled = false;
      if (this.followHere(e) && err instanceof VfsError && err.errno !== 'ELOOP' && err.errno !== 'EBLOCKED') {
        // A dangling link (or one leaving the zone) is the link itself; a loop of links is an error.
        try {
          e.st = this.ctx.fs.lstat(path, this.ctx.cwd);
          handled = e.st.isSymbolicLink();
        } catch { /* reported below */ }
      }
      if (!handled) {
        this.warn(`${localeQuote(path)}: ${reason(err)}`);
        await this.flush(false);
        return;
      }
    }
    e.type = typeOfStats(e.st!);
    await this.visit(e);
  }

  private async visit(e: Entry): Promise<void> {
    const plan = this.plan;
    this.pruned = false;
    if (e.type === 'symlink' && this.followHere(e) && this.stat(e) === null && e.loop) {
      // A link in a loop of links under -L: reported by the stat, not evaluated (fts: FTS_SLNONE with ELOOP).
      await this.flush(false);
      return;
    }
    if (plan.follow === 'L' && e.depth > 0 && this.typeOf(e) === 'dir') {
      // fts reports a directory cycle when it meets the entry (FTS_DC): it is not evaluated.
      const st = this.stat(e);
      const first = st ? this.ancestors.get(`${st.dev}:${st.ino}`) : undefined;
      if (first !== undefined) {
        this.warn(`File system loop detected; ${localeQuote(e.path)} is part of the same file system loop as ${localeQuote(first)}.`);
        await this.flush(false);
        return;
      }
    }
    if (!plan.depthFirst && e.depth >= plan.mindepth) this.evaluate(e);
    if (this.quit) return;
    const descend = !this.pruned || plan.depthFirst;
    if (descend && e.depth < plan.maxdepth && this.typeOf(e) === 'dir') await this.walkDir(e);
    if (this.quit) return;
    if (plan.depthFirst && e.depth >= plan.mindepth) this.evaluate(e);
    if (this.used >= FLUSH_AT || this.errs.length > 0) await this.flush(false);
  }

  /**
   * The start `root`'s directory below it, with the one walk (src/vfs/walk.ts): name order,
   * pre-order events evaluated (and pruned) as met, post-order ones under -depth. Directories
   * being walked are remembered by dev:ino (not under -P) to stop at file system loops.
   */
  private async walkDir(root: Entry): Promise<void> {
    const plan = this.plan;
    const rootKey = this.enter(root);
    if (rootKey === false) return;
    // The entry of each depth being walked (the start at 0), and the keys to forget on leaving.
    const stack: Entry[] = [root];
    const keys: Array<string | null> = [rootKey];
    // Per depth being walked: what its children's byte paths begin with, and whether that is
    // their path itself (ASCII), made once per directory rather than per entry.
    const bprefixes: string[] = [];
    const ascii: boolean[] = [];
    const push = (e: Entry) => {
      stack[e.depth] = e;
      bprefixes[e.depth] = e.bytes.endsWith('/') ? e.bytes : e.bytes + '/';
      ascii[e.depth] = e.bytes === e.path;
    };
    push(root);
    const signal = this.ctx.signal;
    const entryOf = (ev: WalkEvent): Entry => {
      if (ev.tag) return ev.tag as Entry;
      const nameBytes = bytesOf(ev.name);
      // ASCII names under an ASCII path: the bytes are the path itself.
      const bytes = nameBytes === ev.name && ascii[ev.depth - 1] ? ev.path : bprefixes[ev.depth - 1] + nameBytes;
      const e: Entry = { path: ev.path, bytes, root: root.root, depth: ev.depth, type: ev.type, dir: ev.dir!, name: ev.name, nameBytes };
      ev.tag = e;
      return e;
    };
    let n = 0;
    const events = walk(this.ctx.fs, root.path, this.ctx.cwd, {
      order: 'name',
      includeStart: false,
      postOrder: true,
      maxDepth: plan.maxdepth,
      symlinks: plan.follow === 'L' ? 'follow' : 'never',
      // Under -L a link is visited as what it leads to: a directory is walked.
      followLink: (ev) => this.typeOf(entryOf(ev)) === 'dir',
      signal,
      onAbort: () => new Error('aborted'),
    });
    try {
      for (const ev of events) {
        if ((n++ & 255) === 0 && signal.aborted) throw new Error('aborted');
        if (ev.depth === 0) {
          // The start could not be opened or listed.
          if (ev.kind === 'error') this.warn(`${localeQuote(root.path)}: ${reason(ev.error)}`);
          continue;
        }
        const e = entryOf(ev);
        if (ev.kind === 'file') {
          if (e.type === 'symlink' && this.followHere(e) && this.stat(e) === null && e.loop) {
            // A link in a loop of links under -L: reported by the stat, not evaluated (fts: FTS_SLNONE with ELOOP).
            await this.flush(false);
          } else {
            // A leaf: no recursion, no await unless there is output or a diagnostic to pass on.
            if (e.depth >= plan.mindepth) this.evaluate(e);
            if (this.used >= FLUSH_AT || this.errs.length > 0) await this.flush(false);
          }
        } else if (ev.kind === 'pre') {
          if (!this.pre(e)) {
            ev.skip = true;
            e.skipped = true;
            continue;
          }
          if (this.quit) return;
          const key = this.pruned && !plan.depthFirst ? false : e.depth < plan.maxdepth ? this.enter(e) : null;
          if (key === false) ev.skip = true;
          push(e);
          keys[e.depth] = key || null;
        } else if (ev.kind === 'error' || ev.kind === 'post') {
          if (e.skipped) continue;
          if (ev.kind === 'error') this.warn(`${localeQuote(e.path)}: ${reason(ev.error)}`);
          const key = keys[e.depth];
          if (key) this.ancestors.delete(key);
          keys[e.depth] = null;
          if (this.quit) return;
          if (plan.depthFirst && e.depth >= plan.mindepth) this.evaluate(e);
          if (this.used >= FLUSH_AT || this.errs.length > 0) await this.flush(false);
        }
        if (this.quit) return;
      }
    } finally {
      for (const k of keys) if (k) this.ancestors.delete(k);
    }
  }

  /**
   * A directory met by the walk, before its content: false when it is not evaluated at all
   * (a -L file system loop, reported). Evaluates it (pre-order), which may prune it.
   */
  private pre(e: Entry): boolean {
    const plan = this.plan;
    this.pruned = false;
    if (plan.follow === 'L' && e.depth > 0 && this.typeOf(e) === 'dir') {
      // fts reports a directory cycle when it meets the entry (FTS_DC): it is not evaluated.
      const st = this.stat(e);
      const first = st ? this.ancestors.get(`${st.dev}:${st.ino}`) : undefined;
      if (first !== undefined) {
        this.warn(`File system loop detected; ${localeQuote(e.path)} is part of the same file system loop as ${localeQuote(first)}.`);
        return false;
      }
    }
    if (!plan.depthFirst && e.depth >= plan.mindepth) this.evaluate(e);
    return true;
  }

  /**
   * About to read directory `e`: remember it by dev:ino (not under -P). False: it is part of
   * a file system loop (reported, not read); null: nothing to forget.
   */
  private enter(e: Entry): string | null | false {
    // fts stats a directory when it enters it: -mtime etc. on it after -delete emptied it see the old times.
    if (this.plan.deletes && this.plan.depthFirst && this.stat(e) !== null) this.times(e);
    if (this.plan.follow === 'P') return null;
    const st = this.stat(e);
    if (!st) return null;
    const key = `${st.dev}:${st.ino}`;
    const first = this.ancestors.get(key);
    if (first !== undefined) {
      this.warn(`File system loop detected; ${localeQuote(e.path)} is part of the same file system loop as ${localeQuote(first)}.`);
      return false;
    }
    this.ancestors.set(key, e.path);
    return key;
  }

  private evaluate(e: Entry): void {
    try {
      evalNode(this.plan.expr, e, this);
    } catch (err) {
      if (err instanceof Quit) this.quit = true;
      else throw err;
    }
  }

  private async flush(final: boolean): Promise<void> {
    if (this.used > 0 && (final || this.used >= FLUSH_AT || this.errs.length > 0)) {
      // Handed over whole: the next output goes to a new block.
      const chunk = this.block.subarray(0, this.used);
      this.block = Buffer.allocUnsafe(2 * FLUSH_AT);
      this.used = 0;
      await this.ctx.stdout.write(chunk);
    }
    if (this.errs.length > 0) {
      const errs = this.errs;
      this.errs = [];
      for (const m of errs) await this.ctx.warn(m);
    }
  }
}

export function evalNode(n: Node, e: Entry, c: EvalContext): boolean {
  switch (n.kind) {
    case 'pred': return n.fn(e, c);
    case 'and': return evalNode(n.left, e, c) && evalNode(n.right, e, c);
    case 'or': return evalNode(n.left, e, c) || evalNode(n.right, e, c);
    case 'comma':
      evalNode(n.left, e, c);
      return evalNode(n.right, e, c);
    case 'not': return !evalNode(n.expr, e, c);
  }
}

/** Does following this link go round more than 40 links (the kernel's ELOOP)? */
function linkLoops(fs: CommandContext['fs'], path: string, cwd: string): boolean {
  try {
    let cur = path;
    for (let i = 0; i < 40; i++) {
      const r = fs.resolveExisting(cur, cwd);
      if (!r.stat.isSymbolicLink()) return false;
      const target = fs.readlink(cur, cwd);
      if (target === '(outside the zone)') return false;
      cur = target.startsWith('/') ? target : (r.vpath.replace(/\/[^/]*$/, '') || '/') + '/' + target;
    }
    return true;
  } catch (err) {
    return err instanceof VfsError && err.errno === 'ELOOP';
  }
}

function reason(err: unknown): string {
  if (err instanceof VfsError) return err.reason;
  throw err;
}
