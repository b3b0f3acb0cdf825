/**
 * find: GNU findutils 4.9 under LC_ALL=C TZ=UTC, inside the zone.
 * Parsing: ./parse.ts; the walk and evaluation: ./eval.ts; -printf and -ls:
 * ./printf.ts; glob matching: src/gnulib/fnmatch.ts; -regex: ./regex.ts.
 *
 * Deliberate differences from GNU (see also the README):
 * - Each directory is listed in C-locale name order (GNU: raw readdir order).
 * - -exec -execdir -ok -okdir are refused (exit 2): nosh runs no other program.
 *   -fprint -fprint0 -fprintf -fls are refused (exit 2): find writes no files.
 * - -L / -H / -follow only where the zone policy follows symlinks; a link leaving the
 *   zone is listed as a link (type l) and never followed; %l / -ls show its target masked.
 * - Blocked files never appear (the Vfs hides them), so a directory holding only blocked
 *   files is -empty.
 */
import { defineCommand, helpText, versionText } from '../../src/command/index.js';
import { parseFind, findMutates, HelpRequest, VersionRequest } from './parse.js';
import { Walker } from './eval.js';
import { FindError } from './types.js';

const def = defineCommand({
  name: 'find',
  reference: 'GNU findutils 4.9.0',
  summary: 'Search for files in a directory hierarchy (GNU findutils 4.9 expression language).',
  usage: '[-H] [-L] [-P] [-Olevel] [path...] [expression]',
  mutates: (args) => findMutates(args),
  parse: 'raw',
  flags: [],
  notes: [
    'Default path is the current directory; default expression is -print.',
    'Operators: ( EXPR ) ! EXPR -not EXPR EXPR -a EXPR EXPR -and EXPR EXPR -o EXPR EXPR -or EXPR EXPR , EXPR',
    'Options: -depth -maxdepth N -mindepth N -regextype TYPE -daystart -noleaf -xdev -mount -follow',
    'Tests: -name -iname -path -ipath -wholename -iwholename -lname -ilname -regex -iregex -type -xtype',
    '  -size [+-]N[bcwkMG] -empty -mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer',
    '  -newerXY REF (X, Y among a c m: the file\'s time X after REF\'s time Y)',
    '  -perm [-/]MODE -inum -links -uid -gid -samefile -true -false',
    'Actions: -print -print0 -printf FORMAT -ls -delete -prune -quit',
    'Refused: -exec -execdir -ok -okdir (nosh runs no program), -fprint -fprint0 -fprintf -fls.',
  ].join('\n'),
  async run(ctx) {
    const nowMs = Date.now();
    let plan;
    try {
      plan = parseFind(ctx.args, { fs: ctx.fs, cwd: ctx.cwd, nowMs });
    } catch (e) {
      if (e instanceof HelpRequest) {
        await ctx.stdout.write(helpText(def));
        return 0;
      }
      if (e instanceof VersionRequest) {
        await ctx.stdout.write(versionText(def));
        return 0;
      }
      if (e instanceof FindError) {
        for (const w of e.warnings) await ctx.warn(w);
        await ctx.warn(e.message);
        return e.status;
      }
      throw e;
    }
    if (plan.follow !== 'P' && !ctx.fs.policy.followSymlinks) {
      const flag = ctx.args.includes('-follow') && plan.follow === 'L' && !ctx.args.includes('-L') ? '-follow' : `-${plan.follow}`;
      await ctx.warn(`${flag} is not allowed here: this zone does not follow symbolic links. Run find without ${flag} (the default -P lists links as type l without following them).`);
      return 1;
    }
    return new Walker(ctx, plan, nowMs).run();
  },
});

export default def;
