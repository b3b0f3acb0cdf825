#!/usr/bin/env node
/**
 * Issue #22's archive rows, A/B: each command run through the library by this build and,
 * optionally, by an older build loaded in the same process, alternating with the real tool
 * spawned; a warm-up round, then the medians of the rounds. Each run writes a new archive or
 * extracts into a new folder (removed after the run), as the bench rows do. CPU time beside
 * wall time: nosh's is this process's (every thread: the pool's worker runs here), the real
 * tool's the child's user + system from /usr/bin/time.
 *
 *   npx tsc -p tsconfig.json && node bench/probes/archive-ab.mjs DATA_DIR [ROUNDS] [FILTER] [OLD_DIST]
 *
 * DATA_DIR holds tree1k/ (the bench's 1000-file tree), gnu.tgz and gnu.zip of it (made by the
 * real tar czf and zip -q -r) and an empty out/. OLD_DIST: another build's dist/ folder (with a
 * node_modules beside it).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(process.argv[2] ?? '.');
const ROUNDS = Number(process.argv[3] ?? 3);
const filter = process.argv[4] ?? '';
const oldDist = process.argv[5];
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' };
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

// [id, command with @ for a fresh name, what to remove after, made first (tar -C)]
const rows = [
  ['tar-xzf', 'tar xzf gnu.tgz -C out/tx@', 'out/tx@', 'out/tx@'],
  ['unzip', 'unzip -q gnu.zip -d out/ux@', 'out/ux@'],
  ['zip-r', 'zip -q -r out/z@.zip tree1k', 'out/z@.zip'],
  ['tar-czf', 'tar czf out/t@.tgz tree1k', 'out/t@.tgz'],
].filter(([id]) => id.includes(filter));

async function engine(dist) {
  const { createNosh } = await import(pathToFileURL(join(dist, 'src/index.js')).href);
  return createNosh({ root, base: fs.mkdtempSync(join(tmpdir(), 'nosh-ab-')), threads: 1 });
}
const sides = [['new', await engine(new URL('../../dist', import.meta.url).pathname)]];
if (oldDist) sides.push(['old', await engine(resolve(oldDist))]);

let n = 0;
console.log(`| command | ${sides.map(([s]) => `nosh ${s} s`).join(' | ')} | real s | ${sides.map(([s]) => `ratio ${s}`).join(' | ')} | ${sides.map(([s]) => `CPU s ${s}`).join(' | ')} | real CPU s | ${sides.map(([s]) => `CPU ratio ${s}`).join(' | ')} |`);
console.log(`|---|${sides.map(() => '---|').join('')}---|${sides.map(() => '---|').join('')}${sides.map(() => '---|').join('')}---|${sides.map(() => '---|').join('')}`);
for (const [id, line, rm, mk] of rows) {
  const t = Object.fromEntries(sides.map(([s]) => [s, []]));
  const cpu = Object.fromEntries(sides.map(([s]) => [s, []]));
  const g = [];
  const gcpu = [];
  for (let r = -1; r < ROUNDS; r++) { // round -1: a warm-up, not counted
    for (const [s, nosh] of sides) {
      const k = ++n;
      const cmd = line.replaceAll('@', String(k));
      if (mk) fs.mkdirSync(join(root, mk.replaceAll('@', String(k))));
      const t0 = process.hrtime.bigint();
      const c0 = process.cpuUsage();
      const res = await nosh.exec({ command: cmd, cwd: '/' }, { timeoutMs: 300_000 });
      if (r >= 0) t[s].push(Number(process.hrtime.bigint() - t0) / 1e9);
      const c = process.cpuUsage(c0);
      if (r >= 0) cpu[s].push((c.user + c.system) / 1e6);
      if (!res.success || res.data.exit_code !== 0) throw new Error(`${s} ${cmd}: ${JSON.stringify(res.success ? res.data.stderr : res.error)}`);
      fs.rmSync(join(root, rm.replaceAll('@', String(k))), { recursive: true, force: true });
    }
    const k = ++n;
    const cmd = line.replaceAll('@', String(k));
    if (mk) fs.mkdirSync(join(root, mk.replaceAll('@', String(k))));
    const t0 = process.hrtime.bigint();
    const p = spawnSync('/usr/bin/time', ['-f', '%U %S', 'sh', '-c', cmd], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (r >= 0) g.push(Number(process.hrtime.bigint() - t0) / 1e9);
    if (r >= 0) gcpu.push(p.stderr.trim().split('\n').pop().split(' ').reduce((a, b) => a + Number(b), 0));
    if (p.status !== 0) throw new Error(`real ${cmd}: ${p.status} ${p.stderr}`);
    fs.rmSync(join(root, rm.replaceAll('@', String(k))), { recursive: true, force: true });
  }
  const gm = med(g);
  const gc = med(gcpu);
  console.log(`| \`${line.replaceAll('@', 'N')}\` | ${sides.map(([s]) => med(t[s]).toFixed(3)).join(' | ')} | ${gm.toFixed(3)} | ${sides.map(([s]) => (gm / med(t[s])).toFixed(2) + 'x').join(' | ')} | `
    + `${sides.map(([s]) => med(cpu[s]).toFixed(3)).join(' | ')} | ${gc.toFixed(3)} | ${sides.map(([s]) => (gc / med(cpu[s])).toFixed(2) + 'x').join(' | ')} |`);
}
for (const [, e] of sides) await e.close();
