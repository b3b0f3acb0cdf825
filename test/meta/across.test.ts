/**
 * The write order across processes (src/api/across.ts) with the embedded store: writers of
 * different files of one zone run together in this process under one hold of the zone (a
 * lease), while another process that holds the zone keeps them all out, and a zone-wide writer
 * still runs alone.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AcrossProcesses } from '../../src/api/across.js';
import { EmbeddedMetaStore, PostgresMetaStore } from '../../src/meta/index.js';
import type { QuotaLedger } from '../../src/zones/quota.js';
import { tempDir } from '../helpers.js';
import { usePostgres } from './pg.js';

const tick = () => new Promise((r) => setTimeout(r, 20));

function setup() {
  const base = tempDir();
  const root = path.join(base, 'users', 'u', 'Storage');
  const store = new EmbeddedMetaStore(base);
  const across = new AcrossProcesses(store, base, {} as QuotaLedger);
  // the zone's lock file, as the store names it
  const lockFileOf = () => fs.readdirSync(path.join(base, 'locks')).filter((n) => n.startsWith('zone-') && n.endsWith('.lock'));
  return { base, root, across, lockFileOf };
}

describe('AcrossProcesses with the embedded store', () => {
  it('two one-file writers of one zone run at once (the second starts before the first ends)', async () => {
    const { root, across, lockFileOf } = setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    const first = across.run([root], async () => {
      seen.push('first start');
      await gate; // ends only once the second has started
      seen.push('first end');
    }, true);
    const second = across.run([root], async () => {
      seen.push('second start');
      expect(lockFileOf()).toHaveLength(1); // the zone is held across processes meanwhile
      release();
    }, true);
    await Promise.race([Promise.all([first, second]), new Promise((_, rej) => setTimeout(() => rej(new Error('the second writer waited for the first')), 5000))]);
    expect(seen).toEqual(['first start', 'second start', 'first end']);
    expect(lockFileOf()).toEqual([]); // released once both ended
  });

  it('another process holding the zone keeps every writer out until it lets go; a zone-wide writer runs alone', async () => {
    const { base, root, across } = setup();
    // the other process holds the zone's lock file (pid 1 is alive: its lock is not stale)
    const zoneLock = await lockOf(base, across, root);
    fs.writeFileSync(zoneLock, '1');
    const ran: string[] = [];
    const a = across.run([root], async () => { ran.push('a'); }, true);
    const b = across.run([root], async () => { ran.push('b'); }, true);
    await tick(); await tick();
    expect(ran).toEqual([]);
    fs.rmSync(zoneLock);
    await Promise.all([a, b]);
    expect(ran.sort()).toEqual(['a', 'b']);

    // a zone-wide writer waits for the one-file writers running, and they for it
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const order: string[] = [];
    const f = across.run([root], async () => { order.push('file start'); await gate; order.push('file end'); }, true);
    const w = across.run([root], async () => { order.push('whole'); });
    await tick(); await tick();
    expect(order).toEqual(['file start']);
    release();
    await Promise.all([f, w]);
    expect(order).toEqual(['file start', 'file end', 'whole']);
  });
});

/** The path of the zone's lock file (made by a run, seen while it holds). */
async function lockOf(base: string, across: AcrossProcesses, root: string): Promise<string> {
  let name = '';
  await across.run([root], async () => {
    name = fs.readdirSync(path.join(base, 'locks')).find((n) => n.startsWith('zone-') && n.endsWith('.lock'))!;
  });
  return path.join(base, 'locks', name);
}

describe('AcrossProcesses with PostgreSQL', () => {
  const pg = usePostgres();
  it('more zones of one-file writers than the pool has connections: the writers\' store calls use their lease\'s connection, none waits for the pool', async () => {
    const base = tempDir();
    const store = new PostgresMetaStore(await pg().freshDb(), 2);
    await store.open();
    const across = new AcrossProcesses(store, base, {} as QuotaLedger);
    try {
      const runs: Promise<number>[] = [];
      for (let z = 0; z < 6; z++) {
        const root = path.join(base, 'groups', `g${z}`);
        for (let w = 0; w < 2; w++) {
          runs.push(across.run([root], async () => {
            await store.locks(`groups/g${z}`, [`f${w}`]);
            await store.putOwnerships(`groups/g${z}`, [{ path: `f${w}`, owner: 'u', mode: 'group' }]);
            return z;
          }, true));
        }
      }
      expect(await Promise.all(runs)).toHaveLength(12);
      expect((await store.ownershipsUnder('groups/g5', '')).map((r) => r.path)).toEqual(['f0', 'f1']);
    } finally {
      await store.close();
    }
  }, 120_000);
});
