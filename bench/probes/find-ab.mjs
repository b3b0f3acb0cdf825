#!/usr/bin/env node
/**
 * Issue #27 goal 3 for find: `find tree20k -name '*7.txt'` through the library, this build
 * against an older one (OLD_DIST, loaded in the same process) and GNU find spawned, in turns
 * (new, old, GNU, then old, new, GNU, ...); medians of the rounds, CPU time beside wall time. nosh's CPU is this
 * process's (every thread: the pool's worker and its helper run here); GNU's wall is the spawn
 * as the bench times it (execFile, no shell), its CPU the child's user + system from
 * /usr/bin/time in a second spawn. Each round checks nosh's output against GNU's sorted per
 * directory (GNU lists in readdir order, nosh in name order) and the two builds byte for byte.
 *
 *   npx tsc -p tsconfig.json && node bench/probes/find-ab.mjs DATA_DIR [ROUNDS] [OLD_DIST] [LINE]
 *
 * DATA_DIR holds tree20k (the bench's 20 000-file tree: 20 folders of 10 folders of 100 files).
 */
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(process.argv[2] ?? '.');
const ROUNDS = Number(process.argv[3] ?? 15);
const oldDist = process.argv[4];
const line = process.argv[5] ?? "find tree20k -name *7.txt";
const argv = line.split(' ');
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' };
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

const engine = async (dist) => {
  const { createNosh } = await import(pathToFileURL(join(dist, 'src/index.js')).href);
  return createNosh({ root, base: fs.mkdtempSync(join(tmpdir(), 'nosh-findab-')), threads: 1 });
};
const sides = [['new', await engine(new URL('../../dist', import.meta.url).pathname)]];
if (oldDist) sides.push(['old', await engine(resolve(oldDist))]);
// The engines' start-up sweep of the root (stale temp files) runs in the background: let it end.
await new Promise((r) => setTimeout(r, 3000));

const gnuWall = () => new Promise((res, rej) => {
  const t0 = process.hrtime.bigint();
  execFile(argv[0], argv.slice(1), { cwd: root, env, maxBuffer: 1 << 30, encoding: 'latin1' }, (err, stdout) => {
    if (err) rej(err); else res({ ms: Number(process.hrtime.bigint() - t0) / 1e6, stdout });
  });
});
const gnuCpu = () => {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', ...argv], { cwd: root, env, encoding: 'utf8', maxBuffer: 1 << 30 });
  return r.stderr.trim().split('\n').pop().split(' ').reduce((a, b) => a + Number(b), 0) * 1000;
};
/** GNU's lines in nosh's order: each directory's entries sorted by name (byte order) before its subdirectories' content. */
const byName = (text) => {
  const lines = text.split('\n').filter(Boolean);
  const key = (l) => Buffer.from(l.split('/').join('\u0000'), 'latin1');
  return lines.sort((a, b) => Buffer.compare(key(a), key(b))).join('\n') + '\n';
};

const wall = Object.fromEntries([...sides.map(([s]) => [s, []]), ['gnu', []]]);
const cpu = Object.fromEntries([...sides.map(([s]) => [s, []]), ['gnu', []]]);
let same = true;
for (let r = -2; r < ROUNDS; r++) {
  const outs = {};
  // The side that runs right after GNU's spawn pays for it (15 ms of CPU on a loaded host): the order turns each round.
  for (const [s, nosh] of (r & 1 ? [...sides].reverse() : sides)) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const res = await nosh.exec({ command: line, cwd: '/' }, { maxOutputBytes: 5_000_000 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const c = process.cpuUsage(c0);
    if (!res.success || res.data.exit_code !== 0) throw new Error(`${s}: ${JSON.stringify(res.success ? res.data.stderr : res.error)}`);
    outs[s] = res.data.stdout;
    if (r >= 0) { wall[s].push(ms); cpu[s].push((c.user + c.system) / 1000); }
  }
  const g = await gnuWall();
  if (r >= 0) { wall.gnu.push(g.ms); cpu.gnu.push(gnuCpu()); }
  const want = byName(g.stdout);
  for (const [s] of sides) same &&= outs[s] === want && outs[s] === outs.new;
}
console.log(`\`${line}\`, ${ROUNDS} rounds, load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; same output as GNU (per-directory name order): ${same ? 'yes' : 'NO'}`);
console.log('| build | wall ms | GNU wall ms | GNU/nosh wall | CPU ms | GNU CPU ms | GNU/nosh CPU |');
console.log('|---|---|---|---|---|---|---|');
for (const [s] of sides) {
  const w = med(wall[s]), c = med(cpu[s]), gw = med(wall.gnu), gc = med(cpu.gnu);
  console.log(`| ${s} | ${w.toFixed(1)} | ${gw.toFixed(1)} | ${(gw / w).toFixed(2)}x | ${c.toFixed(1)} | ${gc.toFixed(1)} | ${(gc / c).toFixed(2)}x |`);
}
for (const [, e] of sides) await e.close();
