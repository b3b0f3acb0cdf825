/**
 * The versioning methods (versioned zones: documents, group:<id>): history, diff_versions,
 * restore, undo. They read the zone's repository in the main thread; restore and undo change
 * files through a worker tool (_apply) in the zone's write order, so they are one new commit
 * each: history only grows.
 */
import { z } from 'zod';
import { createTwoFilesPatch } from 'diff';
import { NoshError } from '../errors.js';
import type { Context } from '../zones/context.js';
import { ContextSchema } from '../zones/context-schema.js';
import type { Zone } from '../zones/workspace.js';
import { changesOf, mustResolve, pathParts, walkHistory, type FileChange } from '../versioning/history.js';
import { CONVERSATION_TRAILER } from '../versioning/commit.js';
import type { CommitInfo, Repo } from '../versioning/repo.js';
import type { HostEngine } from './method.js';
import type { HostMethod } from './host.js';
import { orderKey } from './write-order.js';

const Common = {
  context: ContextSchema.optional().describe('Who is calling: user, conversation, session, groups, role.'),
};

async function zoneAndRepo(engine: HostEngine, args: Record<string, unknown>): Promise<{ zone: Zone; repo: Repo; ctx: Context }> {
  const ctx = (args.context ?? {}) as Context;
  const known = engine.zoneOf({ zone: (args.zone as string | undefined) ?? 'documents', context: ctx });
  const zone = known instanceof Promise ? await known : known;
  return { zone, repo: await engine.openRepo(zone, ctx), ctx };
}

function commitData(c: CommitInfo, changes: FileChange[]) {
  const [subject, ...rest] = c.message.replace(/\n+$/, '').split('\n');
  return {
    id: c.oid, short_id: c.oid.slice(0, 7), author: c.author.name, email: c.author.email,
    date: new Date(c.author.timestamp * 1000).toISOString(), message: subject ?? '', body: rest.join('\n').trim(),
    changes: changes.map((x) => ({ status: x.status, path: x.path })),
  };
}

async function blobAt(repo: Repo, commit: string | undefined, file: string): Promise<Uint8Array | undefined> {
  if (commit === undefined) return undefined;
  const e = await repo.entryAt((await repo.readCommit(commit)).tree, file);
  if (!e) return undefined;
  if (e.type === 'tree') throw new NoshError('IS_A_DIRECTORY', `${file} is a folder in that version`, 'Give a file path.', { path: '/' + file });
  return repo.readBlob(e.oid);
}

function unified(file: string, a: Uint8Array | undefined, b: Uint8Array | undefined): string {
  const ta = a ? Buffer.from(a).toString('utf8') : '';
  const tb = b ? Buffer.from(b).toString('utf8') : '';
  if (ta === tb) return '';
  if ((a && a.includes(0)) || (b && b.includes(0))) return `Binary files a/${file} and b/${file} differ\n`;
  return createTwoFilesPatch(a ? `a/${file}` : '/dev/null', b ? `b/${file}` : '/dev/null', ta, tb, '', '', { context: 3 })
    .split('\n').slice(1).join('\n'); // no "===" line
}

function filePath(p: unknown): string {
  const parts = pathParts(String(p));
  if (parts.length === 0 || parts.includes('..')) throw new NoshError('INVALID_ARGUMENT', 'give a file path inside the zone', 'e.g. path: "notes.md".');
  return parts.join('/');
}

/** Set files through the zone's write order: one call, one commit. */
async function apply(engine: HostEngine, zone: Zone, ctx: Context, files: { path: string; content_base64: string | null }[], method: string, message: string, timeoutMs: number) {
  return engine.runZoneTool(zone, '_apply', { files }, { context: ctx, timeoutMs, commit: { method, message } });
}

