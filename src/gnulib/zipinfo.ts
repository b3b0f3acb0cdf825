// Info-ZIP's zipinfo (also `unzip -Z`): the archive's entries in its formats (-1 -2 -s -m -l,
// -h header, -t totals, -T sortable dates), and opening an archive by Info-ZIP's name rules
// (NAME, NAME.zip, NAME.ZIP) with its messages and exit codes.
import type { ArchiveLimits } from '../command/types.js';
import { VfsError, type RandomReader, type Vfs } from '../vfs/index.js';

/** What these functions need of a command's context (structurally: a CommandContext is one). */
export interface ZipContext {
  fs: Vfs;
  cwd: string;
  limits?: { archive?: ArchiveLimits };
  stdout: { write(data: Uint8Array | string): void | Promise<void> };
  stderr: { write(data: Uint8Array | string): void | Promise<void> };
}
import { fnmatch } from './fnmatch.js';
import { ZipArchive, ZipError, type ZipEntry } from './zipread.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');

export function dateYmd(e: ZipEntry): string {
  const d = e.mtime;
  return `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}`;
}
export function timeHm(e: ZipEntry): string {
  return `${p2(e.mtime.getUTCHours())}:${p2(e.mtime.getUTCMinutes())}`;
}

/** unzip -v's Cmpr column: the saving in whole percent (Info-ZIP rounds half up). */
export function compressionPct(size: number, csize: number): string {
  if (size === 0) return '0%';
  const permille = Math.floor((1000 * Math.abs(size - csize) + Math.floor(size / 2)) / size);
  const pct = Math.floor((permille + 5) / 10);
  return `${size >= csize ? '' : '-'}${pct}%`;
}

/**
 * Opens NAME (else NAME.zip, NAME.ZIP) and reads its directory. On failure prints Info-ZIP's
 * message and returns the exit status (9: not found or not a zip file; 3: a damaged archive).
 */
export async function openZip(ctx: ZipContext, name: string, prog: string, announce: boolean, zipinfo = false): Promise<{ zip: ZipArchive; shown: string } | number> {
  // zipinfo prints its messages on standard output
  const err = zipinfo ? ctx.stdout : ctx.stderr;
  let r: RandomReader | null = null;
  let shown = name;
  for (const cand of [name, name + '.zip', name + '.ZIP']) {
    try {
      if (ctx.fs.stat(cand, ctx.cwd).isDirectory()) continue;
      r = ctx.fs.openRandom(cand, ctx.cwd);
      shown = cand;
      break;
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
    }
  }
  if (r === null) {
    await err.write(`${prog}:  cannot find or open ${name}, ${name}.zip or ${name}.ZIP.\n`);
    return 9;
  }
  if (announce) await ctx.stdout.write(`Archive:  ${shown}\n`);
  try {
    const zip = await ZipArchive.open(r, ctx.limits?.archive);
    const rr = r;
    const close = zip.close.bind(zip);
    zip.close = () => { close(); rr.close(); };
    return { zip, shown };
  } catch (e) {
    r.close();
    if (!(e instanceof ZipError)) throw e;
    if (/end of central directory record signature not found/i.test(e.message)) {
      if (zipinfo) await err.write(`Archive:  ${shown}\n[${shown}]\n`);
      await err.write('  End-of-central-directory signature not found.  Either this file is not\n'
        + '  a zipfile, or it constitutes one disk of a multi-part archive.  In the\n'
        + '  latter case the central directory and zipfile comment will be found on\n'
        + '  the last disk(s) of this archive.\n'
        + `${prog}:  cannot find zipfile directory in one of ${shown} or\n`
        + `${zipinfo ? '  ' : ''}        ${shown}.zip, and cannot find ${shown}.ZIP, period.\n`);
      return 9;
    }
    await err.write(`${prog}:  ${shown}: ${e.message}\n`);
    return e.kind === 'bomb' ? 3 : 3;
  }
}

const HOSTS = ['fat', 'amg', 'vms', 'unx', 'vcm', 'atr', 'hpf', 'mac', 'zzz', 'cpm', 't20', 'ntf', 'qds', 'aco', 'vft', 'mvs', 'be ', 'tan', 'theos', 'osx'];

