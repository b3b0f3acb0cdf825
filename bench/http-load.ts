/**
 * The link server under load (issue #21), outside `npm test`: `npm run build && node dist/bench/http-load.js [--seconds 30] [--clients 64]`.
 *
 * 1. Row: GET of a 1 KiB file through a link (`nosh http`, token and Vfs checks on every request)
 *    against the same file from `sirv` (a plain static server), each server in its own process,
 *    the same client, interleaved rounds; sequential keep-alive latency and 16-way throughput.
 * 2. Load: 64 concurrent clients for 30 s against `nosh http` on 127.0.0.1, a mix of small-file
 *    GETs, Range GETs and folder listings; every answer checked; the server's RSS sampled each second.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { BENCH_DIR, NOSH_CLI } from './deps.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const SECONDS = opt('seconds', 30);
const CLIENTS = opt('clients', 64);
const ROW_SAMPLES = opt('samples', 2000);

function waitLine(child: ChildProcess, re: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = re.exec(l);
      if (m) resolve(m);
    });
    child.once('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
}

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function request(port: number, p: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: p, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

const us = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-http-bench-'));
  const base = path.join(dir, 'base');
  const files = path.join(base, 'users', 'default', 'Storage', 'site');
  fs.mkdirSync(path.join(files, 'many'), { recursive: true });
  const small = Buffer.alloc(1024, 'a');
  fs.writeFileSync(path.join(files, 'small.txt'), small);
  const medium = Buffer.alloc(256 * 1024);
  for (let i = 0; i < medium.length; i++) medium[i] = 97 + (i % 26);
  fs.writeFileSync(path.join(files, 'medium.bin'), medium);
  for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(files, 'many', `f${String(i).padStart(3, '0')}.txt`), `file ${i}\n`);

  const children: ChildProcess[] = [];
  try {
    // links made by the CLI, as a person would
    const mk = (p: string) => new Promise<string>((resolve, reject) => {
      const c = spawn(process.execPath, [NOSH_CLI, 'link', 'create', p, '--base', base, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      c.stdout!.on('data', (d) => (out += d));
      c.on('exit', (code) => (code === 0 ? resolve(new URL(JSON.parse(out).data.url).pathname + new URL(JSON.parse(out).data.url).search) : reject(new Error(out))));
    });
    const [smallLink, mediumLink, listLink] = await Promise.all([mk('site/small.txt'), mk('site/medium.bin'), mk('site/many')]);

    const nosh = spawn(process.execPath, [NOSH_CLI, 'http', '--base', base, '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(nosh);
    const noshPort = Number((await waitLine(nosh, /127\.0\.0\.1:(\d+)/))[1]);
    const sirvScript = `import sirv from 'sirv'; import http from 'node:http';
      const s = http.createServer(sirv(${JSON.stringify(files)}, { dev: false, etag: true }));
      s.listen(0, '127.0.0.1', () => console.log('sirv at 127.0.0.1:' + s.address().port));`;
    const sirv = spawn(process.execPath, ['--input-type=module', '-e', sirvScript], { cwd: BENCH_DIR, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(sirv);
    const sirvPort = Number((await waitLine(sirv, /127\.0\.0\.1:(\d+)/))[1]);

    // --- the row: 1 KiB GET, nosh link vs sirv ---------------------------------------------
    const targets = { nosh: { port: noshPort, path: smallLink }, sirv: { port: sirvPort, path: '/small.txt' } };
    for (const [name, t] of Object.entries(targets)) {
      const r = await request(t.port, t.path);
      if (r.status !== 200 || !r.body.equals(small)) throw new Error(`${name}: wrong answer ${r.status}`);
      for (let i = 0; i < 300; i++) await request(t.port, t.path); // warm-up
    }
    const lat: Record<string, number[]> = { nosh: [], sirv: [] };
    const rounds = 10;
    for (let round = 0; round < rounds; round++) {
      for (const [name, t] of Object.entries(targets)) {
        for (let i = 0; i < ROW_SAMPLES / rounds; i++) {
          const t0 = performance.now();
          await request(t.port, t.path);
          lat[name]!.push(performance.now() - t0);
        }
      }
    }
    const thr: Record<string, number> = {};
    for (let round = 0; round < 3; round++) {
      for (const [name, t] of Object.entries(targets)) {
        const end = performance.now() + 2000;
        let n = 0;
        await Promise.all(Array.from({ length: 16 }, async () => {
          while (performance.now() < end) {
            await request(t.port, t.path);
            n++;
          }
        }));
        thr[name] = Math.max(thr[name] ?? 0, n / 2);
      }
    }
    const med = (n: string) => quantile(lat[n]!, 0.5);
    console.log('\n1 KiB GET through a link (nosh http) vs sirv, same run, each server in its own process\n');
    console.log('| server | median | p90 | 16 concurrent |');
    console.log('|---|---|---|---|');
    for (const n of ['nosh', 'sirv']) {
      const ratio = n === 'nosh' ? ` (${(med('nosh') / med('sirv')).toFixed(2)}x)` : '';
      const tr = n === 'nosh' ? ` (${(thr.sirv! / thr.nosh!).toFixed(2)}x)` : '';
      console.log(`| ${n === 'nosh' ? 'nosh http (token + Vfs checks)' : 'sirv'} | ${us(med(n))}${ratio} | ${us(quantile(lat[n]!, 0.9))} | ${thr[n]!.toFixed(0)} req/s${tr} |`);
    }

    // --- the load test ----------------------------------------------------------------------
    const listing = await request(noshPort, listLink);
    const entryLinks = [...listing.body.toString().matchAll(/href="(\/files\/out\?[^"]*)"/g)].map((m) => m[1]!.replace(/&#38;/g, '&'));
    if (entryLinks.length !== 100) throw new Error(`listing has ${entryLinks.length} entries`);
    const rss: number[] = [rssOf(nosh.pid!)];
    const sampler = setInterval(() => rss.push(rssOf(nosh.pid!)), 1000);
    const counts = { small: 0, range: 0, listing: 0, entry: 0 };
    const times: number[] = [];
    let errors = 0;
    const firstErrors: string[] = [];
    const end = performance.now() + SECONDS * 1000;
    let seq = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const k = seq++ % 4;
        const t0 = performance.now();
        try {
          if (k === 0) {
            const r = await request(noshPort, smallLink);
            if (r.status !== 200 || r.body.length !== 1024) throw new Error(`small ${r.status}`);
            counts.small++;
          } else if (k === 1) {
            const start = (seq * 7919) % (medium.length - 4096);
            const r = await request(noshPort, mediumLink, { range: `bytes=${start}-${start + 4095}` });
            if (r.status !== 206 || !r.body.equals(medium.subarray(start, start + 4096))) throw new Error(`range ${r.status}`);
            counts.range++;
          } else if (k === 2) {
            const r = await request(noshPort, listLink);
            if (r.status !== 200 || !r.body.includes('f099.txt')) throw new Error(`listing ${r.status}`);
            counts.listing++;
          } else {
            const i = seq % entryLinks.length;
            const r = await request(noshPort, entryLinks[i]!);
            if (r.status !== 200 || r.body.toString() !== `file ${i}\n`) throw new Error(`entry ${r.status}`);
            counts.entry++;
          }
          times.push(performance.now() - t0);
        } catch (e) {
          errors++;
          if (firstErrors.length < 5) firstErrors.push((e as Error).message);
        }
      }
    }));
    clearInterval(sampler);
    rss.push(rssOf(nosh.pid!));
    const total = counts.small + counts.range + counts.listing + counts.entry;
    const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
    const tenth = Math.max(1, Math.floor(rss.length / 10));
    console.log(`\nLoad: ${CLIENTS} clients, ${SECONDS} s, keep-alive, 127.0.0.1; mix: 1 KiB file, 4 KiB Range of a 256 KiB file, listing of 100 files, an entry of the listing\n`);
    console.log('| requests | req/s | p50 | p99 | max | errors | server RSS first 10% (max) | last 10% (max) | max |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    console.log(`| ${total} (${counts.small} / ${counts.range} / ${counts.listing} / ${counts.entry}) | ${(total / SECONDS).toFixed(0)} | ${us(quantile(times, 0.5))} | ${us(quantile(times, 0.99))} | ${us(Math.max(...times))} | ${errors} | ` +
      `${mb(Math.max(...rss.slice(0, tenth)))} | ${mb(Math.max(...rss.slice(-tenth)))} | ${mb(Math.max(...rss))} |`);
    if (firstErrors.length) console.log('errors:', firstErrors);
    console.log(`\nmachine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}, node ${process.version}`);
  } finally {
    // each server is let finish (nosh writes its counted hits as it closes) before its base goes
    await Promise.all(children.map((c) => new Promise((r) => { if (c.exitCode !== null || c.signalCode !== null) r(null); else { c.once('exit', r); c.kill('SIGTERM'); } })));
    agent.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
