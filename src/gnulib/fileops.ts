/**
 * Shared pieces of the file-changing commands (mkdir, rmdir, rm, cp, mv, touch):
 * GNU's always-quoted file names (quoteaf), errno text of a failure, trailing-slash
 * and dot-name tests, and gnulib's file mode changes (mode_compile / mode_adjust).
 */
import { VfsError } from '../vfs/index.js';
import { quoteAlways } from './quote.js';
import { UsageError } from '../command/options.js';
import { argmatch } from './text-lines.js';
import type { CommandContext } from '../command/types.js';

/** quoteaf(), GNU's shell-escape-always quoting (see quote.ts). */
export { quoteAlways };

/** strerror text of a filesystem failure; other errors propagate. */
export function reasonOf(err: unknown): string {
  if (err instanceof VfsError) return err.reason;
  throw err;
}

export function errnoOf(err: unknown): string {
  if (err instanceof VfsError) return err.errno;
  throw err;
}

/** The last component of a path as written ('a/b/' gives 'b/'), gnulib's last_component. */
export function lastComponent(path: string): string {
  let i = 0;
  while (path[i] === '/') i++;
  let base = i;
  let sawSlash = false;
  for (; i < path.length; i++) {
    if (path[i] === '/') sawSlash = true;
    else if (sawSlash) {
      base = i;
      sawSlash = false;
    }
  }
  return path.slice(base);
}

/** Is the name '.' or '..' (optionally followed by slashes)? */
export function isDotOrDotDot(name: string): boolean {
  if (name[0] !== '.') return false;
  const sep = name[name[1] === '.' ? 2 : 1];
  return sep === undefined || sep === '/';
}

/** GNU's base name of an operand moved or copied into a directory: last_component without its trailing slashes. */
export function baseOf(path: string): string {
  return lastComponent(path).replace(/\/+$/, '');
}

/** DIR/NAME as gnulib's file_name_concat forms it: DIR's trailing slashes become one ('d//' gives 'd/NAME'; '/' gives '/NAME'). */
export function intoDir(dir: string, name: string): string {
  const last = lastComponent(dir);
  const lastLen = last.replace(/\/+$/, '').length;
  if (lastLen === 0) return dir + name;
  return dir.slice(0, dir.length - last.length + lastLen) + '/' + name;
}

// ---- file mode changes (gnulib modechange.c) ---------------------------------------------

const S_ISUID = 0o4000;
const S_ISGID = 0o2000;
const S_ISVTX = 0o1000;
const S_IRWXU = 0o700;
const S_IRWXG = 0o070;
const S_IRWXO = 0o007;
const ALL_BITS = 0o7777;
const R_ALL = 0o444;
const W_ALL = 0o222;
const X_ALL = 0o111;

type ModeFlag = 'ordinary' | 'x-if-any-x' | 'copy-existing';

export interface ModeChange {
  op: '=' | '+' | '-';
  flag: ModeFlag;
  /** Bits named by u/g/o/a; 0 when no "who" was given (the umask then decides). */
  affected: number;
  value: number;
  mentioned: number;
}

/** Compile a chmod-style MODE ('755', 'u=rwx,go=rx', 'a+X'); null when it is not a mode. */
export function compileMode(spec: string): ModeChange[] | null {
  if (/^[0-7]+$/.test(spec)) {
    let octal = 0;
    for (const ch of spec) {
      octal = octal * 8 + Number(ch);
      if (octal > ALL_BITS) return null;
    }
    const mentioned = spec.length < 5 ? (octal & (S_ISUID | S_ISGID)) | S_ISVTX | 0o777 : ALL_BITS;
    return [{ op: '=', flag: 'ordinary', affected: ALL_BITS, value: octal, mentioned }];
  }
  const changes: ModeChange[] = [];
  let i = 0;
  const at = () => spec[i];
  for (;;) {
    let affected = 0;
    for (;; i++) {
      const c = at();
      if (c === 'u') affected |= S_ISUID | S_IRWXU;
      else if (c === 'g') affected |= S_ISGID | S_IRWXG;
      else if (c === 'o') affected |= S_ISVTX | S_IRWXO;
      else if (c === 'a') affected |= ALL_BITS;
      else break;
    }
    const first = at();
    if (first !== '=' && first !== '+' && first !== '-') return null;
    while (at() === '=' || at() === '+' || at() === '-') {
      const op = at() as ModeChange['op'];
      i++;
      let value = 0;
      let flag: ModeFlag = 'copy-existing';
      const c = at();
      if (c === 'u') { value = S_IRWXU; i++; }
      else if (c === 'g') { value = S_IRWXG; i++; }
      else if (c === 'o') { value = S_IRWXO; i++; }
      else if (c !== undefined && c >= '0' && c <= '7') {
        // An operator and an octal number ("=755", "-022", "u+x,+644"), as gnulib's
        // modechange: no who before it, nothing after it in its clause, the umask ignored.
        if (affected) return null;
        for (; at() !== undefined && at()! >= '0' && at()! <= '7'; i++) {
          value = value * 8 + Number(at());
          if (value > ALL_BITS) return null;
        }
        if (at() !== undefined && at() !== ',') return null;
        changes.push({ op, flag: 'ordinary', affected: ALL_BITS, value, mentioned: ALL_BITS });
        continue;
      } else {
        flag = 'ordinary';
        for (;; i++) {
          const p = at();
          if (p === 'r') value |= R_ALL;
          else if (p === 'w') value |= W_ALL;
          else if (p === 'x') value |= X_ALL;
          else if (p === 'X') flag = 'x-if-any-x';
          else if (p === 's') value |= S_ISUID | S_ISGID;
          else if (p === 't') value |= S_ISVTX;
          else break;
        }
      }
      changes.push({ op, flag, affected, value, mentioned: affected ? affected & value : value });
    }
    if (at() === ',') {
      i++;
      continue;
    }
    break;
  }
  return i === spec.length ? changes : null;
}