function modeString(e: ZipEntry): string {
  const host = e.madeBy;
  if ((host === 3 || host === 19) && e.unixMode !== 0) {
    const m = e.unixMode;
    const t = m & 0o170000;
    const type = t === 0o040000 ? 'd' : t === 0o120000 ? 'l' : t === 0o020000 ? 'c' : t === 0o060000 ? 'b' : t === 0o010000 ? 'p' : t === 0o140000 ? 's' : '-';
    const rwx = (bits: number, special: boolean, ch: string) =>
      (bits & 4 ? 'r' : '-') + (bits & 2 ? 'w' : '-') + (special ? (bits & 1 ? ch : ch.toUpperCase()) : bits & 1 ? 'x' : '-');
    return type + rwx((m >> 6) & 7, (m & 0o4000) !== 0, 's') + rwx((m >> 3) & 7, (m & 0o2000) !== 0, 's') + rwx(m & 7, (m & 0o1000) !== 0, 't');
  }
  // MS-DOS attributes: drwxahs as Info-ZIP prints them
  const a = e.raw.externalFileAttributes & 0xff;
  return (a & 0x10 || e.name.endsWith('/') ? 'd' : '-') + 'r' + (a & 1 ? '-' : 'w') + (a & 0x10 ? 'x' : '-') + (a & 0x20 ? 'a' : '-') + (a & 2 ? 'h' : '-') + (a & 4 ? 's' : '-');
}

function methodShort(e: ZipEntry): string {
  if (e.method === 0) return 'stor';
  if (e.method === 8) return 'def' + 'NXFS'[(e.flags >> 1) & 3];
  const names: Record<number, string> = { 1: 'shrk', 6: 'i#:#', 9: 'def#', 12: 'bzp2', 14: 'lzma', 93: 'zstd', 95: 'xz  ', 98: 'ppmd' };
  return names[e.method] ?? `u${String(e.method).padStart(3, '0')}`;
}

function attrs(e: ZipEntry): string {
  const text = (e.raw.internalFileAttributes & 1) !== 0;
  let c = text ? 't' : 'b';
  if (e.encrypted) c = c.toUpperCase();
  const extra = e.raw.extraFields.length > 0;
  const desc = (e.flags & 8) !== 0;
  return c + (extra ? (desc ? 'X' : 'x') : desc ? 'l' : '-');
}

function zipinfoDate(e: ZipEntry, decimal: boolean): string {
  const d = e.mtime;
  if (decimal) return `${d.getUTCFullYear()}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())}.${p2(d.getUTCHours())}${p2(d.getUTCMinutes())}${p2(d.getUTCSeconds())}`;
  return `${p2(d.getUTCFullYear() % 100)}-${MONTHS[d.getUTCMonth()]}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}`;
}

function entryLine(e: ZipEntry, fmt: 's' | 'm' | 'l', decimal: boolean): string {
  const ver = `${Math.floor((e.raw.versionMadeBy & 0xff) / 10)}.${(e.raw.versionMadeBy & 0xff) % 10}`;
  const host = HOSTS[e.madeBy] ?? '???';
  const mode = modeString(e).padEnd(10);
  let mid = '';
  if (fmt === 'm') {
    mid = ` ${compressionPct(e.size, e.csize).padStart(3)}`;
  } else if (fmt === 'l') {
    mid = ` ${String(e.csize).padStart(8)}`;
  }
  return `${mode} ${ver.padStart(4)} ${host} ${String(e.size).padStart(8)} ${attrs(e)}${mid} ${methodShort(e)} ${zipinfoDate(e, decimal)} ${e.name}`;
}

