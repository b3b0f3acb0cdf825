import { type CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { walk as walkTree } from '../../src/vfs/walk.js';
import type { DirHandle, WalkFile } from '../../src/vfs/vfs.js';
import { valueLimit, valueTooBig } from '../../src/runtime/memory.js';
import { ContentCache, MAX_ENTRY, contentCache, nowNs } from '../../src/vfs/content-cache.js';
import { excludedBy, globMatches } from './include.js';
import { Matcher } from './matcher.js';
import { FLUSH_AT, Opts, OutBuffer, SGR, SMALL_FILE, Scan, type ScanHost, dirOf, sgr } from './scan.js';

// The run over every operand: files, stdin and the recursion (-r/-R).
let scratch: Buffer | null = null;

export class GrepRun implements ScanHost {
  private readonly out = new OutBuffer();
  /** Some group was printed (GNU's static `used`): group separators from then on. */
  used = false;
  errorSeen = false;
  anySelected = false;
  exitNow = false;
  /** A directory read through left the zone: what its files said (even -q's match) is void. */
  escaped = false;
  outFile: boolean | 'auto';
  readonly eol: number;
  readonly eolChar: string;
  readonly ctxOn: boolean;
  /** Matching lines are not printed (-c -l -L -q). */
  readonly quietOut: boolean;
  /**
   * Directories files were read through (Vfs.openListedFileAt) since their location was last
   * checked, with the output size before the first such file and the name to report.
   */
  private readonly unverified = new Map<DirHandle, { mark: number; display: string; escaped: boolean }>();
  /** The worker's content cache (limits.contentCacheBytes), or null. */
  private readonly cache: ContentCache | null;

  constructor(readonly ctx: CommandContext, readonly o: Opts, readonly m: Matcher, operandCount: number) {
    this.eol = o.z ? 0 : 10;
    this.eolChar = o.z ? '\0' : '\n';
    this.ctxOn = o.before >= 0 || o.after >= 0;
    this.quietOut = o.count || o.list !== '' || o.quiet;
    const fname = ctx.opts.get('fname');
    this.outFile = fname === 'H' ? true : fname === 'h' ? false : operandCount > 1 ? true : o.recurse ? 'auto' : false;
    this.cache = o.recurse ? contentCache(ctx.limits.contentCacheBytes) : null;
  }

  push(b: Buffer | string): void {
    this.out.push(b);
  }

  /** A file name (for -c, -l, -L), in the file-name colour with --color=always. */
  private pushName(name: string): void {
    const bytes = Buffer.from(name, 'utf8');
    this.push(this.o.color ? sgr(SGR.file, bytes.toString('latin1')) : bytes);
  }

  get pending(): number {
    return this.out.size;
  }

  /**
   * Output is held until the next flush (between chunks). Past what the final output can
   * still take it would only be cut: grep stops there (exitNow), and the flush truncates.
   * `bounded` (-o, whose output can be many times its line): held output past a quarter of
   * the memory budget is MEMORY_LIMIT, where a pipe or a file would take it all.
   */
  heldTooMuch(bounded: boolean): boolean {
    const n = this.out.size;
    if (n <= FLUSH_AT) return false;
    if (n > (this.ctx.stdout.room?.() ?? Infinity)) {
      this.exitNow = true;
      return true;
    }
    if (bounded && n > valueLimit()) throw valueTooBig("grep -o's output of one chunk");
    return false;
  }

  async flush(force = false): Promise<void> {
    if (!force && this.out.size < FLUSH_AT) return;
    // Nothing read through a directory leaves before the directory is known to be inside.
    if (this.unverified.size > 0) await this.settle();
    if (this.out.size === 0) return;
    const data = this.out.take();
    for (const v of this.unverified.values()) v.mark = 0; // escaped ones: drop from here on
    await this.ctx.stdout.write(data);
  }

  /**
   * Check where the directories read through are now (one readlink each). One that left the
   * zone since its listing: its files may not be the zone's, so the output from its first
   * file on is dropped and the directory reported. It stays listed (escaped) until the walk
   * leaves it, so whatever is still read through it is dropped too. False if one escaped.
   */
  private async settle(only?: DirHandle): Promise<boolean> {
    let cut = Infinity;
    const bad: string[] = [];
    for (const [h, v] of this.unverified) {
      if (only && h !== only) continue;
      if (!v.escaped) {
        try {
          this.ctx.fs.verifyDir(h);
          this.unverified.delete(h);
          continue;
        } catch (e) {
          if (!(e instanceof VfsError)) throw e;
          v.escaped = true;
          bad.push(`${v.display || '.'}: ${e.reason}`);
        }
      }
      cut = Math.min(cut, v.mark);
    }
    if (cut === Infinity) return true;
    this.out.truncate(cut);
    for (const v of this.unverified.values()) v.mark = Math.min(v.mark, this.out.size);
    this.escaped = true;
    this.errorSeen = true;
    if (!this.o.noMessages) for (const m of bad) await this.ctx.stderr.write(`grep: ${m}\n`);
    return false;
  }

  async message(msg: string): Promise<void> {
    await this.flush(true);
    await this.ctx.stderr.write(`grep: ${msg}\n`);
  }

  async fileError(name: string, e: unknown): Promise<void> {
    if (!(e instanceof VfsError)) throw e;
    this.errorSeen = true;
    if (!this.o.noMessages) await this.message(`${name}: ${e.reason}`);
  }

  async operand(op: string, omitDotSlash: boolean): Promise<void> {
    if (op === '-') {
      await this.scan(this.ctx.stdin, this.o.label, 19);
      return;
    }
    const fs = this.ctx.fs;
    let st;
    try {
      st = fs.stat(op, this.ctx.cwd);
    } catch (e) {
      await this.fileError(op, e);
      return;
    }
    if (st.isDirectory()) {
      if (!omitDotSlash && this.o.dirRules.some((r) => globMatches(r, op, false))) return;
      if (this.o.skipDirs) return;
      if (!this.o.recurse) {
        // GNU reads it and fails (EISDIR): then its count (0) or -L name as for an empty file.
        await this.fileError(op, new VfsError('EISDIR', op));
        const wait = this.report(new Scan(this, op, 0), op);
        if (wait) await wait;
        return;
      }
      if (this.outFile === 'auto') this.outFile = true;
      await this.walk(op, omitDotSlash ? '' : op);
      return;
    }
    if (excludedBy(this.o.fileRules, op, false)) return;
    if (this.o.skipDevices && !st.isFile()) return;
    await this.file(op, op);
  }

  /**
   * Walk a directory with the one walk (src/vfs/walk.ts): opened once, its children opened
   * relative to it, so a file costs one open + fstat instead of a resolution from the root.
   * -R follows links (where the policy does) by full resolution; one back to a directory
   * being walked is GNU's fts FTS_DC: a warning, not an error.
   */
  private async walk(dir: string, display: string): Promise<void> {
    const fs = this.ctx.fs;
    const prefix = (base: string) => (base === '' ? '' : /^\/+$/.test(base) ? '/' : base.replace(/\/+$/, '') + '/');
    const pathPrefix = prefix(dir);
    const dispPrefix = prefix(display);
    const follow = this.o.recurse === 'R' && fs.policy.followSymlinks;
    for (const ev of walkTree(fs, dir, this.ctx.cwd, { order: 'name', postOrder: true, symlinks: follow ? 'follow' : 'never' })) {
      if (this.exitNow) {
        // Leaving every directory being walked, innermost first: check those read through.
        for (const h of [...this.unverified.keys()].reverse()) {
          if (this.unverified.has(h)) await this.settle(h);
          this.unverified.delete(h);
        }
        return;
      }
      const disp = ev.depth === 0 ? display : dispPrefix + ev.rel;
      switch (ev.kind) {
        case 'pre':
          if (ev.depth > 0 && this.o.dirRules.some((r) => r.test(ev.name))) ev.skip = true;
          break;
        case 'post':
          if (ev.handle) {
            if (this.unverified.has(ev.handle)) await this.settle(ev.handle);
            this.unverified.delete(ev.handle);
          }
          break;
        case 'error':
          await this.fileError(disp || '.', ev.error);
          break;
        case 'loop':
          if (this.o.dirRules.some((r) => r.test(ev.name))) break;
          if (!this.o.noMessages) await this.message(`${disp}: warning: recursive directory loop`);
          break;
        default:
          if (ev.type === 'file' && !ev.followed) {
            if (excludedBy(this.o.fileRules, ev.name, true)) break;
            const wait = this.listedFile(ev.dir!, ev.name, disp);
            if (wait) await wait;
          } else if (ev.type === 'file') {
            if (excludedBy(this.o.fileRules, ev.name, true)) break;
            await this.file(pathPrefix + ev.rel, disp);
          } else if (ev.type === 'symlink' && follow) {
            // Dangling (or a link loop): an error, as GNU's. Outside the zone: not followed, not listed.
            const e = ev.error;
            if (e instanceof VfsError && (e.errno === 'ENOENT' || e.errno === 'ELOOP') && !excludedBy(this.o.fileRules, ev.name, true)) {
              await this.fileError(disp, e);
            }
          }
      }
    }
  }

  /** -T's width of numbers: the digits of the largest offset, or line number with -n (size + 1). */
  private tabWidth(size: number): number {
    return String(size + (this.o.lineNo ? 1 : 0)).length;
  }

  /** A file named on the command line or reached through a followed link: full resolution. */
  private async file(path: string, display: string): Promise<void> {
    let reader;
    try {
      reader = this.ctx.fs.openRandom(path, this.ctx.cwd);
    } catch (e) {
      await this.fileError(display, e);
      return;
    }
    try {
      const s = new Scan(this, display, this.o.tab ? this.tabWidth(reader.size) : 0);
      let pos = 0;
      await s.runReads((into, offset, length) => {
        const n = reader.readAt(into.subarray(offset), pos, length);
        pos += n;
        return n;
      }, reader.size);
      const wait = this.report(s, display);
      if (wait) await wait;
    } catch (e) {
      await this.fileError(display, e);
    } finally {
      reader.close();
    }
  }

  /**
   * A file the walk listed in `h`: a small one is read whole into the shared buffer and
   * searched synchronously; a promise comes back only when there is something to wait for
   * (output to send, a message, a bigger file).
   */
  private listedFile(h: DirHandle, name: string, display: string): Promise<void> | undefined {
    const v = this.unverified.get(h);
    if (v?.escaped) return undefined; // reported once, when it was found outside
    const cache = this.cache;
    if (cache) {
      // Its identity unchanged since its content was kept: search that (the directory is
      // verified before output leaves, as for a file read through it).
      const id = this.ctx.fs.identityAt(h, name);
      const kept = id && id.size < MAX_ENTRY ? cache.get(id) : null;
      if (kept) {
        if (!v) this.unverified.set(h, { mark: this.out.size, display: dirOf(display), escaped: false });
        const s = new Scan(this, display, this.o.tab ? this.tabWidth(kept.length) : 0);
        s.whole(kept);
        return this.report(s, display, h);
      }
    }
    const start = cache ? nowNs() : 0n;
    let f: WalkFile;
    try {
      f = this.ctx.fs.openListedFileAt(h, name);
    } catch (e) {
      return this.fileError(display, e);
    }
    if (!v) this.unverified.set(h, { mark: this.out.size, display: dirOf(display), escaped: false });
    if (f.size >= SMALL_FILE) return this.streamFile(f, h, display, null);
    let s: Scan;
    try {
      const buf = (scratch ??= Buffer.allocUnsafe(SMALL_FILE + 1));
      const id = cache && f.size < MAX_ENTRY ? f.identity() : null;
      const n = f.read(buf, 0, f.size + 1);
      // It grew since its fstat: read on.
      if (n > f.size) return this.streamFile(f, h, display, Buffer.from(buf.subarray(0, n)));
      // Shorter than asked: that is the whole (regular) file.
      if (id) cache!.put(id, start, buf.subarray(0, n));
      s = new Scan(this, display, this.o.tab ? this.tabWidth(f.size) : 0);
      s.whole(buf.subarray(0, n));
    } catch (e) {
      f.close();
      return this.fileError(display, e);
    }
    f.close();
    return this.report(s, display, h);
  }

  /** A walked file read chunk by chunk (after `first`, what was read already); closes it. */
  private async streamFile(f: WalkFile, h: DirHandle, display: string, first: Buffer | null): Promise<void> {
    try {
      const s = new Scan(this, display, this.o.tab ? this.tabWidth(f.size) : 0);
      await s.runReads((into, offset, length) => f.read(into, offset, length), f.size, first);
      const wait = this.report(s, display, h);
      if (wait) await wait;
    } catch (e) {
      await this.fileError(display, e);
    } finally {
      f.close();
    }
  }

  /** Search one input; prints lines, counts, names. */
  private async scan(src: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, name: string, width: number): Promise<void> {
    const s = new Scan(this, name, this.o.tab ? width : 0);
    await s.run(src);
    const wait = this.report(s, name);
    if (wait) await wait;
  }

  /** After a file: its count or name; a promise only when something must be sent now. */
  private report(s: Scan, name: string, dir?: DirHandle): Promise<void> | undefined {
    const o = this.o;
    const nlines = s.nlines;
    if (nlines > 0) this.anySelected = true;
    const showName = this.outFile === true;
    if (o.count && o.list === '' && !o.quiet) {
      if (showName) {
        this.pushName(name);
        this.push(o.nullName ? '\0' : o.color ? sgr(SGR.sep, ':') : ':');
      }
      this.push(nlines + '\n');
    }
    if (!o.quiet && ((o.list === 'l' && nlines > 0) || (o.list === 'L' && nlines === 0))) {
      this.pushName(name);
      this.push(o.nullName ? '\0' : '\n');
    }
    if (s.binaryMatched) return this.binaryMatches(name, dir);
    if (this.out.size >= FLUSH_AT) return this.flush();
    return undefined;
  }

  /** "binary file matches" says something of the file: only once its directory is checked. */
  private async binaryMatches(name: string, dir?: DirHandle): Promise<void> {
    if (dir && this.unverified.has(dir) && !(await this.settle(dir))) return;
    await this.message(`${name}: binary file matches`);
  }
}

/** The directory part of a display name ('' for a bare name). */
