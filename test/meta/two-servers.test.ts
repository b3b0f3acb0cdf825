import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { usePostgres } from './pg.js';
import { Serve } from './serve-client.js';

// Two `nosh serve` processes on one base (the compiled CLI: run `npx tsc` first), once with the
// embedded store and once with PostgreSQL: one zone's write order and one quota across both.
const pg = usePostgres();

let servers: Serve[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function twoServers(kind: string, extra: Record<string, unknown> = {}): Promise<{ base: string; a: Serve; b: Serve }> {
  const base = tempDir();
  const cfg = { base, ...extra, ...(kind === 'postgres' ? { metadata: { url: await pg().freshDb() } } : {}) };
  const file = path.join(tempDir(), 'nosh.json');
  fs.writeFileSync(file, JSON.stringify(cfg));
  const a = new Serve(['--config', file]);
  const b = new Serve(['--config', file]);
  servers.push(a, b);
  // both up (their stores open, the schema migrated) before the race
  for (const s of [a, b]) expect((await s.call('exec', { command: 'true' })).success).toBe(true);
  return { base, a, b };
}

describe.each(['embedded', 'postgres'])('two nosh serve processes on one base, %s store', (kind) => {
  it('1000 concurrent appends to one file, 500 through each (write append and exec tee -a), keep all 1000 lines', async () => {
    const { a, b } = await twoServers(kind);
    const calls: Promise<any>[] = [];
    for (let i = 0; i < 500; i++) {
      calls.push(a.call('write', { path: 'log.txt', content: `a-${i}\n`, mode: 'append' }));
      calls.push(b.call('exec', { command: 'tee -a log.txt', stdin: `b-${i}\n` }));
    }
    const envs = await Promise.all(calls);
    expect(envs.filter((e) => !e.success)).toEqual([]);
    const body = (await a.call('exec', { command: 'cat log.txt' })).data.stdout;
    const lines = body.split('\n').filter((l: string) => l !== '');
    expect(lines).toHaveLength(1000);
    expect(new Set(lines).size).toBe(1000);
    // each process's appends in the order it answered them
    const as = lines.filter((l: string) => l.startsWith('a-')).map((l: string) => Number(l.slice(2)));
    expect(as).toHaveLength(500);
  }, 600_000);

  it('together they never pass the user quota', async () => {
    const { base, a, b } = await twoServers(kind, { quotas: { userMb: 1 } });
    const chunk = 'x'.repeat(100 * 1024);
    const calls: Promise<any>[] = [];
    for (let i = 0; i < 12; i++) {
      calls.push(a.call('write', { path: `a${i}.bin`, content: chunk }));
      calls.push(b.call('write', { path: `b${i}.bin`, content: chunk }));
    }
    const envs = await Promise.all(calls);
    const ok = envs.filter((e) => e.success).length;
    const refused = envs.filter((e) => !e.success);
    for (const e of refused) expect(e.error.code).toBe('QUOTA_EXCEEDED');
    expect(refused.length).toBeGreaterThan(0);
    // what is on disk, as a rescan counts it, is within the quota
    let bytes = 0;
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) bytes += fs.statSync(p).blocks * 512;
      }
    };
    walk(path.join(base, 'users'));
    expect(ok).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
    // and both processes now see the other's usage
    const ua = (await a.call('stats', {})).data.quotas['user:default'];
    const ub = (await b.call('stats', {})).data.quotas['user:default'];
    expect(ua.used).toBeLessThanOrEqual(1024 * 1024);
    expect(Math.abs(ua.used - ub.used)).toBeLessThanOrEqual(8192);
  }, 300_000);
});
