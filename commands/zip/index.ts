// zip (Info-ZIP Zip 3.0) with src/gnulib/zipwrite.ts: add, update (-u), delete (-d) and move (-m) entries, -r through
// the Vfs walk(). The archive is rewritten whole through an atomic writer (temp + rename): an
// existing archive's kept entries are re-read from it. Symbolic links are never stored; no encryption.
import { defineCommand, helpText, versionText, type CommandContext } from '../../src/command/index.js';
import { fnmatch, type GlobMatcher } from '../../src/gnulib/fnmatch.js';
import { ZipArchive, type ZipEntry } from '../../src/gnulib/zipread.js';
import { compressionPct } from '../../src/gnulib/zipinfo.js';
import { ZipWriter } from '../../src/gnulib/zipwrite.js';
import { VfsError, type AtomicWriter, type WalkFile } from '../../src/vfs/index.js';
import { walk } from '../../src/vfs/walk.js';
import { addProgress, setProgressTotal } from '../../src/runtime/progress.js';

/** Files up to this size are read whole, so a deflate that does not pay is stored instead. */
const WHOLE = 8 * 1024 * 1024;

interface ZipArgs {
  recurse: boolean; junk: boolean; quiet: boolean; level: number; update: boolean; del: boolean; move: boolean;
  noDirs: boolean; noExtra: boolean; archive: string | null; names: string[]; excludes: string[]; includes: string[];
  /** -@: names from standard input, one a line. -T: test the archive written. -f: freshen (replace, never add). */
  namesFromStdin: boolean; test: boolean; freshen: boolean; stdinAt: number;
}

class Refused extends Error { constructor(message: string, readonly status: number) { super(message); } }

function parse(args: string[]): ZipArgs {
  const a: ZipArgs = { recurse: false, junk: false, quiet: false, level: 6, update: false, del: false, move: false, noDirs: false, noExtra: false, archive: null, names: [], excludes: [], includes: [], namesFromStdin: false, test: false, freshen: false, stdinAt: 0 };
  let list: string[] | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('-') && arg.length > 1) {
      list = null;
      for (let j = 1; j < arg.length; j++) {
        const c = arg[j]!;
        if (c >= '0' && c <= '9') a.level = Number(c);
        else if (c === 'r') a.recurse = true;
        else if (c === 'j') a.junk = true;
        else if (c === 'q') a.quiet = true;
        else if (c === 'u') a.update = true;
        else if (c === 'd') a.del = true;
        else if (c === 'm') a.move = true;
        else if (c === 'D') a.noDirs = true;
        else if (c === 'X') a.noExtra = true;
        else if (c === '@') {
          a.namesFromStdin = true;
          a.stdinAt = a.names.length;
        }
        else if (c === 'T') a.test = true;
        else if (c === 'f') a.freshen = true;
        else if (c === 'x') list = a.excludes;
        else if (c === 'i') list = a.includes;
        else if (c === 'y') throw new Refused('zip error: -y (store symbolic links as links) is refused: nosh never stores or creates symbolic links', 16);
        else if (c === 'e' || c === 'P') throw new Refused(`zip error: -${c} (encryption) is refused: nosh does not encrypt archives (zip encryption is weak anyway; encrypt the archive elsewhere)`, 16);
        else throw new Refused(`zip error: Invalid command arguments (short option '${c}' not supported)`, 16);
      }
      continue;
    }
    if (list !== null && arg !== '-') list.push(arg);
    else if (a.archive === null) a.archive = arg;
    else a.names.push(arg);
  }
  return a;
}

interface Item { name: string; path: string | null; isDir: boolean; mode: number; mtime: Date; size: number; old?: ZipEntry }

