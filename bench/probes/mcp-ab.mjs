#!/usr/bin/env node
/**
 * Issue #27 goal 2, A/B: `nosh mcp` of this build (and optionally an older build) against the
 * MCP filesystem server, each spawned once and called over raw newline-delimited JSON-RPC
 * (no SDK client: the client's own cost is left out of every column alike). For each tool, a
 * warm-up, then ROUNDS rounds of CALLS sequential calls per server, the servers in turns; per
 * call: wall time (median over the calls of a round, then median over rounds) and server CPU
 * (user + system of every thread of the server process, /proc/PID/task/* /schedstat, divided
 * by the calls of the round; median over rounds).
 *
 *   npx tsc -p tsconfig.json && node bench/probes/mcp-ab.mjs DATA_ROOT [ROUNDS] [CALLS] [FILTER] [OLD_DIST]
 *
 * DATA_ROOT: the bench's data set (e.g. /tmp/nosh-bench-v1-quick: lat/small.txt, lat/dir/ of 40
 * files, out/). OLD_DIST: another build's dist/ folder (next to a package.json and node_modules).
 * Set NOSH_HOME to a folder of your own; AB_PROF=DIR writes CPU profiles of this build's server.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? '/tmp/nosh-bench-v1-quick');
const ROUNDS = Number(process.argv[3] ?? 5);
const CALLS = Number(process.argv[4] ?? 100);
const filter = process.argv[5] ?? '';
const oldDist = process.argv[6];
const here = new URL('../..', import.meta.url).pathname;
const fsServer = join(here, 'bench/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

class Server {
  constructor(name, args) {
    this.name = name;
    this.proc = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    this.buf = '';
    this.waiting = new Map();
    this.id = 0;
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (d) => {
      this.buf += d;
      for (let i; (i = this.buf.indexOf('\n')) >= 0;) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        const msg = JSON.parse(line);
        const w = this.waiting.get(msg.id);
        if (w) { this.waiting.delete(msg.id); w(msg); }
      }
    });
  }
  request(method, params) {
    const id = ++this.id;
    return new Promise((r) => {
      this.waiting.set(id, r);
      this.proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }
  async init() {
    await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ab', version: '0' } });
    this.proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  }
  call(name, args) { return this.request('tools/call', { name, arguments: args }); }
  /** CPU ns of every thread of the process. */
  cpu() {
    let ns = 0;
    const dir = `/proc/${this.proc.pid}/task`;
    for (const t of fs.readdirSync(dir)) {
      try { ns += Number(fs.readFileSync(`${dir}/${t}/schedstat`, 'utf8').split(' ')[0]); } catch { /* ended */ }
    }
    return ns;
  }
  /** End its stdin (a server that ends cleanly writes its --cpu-prof), killed after 3 s if it has not ended. */
  close() {
    return new Promise((r) => {
      const t = setTimeout(() => this.proc.kill(), 3000);
      this.proc.once('exit', () => { clearTimeout(t); r(); });
      this.proc.stdin.end();
    });
  }
}

const lat = join(root, 'lat');
const small = fs.readFileSync(join(lat, 'small.txt'), 'utf8');
const line3 = small.split('\n')[3];
fs.mkdirSync(join(root, 'out'), { recursive: true });
function toggler(file, make) {
  fs.writeFileSync(join(root, 'out', file), small);
  let marked = false;
  return () => {
    const [from, to] = marked ? [`${line3} EDITED`, line3] : [line3, `${line3} EDITED`];
    marked = !marked;
    return make(from, to);
  };
}
/** [tool id, nosh call (name, args maker per server name), fs call]. */
const tools = [
  ['read', () => ['read', { path: '/lat/small.txt' }], () => ['read_text_file', { path: join(lat, 'small.txt') }]],
  ['list', () => ['list', { path: '/lat/dir' }], () => ['list_directory', { path: join(lat, 'dir') }]],
  ['tree', () => ['tree', { path: '/lat' }], () => ['directory_tree', { path: lat }]],
  ['find', () => ['find', { path: '/lat', pattern: '*.txt', type: 'file' }], () => ['search_files', { path: lat, pattern: '**/*.txt' }]],
  ['stat', () => ['stat', { path: '/lat/small.txt' }], () => ['get_file_info', { path: join(lat, 'small.txt') }]],
  ['write', (n) => ['write', { path: `/out/${n}-write.txt`, content: small }], () => ['write_file', { path: join(root, 'out', 'fs-write.txt'), content: small }]],
  ['edit', (n) => { const t = toggler(`${n}-edit.txt`, (f, to) => ({ path: `/out/${n}-edit.txt`, edits: [{ old_text: f, new_text: to }] })); return () => ['edit', t()]; },
    () => { const t = toggler('fs-edit.txt', (f, to) => ({ path: join(root, 'out', 'fs-edit.txt'), edits: [{ oldText: f, newText: to }] })); return () => ['edit_file', t()]; }],
].filter(([id]) => id.includes(filter));

