import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createNosh, startHttpServer, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { pathOf } from './helpers.js';

// A 2 GiB file (sparse) through a link: streamed from the Vfs's descriptor, never buffered.
let dir: string;
let nosh: Nosh;
let srv: Awaited<ReturnType<typeof startHttpServer>>;

beforeAll(async () => {
  dir = tempDir('nosh-bigfile-');
  nosh = await createNosh({ base: dir, threads: 1, limits: { maxFileSize: 3 * 1024 ** 3 } });
  srv = await startHttpServer(nosh, { port: 0 });
});
afterAll(async () => {
  await srv.close();
  await nosh.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('a 2 GiB file streams whole in constant memory', async () => {
  await nosh.call('exists', { path: '/' }); // the storage folder exists
  const big = path.join(dir, 'users', 'default', 'Storage', 'big.bin');
  fs.writeFileSync(big, '');
  fs.truncateSync(big, 2 * 1024 ** 3);
  const l = await nosh.call('link_create', { path: 'big.bin' });
  if (!l.success) throw new Error(JSON.stringify(l.error));
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  let next = 0;
  const total = await new Promise<number>((resolve, reject) => {
    const u = new URL(srv.url);
    http.get({ host: u.hostname, port: u.port, path: pathOf((l.data as { url: string }).url), agent: false }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => {
        n += c.length;
        if (n >= next) {
          next += 64 * 1024 * 1024;
          peak = Math.max(peak, process.memoryUsage().rss);
        }
      });
      res.on('end', () => resolve(n));
      res.on('error', reject);
    }).on('error', reject);
  });
  expect(total).toBe(2 * 1024 ** 3);
  expect(peak - rss0).toBeLessThan(200 * 1024 * 1024);
}, 300_000);
