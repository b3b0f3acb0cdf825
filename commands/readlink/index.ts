import { defineCommand, UsageError } from '../../src/command/index.js';
import { canonicalize, type CanonMode } from '../../src/gnulib/canonicalize.js';
import { reasonOf } from '../../src/gnulib/fileops.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';

export default defineCommand({
  name: 'readlink',
  summary: 'Print value of a symbolic link or canonical file name. '
    + 'A target that leaves the zone is shown as "(outside the zone)"; -f/-e/-m resolve inside the zone only (a link out of it is an error), never to a host path.',
  usage: 'FILE...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'mode', short: 'f', long: 'canonicalize', value: 'all-but-last', help: 'canonicalize by following every symlink in every component of the given name recursively; all but the last component must exist' },
    { key: 'mode', short: 'e', long: 'canonicalize-existing', value: 'existing', help: 'canonicalize by following every symlink in every component of the given name recursively, all components must exist' },
    { key: 'mode', short: 'm', long: 'canonicalize-missing', value: 'missing', help: 'canonicalize by following every symlink in every component of the given name recursively, without requirements on components existence' },
    { key: 'n', short: 'n', long: 'no-newline', help: 'do not output the trailing delimiter' },
    { key: 'verbose', short: 'q', long: 'quiet', value: 'quiet', help: 'suppress most error messages (on by default)' },
    { key: 'verbose', short: 's', long: 'silent', value: 'quiet', help: 'suppress most error messages (on by default)' },
    { key: 'verbose', short: 'v', long: 'verbose', value: 'verbose', help: 'report error messages' },
    { key: 'z', short: 'z', long: 'zero', help: 'end each output line with NUL, not newline' },
  ],
  async run(ctx) {
    if (ctx.operands.length === 0) throw new UsageError('missing operand');
    const v = ctx.values;
    let noNewline = v.n === true;
    if (noNewline && ctx.operands.length > 1) {
      await ctx.warn('ignoring --no-newline with multiple arguments');
      noNewline = false;
    }
    const end = noNewline ? '' : v.z ? '\0' : '\n';
    const mode: CanonMode | undefined = v.mode;
    let status = 0;
    for (const file of ctx.operands) {
      let value: string;
      try {
        value = mode ? canonicalize(ctx.fs, file, ctx.cwd, mode) : ctx.fs.readlink(file, ctx.cwd);
      } catch (e) {
        if (v.verbose === 'verbose') await ctx.warn(`${quoteNameColon(file)}: ${reasonOf(e)}`);
        status = 1;
        continue;
      }
      await ctx.stdout.write(value + end);
    }
    return status;
  },
});
