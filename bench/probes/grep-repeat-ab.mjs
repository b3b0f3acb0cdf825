#!/usr/bin/env node
/**
 * Issue #27 goal 5 (`search/grep-r-repeat`): the same `grep -r needle tree1k` again and again
 * with the content cache on (limits.contentCacheMb = 64), this build against an older one
 * and GNU grep spawned, in turns: per round, RUNS calls of each (each build in a process of
 * its own, one after the other, then GNU). Wall: median per call; CPU: user + system per
 * call, nosh's of its whole process (every thread: its one worker runs there), GNU's of the
 * child (/usr/bin/time, run apart from the timed spawns).
 * Outputs compared as sorted lines with GNU's.
 *
 *   npx tsc -p tsconfig.json && NOSH_HOME=$(mktemp -d) node bench/probes/grep-repeat-ab.mjs [DATA_ROOT] [ROUNDS] [RUNS] [OLD_DIST]
 *
 * DATA_ROOT: the bench data set (default $TMPDIR/nosh-bench-v1-quick).
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' };
const argv = ['grep', '-r', 'needle', 'tree1k'];
const line = argv.join(' ');
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const sorted = (s) => s.split('\n').sort().join('\n');

if (process.argv[2] === '--child') {
  // One build in a process of its own (an idle engine's worker in the same process would add its CPU): warm, then RUNS calls.
  const [, , , dist, root, runs] = process.argv;
  const { createNosh } = await import(pathToFileURL(join(dist, 'src/index.js')).href);
  const n = await createNosh({ root, base: fs.mkdtempSync(join(tmpdir(), 'nosh-ab-')), threads: 1, limits: { contentCacheMb: 64 } });
  let out = '';
  for (let i = 0; i < 3; i++) out = (await n.exec({ command: line })).data.stdout;
  const w = [];
  const c0 = process.cpuUsage();
  for (let i = 0; i < Number(runs); i++) {
    const t0 = process.hrtime.bigint();
    const r = await n.exec({ command: line });
    w.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (!r.success) throw new Error(r.error.message);
  }
  const c = process.cpuUsage(c0);
  await n.close();
  process.stdout.write(JSON.stringify({ wall: med(w), cpu: (c.user + c.system) / 1000 / Number(runs), out }));
  process.exit(0);
}

const root = resolve(process.argv[2] ?? join(tmpdir(), 'nosh-bench-v1-quick'));
const ROUNDS = Number(process.argv[3] ?? 3);
const RUNS = Number(process.argv[4] ?? 30);
const oldDist = process.argv[5];
const sides = [['new', fileURLToPath(new URL('../../dist', import.meta.url))]];
if (oldDist) sides.push(['old', resolve(oldDist)]);
const gnuOnce = () => new Promise((res, rej) => execFile(argv[0], argv.slice(1), { cwd: root, env, maxBuffer: 1 << 30 }, (e, out) => (e ? rej(e) : res(out))));
const want = sorted(await gnuOnce());
const names = [...sides.map(([s]) => s), 'gnu'];
const wall = Object.fromEntries(names.map((s) => [s, []]));
const cpu = Object.fromEntries(names.map((s) => [s, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [s, dist] of sides) {
    const r = JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dist, root, String(RUNS)], { maxBuffer: 1 << 30, encoding: 'utf8' }));
    if (sorted(r.out) !== want) throw new Error(`${s}: not GNU's answer`);
    wall[s].push(r.wall);
    cpu[s].push(r.cpu);
  }
  const w = [];
  let c = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    await gnuOnce();
    w.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const p = spawnSync('/usr/bin/time', ['-f', '%U %S', ...argv], { cwd: root, env, encoding: 'utf8', maxBuffer: 1 << 30 });
    c += p.stderr.trim().split('\n').pop().split(' ').reduce((a, b) => a + Number(b), 0) * 1000;
  }
  wall.gnu.push(med(w));
  cpu.gnu.push(c / RUNS);
  console.log(`round ${round + 1}: ` + names.map((s) => `${s} ${wall[s][round].toFixed(1)} ms / CPU ${cpu[s][round].toFixed(1)} ms`).join(', '));
}
const gw = med(wall.gnu);
const gc = med(cpu.gnu);
console.log(`\n| \`${line}\`, repeat, cache 64 MB | wall ms (median of ${ROUNDS} rounds of ${RUNS}) | GNU/nosh wall | CPU ms per call | GNU/nosh CPU |`);
console.log('|---|---|---|---|---|');
for (const s of names) {
  const w = med(wall[s]);
  const c = med(cpu[s]);
  console.log(`| ${s === 'gnu' ? 'GNU grep (spawn)' : `nosh ${s}`} | ${w.toFixed(1)} | ${s === 'gnu' ? '-' : (gw / w).toFixed(2) + 'x'} | ${c.toFixed(1)} | ${s === 'gnu' ? '-' : (gc / c).toFixed(2) + 'x'} |`);
}
