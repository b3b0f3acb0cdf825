// unzip (Info-ZIP UnZip 6.00): list (-l, -v), test (-t), pipe (-p), zipinfo mode (-Z) and
// extraction (all or nothing, through a staging folder: see extract.ts), reading the archive
// through the Vfs with yauzl. Never prompts: existing files are skipped unless -o.
import { defineCommand, helpText, versionText, type CommandContext } from '../../src/command/index.js';
import { fnmatch } from '../../src/gnulib/fnmatch.js';
import { ZipArchive, ZipError, hex8, type ZipEntry } from '../../src/gnulib/zipread.js';
import { openZip, zipinfoMain, dateYmd, timeHm, compressionPct } from '../../src/gnulib/zipinfo.js';
import { StopAll, extract } from './extract.js';

const USAGE = `UnZip 6.00 of 20 April 2009, by Debian. Original by Info-ZIP.

Usage: unzip [-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]
  Default action is to extract files in list, except those in xlist, to exdir;
  file[.zip] may be a wildcard.  -Z => ZipInfo mode ("unzip -Z" for usage).

  -p  extract files to pipe, no messages     -l  list files (short format)
  -f  freshen existing files, create none    -t  test compressed archive data
  -u  update files, create if necessary      -z  display archive comment only
  -v  list verbosely/show version info       -T  timestamp archive to latest
  -x  exclude files that follow (in xlist)   -d  extract files into exdir
modifiers:
  -n  never overwrite existing files         -q  quiet mode (-qq => quieter)
  -o  overwrite files WITHOUT prompting      -a  auto-convert any text files
  -j  junk paths (do not make directories)   -aa treat ALL files as text
  -U  use escapes for all non-ASCII Unicode  -UU ignore any Unicode fields
  -C  match filenames case-insensitively     -L  make (some) names lowercase
  -X  restore UID/GID info                   -V  retain VMS version numbers
  -K  keep setuid/setgid/tacky permissions   -M  pipe through "more" pager
See "unzip -hh" or unzip.txt for more help.  Examples:
  unzip data1 -x joe   => extract all files except joe from zipfile data1.zip
  unzip -p foo | more  => send contents of foo.zip via pipe into program more
  unzip -fo foo ReadMe => quietly replace existing ReadMe if archive file newer
`;

interface UnzipArgs {
  mode: 'extract' | 'list' | 'verbose' | 'test' | 'pipe' | 'zipinfo';
  overwrite: 'ask' | 'always' | 'never';
  quiet: number;
  junk: boolean;
  exdir: string;
  zipfile: string | null;
  members: string[];
  excludes: string[];
  caseless: boolean;
  zipinfoArgs: string[];
}

class BadOption extends Error {}

function parse(args: string[]): UnzipArgs {
  const a: UnzipArgs = { mode: 'extract', overwrite: 'ask', quiet: 0, junk: false, exdir: '', zipfile: null, members: [], excludes: [], caseless: false, zipinfoArgs: [] };
  if (args[0] === '-Z' || (args[0]?.startsWith('-Z') ?? false)) {
    a.mode = 'zipinfo';
    a.zipinfoArgs = args[0] === '-Z' ? args.slice(1) : ['-' + args[0]!.slice(2), ...args.slice(1)];
    return a;
  }
  let excluding = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('-') && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const c = arg[j]!;
        switch (c) {
          case 'l': if (a.mode !== 'verbose') a.mode = 'list'; break;
          case 'v': a.mode = 'verbose'; break;
          case 't': a.mode = 'test'; break;
          case 'p': a.mode = 'pipe'; break;
          case 'o': a.overwrite = 'always'; break;
          case 'n': a.overwrite = 'never'; break;
          case 'q': a.quiet++; break;
          case 'j': a.junk = true; break;
          case 'C': a.caseless = true; break;
          case 'x': excluding = true; break;
          case 'd': {
            const rest = arg.slice(j + 1);
            if (rest !== '') a.exdir = rest;
            else if (i + 1 < args.length) a.exdir = args[++i]!;
            else throw new BadOption('error:  must specify directory to which to extract with -d option');
            j = arg.length;
            excluding = false;
            break;
          }
          default: throw new BadOption('');
        }
      }
      continue;
    }
    if (a.zipfile === null) a.zipfile = arg;
    else if (excluding) a.excludes.push(arg);
    else a.members.push(arg);
  }
  return a;
}

