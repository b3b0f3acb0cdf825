import { defineCommand, type CommandContext } from '../../src/command/index.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { isDotOrDotDot, lastComponent } from '../../src/gnulib/fileops.js';
import type { AtomicWriter } from '../../src/vfs/vfs.js';
import { VfsError } from '../../src/vfs/index.js';

/** GNU tee's read size (BUFSIZ): with -a, a file named k times gets each such piece k times. */
const PIECE = 8192;

/** One output file: named `count` times on the command line. */
interface Target {
  name: string;
  vpath: string;
  w: AtomicWriter | null;
  count: number;
  /** -a and named more than once: bytes waiting to make a whole piece. */
  pending: Buffer[];
  pendingBytes: number;
  /** Bytes given to the writer by tee (with -a, not the old content). */
  wrote: number;
  existed: boolean;
}

/**
 * GNU tee (coreutils 9.1): standard input to standard output and to every FILE. Each FILE
 * is written atomically through the Vfs: it appears, complete, when tee ends.
 */
export default defineCommand({
  name: 'tee',
  summary: 'Copy standard input to each FILE, and also to standard output.',
  usage: '[FILE]...',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', long: 'append', help: 'append to the given FILEs, do not overwrite' },
    { key: 'i', short: 'i', long: 'ignore-interrupts', help: 'ignore interrupt signals' },
  ],
  async run(ctx) {
    const append = ctx.values.a === true;
    let status = 0;
    const targets: Target[] = [];
    const fail = async (name: string, e: unknown) => {
      if (!(e instanceof VfsError)) throw e;
      await ctx.warn(`${quoteNameColon(name)}: ${e.reason}`);
      status = 1;
    };
    const write = (t: Target, data: Buffer) => {
      for (let i = 0; i < (append ? t.count : 1); i++) t.w!.write(data);
      t.wrote += data.length;
    };
    const feed = (t: Target, chunk: Buffer) => {
      if (!append || t.count === 1) return write(t, chunk);
      // GNU appends each piece it read once per name: a b (a file named twice) gets a a b b.
      t.pending.push(Buffer.from(chunk)); // a copy: the input's buffer may be reused
      t.pendingBytes += chunk.length;
      if (t.pendingBytes < PIECE) return;
      let all = Buffer.concat(t.pending);
      for (; all.length >= PIECE; all = all.subarray(PIECE)) write(t, all.subarray(0, PIECE));
      t.pending = [all];
      t.pendingBytes = all.length;
    };
    const commit = (t: Target) => {
      if (t.pendingBytes) write(t, Buffer.concat(t.pending));
      t.pending = [];
      t.pendingBytes = 0;
      // Appending nothing leaves an existing file untouched (its time too), as O_APPEND.
      if (append && t.existed && t.wrote === 0) t.w!.abort();
      else t.w!.commit();
    };
    try {
      for (const name of ctx.operands) {
        try {
          refuseDirectoryName(ctx, name);
          const r = ctx.fs.resolve(name, ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks });
          const same = targets.find((t) => t.vpath === r.vpath && t.w);
          if (same) {
            same.count++;
            continue;
          }
          const w = ctx.fs.createWriter(name, ctx.cwd, { append });
          targets.push({ name, vpath: r.vpath, w, count: 1, pending: [], pendingBytes: 0, wrote: 0, existed: r.stat !== null });
        } catch (e) {
          await fail(name, e);
        }
      }
      for await (const chunk of ctx.stdin) {
        // Standard output first, as GNU (descriptor 0 of its list): a broken pipe stops tee
        // before the files get this chunk.
        await ctx.stdout.write(chunk);
        for (const t of targets) {
          if (!t.w) continue;
          try {
            feed(t, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          } catch (e) {
            t.w.abort();
            t.w = null;
            await fail(t.name, e);
          }
        }
      }
      for (const t of targets) {
        if (!t.w) continue;
        try {
          commit(t);
        } catch (e) {
          await fail(t.name, e);
        }
        t.w = null;
      }
    } finally {
      // Stopped early (broken pipe, output limit, abort): what was read so far is kept, as with GNU.
      for (const t of targets) {
        if (!t.w) continue;
        try {
          commit(t);
        } catch {
          t.w.abort();
        }
      }
    }
    return status;
  },
});

/**
 * open(NAME, O_CREAT) never makes a file named 'x/' or 'x/.': Is a directory, unless the
 * lookup fails first (a missing or non-directory parent; for 'x/.', x itself).
 */
function refuseDirectoryName(ctx: CommandContext, name: string): void {
  if (isDotOrDotDot(lastComponent(name))) {
    ctx.fs.resolveExisting(name, ctx.cwd);
    throw new VfsError('EISDIR', name);
  }
  if (!name.endsWith('/')) return;
  const parent = name.slice(0, name.length - lastComponent(name).length) || '.';
  if (!ctx.fs.stat(parent, ctx.cwd).isDirectory()) throw new VfsError('ENOTDIR', name);
  throw new VfsError('EISDIR', name);
}
