import { defineCommand, parseArgs, UsageError, type CommandDef } from '../../src/command/index.js';
import type { AtomicWriter } from '../../src/vfs/vfs.js';
import { download } from '../../src/net/fetch.js';
import { NetRefusal } from '../../src/net/policy.js';

/**
 * curl 7.88 for downloads, under the workspace's network policy (config `network`): GET and
 * HEAD over http(s) to the hosts of the allow-list only; files written through the Vfs
 * (quota, blocked names, atomic). There is no progress meter (no terminal): -s only decides,
 * with -S, whether errors are printed. A refusal of the policy is curl's error 7 with a
 * `nosh:` reason.
 */
const def: CommandDef = defineCommand({
  name: 'curl',
  summary: 'Transfer a URL (http, https; GET or HEAD) from the hosts of the network allow-list.',
  usage: '[options] URL...',
  mutates: (args) => {
    try {
      const o = parseArgs(def, args).opts;
      return o.has('output') || o.has('remote');
    } catch {
      return false;
    }
  },
  usageStatus: 2,
  flags: [
    { key: 'output', short: 'o', long: 'output', kind: 'string', arg: 'FILE', help: 'Write to FILE instead of stdout' },
    { key: 'remote', short: 'O', long: 'remote-name', help: 'Write output to a file named as the remote file' },
    { key: 'silent', short: 's', long: 'silent', help: 'Silent mode' },
    { key: 'showError', short: 'S', long: 'show-error', help: 'Show error even when -s is used' },
    { key: 'location', short: 'L', long: 'location', help: 'Follow redirects (within the allow-list)' },
    { key: 'fail', short: 'f', long: 'fail', help: 'Fail fast with no output on HTTP errors' },
    { key: 'head', short: 'I', long: 'head', help: 'Show document info only' },
    { key: 'maxFilesize', long: 'max-filesize', kind: 'string', arg: 'BYTES', help: 'Maximum file size to download' },
    { key: 'noConfig', short: 'q', long: 'disable', help: 'Disable .curlrc (there is none)' },
  ],
  async run(ctx) {
    const v = ctx.values as { output?: string; remote?: boolean; silent?: boolean; showError?: boolean; location?: boolean; fail?: boolean; head?: boolean; maxFilesize?: string };
    const urls = ctx.operands;
    if (urls.length === 0) {
      await ctx.stderr.write('curl: no URL specified!\ncurl: try \'curl --help\' for more information\n');
      return 2;
    }
    const quiet = v.silent === true && v.showError !== true;
    const fail = async (code: number, msg: string) => {
      if (!quiet) await ctx.stderr.write(`curl: (${code}) ${msg}\n`);
      return code;
    };
    const policy = ctx.limits.network;
    if (!policy) return fail(7, 'nosh: network access is disabled in this workspace (the config\'s network is "disabled"; "safe" with an allow-list enables it)');
    let maxBytes = policy.maxBytes;
    if (v.maxFilesize !== undefined) {
      const m = /^(\d+)([kKmMgG]?)$/.exec(v.maxFilesize);
      if (!m) throw new UsageError(`option --max-filesize: expected a proper numerical parameter`);
      maxBytes = Math.min(maxBytes, Number(m[1]) * ({ '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 } as Record<string, number>)[m[2]!.toLowerCase()]!);
    }
    let status = 0;
    for (const [i, url] of urls.entries()) {
      let writer: AtomicWriter | null = null;
      let target = i === 0 ? v.output : undefined;
      if (v.remote && target === undefined) {
        const name = decodeURIComponent(new URL(url, 'http://x').pathname.split('/').pop() ?? '');
        if (!name) { status = await fail(23, 'Remote file name has no length!'); continue; }
        target = name;
      }
      try {
        const { final } = await download(policy, url, {
          method: v.head ? 'HEAD' : 'GET', follow: v.location === true, maxBytes, userAgent: 'curl/7.88.1', signal: ctx.signal,
          onHead: async (hop) => { if (v.head) await ctx.stdout.write(hop.head); },
          wantBody: (hop) => !(v.fail && hop.status >= 400),
          onChunk: async (chunk) => {
            if (target === undefined) return ctx.stdout.write(chunk);
            writer ??= ctx.fs.createWriter(target, ctx.cwd);
            writer.write(chunk);
          },
        });
        if (v.fail && final.status >= 400) {
          status = await fail(22, `The requested URL returned error: ${final.status}`);
          continue;
        }
        if (target !== undefined && !v.head) {
          writer ??= ctx.fs.createWriter(target, ctx.cwd);
          (writer as AtomicWriter).commit();
          writer = null;
        }
      } catch (e) {
        if (!(e instanceof NetRefusal)) throw e;
        status = await fail(e.curlCode, e.message);
      } finally {
        (writer as AtomicWriter | null)?.abort();
      }
    }
    return status;
  },
});

export default def;