/** Apply compiled changes to `oldMode`; also returns the bits the changes set or cleared. */
export function adjustMode(oldMode: number, isDir: boolean, umask: number, changes: ModeChange[]): { mode: number; bits: number } {
  let mode = oldMode & ALL_BITS;
  let bits = 0;
  for (const ch of changes) {
    const omit = (isDir ? S_ISUID | S_ISGID : 0) & ~ch.mentioned;
    let value = ch.value;
    if (ch.flag === 'copy-existing') {
      value &= mode;
      value |= (value & R_ALL ? R_ALL : 0) | (value & W_ALL ? W_ALL : 0) | (value & X_ALL ? X_ALL : 0);
    } else if (ch.flag === 'x-if-any-x') {
      if ((mode & X_ALL) || isDir) value |= X_ALL;
    }
    value &= (ch.affected ? ch.affected : ~umask) & ~omit;
    if (ch.op === '=') {
      const preserved = (ch.affected ? ~ch.affected : 0) | omit;
      bits |= ALL_BITS & ~preserved;
      mode = (mode & preserved) | value;
    } else if (ch.op === '+') {
      bits |= value;
      mode |= value;
    } else {
      bits |= value;
      mode &= ~value;
    }
  }
  return { mode: mode & ALL_BITS, bits };
}

/** The umask nosh applies to new files and directories (as the Vfs does). */
export const UMASK = 0o022;

// ---- cp / mv operands -------------------------------------------------------------------

/** What cp and mv do: SOURCE DEST, SOURCE... DIRECTORY, -t DIRECTORY SOURCE..., -T SOURCE DEST. */
export interface CopyPlan {
  /** `name`: moving or copying into a directory, the name made there (GNU's dest_relname; '' for a SOURCE of only slashes). */
  pairs: { src: string; dst: string; name?: string }[];
}

/** A fatal operand error (GNU's die()): printed as is, exit 1, nothing done. */
export class OperandError extends Error {}

/**
 * cp and mv: plan the (source, destination) pairs and run `each` on every pair. An operand
 * error is a diagnostic with exit 1 and nothing done; otherwise exit 1 if any pair failed.
 */
export async function forEachTarget(ctx: CommandContext, each: (src: string, dst: string) => Promise<boolean>): Promise<number> {
  let plan: CopyPlan;
  try {
    plan = planTargets(ctx, UsageError);
  } catch (e) {
    if (e instanceof OperandError) {
      await ctx.warn(e.message);
      return 1;
    }
    throw e;
  }
  let ok = true;
  for (const { src, dst } of plan.pairs) {
    if (!(await each(src, dst))) ok = false;
  }
  return ok ? 0 : 1;
}