const def = defineCommand({
  name: 'zip',
  summary: 'Package and compress files into a ZIP archive (Info-ZIP Zip 3.0): add, update (-u), delete (-d), move (-m).',
  usage: '[-options] [-b path] [-t mmddyyyy] [-n suffixes] [zipfile list] [-xi list]',
  parse: 'raw',
  usageStatus: 16,
  reference: 'Zip 3.0 (July 5th 2008), by Info-ZIP.',
  mutates: (args) => !args.some((x) => x === '--help' || x === '--version'),
  flags: [
    { key: 'r', short: 'r', help: 'recurse into directories' },
    { key: 'j', short: 'j', help: 'junk (do not record) directory names' },
    { key: 'q', short: 'q', help: 'quiet operation' },
    { key: '0', short: '0', help: 'store only (-1 compress faster ... -9 compress better)' },
    { key: 'u', short: 'u', help: 'update: only changed or new files' },
    { key: 'd', short: 'd', help: 'delete entries in zipfile' },
    { key: 'm', short: 'm', help: 'move into zipfile (delete OS files)' },
    { key: 'D', short: 'D', help: 'do not add directory entries' },
    { key: 'X', short: 'X', help: 'exclude extra file attributes (no extended timestamp)' },
    { key: 'x', short: 'x', help: 'exclude the following names' },
    { key: 'i', short: 'i', help: 'include only the following names' },
    { key: 'f', short: 'f', help: 'freshen: only changed files (entries already in the archive)' },
    { key: 'T', short: 'T', help: 'test the archive written (every entry inflated, CRC checked)' },
    { key: '@', short: '@', help: 'read names to add from standard input, one a line' },
  ],
  notes: '-y (store links), -e and -P (encryption) are refused; symbolic links met are skipped with a warning.\n'
    + 'The archive is written whole to a temporary file and renamed into place.',
  async run(ctx) {
    if (ctx.args[0] === '--version' || ctx.args[0] === '--help') {
      await ctx.stdout.write(ctx.args[0] === '--help' ? helpText(def) : versionText(def));
      return 0;
    }
    let a: ZipArgs;
    try {
      a = parse(ctx.args);
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      await ctx.stderr.write(e.message + '\n');
      return e.status;
    }
    if (a.namesFromStdin) {
      const text = (await ctx.stdin.readAll()).toString('utf8');
      // in argv's order: the names read stand where -@ stood
      const read = text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l !== '');
      a.names.splice(a.stdinAt, 0, ...read);
    }
    if (a.archive === null) {
      await ctx.stderr.write('zip error: no archive named: give the archive file, or - to write it to standard output\n');
      return 16;
    }
    if (a.archive === '-') {
      if (a.del || a.update || a.freshen || a.move) {
        await ctx.stderr.write("\nzip error: Invalid command arguments (can't use -d, -f, -u, -U, or -g on stdout\n)\n");
        return 16;
      }
      return build(ctx, a, '-', null);
    }
    const base = a.archive.slice(a.archive.lastIndexOf('/') + 1);
    const archive = base.includes('.') ? a.archive : a.archive + '.zip';
    return zipRun(ctx, a, archive);
  },
});
export default def;

function toGlobs(p: string[]): GlobMatcher[] { return p.map((x) => fnmatch(x)); }

async function nothingToDo(ctx: CommandContext, archive: string): Promise<number> {
  await ctx.stdout.write(`\nzip error: Nothing to do! (${archive})\n`);
  return 12;
}

async function zipRun(ctx: CommandContext, a: ZipArgs, archive: string): Promise<number> {
  let old: ZipArchive | null = null;
  if (a.freshen && !ctx.fs.exists(archive, ctx.cwd)) {
    await ctx.stdout.write(`\tzip warning: ${archive} not found or empty\n`);
    return 12;
  }
  if (ctx.fs.exists(archive, ctx.cwd)) {
    const r = ctx.fs.openRandom(archive, ctx.cwd);
    try {
      old = await ZipArchive.open(r, ctx.limits.archive);
      const close = old.close.bind(old);
      old.close = () => { close(); r.close(); };
    } catch (e) {
      r.close();
      await ctx.stderr.write(`\nzip error: Zip file structure invalid (${archive})\n`);
      return 3;
    }
  }
  try {
    return await build(ctx, a, archive, old);
  } finally {
    old?.close();
  }
}

