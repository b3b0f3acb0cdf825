/** `nosh http` (the link server) and `nosh link create|list|delete` (links, for people). */
import { parseArgs } from 'node:util';
import type { Context, Nosh, NoshConfig } from '../index.js';

type WorkspaceValues = { root?: string; config?: string; base?: string; zone?: string; user?: string; conversation?: string; session?: string; role?: string };

/** run.ts's workspace flags (the same names; run.ts reads them with the functions it lends). */
const WORKSPACE = {
  root: { type: 'string' }, config: { type: 'string' }, base: { type: 'string' }, zone: { type: 'string' }, user: { type: 'string' },
  conversation: { type: 'string' }, session: { type: 'string' }, role: { type: 'string' }, help: { type: 'boolean', short: 'h' },
} as const;

/** What run.ts lends: its workspace flags and how it reads them (passed in, so that the two files make no import cycle). */
export interface WorkspaceFlags {
  rawConfigFrom(values: WorkspaceValues): unknown;
  configFrom(values: WorkspaceValues, raw: unknown): Promise<NoshConfig>;
  defaultsFrom(values: WorkspaceValues): Promise<{ zone?: string; context?: Context }>;
}

const HTTP_USAGE = `Usage: nosh http [WORKSPACE] [--host 127.0.0.1] [--port 8080] [--public-url URL] [--quiet]
Serves the links made with link_create / save_result_page / nosh link create:
  GET|HEAD /l/<id>?t=<token>  and  /files/out?path=<path>&token=<token>
Binds 127.0.0.1 unless --host says otherwise. One log line per request on stderr (no tokens).
`;

const LINK_USAGE = `Usage:
  nosh link create PATH [--zone Z] [--expires SECONDS] [--download] [WORKSPACE] [--json]
  nosh link list [WORKSPACE] [--json]
  nosh link delete ID [WORKSPACE] [--json]
`;

async function openRaw(ws: WorkspaceFlags, values: WorkspaceValues, extra: (cfg: NoshConfig) => NoshConfig = (c) => c): Promise<Nosh> {
  const cfg = await ws.configFrom(values, ws.rawConfigFrom(values));
  const { createNosh } = await import('../nosh.js');
  return createNosh({ ...extra(cfg), threads: 1 });
}

function withPublicUrl(url: string | undefined) {
  return (cfg: NoshConfig): NoshConfig => (url === undefined ? cfg : { ...cfg, links: { ...cfg.links, publicUrl: url } });
}

export async function httpCommand(args: string[], ws: WorkspaceFlags): Promise<number> {
  const { values } = parseArgs({ args, options: { ...WORKSPACE, host: { type: 'string' }, port: { type: 'string' }, 'public-url': { type: 'string' }, quiet: { type: 'boolean' } }, strict: true });
  if (values.help) {
    process.stdout.write(HTTP_USAGE);
    return 0;
  }
  const port = values.port === undefined ? 8080 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port takes a port number (0: any free port)');
  const nosh = await openRaw(ws, values, withPublicUrl(values['public-url']));
  const { startHttpServer } = await import('../http/server.js');
  const log = values.quiet ? undefined : (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
  let srv: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    srv = await startHttpServer(nosh, { host: values.host, port, log });
  } catch (e) {
    await nosh.close();
    throw new Error(`http: cannot listen: ${(e as Error).message}`);
  }
  process.stdout.write(`nosh http: serving links at ${srv.url}${values['public-url'] ? ` (public URL ${values['public-url']})` : ''}\n`);
  // The session TTL cleanup runs in every long-lived nosh process (sessionSweepSeconds).
  const sweep = (await import('../api/upkeep.js')).startSessionSweep(nosh);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await sweep.stop();
  await srv.close();
  await nosh.close();
  return 0;
}

export async function linkCommand(args: string[], ws: WorkspaceFlags): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, strict: true,
    options: { ...WORKSPACE, expires: { type: 'string' }, download: { type: 'boolean' }, json: { type: 'boolean' }, 'public-url': { type: 'string' } } });
  if (values.help || action === undefined || action === 'help') {
    process.stdout.write(LINK_USAGE);
    return action === undefined ? 2 : 0;
  }
  const defaults = await ws.defaultsFrom(values);
  let method: string;
  let params: Record<string, unknown>;
  switch (action) {
    case 'create': {
      if (positionals.length !== 1) throw new Error('link create takes one PATH');
      const expires = values.expires === undefined ? undefined : Number(values.expires);
      if (expires !== undefined && !(Number.isInteger(expires) && expires > 0)) throw new Error('--expires takes seconds, a positive whole number');
      method = 'link_create';
      params = { path: positionals[0], ...(defaults.zone ? { zone: defaults.zone } : {}), ...(expires ? { expires_in: expires } : {}), ...(values.download ? { download: true } : {}) };
      break;
    }
    case 'list':
      method = 'link_list';
      params = {};
      break;
    case 'delete':
      if (positionals.length !== 1) throw new Error('link delete takes one ID');
      method = 'link_delete';
      params = { id: positionals[0] };
      break;
    default:
      process.stderr.write(`nosh: link: unknown action '${action}'\n${LINK_USAGE}`);
      return 2;
  }
  const nosh = await openRaw(ws, values, withPublicUrl(values['public-url']));
  try {
    const res = await nosh.call(method, { ...params, ...(defaults.context ? { context: defaults.context } : {}) });
    if (values.json) {
      process.stdout.write(JSON.stringify(res) + '\n');
      return res.success ? 0 : 2;
    }
    if (!res.success) {
      process.stderr.write(`nosh: ${res.error.code}: ${res.error.message}\n${res.error.hint ? `hint: ${res.error.hint}\n` : ''}`);
      return 2;
    }
    const d = res.data as Record<string, unknown>;
    if (action === 'create') process.stdout.write(`${d.url}\nid ${d.id}, expires ${d.expires_at}\n`);
    else if (action === 'delete') process.stdout.write(`revoked ${d.id}\n`);
    else {
      for (const l of (d.links as Record<string, unknown>[])) {
        process.stdout.write(`${l.id}\t${l.zone}:${l.path}\t${l.expired ? 'expired' : `expires ${l.expires_at}`}\t${l.hits} hits\t${l.url}\n`);
      }
    }
    return 0;
  } finally {
    await nosh.close();
  }
}