const def = defineCommand({
  name: 'unzip',
  summary: 'List, test and extract files from a ZIP archive (Info-ZIP UnZip 6.00). Extraction is all or nothing and never prompts: existing files are skipped unless -o.',
  usage: '[-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]',
  parse: 'raw',
  usageStatus: 10,
  reference: 'UnZip 6.00 of 20 April 2009, by Debian. Original by Info-ZIP.',
  mutates: (args) => {
    const a = (() => { try { return parse(args); } catch { return null; } })();
    return a !== null && a.mode === 'extract' && a.zipfile !== null;
  },
  flags: [
    { key: 'l', short: 'l', help: 'list files (short format)' },
    { key: 'v', short: 'v', help: 'list verbosely' },
    { key: 't', short: 't', help: 'test compressed archive data (CRC and sizes)' },
    { key: 'p', short: 'p', help: 'extract files to standard output, no messages' },
    { key: 'Z', short: 'Z', help: 'ZipInfo mode: the rest of the arguments are zipinfo\'s' },
    { key: 'o', short: 'o', help: 'overwrite existing files without prompting' },
    { key: 'n', short: 'n', help: 'never overwrite existing files' },
    { key: 'q', short: 'q', help: 'quiet mode (-qq => quieter)' },
    { key: 'j', short: 'j', help: 'junk paths (do not make directories)' },
    { key: 'C', short: 'C', help: 'match filenames case-insensitively' },
    { key: 'd', short: 'd', kind: 'string', arg: 'exdir', help: 'extract files into exdir' },
    { key: 'x', short: 'x', help: 'exclude the files that follow (xlist)' },
  ],
  notes: 'Without -o an existing file is skipped (never a prompt) and named on standard error; exit 1.\n'
    + 'Entries are extracted to a staging folder and moved into place at the end: a zip bomb, a limit or\n'
    + 'the quota stops the whole extraction and leaves nothing behind. Symbolic links, devices and FIFOs\n'
    + 'are never created; encrypted entries are refused; unsafe names are skipped.',
  async run(ctx) {
    if (ctx.args[0] === '--version' || ctx.args[0] === '--help') {
      await ctx.stdout.write(ctx.args[0] === '--help' ? helpText(def) : versionText(def));
      return 0;
    }
    let a: UnzipArgs;
    try {
      a = parse(ctx.args);
    } catch (e) {
      if (!(e instanceof BadOption)) throw e;
      if (e.message) {
        await ctx.stderr.write(e.message + '\n');
        return 10;
      }
      await ctx.stdout.write(USAGE);
      return 10;
    }
    if (a.mode === 'zipinfo') return zipinfoMain(ctx, a.zipinfoArgs, 'unzip');
    if (a.zipfile === null) {
      await ctx.stdout.write(USAGE);
      return 0;
    }
    const opened = await openZip(ctx, a.zipfile, 'unzip', a.mode !== 'pipe' && a.quiet === 0);
    if (typeof opened === 'number') return opened;
    const { zip, shown } = opened;
    try {
      return await runOn(ctx, a, zip, shown);
    } finally {
      zip.close();
    }
  },
});
export default def;

function select(ctx: CommandContext, a: UnzipArgs, zip: ZipArchive): { selected: ZipEntry[]; unmatched: string[] } {
  const flags = a.caseless ? 16 : 0;
  const inc = a.members.map((m) => ({ m, re: fnmatch(m, flags), hit: false }));
  const exc = a.excludes.map((m) => fnmatch(m, flags));
  const selected = zip.entries.filter((e) => {
    if (exc.some((re) => re.test(e.name))) return false;
    if (inc.length === 0) return true;
    let any = false;
    for (const x of inc) if (x.re.test(e.name)) { x.hit = true; any = true; }
    return any;
  });
  void ctx;
  return { selected, unmatched: inc.filter((x) => !x.hit).map((x) => x.m) };
}