async function build(ctx: CommandContext, a: ZipArgs, archive: string, old: ZipArchive | null): Promise<number> {
  const excl = toGlobs(a.excludes);
  const incl = toGlobs(a.includes);
  const wanted = (name: string) => !excl.some((g) => g.test(name)) && (incl.length === 0 || incl.some((g) => g.test(name)));
  const lines: string[] = [];
  let kept: ZipEntry[] = old ? [...old.entries] : [];
  const items: Item[] = [];
  // A new archive (no old entries to merge with): each entry is written as it is found.
  const live = old === null && archive !== '-' && !a.del && !a.freshen ? new Live(ctx, a, archive) : null;
  try {
    if (a.del) {
      if (old === null) {
        await ctx.stdout.write(`\nzip error: Nothing to do! (${archive})\n`);
        return 12;
      }
      const globs = toGlobs(a.names);
      const hit = new Set<number>();
      kept = kept.filter((e) => {
        const i = globs.findIndex((g) => g.test(e.name));
        if (i < 0) return true;
        hit.add(i);
        lines.push(`deleting: ${e.name}`);
        return false;
      });
      for (let i = 0; i < a.names.length; i++) if (!hit.has(i)) await ctx.stdout.write(`\tzip warning: name not matched: ${a.names[i]}\n`);
      if (lines.length === 0) return nothingToDo(ctx, archive);
    } else {
      const seen = new Set<string>();
      const admit = (name: string, isDir: boolean): boolean => {
        if ((a.noDirs && isDir) || name === '') return false;
        if (!wanted(name) || seen.has(name)) return false;
        seen.add(name);
        return true;
      };
      const add = async (name: string, path: string | null, st: { mode: number; mtime: Date; size: number }, isDir: boolean) => {
        if (!admit(name, isDir)) return;
        const it: Item = { name, path, isDir, mode: st.mode, mtime: st.mtime, size: isDir ? 0 : st.size };
        if (live) await live.add(it, null);
        else items.push(it);
      };
      // Info-ZIP's names: no leading '/', no '.' or '..' components (an empty name is no entry)
      const entryName = (p: string, isDir: boolean): string => {
        let n = PLAIN.test(p) ? p : p.split('/').filter((c) => c !== '' && c !== '.' && c !== '..').join('/');
        if (a.junk) n = n.slice(n.lastIndexOf('/') + 1);
        return n === '' ? '' : isDir ? n + '/' : n;
      };
      // the archive itself is never added (its identity taken once, not per file)
      const self = identity(ctx, archive);
      const isSelf = (st: { ino: number; dev: number }) => self !== null && st.ino === self.ino && st.dev === self.dev;
      for (const name of a.names) {
        let st;
        try {
          st = ctx.fs.lstat(name, ctx.cwd);
        } catch (e) {
          if (!(e instanceof VfsError)) throw e;
          if (!a.quiet) await ctx.stdout.write(`\tzip warning: name not matched: ${name}\n`);
          continue;
        }
        if (st.isSymbolicLink()) {
          await ctx.stdout.write(`\tzip warning: skipping symbolic link ${name} (nosh never stores links)\n`);
          continue;
        }
        if (!st.isDirectory()) {
          if (st.isFile() && !sameFile(ctx, name, self)) await add(entryName(name, false), name, st, false);
          continue;
        }
        if (name !== '.' && name !== './' && !a.junk) await add(entryName(name, true), null, st, true);
        if (!a.recurse) continue;
        for (const ev of walk(ctx.fs, name, ctx.cwd, { order: 'directory', includeStart: false, postOrder: live !== null })) {
          if (ev.kind === 'post') {
            // the files read through this folder came from inside the zone (checked once per folder)
            if (ev.handle) ctx.fs.verifyDir(ev.handle);
            continue;
          }
          if (ev.kind === 'error') {
            await ctx.stdout.write(`\tzip warning: could not open ${ev.path}\n`);
            continue;
          }
          if (ev.kind !== 'pre' && ev.kind !== 'file') continue;
          if (ev.type === 'symlink') {
            await ctx.stdout.write(`\tzip warning: skipping symbolic link ${ev.path} (nosh never stores links)\n`);
            continue;
          }
          if (live && ev.kind === 'file' && ev.type === 'file' && ev.dir) {
            // a new archive: the file is read through the folder the walk holds open and written now
            const name = entryName(ev.path, false);
            if (!admit(name, false)) continue;
            let f: WalkFile;
            try {
              f = ctx.fs.openListedFileAt(ev.dir, ev.name);
            } catch (e) {
              if (e instanceof VfsError && e.errno === 'ENOENT') continue; // gone since it was listed
              throw e;
            }
            try {
              await live.add({ name, path: ev.path, isDir: false, mode: f.stat!.mode, mtime: f.stat!.mtime, size: f.size }, f);
            } finally {
              f.close();
            }
            continue;
          }
          // reached through the folder the walk holds open (one lstat, not one per component)
          const s = ev.dir ? ctx.fs.lstatAt(ev.dir, ev.name) : ctx.fs.lstat(ev.path, ctx.cwd);
          if (s === null) continue; // gone since it was listed
          if (ev.kind === 'pre') { if (!a.junk) await add(entryName(ev.path, true), null, s, true); continue; }
          if (s.isFile() && !isSelf(s)) await add(entryName(ev.path, false), ev.path, s, false);
        }
      }
    }
  } catch (e) {
    if (live) return live.fail(e);
    throw e;
  }
  if (live) {
    if (!live.started) return nothingToDo(ctx, archive);
    try {
      live.end();
    } catch (e) {
      return live.fail(e);
    }
    return after(ctx, a, archive, lines, live.report, live.pct);
  }
  // merge: a new item replaces the old entry of its name in place; others are appended
  const byName = new Map(kept.map((e, i) => [e.name, i]));
  const order: (ZipEntry | Item)[] = [...kept];
  let changed = a.del;
  const report: { item: Item; verb: string }[] = [];
  for (const it of items) {
    const i = byName.get(it.name);
    if (a.freshen && i === undefined) continue;
    if (i !== undefined) {
      const e = kept[i]!;
      if ((a.update || a.freshen) && Math.floor(it.mtime.getTime() / 1000) <= Math.floor(e.mtime.getTime() / 1000)) continue;
      order[i] = it;
      report.push({ item: it, verb: a.freshen ? 'freshening' : 'updating' });
    } else {
      order.push(it);
      report.push({ item: it, verb: '  adding' });
    }
    changed = true;
  }
  if (!changed) {
    if ((a.update || a.freshen) && old !== null && a.names.length > 0 && items.length > 0) return 12;
    return nothingToDo(ctx, archive);
  }
  // write: the whole archive through the atomic writer, renamed into place only when complete
  // zip - : the archive goes to standard output (its lines to standard error, as Info-ZIP)
  const toStdout = archive === '-';
  let piped: Promise<void> = Promise.resolve();
  const w = toStdout
    ? { write: (b: Buffer) => { const c = Buffer.from(b); piped = piped.then(() => ctx.stdout.write(c)); }, commit() {}, abort() {} }
    // No fsync for a new archive (Info-ZIP syncs nothing; a crash can lose its new bytes, no
    // old ones); an archive that replaces one is synced before its rename (DESIGN).
    : ctx.fs.createWriter(archive, ctx.cwd, { durable: old !== null || ctx.fs.exists(archive, ctx.cwd) });
  const zw = new ZipWriter((b) => w.write(b));
  const pct = new Map<Item, string>();
  // Progress: the walk is done (its entries counted); the entries to write are the rest of the total.
  setProgressTotal(order.length);
  try {
    for (const x of order) {
      addProgress(1);
      if ('raw' in x) {
        // an entry kept from the old archive: its bytes inflated and compressed again
        const e = x;
        const o = { mtime: e.mtime, mode: e.unixMode || (e.isDir ? 0o40755 : 0o100644), dosOnly: a.noExtra };
        if (e.isDir) zw.addDirectory(e.name, o);
        else await zw.addStream(e.name, old!.data(e), e.size, e.method === 8 ? a.level || 6 : 0, o);
        continue;
      }
      const it = x;
      pct.set(it, await writeItem(zw, a, it, () => ctx.fs.readFile(it.path!, ctx.cwd),
        () => (toStdout ? drained(ctx.fs.readChunks(it.path!, ctx.cwd), () => piped) : ctx.fs.readChunks(it.path!, ctx.cwd, 1 << 20))));
      await piped;
    }
    zw.end();
    w.commit();
    await piped;
  } catch (e) {
    w.abort();
    if (e instanceof VfsError) {
      await ctx.stderr.write(`zip I/O error: ${e.path}: ${e.reason}\n\nzip error: Output file write failure (nothing written: ${archive})\n`);
      return 14;
    }
    throw e;
  }
  return after(ctx, a, archive, lines, report, pct);
}

