import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import { parseDate, parsePosixStamp, type Timestamp } from '../../src/gnulib/date.js';
import { errnoOf, isDotOrDotDot, lastComponent, quoteAlways, reasonOf } from '../../src/gnulib/fileops.js';
import { VfsError, strerror } from '../../src/vfs/index.js';

export default defineCommand({
  name: 'touch',
  summary: 'Update the access and modification times of each FILE to the current time. '
    + 'A FILE argument that does not exist is created empty, unless -c is supplied.',
  usage: 'FILE...',
  mutates: true,
  usageStatus: 1,
  flags: [
    { key: 'a', short: 'a', help: 'change only the access time' },
    { key: 'c', short: 'c', long: 'no-create', help: 'do not create any files' },
    { key: 'd', short: 'd', long: 'date', kind: 'string', arg: 'STRING', help: 'parse STRING and use it instead of current time' },
    { key: 'f', short: 'f', help: '(ignored)' },
    { key: 'm', short: 'm', help: 'change only the modification time' },
    { key: 'r', short: 'r', long: 'reference', kind: 'string', arg: 'FILE', help: "use this file's times instead of current time" },
    { key: 't', short: 't', kind: 'string', arg: 'STAMP', help: 'use [[CC]YY]MMDDhhmm[.ss] instead of current time' },
    { key: 'time', long: 'time', kind: 'string', repeat: true, arg: 'WORD', help: 'change the specified time: WORD is access, atime, or use: equivalent to -a; WORD is modify or mtime: equivalent to -m' },
  ],
  notes: 'Dates (-d) are read in UTC. Accepted: ISO 8601 dates and times (2024-01-02, 2024-01-02 03:04:05,\n'
    + '2024-01-02T03:04:05Z, with +HH:MM zones), @SECONDS, now, today, yesterday, tomorrow, and relative items\n'
    + "such as '2 days ago', '+3 hours', 'next week'. Month names and weekdays are not accepted.",
  async run(ctx) {
    const v = ctx.values;
    let changeAtime = v.a === true;
    let changeMtime = v.m === true;
    for (const word of v.time ?? []) {
      // argmatch: a word or an unambiguous abbreviation ('a' and 'm' are: both names mean one thing).
      const meant = new Set(TIME_WORDS.filter(([w]) => w === word || w.startsWith(word)).map(([, which]) => which));
      const exact = TIME_WORDS.find(([w]) => w === word);
      const which = exact ? exact[1] : meant.size === 1 ? [...meant][0] : undefined;
      if (which === 'a') changeAtime = true;
      else if (which === 'm') changeMtime = true;
      else {
        throw new UsageError(`${meant.size > 1 ? 'ambiguous' : 'invalid'} argument ${quoteAlways(word)} for '--time'\n`
          + "Valid arguments are:\n  - 'atime', 'access', 'use'\n  - 'mtime', 'modify'");
      }
    }
    if (!changeAtime && !changeMtime) changeAtime = changeMtime = true;
    const dateText = v.d;
    const stamp = v.t;
    const ref = v.r;
    if (stamp !== undefined && (dateText !== undefined || ref !== undefined)) throw new UsageError('cannot specify times from more than one source');
    let times: { atime: Timestamp; mtime: Timestamp } | null = null;
    if (ref !== undefined) {
      let st;
      try {
        st = ctx.fs.stat(ref, ctx.cwd);
      } catch (e) {
        await ctx.warn(`failed to get attributes of ${quoteAlways(ref)}: ${reasonOf(e)}`);
        return 1;
      }
      times = { atime: fromMs(st.atimeMs), mtime: fromMs(st.mtimeMs) };
    }
    if (dateText !== undefined) {
      // With -r, relative items count from the reference file's times.
      const base = times ? times.mtime.sec * 1000 + times.mtime.nsec / 1e6 : Date.now();
      const t = parseDate(dateText, base);
      if (!t) {
        await ctx.warn(`invalid date format ${quoteAlways(dateText)}`);
        return 1;
      }
      const ta = times ? parseDate(dateText, times.atime.sec * 1000 + times.atime.nsec / 1e6)! : t;
      times = { atime: ta, mtime: t };
    }
    if (stamp !== undefined) {
      const t = parsePosixStamp(stamp);
      if (!t) {
        await ctx.warn(`invalid date format ${quoteAlways(stamp)}`);
        return 1;
      }
      times = { atime: t, mtime: t };
    }
    if (ctx.operands.length === 0) throw new UsageError('missing file operand');
    let status = 0;
    for (const file of ctx.operands) {
      if (!(await touchOne(ctx, file, { changeAtime, changeMtime, times, create: !v.c }))) status = 1;
    }
    return status;
  },
});

