// unzip's extraction, all or nothing: every selected entry is written into a staging folder
// inside the destination, then moved into place at the end. A bomb, limit or quota stop removes
// the staging folder: nothing is left behind. Links, devices and FIFOs are never created, no
// entry is written through an existing symbolic link, and encrypted or corrupt entries are refused.
import type { CommandContext } from '../../src/command/index.js';
import { DestTree, splitLast, StagingFolder, topOf } from '../../src/gnulib/extract-tree.js';
import { addProgress, setProgressTotal } from '../../src/runtime/progress.js';
import { isLimitError, VfsError, type DirHandle } from '../../src/vfs/index.js';
import { ZipArchive, ZipError, safeEntryPath, specialKind, type ZipEntry } from '../../src/gnulib/zipread.js';

export interface ExtractOptions {
  exdir: string;
  overwrite: 'ask' | 'always' | 'never';
  junk: boolean;
  quiet: number;
}

/** Thrown to stop the whole extraction (nothing is moved into place). */
export class StopAll extends Error {}

function join(dir: string, rel: string): string {
  if (dir === '' || dir === '.') return rel;
  return dir.endsWith('/') ? dir + rel : `${dir}/${rel}`;
}

function pad23(s: string): string {
  return s.length >= 23 ? s : s + ' '.repeat(23 - s.length);
}

/** Folders the making of the destination folder (-d) has seen to be folders. */
type Known = Set<string>;


/**
 * Does the file `rel` below the destination exist now (lstat, a link itself included)? Its
 * folder is reached through the held tree; where a link is on the way, by path as before.
 */
function existsBelow(ctx: CommandContext, tree: DestTree, exdir: string, rel: string): boolean {
  const [dirRel, name] = splitLast(rel);
  try {
    const r = tree.reach(dirRel, false);
    if ('dir' in r) return ctx.fs.lstatAt(r.dir, name) !== null;
    if ('missing' in r) return false;
    ctx.fs.lstat(join(exdir, rel), ctx.cwd);
    return true;
  } catch (err) {
    if (!(err instanceof VfsError)) throw err;
    return false;
  }
}

interface Planned { e: ZipEntry; rel: string; warning?: string; absolute?: string }

/**
 * A staged entry: `staged` its name in the staging folder (flat) or its path below it (nested:
 * `top` is then its new top folder); `created`: a folder entry whose folder it made.
 */
interface Ready { p: Planned; staged: string | null; top: string | null; created: boolean }

/** The earlier file entry of this path leaves the list (a later one of the same name replaced it). */
function removeEarlier(ready: Ready[], rel: string): void {
  const i = ready.findIndex((r) => r.staged === rel && r.top !== null);
  if (i >= 0) ready.splice(i, 1);
}

