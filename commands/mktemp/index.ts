import { randomInt } from 'node:crypto';
import { defineCommand, OptionError, UsageError } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteAlways } from '../../src/gnulib/quote.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** nosh's $TMPDIR: a folder of the zone (made when missing). */
const ZONE_TMPDIR = '/tmp';

/**
 * GNU mktemp (coreutils 9.1) inside the zone: a file (0600) or, with -d, a folder (0700)
 * made with a unique name from TEMPLATE's trailing X's (at least 3). Without a template,
 * tmp.XXXXXXXXXX in the zone's /tmp (made when missing: nosh has no $TMPDIR); -t and -p
 * without DIR use that folder too.
 */
export default defineCommand({
  name: 'mktemp',
  summary: "Create a temporary file or directory, safely, and print its name. TEMPLATE must contain at least 3 consecutive 'X's in last component. If TEMPLATE is not specified, use tmp.XXXXXXXXXX, and --tmpdir is implied (nosh: the zone's /tmp).",
  usage: '[OPTION]... [TEMPLATE]',
  mutates: (args) => !args.includes('-u') && !args.includes('--dry-run'),
  usageStatus: 1,
  flags: [
    { key: 'd', short: 'd', long: 'directory', help: 'create a directory, not a file' },
    { key: 'u', short: 'u', long: 'dry-run', help: 'do not create anything; merely print a name (unsafe)' },
    { key: 'q', short: 'q', long: 'quiet', help: 'suppress diagnostics about file/dir-creation failure' },
    { key: 'suffix', long: 'suffix', kind: 'string', arg: 'SUFF', help: 'append SUFF to TEMPLATE; SUFF must not contain a slash' },
    { key: 'p', short: 'p', kind: 'string', arg: 'DIR', help: 'interpret TEMPLATE relative to DIR (the zone\'s /tmp if DIR is empty)' },
    { key: 'p', long: 'tmpdir', kind: 'optional', value: '', arg: 'DIR', help: 'same as -p' },
    { key: 't', short: 't', help: 'interpret TEMPLATE as a single file name component, relative to a directory: DIR given with -p, else the zone\'s /tmp' },
  ],
  async run(ctx) {
    const v = ctx.values;
    if (ctx.operands.length > 1) throw new UsageError('too many templates');
    let template = ctx.operands[0];
    let useDir = v.p !== undefined || !!v.t;
    if (template === undefined) {
      template = 'tmp.XXXXXXXXXX';
      useDir = true;
    }
    let suffix = v.suffix ?? '';
    if (v.suffix !== undefined) {
      if (suffix.includes('/')) throw new OptionError(`invalid suffix ${quoteAlways(suffix)}, contains directory separator`, false);
      if (!template.endsWith('X')) throw new OptionError(`with --suffix, template ${quoteAlways(template)} must end in X`, false);
    } else {
      // A suffix is what follows the last X.
      const m = /X*([^X]*)$/.exec(template)!;
      const lastX = template.lastIndexOf('X');
      if (lastX >= 0 && !m[1]!.includes('/')) {
        suffix = template.slice(lastX + 1);
        template = template.slice(0, lastX + 1);
      } else if (lastX < 0) {
        suffix = '';
      }
    }
    let dir = '';
    if (useDir) {
      if (v.t && template.includes('/')) throw new OptionError(`invalid template, ${quoteAlways(template)}, contains directory separator`, false);
      if (!v.t && template.startsWith('/')) throw new OptionError(`invalid template, ${quoteAlways(template)}; with --tmpdir, it may not be absolute`, false);
      dir = v.p || ZONE_TMPDIR;
    }
    const xs = /X*$/.exec(template)![0].length;
    const full = (dir ? dir.replace(/\/+$/, '') + '/' : '') + template;
    if (xs < 3) {
      await ctx.warn(`too few X's in template ${quoteAlways(template + suffix)}`);
      return 1;
    }
    const base = full.slice(0, full.length - xs);
    if (dir === ZONE_TMPDIR && !v.u) {
      try {
        if (!ctx.fs.exists(ZONE_TMPDIR, '/')) ctx.fs.mkdir(ZONE_TMPDIR, '/');
      } catch {
        /* reported below, as the creation fails */
      }
    }
    for (let attempt = 0; attempt < 100; attempt++) {
      let name = base;
      for (let i = 0; i < xs; i++) name += LETTERS[randomInt(LETTERS.length)];
      name += suffix;
      try {
        if (v.u) {
          if (ctx.fs.exists(name, ctx.cwd)) continue;
        } else if (v.d) {
          ctx.fs.mkdir(name, ctx.cwd, 0o700);
        } else {
          const w = ctx.fs.createWriter(name, ctx.cwd, { exclusive: true, mode: 0o600 });
          w.commit();
        }
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        if (e.errno === 'EEXIST') continue;
        if (!v.q) await ctx.warn(`failed to create ${v.d ? 'directory' : 'file'} via template ${quoteAlways(full + suffix)}: ${e.reason}`);
        return 1;
      }
      await ctx.stdout.write(`${name}\n`);
      return 0;
    }
    if (!v.q) await ctx.warn(`failed to create ${v.d ? 'directory' : 'file'} via template ${quoteAlways(full + suffix)}: File exists`);
    return 1;
  },
});