/** After the archive is written: its lines ("adding: x (deflated 42%)"), -T's test, -m's removals. */
async function after(ctx: CommandContext, a: ZipArgs, archive: string, lines: string[], report: { item: Item; verb: string }[], pct: Map<Item, string>): Promise<number> {
  const toStdout = archive === '-';
  if (!a.quiet) {
    const out = [...lines, ...report.map(({ item, verb }) => `${verb}: ${item.name} ${pct.get(item) ?? ''}`)];
    await (toStdout ? ctx.stderr : ctx.stdout).write(out.map((l) => l + '\n').join(''));
  }
  if (a.test && !toStdout) {
    const status = await testArchive(ctx, archive, a.quiet);
    if (status !== 0) return status;
  }
  if (a.move) {
    for (const { item } of [...report].reverse()) {
      try {
        if (item.path !== null) ctx.fs.unlink(item.path, ctx.cwd);
        else if (!item.isDir) continue;
        else ctx.fs.rmdir(item.name, ctx.cwd);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
      }
    }
  }
  return 0;
}

/** `zip -r`'s names that need no clean-up: relative, no empty, '.' or '..' component. */
const PLAIN = /^(?!\.{1,2}(?:\/|$))(?:[^/]+\/(?!\.{1,2}(?:\/|$)))*[^/]+$/;

