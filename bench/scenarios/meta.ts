/**
 * The metadata store's cost on a write (issue #20): one `write` (overwrite, 1 KiB) in a group
 * zone against the same write in storage, with the embedded store (access_auth.sqlite and its
 * lock files) and with PostgreSQL on the same machine (a server the bench starts itself in a
 * temp folder; the rows are skipped with a note when it cannot start). Every write holds its
 * zone's order across processes and syncs its quota's usage with the store. Both zones hold
 * 1000 other files before timing; in the group zone they have ownership rows of five users
 * (half of them mode `owner`, so they restrict the writer), and the 50 files written in turn
 * were created by the writer first: each timed write is an overwrite by the file's owner,
 * which looks up its row and the file's lock (the ownership check) before the worker runs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createNosh, type Nosh } from '../../src/index.js';
import { measure } from '../measure.js';
import { startPostgres, type PgServer } from '../../test/meta/pg-server.js';
import type { Cell, Ctx, Scenario } from './common.js';

const ALICE = { user: 'alice', conversation: 'bench', groups: ['eng'] };
const USERS = ['alice', 'bob', 'carol', 'dave', 'erin'];
const CONTENT = 'x'.repeat(1024);
const FILES = 50;

/** Before timing: 1000 other files (in a group zone, 100 per user and mode: ownership rows) and the writer's 50. */
async function seed(nosh: Nosh, zone: string): Promise<void> {
  const ok = (r: { success: boolean; data?: any; error?: unknown }) => {
    if (!r.success || (r.data?.exit_code ?? 0) !== 0) throw new Error(`seeding: ${JSON.stringify(r.error ?? r.data)}`);
  };
  const names = (u: string, m: string) => Array.from({ length: 100 }, (_, i) => `${u}-${m}-${i}.txt`).join(' ');
  if (zone === 'storage') {
    for (let i = 0; i < 10; i++) ok(await nosh.call('exec', { context: ALICE, zone, command: `touch ${names('f', String(i))}` }));
  } else {
    for (const u of USERS) {
      for (const m of ['owner', 'group'] as const) {
        ok(await nosh.call('exec', { context: { user: u, conversation: 'seed', groups: ['eng'] }, zone, group_mode: m, command: `touch ${names(u, m)}` }));
      }
    }
  }
  for (let i = 0; i < FILES; i++) ok(await nosh.call('write', { context: ALICE, zone, path: `bench-${i}.txt`, content: CONTENT }));
}

async function writeCell(ctx: Ctx, label: string, nosh: Nosh, zone: string): Promise<Cell> {
  ctx.progress(`meta: ${label}`);
  let n = 0;
  const one = async () => {
    const r = await nosh.call('write', { context: ALICE, zone, path: `bench-${n++ % FILES}.txt`, content: CONTENT });
    if (!r.success) throw new Error(JSON.stringify(r.error));
  };
  try {
    await one();
    return { system: 'nosh', label, status: 'ok', stats: await measure(one, ctx.profile.lib) };
  } catch (e) {
    return { system: 'nosh', label, status: 'error', note: `error: ${(e as Error).message}` };
  }
}

/** The bench's PostgreSQL server: started by the first row that needs it, stopped after the last. */
let server: Promise<PgServer> | undefined;

/**
 * One row. Storage is not versioned and a group zone is by default (a git commit per write):
 * the group rows without `git` turn its versioning off, so that they differ from storage by
 * the ownership check alone; the `git` rows are a group zone as configured by default.
 */
function row(zone: 'storage' | 'group:eng', store: 'embedded' | 'PostgreSQL', git = false, last = false): Scenario {
  const where = zone === 'storage' ? 'storage' : git ? 'a group zone (versioned, the default)' : 'a group zone (unversioned, as storage)';
  const id = `meta/write-${zone === 'storage' ? 'storage' : git ? 'group-git' : 'group'}-${store === 'embedded' ? 'embedded' : 'pg'}`;
  const title = `write 1 KiB in ${where}, ${store} metadata store`;
  return {
    id, group: 'meta', title,
    async run(ctx) {
      const label = `${where}, ${store}`;
      let metadata: { url: string } | undefined;
      try {
        if (store === 'PostgreSQL') {
          server ??= startPostgres();
          metadata = { url: await (await server).freshDb() };
        }
      } catch (e) {
        const note = `skipped: PostgreSQL could not start here (${(e as Error).message.split('\n')[0]})`;
        return { id, group: 'meta', title, better: 'lower', cells: [{ system: 'nosh', label, status: 'skipped', note }] };
      }
      const base = fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-bench-meta-'));
      const nosh = await createNosh({ base, groups: { eng: USERS }, ...(git ? {} : { zones: { group: { versioned: false } } }), ...(metadata ? { metadata } : {}) });
      try {
        ctx.progress(`meta: ${label}: seeding 1050 files`);
        await seed(nosh, zone);
        return { id, group: 'meta', title, better: 'lower', cells: [await writeCell(ctx, label, nosh, zone)] };
      } finally {
        await nosh.close();
        fs.rmSync(base, { recursive: true, force: true });
        if (last && server) await (await server.catch(() => undefined))?.destroy();
      }
    },
  };
}

export const metaScenarios: Scenario[] = [
  row('storage', 'embedded'), row('group:eng', 'embedded'), row('group:eng', 'embedded', true),
  row('storage', 'PostgreSQL'), row('group:eng', 'PostgreSQL'), row('group:eng', 'PostgreSQL', true, true),
];
