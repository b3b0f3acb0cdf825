import { type CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { walk as walkTree } from '../../src/vfs/walk.js';
import type { DirHandle, WalkFile } from '../../src/vfs/vfs.js';
import { valueLimit, valueTooBig } from '../../src/runtime/memory.js';
import { ContentCache, MAX_ENTRY, contentCache, nowMs } from '../../src/vfs/content-cache.js';
import { FileSearcher, Helper, helperOn, tabWidth, type FileResult, type RemoteFile, type SearchSpec } from './parallel.js';

/** Files of one directory searched in one go (half on the helper thread, half here). */
const BATCH = 16;
/** How long a batch may take on the helper before it is given up (and searched here), ms. */
const HELPER_WAIT_MS = 10_000;

/** A walked file waiting for its turn: where the helper may open it (null: the serial path), its result once known. */
interface Job {
  h: DirHandle;
  name: string;
  display: string;
  target: RemoteFile | null;
}
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

  /** Two threads for the walk's small files (parallel.ts), or null. */
  private par: { helper: Helper; run: number; local: FileSearcher; jobs: Job[]; buf: Buffer } | null = null;

  constructor(readonly ctx: CommandContext, readonly o: Opts, readonly m: Matcher, operandCount: number,
    private readonly spec: Omit<SearchSpec, 'o' | 'showName' | 'maxBufferBytes'> | null = null) {
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
    this.par = null;
    if (helperOn() && this.spec && !follow && !this.cache && !this.ctxOn && !this.o.quiet && !this.o.only && this.outFile !== 'auto') {
      const helper = Helper.get();
      const { o } = this;
      const spec: SearchSpec = { ...this.spec, o: { ...o, fileRules: undefined, dirRules: undefined } as unknown as SearchSpec['o'],
        showName: this.outFile === true, maxBufferBytes: this.ctx.limits.maxBufferBytes };
      if (helper) this.par = { helper, run: helper.begin(spec), local: new FileSearcher(spec, this.m), jobs: [], buf: Buffer.allocUnsafe(SMALL_FILE + 1) };
    }
    // A repeated search: an unchanged directory's names from the cache (src/vfs/content-cache.ts).
    if (this.cache) fs.listingCache = this.cache;
    try {
      await this.walkEvents(dir, display, pathPrefix, dispPrefix, follow);
    } finally {
      this.par = null;
      fs.listingCache = null;
    }
  }

  private async walkEvents(dir: string, display: string, pathPrefix: string, dispPrefix: string, follow: boolean): Promise<void> {
    const fs = this.ctx.fs;
    for (const ev of walkTree(fs, dir, this.ctx.cwd, { order: 'name', postOrder: true, symlinks: follow ? 'follow' : 'never' })) {
      // Files waiting for a second thread: searched before anything else is said and before a
      // directory is entered or left (its descriptor stays what their paths name).
      if (this.par && this.par.jobs.length > 0 && ev.kind !== 'file') await this.dispatch();
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
            if (this.par) {
              this.queue(ev.dir!, ev.name, disp);
              if (this.par.jobs.length >= BATCH) await this.dispatch();
              break;
            }
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

  /** A walked file for the two threads: its name checks now (a refusal is reported in turn, by the serial path). */
  private queue(h: DirHandle, name: string, display: string): void {
    let target: RemoteFile | null = null;
    try {
      target = this.ctx.fs.listedFileTarget(h, name);
    } catch {
      target = null;
    }
    this.par!.jobs.push({ h, name, display, target });
  }

  /**
   * Search the queued files: the first half on the helper thread while this one searches the
   * second half, then every result in walk order (a file either thread could not take: the
   * serial path, in its turn).
   */
  private async dispatch(): Promise<void> {
    const par = this.par!;
    const jobs = par.jobs;
    par.jobs = [];
    const half = jobs.length > 1 ? Math.ceil(jobs.length / 2) : 0;
    const remote = jobs.slice(0, half).filter((j) => j.target);
    let sent = false;
    if (remote.length > 1 && par.helper.ready()) {
      par.helper.send({ run: par.run, files: remote.map((j) => ({ f: j.target!, display: j.display })) });
      sent = true;
    }
    const results: (FileResult | null)[] = new Array(jobs.length).fill(null);
    for (let i = sent ? half : 0; i < jobs.length; i++) results[i] = this.searchHere(jobs[i]!);
    if (sent) {
      const back = par.helper.take(HELPER_WAIT_MS);
      if (!back || back.length !== remote.length) {
        // No answer: the helper is not used again, and its files are searched here.
        par.helper.abandon();
        this.par = null;
        for (let i = 0; i < half; i++) results[i] = null;
      } else {
        let k = 0;
        for (let i = 0; i < half; i++) if (jobs[i]!.target) results[i] = back[k++]!;
      }
    }
    for (let i = 0; i < jobs.length; i++) {
      if (this.exitNow) return;
      await this.commit(jobs[i]!, results[i]!);
    }
  }

  /** A queued file searched on this thread (null: the serial path). */
  private searchHere(j: Job): FileResult | null {
    if (!j.target) return null;
    let f: WalkFile;
    try {
      f = this.ctx.fs.openListedFileAt(j.h, j.name);
    } catch {
      return null;
    }
    try {
      if (f.size >= SMALL_FILE) return null;
      const buf = this.par!.buf;
      const n = f.read(buf, 0, f.size + 1);
      if (n > f.size) return null;
      return this.par!.local.search(buf.subarray(0, n), j.display, tabWidth(this.o, f.size));
    } catch {
      return null;
    } finally {
      f.close();
    }
  }

  /** One file's result in its turn, as listedFile and report would have made it. */
  private async commit(j: Job, r: FileResult | null): Promise<void> {
    const v = this.unverified.get(j.h);
    if (v?.escaped) return;
    if (!r) {
      const wait = this.listedFile(j.h, j.name, j.display);
      if (wait) await wait;
      return;
    }
    if (!v) this.unverified.set(j.h, { mark: this.out.size, display: dirOf(j.display), escaped: false });
    if (r.out) this.push(r.out);
    if (r.nlines > 0) this.anySelected = true;
    if (r.binaryMatched) await this.binaryMatches(j.display, j.h);
    else if (this.out.size >= FLUSH_AT) await this.flush();
    this.heldTooMuch(false);
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
    const start = cache ? nowMs() : 0;
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