/** One new entry written; its "(deflated 42%)". `whole` reads a file of at most WHOLE bytes, `chunks` a bigger one. */
async function writeItem(zw: ZipWriter, a: ZipArgs, it: Item, whole: () => Buffer, chunks: () => Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<string> {
  const o = { mtime: it.mtime, mode: it.mode, dosOnly: a.noExtra };
  if (it.isDir) {
    zw.addDirectory(it.name, o);
    return '(stored 0%)';
  }
  if (it.size <= WHOLE) {
    const buf = whole();
    const r = zw.addBuffer(it.name, buf, a.level, o);
    return r.deflated ? `(deflated ${compressionPct(buf.length, r.csize)})` : '(stored 0%)';
  }
  const r = await zw.addStream(it.name, chunks(), it.size, a.level, o);
  return a.level > 0 ? `(deflated ${compressionPct(it.size, r.csize)})` : '(stored 0%)';
}

/**
 * A new archive written while the names are walked: the atomic writer is made for the first
 * entry (none: "Nothing to do", no file), each file found is read through the folder the walk
 * holds open (one open and fstat) into one reused buffer and written at once.
 */
class Live {
  private w: AtomicWriter | null = null;
  private zw: ZipWriter | null = null;
  private space = Buffer.allocUnsafe(0);
  readonly report: { item: Item; verb: string }[] = [];
  readonly pct = new Map<Item, string>();

  constructor(private readonly ctx: CommandContext, private readonly a: ZipArgs, private readonly archive: string) {}

  get started(): boolean {
    return this.zw !== null;
  }

  /** `f`: the file as the walk opened it (closed by the caller); null: read by its path. */
  async add(it: Item, f: WalkFile | null): Promise<void> {
    const { ctx } = this;
    if (this.zw === null) {
      // No fsync: a new archive (Info-ZIP syncs nothing; a crash can lose its new bytes, no old ones).
      const w = ctx.fs.createWriter(this.archive, ctx.cwd, { durable: false });
      this.w = w;
      this.zw = new ZipWriter((b) => w.write(b));
    }
    const pct = await writeItem(this.zw, this.a, it,
      () => (f ? this.readWhole(f) : ctx.fs.readFile(it.path!, ctx.cwd)),
      () => (f ? fileChunks(f) : ctx.fs.readChunks(it.path!, ctx.cwd, 1 << 20)));
    this.report.push({ item: it, verb: '  adding' });
    this.pct.set(it, pct);
    // Progress: the walk counts its entries, each entry written counts again (the total is known at the end).
    addProgress(1);
  }

  /** The whole file into the reused buffer (grown if the file grew since its fstat): valid until the next read. */
  private readWhole(f: WalkFile): Buffer {
    if (this.space.length <= f.size) this.space = Buffer.allocUnsafe(Math.max(f.size + 1, 64 * 1024));
    let n = 0;
    for (;;) {
      if (n === this.space.length) {
        const bigger = Buffer.allocUnsafe(this.space.length * 2);
        this.space.copy(bigger, 0, 0, n);
        this.space = bigger;
      }
      const r = f.read(this.space, n, this.space.length - n);
      if (r === 0) return this.space.subarray(0, n);
      n += r;
    }
  }

  end(): void {
    this.zw!.end();
    this.w!.commit();
    setProgressTotal(0);
  }

  /** A failure while writing: nothing is left (the writer aborted); a file system error as Info-ZIP reports it. */
  async fail(e: unknown): Promise<number> {
    this.w?.abort();
    if (e instanceof VfsError) {
      await this.ctx.stderr.write(`zip I/O error: ${e.path}: ${e.reason}\n\nzip error: Output file write failure (nothing written: ${this.archive})\n`);
      return 14;
    }
    throw e;
  }
}

/** A big file's chunks from the walk's open file (1 MiB reads, each its own buffer: the block deflate holds them). */
function* fileChunks(f: WalkFile): Generator<Buffer> {
  for (;;) {
    const b = Buffer.allocUnsafe(1 << 20);
    const n = f.read(b, 0, b.length);
    if (n === 0) return;
    yield b.subarray(0, n);
  }
}

/** The archive's identity (stat), or null when it does not exist yet. */
function identity(ctx: CommandContext, archive: string): { ino: number; dev: number } | null {
  try {
    return ctx.fs.stat(archive, ctx.cwd);
  } catch {
    return null;
  }
}

function sameFile(ctx: CommandContext, p: string, self: { ino: number; dev: number } | null): boolean {
  if (self === null) return false;
  try {
    const x = ctx.fs.stat(p, ctx.cwd);
    return x.ino === self.ino && x.dev === self.dev;
  } catch {
    return false;
  }
}

/** Chunks of a file read for zip -, each waiting until what is already piped out is written (back-pressure). */
async function* drained(chunks: Iterable<Buffer>, pending: () => Promise<void>): AsyncGenerator<Buffer> {
  for (const c of chunks) {
    await pending();
    yield c;
  }
}

/** zip -T: the archive written is read back, every entry inflated and its CRC checked (Info-ZIP runs unzip -tqq). */
async function testArchive(ctx: CommandContext, archive: string, quiet: boolean): Promise<number> {
  const r = ctx.fs.openRandom(archive, ctx.cwd);
  let zip: ZipArchive | undefined;
  try {
    zip = await ZipArchive.open(r, ctx.limits.archive);
    for (const e of zip.entries) {
      if (e.isDir) continue;
      for await (const _ of zip.data(e)) { /* inflated and checked */ }
    }
  } catch (e) {
    await ctx.stdout.write(`test of ${archive} FAILED\n\nzip error: Zip file invalid, could not spawn unzip, or wrong unzip (original files unmodified)\n`);
    return 8;
  } finally {
    zip?.close();
    r.close();
  }
  if (!quiet) await ctx.stdout.write(`test of ${archive} OK\n`);
  return 0;
}
