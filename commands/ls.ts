import type { Stats } from 'node:fs';
import { defineCommand, type CommandContext, type CommandDef } from '../src/command/index.js';
import { walkOptions } from '../src/command/options.js';
import { gnuQuote } from '../src/command/gnu-number.js';
import { quoteAlways } from '../src/command/fileops.js';
import {
  cmpTime, compareNames, fullTime, typeIndicator, groupName, humanSize, joinPath, lookupGroup, lookupUser, lsTime, modeString, mtimeOf, nowSpec, timeOfNs, userName, type TimeSpec,
} from '../src/command/format.js';
import { linkTargetStat, linkText } from '../src/command/listing.js';
import { VfsError, listedOrClosed, type DirHandle } from '../src/vfs/index.js';

/** A directory still to list (ls -R): the directory it was found in stays open for it. */
interface Pending {
  name: string;
  path: string;
  cmdline: boolean;
  /** Its name in `parent`. */
  entry?: string;
  parent?: { dir: DirHandle; children: number };
}

interface Entry {
  /** Name as displayed (operand as given, or the entry name inside a directory). */
  name: string;
  /** Path to reach it, relative to ctx.cwd. */
  path: string;
  st: Stats;
  /** For symlinks in long format: target text and the target's stat (null when dangling). */
  link?: string | null;
  linkSt?: Stats | null;
  /** The modification time to the nanosecond (for --full-time and -t; Stats holds a rounded double). */
  mtime: TimeSpec;
}

type SortKey = 'name' | 'size' | 'time' | 'ext';
type Indicator = 'none' | 'slash' | 'classify';

interface Config {
  long: boolean;
  fullTime: boolean;
  human: boolean;
  hidden: 'default' | 'almost' | 'all';
  immediateDirs: boolean;
  recursive: boolean;
  sort: SortKey;
  reverse: boolean;
  indicator: Indicator;
  derefCmdlineDirs: boolean;
}

const CLASSIFY_WHEN: [string, 'always' | 'never'][] = [
  ['always', 'always'], ['yes', 'always'], ['force', 'always'],
  ['never', 'never'], ['no', 'never'], ['none', 'never'],
  ['auto', 'never'], ['tty', 'never'], ['if-tty', 'never'],
];

