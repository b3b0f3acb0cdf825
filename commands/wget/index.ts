import { defineCommand, type CommandDef } from '../../src/command/index.js';
import type { AtomicWriter } from '../../src/vfs/vfs.js';
import { download } from '../../src/net/fetch.js';
import { NetRefusal } from '../../src/net/policy.js';

/**
 * GNU Wget 1.21 for downloads, under the workspace's network policy (see curl): GET over
 * http(s) to the hosts of the allow-list, redirects followed (each checked), files written
 * through the Vfs. The log (stderr) is wget's, without its dot progress bar; -q silences it.
 * Exit statuses: 4 network failure (a refusal of the policy too, with a `nosh:` reason), 8 an
 * HTTP error response, 3 a file it could not write, 1 a generic error.
 */
const def: CommandDef = defineCommand({
  name: 'wget',
  summary: 'The non-interactive network downloader, for the hosts of the network allow-list (http, https).',
  usage: '[OPTION]... [URL]...',
  mutates: (args) => !args.some((a, i) => (a === '-O' || a === '--output-document') && args[i + 1] === '-') && !args.some((a) => a === '-O-' || a === '--output-document=-' || a === '--spider'),
  usageStatus: 2,
  flags: [
    { key: 'quiet', short: 'q', long: 'quiet', help: 'quiet (no output)' },
    { key: 'document', short: 'O', long: 'output-document', kind: 'string', arg: 'FILE', help: 'write documents to FILE' },
    { key: 'response', short: 'S', long: 'server-response', help: 'print server response' },
    { key: 'spider', long: 'spider', help: "don't download anything" },
    { key: 'maxRedirect', long: 'max-redirect', kind: 'string', arg: 'NUM', help: 'maximum redirections allowed per page' },
  ],
  async run(ctx) {
    const v = ctx.values as { quiet?: boolean; document?: string; response?: boolean; spider?: boolean; maxRedirect?: string };
    const log = async (s: string) => { if (!v.quiet) await ctx.stderr.write(s); };
    if (ctx.operands.length === 0) {
      await ctx.stderr.write("wget: missing URL\nUsage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.\n");
      return 1;
    }
    const policy = ctx.limits.network;
    if (!policy) {
      await log('wget: nosh: network access is disabled in this workspace (the config\'s network is "disabled"; "safe" with an allow-list enables it)\n');
      return 4;
    }
    const maxRedirects = v.maxRedirect !== undefined ? Math.min(Number(v.maxRedirect) || 0, policy.maxRedirects) : Math.min(20, policy.maxRedirects);
    let status = 0;
    let shared: AtomicWriter | null = null; // -O FILE: every document into one file
    const toStdout = v.document === '-';
    for (const url of ctx.operands) {
      const stamp = () => new Date().toISOString().replace('T', ' ').slice(0, 19);
      await log(`--${stamp()}--  ${url}\n`);
      let name = v.document;
      let writer: AtomicWriter | null = null;
      let bytes = 0;
      try {
        const { final } = await download({ ...policy, maxRedirects }, url, {
          method: v.spider ? 'HEAD' : 'GET', follow: true, maxBytes: policy.maxBytes, userAgent: 'Wget/1.21.3', signal: ctx.signal,
          onHead: async (hop) => {
            const u = new URL(hop.url);
            await log(`Connecting to ${u.hostname}:${u.port || (u.protocol === 'https:' ? 443 : 80)}... connected.\n`);
            if (v.response) await log(hop.head.trimEnd().split('\r\n').map((l) => `  ${l}\n`).join(''));
            await log(`HTTP request sent, awaiting response... ${v.response ? '' : `${hop.status} ${reasonOf(hop.head)}`}\n`);
            const location = hop.headers.location;
            if (location && hop.status >= 300 && hop.status < 400) {
              await log(`Location: ${location} [following]\n--${stamp()}--  ${new URL(location, hop.url).href}\n`);
              return;
            }
            if (hop.status >= 400 || v.spider) return;
            const length = hop.headers['content-length'];
            const type = hop.headers['content-type'];
            await log(`Length: ${length ?? 'unspecified'}${type ? ` [${type}]` : ''}\n`);
            if (toStdout || v.document !== undefined) return;
            // named after the URL's last path part (index.html for none), never replacing a file: NAME.1, NAME.2 ...
            const base = decodeURIComponent(u.pathname.split('/').pop() || '') || 'index.html';
            name = base;
            for (let i = 1; ctx.fs.exists(name, ctx.cwd); i++) name = `${base}.${i}`;
            writer = ctx.fs.createWriter(name, ctx.cwd);
          },
          wantBody: (hop) => hop.status < 400,
          onChunk: async (chunk) => {
            bytes += chunk.length;
            if (toStdout) return ctx.stdout.write(chunk);
            if (v.document !== undefined) {
              shared ??= ctx.fs.createWriter(v.document, ctx.cwd);
              (shared as AtomicWriter).write(chunk);
              return;
            }
            (writer as AtomicWriter | null)?.write(chunk);
          },
        });
        if (final.status >= 400) {
          await log(`${stamp()} ERROR ${final.status}: ${reasonOf(final.head)}.\n\n`);
          status = 8;
          continue;
        }
        if (v.spider) {
          await log('Remote file exists.\n\n');
          continue;
        }
        if (writer) {
          (writer as AtomicWriter).commit();
          writer = null;
        }
        const shown = toStdout ? '-' : name!;
        await log(`Saving to: ‘${toStdout ? 'STDOUT' : shown}’\n\n${stamp()} - ‘${shown}’ saved [${bytes}/${bytes}]\n\n`);
      } catch (e) {
        if (!(e instanceof NetRefusal)) throw e;
        await log(`wget: ${e.message}\n`);
        status = e.curlCode === 63 ? 3 : 4;
      } finally {
        (writer as AtomicWriter | null)?.abort();
      }
    }
    if (shared) (shared as AtomicWriter).commit();
    return status;
  },
});

function reasonOf(head: string): string {
  return head.split('\r\n')[0]!.replace(/^HTTP\/\S+ \d+ ?/, '');
}

export default def;