// AB_PROF=DIR: profile this build's server (--cpu-prof of its main thread and workers into DIR)
const prof = process.env.AB_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.AB_PROF] : [];
/** The floor of a durable 1 KiB write on this disk: per round, the median of CALLS bare temp + fsync + rename. */
const floors = [];
function floorRounds() {
  const out = [];
  const data = Buffer.alloc(1024, 97);
  for (let r = 0; r < ROUNDS; r++) {
    const t = [];
    for (let k = 0; k < CALLS; k++) {
      const t0 = process.hrtime.bigint();
      const tmp = join(root, 'out', '.floor.tmp');
      const fd = fs.openSync(tmp, 'w');
      fs.writeSync(fd, data);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fs.renameSync(tmp, join(root, 'out', 'floor.txt'));
      t.push(Number(process.hrtime.bigint() - t0) / 1e3);
    }
    out.push(med(t));
  }
  return out;
}

const servers = [new Server('nosh-new', [...prof, join(here, 'dist/src/cli/main.js'), 'mcp', '--root', root])];
if (oldDist) servers.push(new Server('nosh-old', [join(resolve(oldDist), 'src/cli/main.js'), 'mcp', '--root', root]));
servers.push(new Server('mcp-fs', [fsServer, root]));
for (const s of servers) await s.init();

console.log(`| tool | ${servers.map((s) => `${s.name} µs`).join(' | ')} | ${servers.map((s) => `${s.name} CPU µs`).join(' | ')} | ${servers.slice(0, -1).map((s) => `${s.name} ratio (wall / CPU)`).join(' | ')} |`);
console.log(`|---|${servers.map(() => '---|').join('')}${servers.map(() => '---|').join('')}${servers.slice(0, -1).map(() => '---|').join('')}`);
for (const [id, noshCall, fsCall] of tools) {
  const makers = servers.map((s) => {
    const m = s.name === 'mcp-fs' ? fsCall(s.name) : noshCall(s.name);
    return typeof m === 'function' ? m : () => m;
  });
  const wall = servers.map(() => []);
  const cpu = servers.map(() => []);
  for (let r = -1; r < ROUNDS; r++) {
    for (const [i, s] of servers.entries()) {
      const times = [];
      const c0 = s.cpu();
      for (let k = 0; k < CALLS; k++) {
        const [name, args] = makers[i]();
        const t0 = process.hrtime.bigint();
        const res = await s.call(name, args);
        times.push(Number(process.hrtime.bigint() - t0) / 1e3);
        if (res.error || res.result?.isError) throw new Error(`${s.name} ${name}: ${JSON.stringify(res).slice(0, 300)}`);
      }
      const c = (s.cpu() - c0) / 1e3 / CALLS;
      if (r >= 0) { wall[i].push(med(times)); cpu[i].push(c); }
    }
  }
  const w = wall.map(med);
  const c = cpu.map(med);
  if (id === 'write') floors.push(...floorRounds());
  const f = (x) => x.toFixed(0);
  console.log(`| ${id} | ${w.map(f).join(' | ')} | ${c.map(f).join(' | ')} | ${w.slice(0, -1).map((x, i) => `${(w.at(-1) / x).toFixed(2)}x / ${(c.at(-1) / c[i]).toFixed(2)}x`).join(' | ')} |`);
}
if (floors.length) console.log(`\nwrite's floor (1 KiB to a temp file, fsync, close, rename; in this process, ${floors.length} rounds of ${CALLS} after the write rows): median ${med(floors).toFixed(0)} µs`);
await Promise.all(servers.map((s) => s.close()));