const def: CommandDef = defineCommand({
  name: 'ls',
  summary: 'List information about the FILEs (the current directory by default). Entries are sorted alphabetically (C locale) unless -S, -t or -X is given.',
  usage: '[FILE]...',
  mutates: false,
  flags: [
    { key: 'a', short: 'a', long: 'all', help: 'do not ignore entries starting with .' },
    { key: 'A', short: 'A', long: 'almost-all', help: 'do not list implied . and ..' },
    { key: 'F', short: 'F', help: 'append indicator (one of */=@|) to entries' },
    { key: 'F', long: 'classify', kind: 'optional', arg: 'WHEN', value: 'always', help: 'append indicator (one of */=@|) to entries WHEN (always, never, auto); never and auto leave an earlier -F or -p in force' },
    { key: 'd', short: 'd', long: 'directory', help: 'list directories themselves, not their contents' },
    { key: 'fulltime', long: 'full-time', help: 'like -l --time-style=full-iso' },
    { key: 'h', short: 'h', long: 'human-readable', help: 'with -l, print sizes like 1K 234M 2G etc.' },
    { key: 'l', short: 'l', help: 'use a long listing format' },
    { key: 'p', short: 'p', help: 'append / indicator to directories' },
    { key: 'r', short: 'r', long: 'reverse', help: 'reverse order while sorting' },
    { key: 'R', short: 'R', long: 'recursive', help: 'list subdirectories recursively' },
    { key: 'S', short: 'S', help: 'sort by file size, largest first' },
    { key: 't', short: 't', help: 'sort by modification time, newest first' },
    { key: 'X', short: 'X', help: 'sort alphabetically by entry extension' },
    { key: '1', short: '1', help: 'list one file per line' },
  ],
  gnuLongOptions: (
    'all escape directory dired full-time group-directories-first human-readable inode kibibytes numeric-uid-gid no-group ' +
    'hide-control-chars reverse size width almost-all ignore-backups classify file-type si dereference-command-line ' +
    'dereference-command-line-symlink-to-dir hide ignore indicator-style dereference literal quote-name quoting-style recursive ' +
    'format show-control-chars sort tabsize time time-style zero color hyperlink block-size context author help version'
  ).split(' '),
  // GNU checks a --classify value when getopt reaches it: a bad one is reported before any
  // later option problem, so the words after it are dropped (ls has no option taking the next word).
  preprocess(args) {
    for (let i = 0; i < args.length && args[i] !== '--'; i++) {
      for (const o of walkOptions(def, [args[i]!])) {
        if ('rest' in o) return args;
        if ('key' in o && o.key === 'F' && o.value !== 'true' && classifyWhen(o.value).when === undefined) return args.slice(0, i + 1);
      }
    }
    return args;
  },
  async run(ctx) {
    const o = ctx.opts;
    // As in GNU, -1 never overrides -l (whatever the order).
    const long = o.has('l') || o.has('fulltime');
    // GNU: -p sets '/', -F and --classify=always set classify; --classify=never/auto change nothing.
    let indicator: Indicator = 'none';
    for (const { key, value } of o.order) {
      if (key === 'p') indicator = 'slash';
      if (key !== 'F') continue;
      const { when, ambiguous } = value === 'true' ? { when: 'always', ambiguous: false } : classifyWhen(value);
      if (when === undefined) {
        await ctx.stderr.write(
          `ls: ${ambiguous ? 'ambiguous' : 'invalid'} argument ${gnuQuote(value)} for '--classify'\nValid arguments are:\n` +
            "  - 'always', 'yes', 'force'\n  - 'never', 'no', 'none'\n  - 'auto', 'tty', 'if-tty'\n" +
            "Try 'ls --help' for more information.\n",
        );
        return 1;
      }
      if (when === 'always') indicator = 'classify';
    }
    const sortFlag = o.lastOf('S', 't', 'X');
    const cfg: Config = {
      long,
      fullTime: o.has('fulltime'),
      human: o.has('h'),
      hidden: o.lastOf('a', 'A') === 'a' ? 'all' : o.has('A') ? 'almost' : 'default',
      immediateDirs: o.has('d'),
      recursive: o.has('R') && !o.has('d'),
      sort: sortFlag === 'S' ? 'size' : sortFlag === 't' ? 'time' : sortFlag === 'X' ? 'ext' : 'name',
      reverse: o.has('r'),
      indicator,
      derefCmdlineDirs: !(o.has('d') || long || indicator === 'classify'),
    };
    return new Lister(ctx, cfg).run();
  },
});
export default def;

/** GNU argmatch: an exact word, or a prefix whose words all mean the same (else ambiguous). */
function classifyWhen(value: string): { when?: 'always' | 'never'; ambiguous: boolean } {
  const exact = CLASSIFY_WHEN.find(([k]) => k === value);
  if (exact) return { when: exact[1], ambiguous: false };
  const hits = new Set(CLASSIFY_WHEN.filter(([k]) => k.startsWith(value)).map(([, v]) => v));
  return hits.size === 1 ? { when: [...hits][0], ambiguous: false } : { ambiguous: hits.size > 1 };
}

class Lister {
  private status = 0;
  private out: string[] = [];
  private outLen = 0;
  private first = true;
  private readonly now = nowSpec();

  constructor(private readonly ctx: CommandContext, private readonly cfg: Config) {}

  async run(): Promise<number> {
    const { ctx, cfg } = this;
    const operands = ctx.operands.length > 0 ? ctx.operands : ['.'];
    const files: Entry[] = [];
    const dirs: Entry[] = [];
    for (const op of operands) {
      const e = await this.gobbleOperand(op);
      if (!e) continue;
      if (!cfg.immediateDirs && e.st.isDirectory()) dirs.push(e);
      else files.push(e);
    }
    this.sort(files);
    this.sort(dirs);
    let printDirName = true;
    if (files.length > 0) {
      // GNU sizes the columns while gathering the operands: directories count too.
      await this.printEntries(files, [...files, ...dirs]);
      if (dirs.length > 0) this.emit('\n');
    } else if (operands.length <= 1 && dirs.length === 1) printDirName = false;
    const queue: Pending[] = dirs.map((d) => ({ name: d.name, path: d.path, cmdline: true }));
    try {
      while (queue.length > 0) {
        const d = queue.shift()!;
        const sub = await this.printDir(d, printDirName);
        queue.unshift(...sub);
        printDirName = true;
      }
    } finally {
      // Stopped early (output limit, cancel): the directories kept open for the rest.
      for (const d of queue) d.parent?.dir.close();
    }
    await this.flush();
    return this.status;
  }

