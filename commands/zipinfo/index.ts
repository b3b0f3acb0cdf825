// zipinfo (Info-ZIP ZipInfo 3.00): the entries of a ZIP archive, in its formats; also `unzip -Z`.
import { defineCommand, helpText, versionText } from '../../src/command/index.js';
import { zipinfoMain } from '../../src/gnulib/zipinfo.js';

const def = defineCommand({
  name: 'zipinfo',
  summary: 'List the entries of a ZIP archive: permissions, version, host, size, attributes, method, date and name (Info-ZIP ZipInfo 3.00).',
  usage: '[-12smlChMtTz] file[.zip] [list...] [-x xlist...]',
  parse: 'raw',
  usageStatus: 10,
  reference: 'ZipInfo 3.00 of 20 April 2009, by Greg Roelofs and the Info-ZIP group.',
  mutates: false,
  flags: [
    { key: '1', short: '1', help: 'filenames only, one per line' },
    { key: '2', short: '2', help: 'just filenames but allow -h/-t' },
    { key: 's', short: 's', help: 'short Unix "ls -l" format (the default)' },
    { key: 'm', short: 'm', help: 'medium Unix "ls -l" format (with the compression ratio)' },
    { key: 'l', short: 'l', help: 'long Unix "ls -l" format (with the compressed size)' },
    { key: 'h', short: 'h', help: 'print the header line' },
    { key: 't', short: 't', help: 'print totals for the listed files' },
    { key: 'T', short: 'T', help: 'print file times in sortable decimal format' },
    { key: 'x', short: 'x', help: 'exclude the filenames that follow' },
  ],
  async run(ctx) {
    if (ctx.args[0] === '--version' || ctx.args[0] === '--help') {
      await ctx.stdout.write(ctx.args[0] === '--help' ? helpText(def) : versionText(def));
      return 0;
    }
    return zipinfoMain(ctx, ctx.args, 'zipinfo');
  },
});
export default def;
