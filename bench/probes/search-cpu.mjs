#!/usr/bin/env node
/**
 * CPU time and wall time of one search, nosh against GNU, for a loaded machine: when other
 * processes hold the cores, wall-clock medians measure the scheduler; the CPU time a run takes
 * (user + system, every thread of the process for nosh; the child's for GNU) much less so.
 *
 *   npm run build && node bench/probes/search-cpu.mjs [DATA_ROOT] [RUNS]
 *
 * DATA_ROOT: the bench data set (default $TMPDIR/nosh-bench-v1-quick; run `npm run bench --
 * --quick --filter search` once to make it). Rows: grep -r needle tree1k without and with the
 * content cache (limits.contentCacheMb), find tree20k -name '*7.txt'. nosh runs in this
 * process through the library (pool of 1 worker: its CPU is this process's).
 */
import { spawnSync, execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNosh } from '../../dist/src/index.js';

const root = process.argv[2] ?? join(tmpdir(), 'nosh-bench-v1-quick');
const RUNS = Number(process.argv[3] ?? 30);
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' };
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

async function nosh(line, cacheMb) {
  const n = await createNosh({ root, threads: 1, limits: { contentCacheMb: cacheMb } });
  const run = async () => { const r = await n.exec({ command: line }); if (!r.success) throw new Error(r.error.message); return r.data.stdout; };
  for (let i = 0; i < 5; i++) await run();
  const wall = [];
  const c0 = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) { const t = process.hrtime.bigint(); await run(); wall.push(Number(process.hrtime.bigint() - t) / 1e6); }
  const c = process.cpuUsage(c0);
  await n.close();
  return { wall: med(wall), cpu: (c.user + c.system) / RUNS / 1000 };
}

function gnu(argv) {
  // CPU: /usr/bin/time's user + system of the child; wall: execFile as the bench's GNU column.
  const cpu = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync('/usr/bin/time', ['-f', '%U %S', ...argv], { cwd: root, env, encoding: 'utf8', maxBuffer: 1 << 30 });
    const [u, s] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
    cpu.push((u + s) * 1000);
  }
  return new Promise((resolve) => {
    const wall = [];
    const once = (k) => {
      const t = process.hrtime.bigint();
      execFile(argv[0], argv.slice(1), { cwd: root, env, maxBuffer: 1 << 30 }, () => {
        wall.push(Number(process.hrtime.bigint() - t) / 1e6);
        if (k + 1 < RUNS) once(k + 1); else resolve({ wall: med(wall), cpu: cpu.reduce((a, b) => a + b, 0) / RUNS });
      });
    };
    once(0);
  });
}

const rows = [
  ['grep -r needle tree1k', 0],
  ['grep -r needle tree1k', 64],
  ["find tree20k -name *7.txt", 0],
];
console.log('| command | nosh wall ms | GNU spawn wall ms | wall GNU/nosh | nosh CPU ms | GNU CPU ms | CPU GNU/nosh |');
console.log('|---|---|---|---|---|---|---|');
for (const [line, cache] of rows) {
  const a = await nosh(line, cache);
  const g = await gnu(line.split(' '));
  console.log(`| ${line}${cache ? ' (content cache, repeat)' : ''} | ${a.wall.toFixed(1)} | ${g.wall.toFixed(1)} | ${(g.wall / a.wall).toFixed(2)}x | ${a.cpu.toFixed(1)} | ${g.cpu.toFixed(1)} | ${(g.cpu / a.cpu).toFixed(2)}x |`);
}