export function planTargets(
  ctx: { operands: string[]; opts: { has(k: string): boolean; get(k: string): string | undefined; count(k: string): number }; fs: import('../vfs/index.js').Vfs; cwd: string },
  UsageErrorCtor: new (m: string) => Error,
): CopyPlan {
  // GNU dies on a second -t while parsing its options, before any operand check.
  if (ctx.opts.count('t') > 1) throw new OperandError('multiple target directories specified');
  const files = ctx.operands;
  const noTarget = ctx.opts.has('T');
  const targetOpt = ctx.opts.get('t');
  const isDir = (p: string): { dir: boolean; errno?: string } => {
    try {
      return { dir: ctx.fs.stat(p, ctx.cwd).isDirectory() };
    } catch (e) {
      return { dir: false, errno: errnoOf(e) };
    }
  };
  if (targetOpt !== undefined) {
    if (files.length === 0) throw new UsageErrorCtor('missing file operand');
    if (noTarget) throw new OperandError('cannot combine --target-directory (-t) and --no-target-directory (-T)');
    const t = isDir(targetOpt);
    if (!t.dir) {
      const reason = t.errno ? VfsErrorText(t.errno) : 'Not a directory';
      throw new OperandError(`target directory ${quoteAlways(targetOpt)}: ${reason}`);
    }
    return { pairs: files.map((src) => ({ src, dst: intoDir(targetOpt, baseOf(src)), name: baseOf(src) })) };
  }
  if (files.length === 0) throw new UsageErrorCtor('missing file operand');
  if (files.length === 1) throw new UsageErrorCtor(`missing destination file operand after ${quoteAlways(files[0]!)}`);
  if (noTarget) {
    if (files.length > 2) throw new UsageErrorCtor(`extra operand ${quoteAlways(files[2]!)}`);
    return { pairs: [{ src: files[0]!, dst: files[1]! }] };
  }
  const last = files[files.length - 1]!;
  const t = isDir(last);
  if (t.dir) return { pairs: files.slice(0, -1).map((src) => ({ src, dst: intoDir(last, baseOf(src)), name: baseOf(src) })) };
  if (files.length > 2) {
    throw new OperandError(`target ${quoteAlways(last)}: ${VfsErrorText(t.errno ?? 'ENOTDIR')}`);
  }
  return { pairs: [{ src: files[0]!, dst: last }] };
}

function VfsErrorText(errno: string): string {
  return new VfsError(errno, '').reason;
}

/** Same file on disk (device and inode)? */
export function sameFile(a: { dev: number; ino: number }, b: { dev: number; ino: number }): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

// ---- cp / mv backups and --update ---------------------------------------------------------

/** GNU's backup_type: 'none' also when no backup was asked for. */
export type BackupType = 'none' | 'simple' | 'numbered' | 'existing';

export interface BackupOptions {
  type: BackupType;
  /** The simple backup suffix ('~' unless -S gives a usable one). */
  suffix: string;
}

/**
 * The value -b and a bare --backup store: no CONTROL given (argv never holds a NUL byte, so
 * no argument can be mistaken for it). The flags of cp and mv declare it as their `value`.
 */
export const NO_BACKUP_CONTROL = '\0';

const BACKUP_ARGS = ['none', 'off', 'simple', 'never', 'existing', 'nil', 'numbered', 't'];
const BACKUP_TYPES: BackupType[] = ['none', 'none', 'simple', 'simple', 'existing', 'existing', 'numbered', 'numbered'];

/**
 * cp and mv -b, --backup[=CONTROL], -S SUFFIX (-S implies a backup), checked as GNU's main
 * does after parsing its options: -n with a backup is a usage error, then CONTROL goes through
 * argmatch (the last --backup=CONTROL counts; an empty one, or none, is VERSION_CONTROL's
 * default, 'existing', since nosh has no environment). A SUFFIX that is empty or holds a '/'
 * before another name is replaced by '~' (gnulib set_simple_backup_suffix).
 */
export function backupOptions(
  opts: { has(k: string): boolean; get(k: string): string | undefined; all(k: string): string[] },
  noClobber: boolean,
): BackupOptions {
  if (!opts.has('backup') && !opts.has('S')) return { type: 'none', suffix: '~' };
  if (noClobber) throw new UsageError('options --backup and --no-clobber are mutually exclusive');
  const control = opts.all('backup').filter((v) => v !== NO_BACKUP_CONTROL).pop();
  const type = control ? argmatch(control, BACKUP_ARGS, 'backup type', BACKUP_TYPES) as BackupType : 'existing';
  const s = opts.get('S');
  return { type, suffix: s && lastComponent(s) === s ? s : '~' };
}

/**
 * The name a backup of `path` takes (gnulib find_backup_file_name): its directory as written,
 * its last component without trailing slashes, then SUFFIX, or '.~N~' with N one more than
 * the highest NAME.~N~ in that directory (numbered; existing when there is one).
 */