/** The zipinfo command (argv after its name); `prog` names it in messages. */
export async function zipinfoMain(ctx: ZipContext, args: string[], prog: string): Promise<number> {
  let fmt: '1' | '2' | 's' | 'm' | 'l' = 's';
  let header: boolean | null = null;
  let totals: boolean | null = null;
  let decimal = false;
  let explicitFmt = false;
  let zipfile: string | null = null;
  const members: string[] = [];
  const excludes: string[] = [];
  let excluding = false;
  for (const arg of args) {
    if (arg.startsWith('-') && arg.length > 1) {
      for (const c of arg.slice(1)) {
        if (c === '1' || c === '2' || c === 's' || c === 'm' || c === 'l') { fmt = c; explicitFmt = true; }
        else if (c === 'h') header = true;
        else if (c === 't') totals = true;
        else if (c === 'T') decimal = true;
        else if (c === 'M' || c === 'C' || c === 'z') { /* pager, case, comment: accepted */ }
        else if (c === 'x') excluding = true;
        else {
          await ctx.stderr.write(`${prog}:  bad option -${c}\n`);
          return 10;
        }
      }
      continue;
    }
    if (zipfile === null) zipfile = arg;
    else if (excluding) excludes.push(arg);
    else members.push(arg);
  }
  if (zipfile === null) {
    await ctx.stdout.write(ZIPINFO_USAGE);
    return 0;
  }
  // -1 and -2 show no header or totals unless asked; neither do listings of chosen members
  // an explicit -s/-m/-l keeps both unless members are named; -h or -t alone shows only itself
  const quietDefault = fmt === '1' || fmt === '2' || members.length > 0 || excludes.length > 0;
  const onlyAsked = !explicitFmt && (header !== null || totals !== null);
  const showHeader = fmt !== '1' && (header ?? (onlyAsked ? false : !quietDefault));
  const showTotals = fmt !== '1' && (totals ?? (onlyAsked ? false : !quietDefault));
  const showEntries = explicitFmt || (header === null && totals === null);
  const opened = await openZip(ctx, zipfile, prog, false, true);
  if (typeof opened === 'number') return opened;
  const { zip, shown } = opened;
  try {
    const inc = members.map((m) => ({ re: fnmatch(m), m, hit: false }));
    const exc = excludes.map((m) => fnmatch(m));
    const sel = zip.entries.filter((e) => {
      if (exc.some((x) => x.test(e.name))) return false;
      if (inc.length === 0) return true;
      let any = false;
      for (const x of inc) if (x.re.test(e.name)) { x.hit = true; any = true; }
      return any;
    });
    const out: string[] = [];
    if (showHeader) out.push(`Archive:  ${shown}`, `Zip file size: ${zip.size} bytes, number of entries: ${zip.entries.length}`);
    if (showEntries) {
      for (const e of sel) out.push(fmt === '1' || fmt === '2' ? e.name : entryLine(e, fmt, decimal));
    }
    if (showTotals) {
      let u = 0;
      let c = 0;
      for (const e of sel) { u += e.size; c += e.csize; }
      const pct = u === 0 ? 0 : (100 * (u - c)) / u;
      out.push(`${sel.length} file${sel.length === 1 ? '' : 's'}, ${u} bytes uncompressed, ${c} bytes compressed:  ${pct.toFixed(1)}%`);
    }
    await ctx.stdout.write(out.map((l) => l + '\n').join(''));
    const missing = inc.filter((x) => !x.hit);
    for (const x of missing) await ctx.stderr.write(`caution: filename not matched:  ${x.m}\n`);
    return missing.length > 0 ? 11 : 0;
  } finally {
    zip.close();
  }
}

export const ZIPINFO_USAGE = `ZipInfo 3.00 of 20 April 2009, by Greg Roelofs and the Info-ZIP group.

List name, date/time, attribute, size, compression method, etc., about files
in list (excluding those in xlist) contained in the specified .zip archive(s).
"file[.zip]" may be a wildcard name containing * or ? (e.g. foo*.zip).

   usage:  zipinfo [-12smlvChMtTz] file[.zip] [list...] [-x xlist...]
      or:  unzip -Z [-12smlvChMtTz] file[.zip] [list...] [-x xlist...]

main listing-format options:             -s  short Unix "ls -l" format (def.)
  -1  filenames ONLY, one per line       -m  medium Unix "ls -l" format
  -2  just filenames but allow -h/-t/-z  -l  long Unix "ls -l" format
                                         -v  verbose, multi-page format
miscellaneous options:
  -h  print header line       -t  print totals for listed files or for all
  -z  print zipfile comment   -T  print file times in sortable decimal format
  -C  be case-insensitive   -x  exclude filenames that follow from listing
  -O CHARSET  specify a character encoding for DOS, Windows and OS/2 archives
  -I CHARSET  specify a character encoding for UNIX and other archives
`;