export const VERSION_METHODS: HostMethod[] = [
  {
    name: 'history',
    description: 'Versions of a versioned zone (documents, group:<id>), newest first: id, author, date, message and changed files; path narrows to one file or folder. Page with cursor.',
    input: z.object({
      ...Common,
      zone: z.string().optional().describe('A versioned zone (default documents).'),
      path: z.string().optional().describe('Only versions that changed this file or folder.'),
      limit: z.number().int().min(1).max(200).optional().describe('Versions per page (default 20).'),
      cursor: z.string().regex(/^[0-9a-f]{40}$/).optional().describe('next_cursor of the previous page.'),
    }).strict(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const { repo } = await zoneAndRepo(engine, args);
      const start = (args.cursor as string | undefined) ?? await repo.head();
      const under = args.path === undefined ? [] : pathParts(String(args.path));
      const r = await walkHistory(repo, start, { under, limit: (args.limit as number | undefined) ?? 20, maxScan: 10_000 });
      const commits = r.commits.map((x) => commitData(x.commit, x.changes));
      return { data: { commits, ...(r.next ? { next_cursor: r.next } : {}) }, message: `${commits.length} version${commits.length === 1 ? '' : 's'}` };
    },
  },
  {
    name: 'diff_versions',
    description: 'Unified diff of one file between two versions of a versioned zone (ids from history, HEAD, HEAD~N, tags); `to` defaults to HEAD (the current version).',
    input: z.object({
      ...Common,
      zone: z.string().optional().describe('A versioned zone (default documents).'),
      path: z.string().min(1).describe('The file.'),
      from: z.string().min(1).describe('The older version.'),
      to: z.string().min(1).optional().describe('The newer version (default HEAD).'),
    }).strict(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    runs: 'main',
    async run(engine, args) {
      const { repo } = await zoneAndRepo(engine, args);
      const file = filePath(args.path);
      const from = await mustResolve(repo, refOf(args.from));
      const to = await mustResolve(repo, refOf(args.to ?? 'HEAD'));
      const a = await blobAt(repo, from, file);
      const b = await blobAt(repo, to, file);
      if (!a && !b) throw new NoshError('FILE_NOT_FOUND', `${file} is in neither version`, 'List the versions that changed it with history {path}.', { path: '/' + file });
      const diff = unified(file, a, b);
      return { data: { path: '/' + file, from, to, diff }, message: diff === '' ? 'no difference' : 'ok' };
    },
  },
  {
    name: 'restore',
    description: 'Bring one file back as it was in a version (of a versioned zone): a new version is made (history is never rewritten). A file absent in that version is removed. Returns the diff applied.',
    input: z.object({
      ...Common,
      zone: z.string().optional().describe('A versioned zone (default documents).'),
      path: z.string().min(1).describe('The file to restore.'),
      version: z.string().min(1).describe('The version to take it from (id from history, HEAD~N, a tag).'),
    }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    runs: 'worker',
    async run(engine, args, call) {
      const { zone, repo, ctx } = await zoneAndRepo(engine, args);
      const file = filePath(args.path);
      return engine.writes.whole(orderKey(zone).root, async () => {
        const version = await mustResolve(repo, refOf(args.version));
        const old = await blobAt(repo, version, file);
        const now = await blobAt(repo, await repo.head(), file);
        if (!old && !now) throw new NoshError('FILE_NOT_FOUND', `${file} is not in version ${version.slice(0, 7)}`, 'List the versions that changed it with history {path}.', { path: '/' + file });
        const diff = unified(file, now, old);
        const message = (args.message as string | undefined) ?? `restore: ${file} as of ${version.slice(0, 7)}`;
        if (diff !== '') await apply(engine, zone, ctx, [{ path: '/' + file, content_base64: old ? Buffer.from(old).toString('base64') : null }], 'restore', message, call.timeoutMs);
        return { data: { path: '/' + file, version, diff }, message: diff === '' ? 'already as in that version' : `restored /${file}` };
      });
    },
  },
  {
    name: 'undo',
    description: 'Undo the last change this conversation made in a versioned zone (to `path`, or any): a new version puts back what it changed. Refused when someone else changed those files since.',
    input: z.object({
      ...Common,
      zone: z.string().optional().describe('A versioned zone (default documents).'),
      path: z.string().optional().describe('Undo the last change to this file or folder (default: the last change in the zone).'),
    }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    runs: 'worker',
    async run(engine, args, call) {
      const { zone, repo, ctx } = await zoneAndRepo(engine, args);
      if (ctx.conversation === undefined) throw new NoshError('MISSING_PARAMETER', 'undo needs a conversation in the context', 'Undo works on the changes of one conversation: pass context.conversation, or use restore with a version from history.');
      const trailer = `${CONVERSATION_TRAILER}: ${ctx.conversation}`;
      const mine = (c: CommitInfo) => c.message.split('\n').includes(trailer);
      const under = args.path === undefined ? [] : pathParts(String(args.path));
      return engine.writes.whole(orderKey(zone).root, async () => {
        const head = await repo.head();
        const found = await walkHistory(repo, head, { under, limit: 1, maxScan: 10_000, filter: mine });
        const target = found.commits[0];
        if (!target) throw new NoshError('FILE_NOT_FOUND', 'this conversation made no change to undo here', 'See history for the versions; restore takes any of them back.');
        const changes = under.length > 0 ? target.changes : await changesOf(repo, target.commit);
        const paths = new Set(changes.map((c) => c.path));
        // every later commit must leave those files alone
        let oid = head;
        while (oid !== undefined && oid !== target.commit.oid) {
          const c = await repo.readCommit(oid);
          const touched = (await changesOf(repo, c)).filter((x) => paths.has(x.path));
          if (touched.length > 0) {
            throw new NoshError('FILE_EXISTS', `${touched[0]!.path} was changed since (by ${c.author.name}: ${c.message.split('\n')[0]})`,
              'Nothing was undone. Read the file, then edit it, or restore a version explicitly.', { path: '/' + touched[0]!.path, version: c.oid });
          }
          oid = c.parent[0];
        }
        const parent = target.commit.parent[0];
        const files = await Promise.all(changes.map(async (c) => {
          const old = await blobAt(repo, parent, c.path);
          return { path: '/' + c.path, content_base64: old ? Buffer.from(old).toString('base64') : null };
        }));
        const subject = target.commit.message.split('\n')[0];
        await apply(engine, zone, ctx, files, 'undo', (args.message as string | undefined) ?? `undo: ${subject} (${target.commit.oid.slice(0, 7)})`, call.timeoutMs);
        return { data: { undone: target.commit.oid, files: changes.map((c) => '/' + c.path) }, message: `undid ${target.commit.oid.slice(0, 7)}` };
      });
    },
  },
];

/** A revision as given: one beginning with '-' is refused (it would be read as an option by git tools). */
function refOf(v: unknown): string {
  const s = String(v);
  if (s.startsWith('-')) throw new NoshError('INVALID_ARGUMENT', `a version may not begin with '-': ${s.slice(0, 50)}`, 'Give a version id from history, HEAD~N or a tag.');
  return s;
}