export function backupName(
  fs: { readdir(p: string, cwd: string): { name: string }[] },
  cwd: string,
  path: string,
  b: BackupOptions,
): string {
  const last = lastComponent(path);
  const dir = path.slice(0, path.length - last.length);
  const base = last.replace(/\/+$/, '');
  if (b.type !== 'simple') {
    let max: bigint | null = null;
    let names: { name: string }[] = [];
    try {
      names = fs.readdir(dir === '' ? '.' : dir, cwd);
    } catch {
      // An unreadable directory holds no numbered backup that can be seen.
    }
    const prefix = `${base}.~`;
    for (const { name } of names) {
      if (!name.startsWith(prefix)) continue;
      const m = /^([1-9][0-9]*)~$/.exec(name.slice(prefix.length));
      if (!m) continue;
      const n = BigInt(m[1]!);
      if (max === null || n > max) max = n;
    }
    if (max !== null || b.type === 'numbered') return `${dir}${base}.~${(max ?? 0n) + 1n}~`;
  }
  return `${dir}${base}${b.suffix}`;
}

/**
 * GNU copy.c source_is_dst_backup: is SOURCE the simple backup DEST would be renamed to
 * (its last component is DEST's plus the suffix, and that name is the source file)?
 */
export function sourceIsDstBackup(
  fs: { stat(p: string, cwd: string): { dev: number; ino: number } },
  cwd: string,
  src: string,
  srcStat: { dev: number; ino: number },
  dst: string,
  suffix: string,
): boolean {
  const srcBase = lastComponent(src);
  const dstBase = lastComponent(dst);
  if (srcBase !== dstBase + suffix) return false;
  try {
    return sameFile(fs.stat(dst.slice(0, dst.length - dstBase.length) + srcBase, cwd), srcStat);
  } catch {
    return false;
  }
}

/**
 * Rename DEST aside before SOURCE replaces it (GNU's backup_file_rename), as cp and mv do.
 * Returns the backup's name, or null after warning why not (`verb`: "copied" or "moved").
 */
export async function renameAside(
  ctx: CommandContext, src: string, srcStat: { dev: number; ino: number }, dst: string, b: BackupOptions, verb: string,
): Promise<string | null> {
  if (b.type !== 'numbered' && sourceIsDstBackup(ctx.fs, ctx.cwd, src, srcStat, dst, b.suffix)) {
    await ctx.warn(`backing up ${quoteAlways(dst)} might destroy source;  ${quoteAlways(src)} not ${verb}`);
    return null;
  }
  try {
    const backup = backupName(ctx.fs, ctx.cwd, dst, b);
    ctx.fs.rename(dst, backup, ctx.cwd);
    return backup;
  } catch (e) {
    await ctx.warn(`cannot backup ${quoteAlways(dst)}: ${reasonOf(e)}`);
    return null;
  }
}

/**
 * -u: is DEST at least as new as SOURCE (modification times to the nanosecond, as GNU's
 * utimecmp)? Then nothing is copied or moved.
 */
export function destNotOlder(
  fs: { timesNs(p: string, cwd: string, follow?: boolean): { mtime: bigint } },
  cwd: string,
  src: string,
  srcStat: { mtimeMs: number },
  dst: string,
  dstStat: { mtimeMs: number },
  followSrc: boolean,
  followDst: boolean,
): boolean {
  try {
    return fs.timesNs(dst, cwd, followDst).mtime >= fs.timesNs(src, cwd, followSrc).mtime;
  } catch {
    return dstStat.mtimeMs >= srcStat.mtimeMs;
  }
}

/**
 * cp -i / mv -i: GNU's overwrite_ok + yesno() with standard input that is not a terminal
 * (nosh's never is): the question goes to standard error without a newline, one line of
 * standard input is the answer, yes when it starts with 'y' or 'Y' (the C locale's yesexpr);
 * no line left (end of input) is no. GNU runs as root in the recorded cases, so the question
 * is always "overwrite" (never "replace ..., overriding mode").
 */
export class Prompter {
  private it: AsyncIterator<Uint8Array> | null = null;
  private buf: Buffer = Buffer.alloc(0);
  private eof = false;
  constructor(private readonly ctx: CommandContext) {}

  async overwrite(dst: string): Promise<boolean> {
    await this.ctx.stderr.write(`${this.ctx.name}: overwrite ${quoteAlways(dst)}? `);
    const line = await this.line();
    return line !== null && /^[yY]/.test(line);
  }

  private async line(): Promise<string | null> {
    for (;;) {
      const nl = this.buf.indexOf(10);
      if (nl >= 0) {
        const l = this.buf.toString('latin1', 0, nl);
        this.buf = this.buf.subarray(nl + 1);
        return l;
      }
      if (this.eof) {
        if (this.buf.length === 0) return null;
        const l = this.buf.toString('latin1');
        this.buf = Buffer.alloc(0);
        return l;
      }
      this.it ??= this.ctx.stdin[Symbol.asyncIterator]();
      const r = await this.it.next();
      if (r.done) this.eof = true;
      else this.buf = Buffer.concat([this.buf, Buffer.from(r.value)]);
    }
  }
}
