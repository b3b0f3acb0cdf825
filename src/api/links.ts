/**
 * The link methods (issue #21): link_create, link_list, link_delete and save_result_page. They
 * serve in the main thread (the link store and its secret live there, beside `nosh http`);
 * save_result_page writes its report through the worker tool `write`, in the zone's write order.
 */
import { z } from 'zod';
import { NoshError } from '../errors.js';
import { roleMayWrite, type Context } from '../zones/context.js';
import { ContextSchema } from '../zones/context-schema.js';
import type { Zone } from '../zones/workspace.js';
import { Vfs, VfsError, baseName } from '../vfs/index.js';
import { Links, linksFor, type LinkRecord } from '../links/index.js';
import type { HostEngine } from './method.js';
import type { HostMethod } from './host.js';
import { orderKey } from './write-order.js';

const Ctx = { context: ContextSchema.optional().describe('Who is calling: user, conversation, session, groups, role.') };

/** The links of the engine's base. */
export function linksOf(engine: Pick<HostEngine, 'config' | 'workspace' | 'meta'>): Links {
  return linksFor(engine.meta, engine.workspace.base, engine.config.links);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

function shown(l: Links, r: LinkRecord, now: number) {
  return {
    id: r.id, zone: r.zone, path: r.path, kind: r.kind, url: l.url(r), download: r.download,
    created_at: iso(r.created_at), expires_at: iso(r.expires_at), expired: now >= r.expires_at, hits: r.hits,
  };
}

function markdownLink(name: string, url: string): string {
  return `[${name.replace(/([\\[\]])/g, '\\$1')}](${url})`;
}

async function zoneFor(engine: HostEngine, name: string | undefined, ctx: Context): Promise<Zone> {
  const known = engine.zoneOf({ zone: name, context: ctx });
  return known instanceof Promise ? await known : known;
}

/** The identity a link keeps: who made it, without the role (a link only reads). */
function keptContext(engine: HostEngine, ctx: Context): LinkRecord['context'] {
  const c: LinkRecord['context'] = { user: engine.workspace.userOf(ctx) };
  if (ctx.conversation !== undefined) c.conversation = ctx.conversation;
  if (ctx.session !== undefined) c.session = ctx.session;
  if (ctx.groups !== undefined) c.groups = ctx.groups;
  return c;
}

/** Make a link to an existing file or folder of a zone the caller can read. */
export async function createLink(engine: HostEngine, args: { zone?: string; path: string; expires_in?: number; download?: boolean; context?: Context }) {
  const ctx = args.context ?? {};
  if (!roleMayWrite(ctx.role)) {
    throw new NoshError('ZONE_READONLY', `link_create: the ${ctx.role} role is read-only`, 'Links are made by a developer-role caller.', { role: ctx.role });
  }
  const max = engine.config.links.maxExpiresSeconds;
  const seconds = args.expires_in ?? Math.min(engine.config.links.defaultExpiresSeconds, max);
  if (seconds > max) {
    throw new NoshError('INVALID_ARGUMENT', `link_create: expires_in ${seconds} is over the maximum of ${max} seconds`, `Give expires_in from 1 to ${max} (default ${engine.config.links.defaultExpiresSeconds}).`, { max });
  }
  const zone = await zoneFor(engine, args.zone, ctx);
  const vfs = new Vfs(zone.root, zone.policy);
  let vpath: string;
  let kind: LinkRecord['kind'];
  try {
    const r = vfs.resolveExisting(args.path, '/', { followFinal: zone.policy.followSymlinks });
    if (r.stat.isSymbolicLink()) throw new VfsError('ESYMLINK', args.path);
    if (!r.stat.isFile() && !r.stat.isDirectory()) throw new VfsError('ESPECIAL', args.path);
    vpath = r.vpath;
    kind = r.stat.isDirectory() ? 'dir' : 'file';
  } catch (e) {
    if (e instanceof VfsError) throw new NoshError(e.code, e.message, e.code === 'FILE_NOT_FOUND' ? 'Check the path with list or exec "ls"; a link is made to an existing file or folder.' : 'Link a file or folder the zone lets you read.', { path: args.path });
    throw e;
  }
  const links = linksOf(engine);
  const now = nowSeconds();
  const rec: LinkRecord = {
    id: Links.newId(), scope: `user:${engine.workspace.userOf(ctx)}`, zone: zone.name, context: keptContext(engine, ctx),
    path: vpath, kind, download: args.download === true, created_at: now, expires_at: now + seconds, hits: 0,
  };
  await links.create(rec);
  const url = links.url(rec);
  const name = vpath === '/' ? zone.name : baseName(vpath);
  return { id: rec.id, url, markdown: markdownLink(name, url), expires_at: iso(rec.expires_at), zone: rec.zone, path: vpath, kind, download: rec.download };
}

const REPLY_CONTENT_CHARS = 4000;

const WRAPPER_STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;color:#222}' +
  'table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem}pre{background:#f4f4f4;padding:.8rem;overflow:auto}';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** An HTML report as written: a whole page as given, a fragment inside a small page (title, styles). */
export function reportHtml(title: string, content: string): string {
  if (/<html[\s>]/i.test(content) || /^\s*<!doctype/i.test(content)) return content;
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${WRAPPER_STYLE}</style></head>\n` +
    `<body>\n<h1>${escapeHtml(title)}</h1>\n${content}\n</body></html>\n`;
}

function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}_${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

export const LINK_METHODS: HostMethod[] = [
  {
    name: 'link_create',
    description: 'Make a shareable link to a file or folder: a signed URL that expires (default 24 h, at most 7 days) and can be revoked with link_delete. ' +
      'A folder link opens an HTML listing. download: true makes the browser save the file. Returns url, markdown ([name](url)) to paste in your reply, expires_at and id.',
    input: z.object({
      ...Ctx,
      zone: z.string().optional().describe('Zone of the file (default storage).'),
      path: z.string().min(1).describe('File or folder to link, inside the zone.'),
      expires_in: z.number().int().min(1).optional().describe('Seconds until the link stops working (default 86400; at most 604800, 7 days).'),
      download: z.boolean().optional().describe('Serve the file as a download (Content-Disposition: attachment) instead of showing it.'),
    }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    runs: 'main',
    async run(engine, args) {
      const data = await createLink(engine, args as Parameters<typeof createLink>[1]);
      return { data, message: `link to ${data.path} (expires ${data.expires_at})` };
    },
  },
  {
    name: 'link_list',
    description: 'Your shareable links: id, zone, path, url, expiry (expired ones included until deleted) and hits.',
    input: z.object({ ...Ctx }).strict(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const ctx = (args.context ?? {}) as Context;
      const links = linksOf(engine);
      const now = nowSeconds();
      const rows = (await links.list(`user:${engine.workspace.userOf(ctx)}`)).map((r) => shown(links, r, now));
      return { data: { links: rows }, message: `${rows.length} link${rows.length === 1 ? '' : 's'}` };
    },
  },
  {
    name: 'link_delete',
    description: 'Revoke one of your links by id (from link_create or link_list): it stops working at once.',
    input: z.object({ ...Ctx, id: z.string().min(1).max(64).describe('The link id.') }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const ctx = (args.context ?? {}) as Context;
      const links = linksOf(engine);
      const rec = await links.get(String(args.id));
      if (!rec || rec.scope !== `user:${engine.workspace.userOf(ctx)}`) {
        throw new NoshError('FILE_NOT_FOUND', `no link of yours with id '${String(args.id).slice(0, 64)}'`, 'List your links with link_list.', { id: args.id });
      }
      await links.delete(rec.id);
      return { data: { id: rec.id, deleted: true, path: rec.path, zone: rec.zone }, message: `link ${rec.id} revoked` };
    },
  },
  {
    name: 'save_result_page',
    description: 'Save a report (Markdown or HTML) to the output zone as report_<time>_<id>.md|html and get a link to show the user. ' +
      'Markdown is rendered to a page (tables, code blocks); HTML is shown sandboxed (no scripts run). An HTML fragment gets a small page around it. ' +
      'Returns url, markdown ([title](url)), expires_at, path and, for Markdown, the content (capped).',
    input: z.object({
      ...Ctx,
      title: z.string().min(1).max(200).describe('Title of the report.'),
      content: z.string().describe('The report: Markdown text or HTML.'),
      format: z.enum(['markdown', 'html']).optional().describe('markdown (default) or html.'),
      expires_in: z.number().int().min(1).optional().describe('Seconds until the link stops working (default 86400; at most 7 days).'),
    }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    runs: 'worker',
    async run(engine, args, call) {
      const ctx = (args.context ?? {}) as Context;
      const title = String(args.title);
      const format = (args.format as string | undefined) ?? 'markdown';
      let content = String(args.content);
      const capKb = engine.config.resultPageMaxKb;
      if (Buffer.byteLength(content) > capKb * 1024) {
        throw new NoshError('FILE_TOO_LARGE', `save_result_page: the content is over ${capKb} KB`, 'Shorten the report (summarise, or link the data files with link_create instead of inlining them).', { limit_kb: capKb });
      }
      if (format === 'html') content = reportHtml(title, content);
      else if (!/^\s*#\s/.test(content)) content = `# ${title}\n\n${content}`;
      const zone = await zoneFor(engine, 'output', ctx);
      const name = `report_${stamp(new Date())}_${Links.newId().slice(0, 8)}.${format === 'html' ? 'html' : 'md'}`;
      const key = orderKey(zone);
      const out = await engine.writes.file(key.root, `${key.prefix}/${name}`, () =>
        engine.runZoneTool(zone, 'write', { path: `/${name}`, content, mode: 'create' }, { context: ctx, timeoutMs: call.timeoutMs,
          commit: { method: 'save_result_page', message: args.message as string | undefined } }));
      const link = await createLink(engine, { zone: 'output', path: `/${name}`, expires_in: args.expires_in as number | undefined, context: ctx });
      const reply = format === 'markdown'
        ? { content: content.slice(0, REPLY_CONTENT_CHARS), ...(content.length > REPLY_CONTENT_CHARS ? { content_truncated: true } : {}) } : {};
      return {
        data: { ...link, markdown: markdownLink(title, link.url), format, bytes: Buffer.byteLength(content), ...reply },
        message: `saved ${name} in output; link expires ${link.expires_at}`,
        changes: out.changes,
      };
    },
  },
];