  private fail(code: number): void {
    this.status = Math.max(this.status, code);
  }

  private async warn(msg: string): Promise<void> {
    await this.flush();
    await this.ctx.warn(msg);
  }

  /** lstat a command-line operand (following it when GNU would and the zone allows). */
  private async gobbleOperand(op: string): Promise<Entry | null> {
    const { ctx, cfg } = this;
    try {
      let st = ctx.fs.lstat(op, ctx.cwd);
      const lst = st;
      if (st.isSymbolicLink() && (op.endsWith('/') || cfg.derefCmdlineDirs)) {
        if (op.endsWith('/')) {
          if (!ctx.fs.policy.followSymlinks) throw new VfsError('ESYMLINK', op);
          st = ctx.fs.stat(op, ctx.cwd);
        } else if (ctx.fs.policy.followSymlinks) {
          try {
            const target = ctx.fs.stat(op, ctx.cwd);
            if (target.isDirectory()) st = target;
          } catch (e) {
            // GNU 9.1 lists a dangling link itself; any other failure (a loop...) is reported.
            if (!(e instanceof VfsError) || e.errno !== 'ENOENT') throw e;
          }
        }
      }
      if (op.endsWith('/') && !st.isDirectory()) throw new VfsError('ENOTDIR', op);
      return this.entry(op, op, st, st !== lst);
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      await this.warn(`cannot access ${quoteAlways(op)}: ${e.reason}`);
      this.fail(2);
      return null;
    }
  }

  private entry(name: string, path: string, st: Stats, followed = false): Entry {
    const e: Entry = { name, path, st, mtime: this.exactMtime(path, st, followed) };
    if (st.isSymbolicLink() && this.cfg.long) {
      e.link = linkText(this.ctx.fs, path, this.ctx.cwd);
      e.linkSt = linkTargetStat(this.ctx.fs, path, this.ctx.cwd);
    }
    return e;
  }

  /** Read again with nanoseconds only where they show (--full-time) or order entries (-t). */
  private exactMtime(path: string, st: Stats, followed: boolean): TimeSpec {
    if (this.cfg.fullTime || this.cfg.sort === 'time') {
      try {
        const ns = timeOfNs(this.ctx.fs.timesNs(path, this.ctx.cwd, followed).mtime);
        if (Math.abs(ns.sec * 1000 + ns.nsec / 1e6 - st.mtimeMs) < 1) return ns;
      } catch {
        /* gone or replaced meanwhile: the rounded time */
      }
    }
    return mtimeOf(st);
  }

  private sort(list: Entry[]): void {
    const { sort, reverse } = this.cfg;
    const byName = (a: Entry, b: Entry) => compareNames(a.name, b.name);
    let cmp: (a: Entry, b: Entry) => number;
    if (sort === 'size') cmp = (a, b) => (b.st.size - a.st.size) || byName(a, b);
    else if (sort === 'time') cmp = (a, b) => cmpTime(b.mtime, a.mtime) || byName(a, b);
    else if (sort === 'ext') cmp = (a, b) => compareNames(extension(a.name), extension(b.name)) || byName(a, b);
    else cmp = byName;
    list.sort(reverse ? (a, b) => cmp(b, a) : cmp);
  }

  /**
   * List one directory; returns its subdirectories to visit next (with -R). A subdirectory is
   * opened through this one, which stays open until the last of them is (a path costs a
   * lookup per level).
   */
  private async printDir(d: Pending, printName: boolean): Promise<Pending[]> {
    const { ctx } = this;
    const { name, path, parent } = d;
    let dir: DirHandle;
    let names: string[];
    let up: Stats | undefined;
    try {
      // -a's '..' is the directory it was found in.
      if (parent && this.cfg.hidden === 'all') up = parent.dir.stat;
      const listed = parent ? listedOrClosed(ctx.fs.openListedDirAt(parent.dir, d.entry!)) : ctx.fs.openListed(path, ctx.cwd);
      dir = listed.dir;
      names = listed.entries.map((e) => e.name);
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      await this.warn(`cannot open directory ${quoteAlways(name)}: ${e.reason}`);
      this.fail(d.cmdline ? 2 : 1);
      return [];
    } finally {
      if (parent && --parent.children === 0) parent.dir.close();
    }
    let subs: Pending[] = [];
    try {
      subs = await this.printListed(dir, names, name, path, printName, up);
    } finally {
      const held = { dir, children: subs.length };
      for (const sub of subs) sub.parent = held;
      if (subs.length === 0) dir.close();
    }
    return subs;
  }