/** Returns the exit status (Info-ZIP's: 0, 1 warnings, 2 an entry failed, 50 disk full). */
export async function extract(ctx: CommandContext, zip: ZipArchive, selected: ZipEntry[], o: ExtractOptions): Promise<number> {
  let status = 0;
  const warn = async (line: string) => {
    await ctx.stderr.write(line + '\n');
  };
  const say = async (line: string) => {
    if (o.quiet === 0) await ctx.stdout.write(line + '\n');
  };
  // 1. plan: names, kinds, declared sizes (nothing written yet)
  const plan: Planned[] = [];
  let total = 0;
  const skippedExisting: string[] = [];
  for (const e of selected) {
    const safe = safeEntryPath(e.name);
    if (safe.path === null) {
      await warn(`    skipping: ${e.name.replace(/[\0-\x1f]/g, '?')}  unsafe entry name (${safe.reason})`);
      status = Math.max(status, 1);
      continue;
    }
    // Info-ZIP: skipped '../' components are a warning on stdout in the listing (exit 1); a
    // stripped leading '/' is said on stderr
    const dotdot = safe.warning?.includes('"../"') ? safe.warning : undefined;
    if (dotdot) status = Math.max(status, 1);
    const absolute = safe.warning !== undefined && !dotdot ? safe.warning : undefined;
    const kind = specialKind(e);
    if (kind) {
      await warn(`    skipping: ${e.name}  ${kind} entries are never created by nosh`);
      status = Math.max(status, 1);
      continue;
    }
    if (e.encrypted) {
      await warn(`    skipping: ${e.name}  encrypted entry: nosh does not decrypt (unpack it elsewhere with its password)`);
      status = Math.max(status, 1);
      continue;
    }
    const ratio = zip.ratioProblem(e);
    if (ratio) throw new StopAll(`${e.name}: ${ratio}`);
    let rel = safe.path;
    if (o.junk) {
      if (e.isDir) continue;
      rel = rel.slice(rel.lastIndexOf('/') + 1);
    }
    total += e.size;
    if (total > zip.limits.maxTotalBytes) throw new StopAll(`${e.name}: the entries declare more than ${zip.limits.maxTotalBytes} bytes in all (a zip bomb? the configuration's limits.archiveBytes)`);
    plan.push({ e, rel, warning: dotdot, absolute });
  }
  // 2. stage: inflate every file into a hidden folder in the destination, both held open
  const known: Known = new Set();
  let tree: DestTree;
  let staging: StagingFolder;
  try {
    if (o.exdir !== '' && !ctx.fs.exists(o.exdir, ctx.cwd)) makeDirs(ctx, '', o.exdir, known);
    tree = DestTree.open(ctx.fs, o.exdir === '' ? '.' : o.exdir, ctx.cwd);
    try {
      staging = StagingFolder.make(ctx.fs, tree.base, 'unzip');
    } catch (err) {
      tree.close();
      throw err;
    }
  } catch (err) {
    if (err instanceof VfsError) throw new StopAll(`cannot create ${err.path}: ${err.reason}`);
    throw err;
  }
  // Each top folder of the destination that does not exist yet is staged whole (nested in the
  // staging folder, files at their own names) and moved into place with one rename; files that
  // join folders that exist already are staged flat and moved one by one.
  const fresh = new Map<string, boolean>();
  const topLevelFiles = new Set(plan.filter((p) => !p.e.isDir && topOf(p.rel, false) === null).map((p) => p.rel));
  const isFresh = (top: string | null): boolean => {
    if (top === null) return false;
    let f = fresh.get(top);
    if (f === undefined) {
      try {
        f = !topLevelFiles.has(top) && ctx.fs.lstatAt(tree.base, top) === null;
      } catch (err) {
        if (!(err instanceof VfsError)) throw err;
        f = false; // a name the zone refuses: the per-file path says so
      }
      fresh.set(top, f);
    }
    return f;
  };
  const ready: Ready[] = [];
  // Progress: the planned entries (from the central directory) are the total; an entry counts
  // as done when the next one starts, the last one after the loop.
  setProgressTotal(plan.length);
  try {
    let n = 0;
    let started = 0;
    for (const p of plan) {
      if (started++ > 0) addProgress(1);
      const dest = join(o.exdir, p.rel);
      const top = topOf(p.rel, p.e.isDir);
      const nested = isFresh(top);
      let exists = false;
      if (nested) {
        // nothing of this folder is at the destination: only an earlier entry of the same name
        exists = !p.e.isDir && staging.nested.has(p.rel);
        if (exists && o.overwrite !== 'always') {
          if (o.overwrite === 'ask') skippedExisting.push(dest);
          continue;
        }
      } else if (!p.e.isDir) {
        exists = existsBelow(ctx, tree, o.exdir, p.rel);
        if (exists && o.overwrite !== 'always') {
          if (o.overwrite === 'ask') skippedExisting.push(dest);
          continue;
        }
      }
      let at: DirHandle = staging.dir;
      let staged = p.rel;
      if (nested) {
        // the entry's folder in the staging folder (the folder itself for a folder entry)
        const dirRel = p.e.isDir ? p.rel : splitLast(p.rel)[0];
        try {
          const r = staging.reach(dirRel, true);
          if (!('dir' in r)) throw new VfsError('ENOTDIR', dest); // (nothing but staged folders there)
          if (p.e.isDir) {
            ready.push({ p, staged: null, top, created: r.created });
            continue;
          }
          at = r.dir;
          if (exists) {
            // a later entry of the same name replaces the earlier one: its line and move too
            staging.unlinkNested(p.rel);
            removeEarlier(ready, p.rel);
          }
        } catch (err) {
          if (isLimitError(err)) throw new StopAll(`${p.e.name}: ${err.reason}`);
          if (!(err instanceof VfsError)) throw err;
          await warn(`error:  cannot create ${dest}\n        ${err.reason}`);
          status = Math.max(status, 1);
          continue;
        }
      } else if (p.e.isDir) {
        ready.push({ p, staged: null, top: null, created: false });
        continue;
      } else {
        // The staged name keeps the entry's own name: the zone's extension and name rules see it.
        staged = `${n++}-${p.rel.slice(p.rel.lastIndexOf('/') + 1)}`;
      }
      const mode = p.e.unixMode & 0o777;
      const fileName = nested ? splitLast(p.rel)[1] : staged;
      let w;
      try {
        // No fsync for a file the archive creates (GNU unzip syncs nothing; a crash can lose its
        // new bytes, no old ones); one that replaces a file is synced before the move (DESIGN).
        // Its mode and times are set on the open file, before the move.
        w = ctx.fs.createWriterAt(at, fileName, { mode: 0o600, direct: true, durable: exists && !nested, finalMode: mode !== 0 ? mode : 0o644, finalTime: p.e.mtime.getTime() / 1000 });
        (nested ? staging.nested : staging.pending).add(staged);
      } catch (err) {
        // a name the zone refuses (extension, blocked pattern) is skipped; a limit stops everything
        if (isLimitError(err)) throw new StopAll(`${p.e.name}: ${err.reason}`);
        if (!(err instanceof VfsError)) throw err;
        await warn(`    skipping: ${p.e.name}  ${err.reason}`);
        status = Math.max(status, 1);
        continue;
      }
      try {
        for await (const chunk of zip.data(p.e)) {
          if (ctx.signal.aborted) throw new StopAll('interrupted');
          w.write(chunk);
        }
        w.commit();
        ready.push({ p, staged, top: nested ? top : null, created: false });
      } catch (err) {
        w.abort();
        if (nested) staging.nested.delete(staged);
        if (err instanceof ZipError && (err.kind === 'crc' || err.kind === 'size' || err.kind === 'method')) {
          await warn(`${p.e.name}:  ${err.message}; not extracted`);
          status = 2;
          continue;
        }
        if (err instanceof ZipError) throw new StopAll(`${p.e.name}: ${err.message}`);
        if (err instanceof VfsError) throw new StopAll(`${p.e.name}: ${err.reason}`);
        throw err;
      }
    }
    if (started > 0) addProgress(1);
    // 3. move into place: each new top folder with one rename (file by file if something took
    // its name meanwhile), then the rest in archive order, with Info-ZIP's lines
    const whole = new Set<string>();
    for (const [top, f] of fresh) {
      if (!f) continue;
      try {
        staging.moveTop(top, tree.base);
        whole.add(top);
      } catch (err) {
        if (!(err instanceof VfsError)) throw err;
      }
    }
    for (const { p, staged, top, created } of ready) {
      const dest = join(o.exdir, p.rel);
      if (p.warning && o.quiet === 0) await ctx.stdout.write(p.warning + '\n');
      if (p.absolute) await ctx.stderr.write(p.absolute + '\n');
      if (top !== null && whole.has(top)) {
        if (p.e.isDir) {
          if (created) await say(`   creating: ${dest}/`);
        } else await say(`${p.e.method === 0 ? ' extracting' : '  inflating'}: ${pad23(dest)} `);
        continue;
      }
      try {
        // the entry's folder (the folder itself for a folder entry), made where missing, never
        // through a symbolic link
        const [dirRel, name] = p.e.isDir ? [p.rel, ''] : splitLast(p.rel);
        const r = tree.reach(dirRel, true);
        if ('link' in r) {
          await warn(`    skipping: ${p.e.name}  would be written through the symbolic link ${join(o.exdir, r.link)}`);
          status = Math.max(status, 1);
          continue;
        }
        if (!('dir' in r)) continue; // (reach makes what is missing)
        if (p.e.isDir) {
          if (r.created) await say(`   creating: ${dest}/`);
          continue;
        }
        if (top !== null) {
          // a staged top folder that could not move whole: what is there now is kept unless -o
          if (o.overwrite !== 'always' && ctx.fs.lstatAt(r.dir, name) !== null) {
            if (o.overwrite === 'ask') skippedExisting.push(dest);
            continue;
          }
          await say(`${p.e.method === 0 ? ' extracting' : '  inflating'}: ${pad23(dest)} `);
          staging.publishNested(staged!, r.dir, name);
          continue;
        }
        await say(`${p.e.method === 0 ? ' extracting' : '  inflating'}: ${pad23(dest)} `);
        staging.publish(staged!, r.dir, name);
      } catch (err) {
        if (!(err instanceof VfsError)) throw err;
        await warn(`error:  cannot create ${dest}\n        ${err.reason}`);
        status = Math.max(status, 1);
      }
    }
  } finally {
    staging.remove();
    tree.close();
  }
  if (skippedExisting.length > 0) {
    for (const d of skippedExisting) await warn(`unzip: ${d} exists: not replaced (nosh never prompts; -o overwrites, -n skips silently)`);
    status = Math.max(status, 1);
  }
  return status;
}

/** mkdir -p of base/rel, refusing to go through a symbolic link. */
function makeDirs(ctx: CommandContext, base: string, rel: string, known: Known): void {
  let p = base;
  for (const part of rel.split('/')) {
    p = join(p, part);
    if (known.has(p)) continue;
    let st;
    try {
      st = ctx.fs.lstat(p, ctx.cwd);
    } catch (e) {
      if (!(e instanceof VfsError) || e.errno !== 'ENOENT') throw e;
      ctx.fs.mkdir(p, ctx.cwd);
      known.add(p);
      continue;
    }
    if (st.isSymbolicLink()) throw new VfsError('ELOOP', p);
    if (!st.isDirectory()) throw new VfsError('ENOTDIR', p);
    known.add(p);
  }
}