/** touch's --time words, in GNU's argmatch table order, and the time each one changes. */
const TIME_WORDS: [string, 'a' | 'm'][] = [['atime', 'a'], ['access', 'a'], ['use', 'a'], ['mtime', 'm'], ['modify', 'm']];

function fromMs(ms: number): Timestamp {
  const sec = Math.floor(ms / 1000);
  return { sec, nsec: Math.round((ms - sec * 1000) * 1e6) };
}

function seconds(t: Timestamp): number {
  return t.sec + t.nsec / 1e9;
}

interface TouchOptions {
  changeAtime: boolean;
  changeMtime: boolean;
  times: { atime: Timestamp; mtime: Timestamp } | null;
  create: boolean;
}

async function touchOne(ctx: CommandContext, file: string, o: TouchOptions): Promise<boolean> {
  // GNU: '-' is standard output, whose times cannot matter here (it is a pipe): nothing to do.
  if (file === '-') return true;
  // GNU opens FILE with O_CREAT (unless -c), then sets the times of FILE; a failure of both is
  // reported with the open's errno ("cannot touch"), of the second alone as "setting times of".
  const openErr = o.create ? createIfMissing(ctx, file) : null;
  const nowSec = Date.now() / 1000;
  try {
    const st = statForTimes(ctx, file);
    const atime = o.changeAtime ? (o.times ? seconds(o.times.atime) : nowSec) : st.atimeMs / 1000;
    const mtime = o.changeMtime ? (o.times ? seconds(o.times.mtime) : nowSec) : st.mtimeMs / 1000;
    ctx.fs.utimes(file, atime, mtime, ctx.cwd);
  } catch (e) {
    const errno = errnoOf(e);
    if (openErr) await ctx.warn(`cannot touch ${quoteAlways(file)}: ${strerror(openErr)}`);
    else if (!o.create && errno === 'ENOENT') return true;
    else await ctx.warn(`setting times of ${quoteAlways(file)}: ${strerror(errno)}`);
    return false;
  }
  return true;
}

/** What utimensat(2) reaches: the file a symlink leads to (when followed), a directory for 'NAME/'. */
function statForTimes(ctx: CommandContext, file: string) {
  const st = ctx.fs.stat(file, ctx.cwd);
  if (file.endsWith('/') && !st.isDirectory()) throw new VfsError('ENOTDIR', file);
  return st;
}

/** open(FILE, O_WRONLY|O_CREAT): an empty file created atomically when missing; the errno GNU keeps on failure. */
function createIfMissing(ctx: CommandContext, file: string): string | null {
  try {
    const dots = isDotOrDotDot(lastComponent(file));
    // EISDIR (a directory, or 'NAME/') is not kept by GNU: the times are still set, or that fails.
    if (file.endsWith('/') && !dots) {
      ctx.fs.resolve(file.replace(/\/+$/, ''), ctx.cwd);
      return null;
    }
    const st = ctx.fs.resolve(file, ctx.cwd, { followFinal: ctx.fs.policy.followSymlinks }).stat;
    if (st) return null;
    if (dots) return 'ENOENT';
    // Never replaces a file that appeared meanwhile.
    ctx.fs.writeFile(file, Buffer.alloc(0), ctx.cwd, { exclusive: true });
    return null;
  } catch (e) {
    return errnoOf(e);
  }
}