async function runOn(ctx: CommandContext, a: UnzipArgs, zip: ZipArchive, shown: string): Promise<number> {
  const { selected, unmatched } = select(ctx, a, zip);
  let status = 0;
  if (a.mode === 'list' || a.mode === 'verbose') {
    await list(ctx, a, zip, selected, shown);
  } else if (a.mode === 'test') {
    status = await test(ctx, a, selected.length > 0 ? zip : zip, selected, shown);
  } else if (a.mode === 'pipe') {
    for (const e of selected) {
      if (e.isDir) continue;
      try {
        for await (const chunk of zip.data(e)) await ctx.stdout.write(chunk);
      } catch (err) {
        if (!(err instanceof ZipError)) throw err;
        await ctx.stderr.write(`${e.name}:  ${err.message}\n`);
        status = 2;
      }
    }
  } else {
    try {
      status = await extract(ctx, zip, selected, { exdir: a.exdir, overwrite: a.overwrite, junk: a.junk, quiet: a.quiet });
    } catch (err) {
      if (!(err instanceof StopAll)) throw err;
      await ctx.stderr.write(`unzip: extraction stopped, nothing was extracted: ${err.message}\n`);
      return 3;
    }
  }
  // listings pass over names that match nothing (Info-ZIP's -l and -v say nothing of them)
  if (a.mode === 'list' || a.mode === 'verbose') return selected.length === 0 && unmatched.length > 0 ? 11 : status;
  for (const m of unmatched) await ctx.stderr.write(`caution: filename not matched:  ${m}\n`);
  if (unmatched.length > 0) return 11;
  if (selected.length === 0 && a.excludes.length > 0 && a.members.length === 0) {
    await ctx.stderr.write('caution: excluded filename not matched:  ' + a.excludes[0] + '\n');
  }
  return status;
}

async function list(ctx: CommandContext, a: UnzipArgs, zip: ZipArchive, selected: ZipEntry[], _shown: string): Promise<void> {
  const out: string[] = [];
  let total = 0;
  let ctotal = 0;
  if (a.mode === 'list') {
    if (a.quiet < 2) out.push('  Length      Date    Time    Name', '---------  ---------- -----   ----');
    for (const e of selected) {
      total += e.size;
      out.push(`${String(e.size).padStart(9)}  ${dateYmd(e)} ${timeHm(e)}   ${e.name}`);
    }
    if (a.quiet < 2) {
      out.push('---------                     -------');
      out.push(`${String(total).padStart(9)}                     ${selected.length} file${selected.length === 1 ? '' : 's'}`);
    }
  } else {
    if (a.quiet < 2) out.push(' Length   Method    Size  Cmpr    Date    Time   CRC-32   Name', '--------  ------  ------- ---- ---------- ----- --------  ----');
    for (const e of selected) {
      total += e.size;
      ctotal += e.csize;
      out.push(`${String(e.size).padStart(8)}  ${methodName(e).padEnd(6)} ${String(e.csize).padStart(8)} ${compressionPct(e.size, e.csize).padStart(4)} ${dateYmd(e)} ${timeHm(e)} ${hex8(e.crc)}  ${e.name}`);
    }
    if (a.quiet < 2) {
      out.push('--------          -------  ---                            -------');
      out.push(`${String(total).padStart(8)}         ${String(ctotal).padStart(8)} ${compressionPct(total, ctotal).padStart(4)}                            ${selected.length} file${selected.length === 1 ? '' : 's'}`);
    }
  }
  await ctx.stdout.write(out.map((l) => l + '\n').join(''));
  void zip;
}

export function methodName(e: ZipEntry): string {
  if (e.method === 0) return 'Stored';
  if (e.method === 8) return 'Defl:' + 'NXFS'[(e.flags >> 1) & 3];
  const names: Record<number, string> = { 1: 'Shrunk', 6: 'Implode', 9: 'Def64#', 12: 'BZip2', 14: 'LZMA', 93: 'Zstd', 95: 'XZ', 98: 'PPMd' };
  return names[e.method] ?? `Unk:${String(e.method).padStart(3, '0')}`;
}

async function test(ctx: CommandContext, a: UnzipArgs, zip: ZipArchive, selected: ZipEntry[], shown: string): Promise<number> {
  let errors = 0;
  for (const e of selected) {
    const label = `    testing: ${e.name.length >= 22 ? e.name : e.name.padEnd(22)}   `;
    if (e.encrypted) {
      await ctx.stderr.write(`    skipping: ${e.name}  encrypted entry: nosh does not decrypt\n`);
      errors++;
      continue;
    }
    try {
      for await (const _ of zip.data(e)) { /* CRC and size checked at the end */ }
      if (a.quiet === 0) await ctx.stdout.write(label + 'OK\n');
    } catch (err) {
      if (!(err instanceof ZipError)) throw err;
      await ctx.stdout.write(label + err.message + '\n');
      errors++;
    }
  }
  if (errors === 0) {
    if (a.quiet < 2) {
      const n = selected.length;
      await ctx.stdout.write(a.members.length > 0 || a.excludes.length > 0
        ? `No errors detected in ${shown} for the ${n} file${n === 1 ? '' : 's'} tested.\n`
        : `No errors detected in compressed data of ${shown}.\n`);
    }
    return 0;
  }
  await ctx.stdout.write(`At least one error was detected in ${shown}.\n`);
  return 2;
}
