/**
 * The metadata store's cost on a write (issue #20): one `write` (overwrite, 1 KiB) in a group
 * zone against the same write in storage, with the embedded store (access_auth.sqlite and its
 * lock files) and with PostgreSQL on the same machine (a server the bench starts itself in a
 * temp folder; the rows are skipped with a note when it cannot start). Every write holds its
 * zone's order across processes and syncs its quota's usage with the store; group writes
 * also carry the ownership rules once they are enforced.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createNosh, type Nosh } from '../../src/index.js';
import { measure } from '../measure.js';
import { startPostgres, type PgServer } from '../../test/meta/pg-server.js';
import type { Cell, Ctx, Scenario } from './common.js';

const ALICE = { user: 'alice', conversation: 'bench', groups: ['eng'] };
const CONTENT = 'x'.repeat(1024);

async function writeCell(ctx: Ctx, label: string, nosh: Nosh, zone: string): Promise<Cell> {
  ctx.progress(`meta: ${label}`);
  let n = 0;
  const one = async () => {
    const r = await nosh.call('write', { context: ALICE, zone, path: `bench-${n++ % 50}.txt`, content: CONTENT });
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

function row(zone: 'storage' | 'group:eng', store: 'embedded' | 'PostgreSQL', last = false): Scenario {
  const where = zone === 'storage' ? 'storage' : 'a group zone';
  const id = `meta/write-${zone === 'storage' ? 'storage' : 'group'}-${store === 'embedded' ? 'embedded' : 'pg'}`;
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
      const nosh = await createNosh({ base, groups: { eng: ['alice'] }, ...(metadata ? { metadata } : {}) });
      try {
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
  row('storage', 'embedded'), row('group:eng', 'embedded'), row('storage', 'PostgreSQL'), row('group:eng', 'PostgreSQL', true),
];