  /** The listing of an open directory: each entry's lstat taken through it (one step, not its whole path). */
  private async printListed(dir: DirHandle, names: string[], name: string, path: string, printName: boolean, up?: Stats): Promise<Pending[]> {
    const { ctx, cfg } = this;
    if (cfg.recursive || printName) {
      if (!this.first) this.emit('\n');
      this.first = false;
      this.emit(`${name}:\n`);
    }
    if (cfg.hidden === 'all') names.push('.', '..');
    else if (cfg.hidden === 'default') names = names.filter((n) => !n.startsWith('.'));
    const entries: Entry[] = [];
    for (const n of names) {
      const p = joinPath(path, n);
      try {
        const st = n === '.' ? dir.stat : n === '..' ? up ?? ctx.fs.lstat(p, ctx.cwd) : ctx.fs.lstatAt(dir, n);
        if (!st) throw new VfsError('ENOENT', p);
        entries.push(this.entry(n, p, st));
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await this.warn(`cannot access ${quoteAlways(joinPath(name, n))}: ${e.reason}`);
        this.fail(1);
      }
    }
    this.sort(entries);
    if (cfg.long) {
      let blocks = 0;
      for (const e of entries) blocks += e.st.blocks;
      this.emit(`total ${cfg.human ? humanSize(blocks * 512) : String(Math.ceil(blocks / 2))}\n`);
    }
    await this.printEntries(entries);
    if (!cfg.recursive) return [];
    return entries
      .filter((e) => e.st.isDirectory() && e.name !== '.' && e.name !== '..')
      .map((e) => ({ name: joinPath(name, e.name), path: e.path, cmdline: false, entry: e.name }));
  }

  private async printEntries(list: Entry[], sizedBy: Entry[] = list): Promise<void> {
    const { cfg } = this;
    if (!cfg.long) {
      for (const e of list) {
        this.emit(e.name + typeIndicator(e.st.mode, cfg.indicator) + '\n');
        if (this.outLen > 65536) await this.flush();
      }
      return;
    }
    const row = (e: Entry) => ({
      e,
      nlink: String(e.st.nlink),
      owner: userName(e.st.uid),
      group: groupName(e.st.gid),
      size: cfg.human ? humanSize(e.st.size) : String(e.st.size),
    });
    const rows = list.map(row);
    const w = { nlink: 0, owner: 0, group: 0, size: 0 };
    for (const r of sizedBy === list ? rows : sizedBy.map(row)) {
      w.nlink = Math.max(w.nlink, r.nlink.length);
      w.owner = Math.max(w.owner, r.owner.length);
      w.group = Math.max(w.group, r.group.length);
      w.size = Math.max(w.size, r.size.length);
    }
    for (const r of rows) {
      const { e } = r;
      const t = e.mtime;
      const when = cfg.fullTime ? fullTime(t) : lsTime(t, this.now);
      let line = `${modeString(e.st.mode)} ${r.nlink.padStart(w.nlink)} ${idColumn(r.owner, lookupUser(e.st.uid), w.owner)} ${idColumn(r.group, lookupGroup(e.st.gid), w.group)} ${r.size.padStart(w.size)} ${when} ${e.name}`;
      if (e.st.isSymbolicLink()) {
        if (e.link != null) {
          line += ` -> ${e.link}`;
          if (cfg.indicator === 'classify' && e.linkSt) line += typeIndicator(e.linkSt.mode, cfg.indicator);
        }
      } else line += typeIndicator(e.st.mode, cfg.indicator);
      this.emit(line + '\n');
      if (this.outLen > 65536) await this.flush();
    }
  }

  private emit(s: string): void {
    this.out.push(s);
    this.outLen += s.length;
  }

  private async flush(): Promise<void> {
    if (this.out.length === 0) return;
    const text = this.out.join('');
    this.out = [];
    this.outLen = 0;
    await this.ctx.stdout.write(text);
  }
}

/** GNU format_user_or_group: a name is left-aligned, a bare number (no name known) right-aligned. */
function idColumn(text: string, name: string | undefined, width: number): string {
  return name === undefined ? text.padStart(width) : text.padEnd(width);
}

function extension(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? '' : name.slice(i);
}
