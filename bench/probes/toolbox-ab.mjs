#!/usr/bin/env node
/**
 * Issue #25's big-file toolbox rows, A/B: each command run through the library (`exec` with
 * stdout to a file) by this build and, optionally, by an older build loaded in the same
 * process, alternating with GNU spawned with its output to a file; a warm-up round, then the
 * medians of the rounds, and
 * the outputs compared byte for byte with GNU's. CPU time beside wall time (a loaded host's
 * wall clock measures the scheduler): nosh's is this process's (every thread: the pool's
 * worker runs here), GNU's the child's user + system from /usr/bin/time.
 *
 *   npx tsc -p tsconfig.json && node bench/probes/toolbox-ab.mjs DATA_DIR [ROUNDS] [FILTER] [OLD_DIST]
 *
 * DATA_DIR holds csv10.csv (10 MB CSV), big100.txt (100 MB text; both as the bench makes them), j1.csv and j2.csv (two 10 MB
 * CSVs sorted on their first field, for join). OLD_DIST: another build's dist/ folder.
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

const rows = [
  ['paste', 'paste -d, csv10.csv csv10.csv'],
  ['join', 'join -t, j1.csv j2.csv'],
  ['base64', 'base64 big100.txt'],
  ['od', 'od -An -tx1 csv10.csv'],
  ['sha256sum', 'sha256sum big100.txt'],
  ['md5sum', 'md5sum big100.txt'],
  ['sort', 'sort big100.txt'],
  ['cut-big', "cut -d ' ' -f3 big100.txt"],
  ['cut-csv', 'cut -d, -f3 csv10.csv'],
  ['sed', 'sed s/a/b/g big100.txt'],
].filter(([id]) => id.includes(filter));

async function engine(dist) {
  const { createNosh } = await import(pathToFileURL(join(dist, 'src/index.js')).href);
  // A base of its own: the default (~/.nosh) is shared with every other nosh process here.
  return createNosh({ root, base: fs.mkdtempSync(join(tmpdir(), 'nosh-ab-')), threads: 1 });
}
const sides = [['new', await engine(new URL('../../dist', import.meta.url).pathname)]];
if (oldDist) sides.push(['old', await engine(resolve(oldDist))]);

const gnuOut = join(root, 'out', 'gnu.out');
const same = (a, b) => fs.readFileSync(a).equals(fs.readFileSync(b));
console.log(`| command | ${sides.map(([n]) => `nosh ${n} s`).join(' | ')} | GNU s | ${sides.map(([n]) => `ratio ${n}`).join(' | ')} | ${sides.map(([n]) => `CPU s ${n}`).join(' | ')} | GNU CPU s | ${sides.map(([n]) => `CPU ratio ${n}`).join(' | ')} | same bytes |`);
console.log(`|---|${sides.map(() => '---|').join('')}---|${sides.map(() => '---|').join('')}${sides.map(() => '---|').join('')}---|${sides.map(() => '---|').join('')}---|`);
for (const [id, line] of rows) {
  const t = Object.fromEntries(sides.map(([n]) => [n, []]));
  const cpu = Object.fromEntries(sides.map(([n]) => [n, []]));
  const g = [];
  const gcpu = [];
  let equal = true;
  for (let r = -1; r < ROUNDS; r++) { // round -1: a warm-up, not counted
    for (const [n, nosh] of sides) {
      const t0 = process.hrtime.bigint();
      const c0 = process.cpuUsage();
      const res = await nosh.exec({ command: line, cwd: '/' }, { stdoutFile: `/out/${n}.out`, timeoutMs: 300_000 });
      if (r >= 0) t[n].push(Number(process.hrtime.bigint() - t0) / 1e9);
      const c = process.cpuUsage(c0);
      if (r >= 0) cpu[n].push((c.user + c.system) / 1e6);
      if (!res.success || res.data.exit_code !== 0) throw new Error(`${n} ${line}: ${JSON.stringify(res.success ? res.data.stderr : res.error)}`);
    }
    const fd = fs.openSync(gnuOut, 'w');
    const t0 = process.hrtime.bigint();
    const p = spawnSync('/usr/bin/time', ['-f', '%U %S', 'sh', '-c', line], { cwd: root, env, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
    if (r >= 0) g.push(Number(process.hrtime.bigint() - t0) / 1e9);
    if (r >= 0) gcpu.push(p.stderr.trim().split('\n').pop().split(' ').reduce((a, b) => a + Number(b), 0));
    fs.closeSync(fd);
    if (p.status !== 0) throw new Error(`gnu ${line}: ${p.status}`);
    for (const [n] of sides) equal &&= same(join(root, 'out', `${n}.out`), gnuOut);
  }
  const gm = med(g);
  const gc = med(gcpu);
  console.log(`| \`${line}\` | ${sides.map(([n]) => med(t[n]).toFixed(3)).join(' | ')} | ${gm.toFixed(3)} | ${sides.map(([n]) => (gm / med(t[n])).toFixed(2) + 'x').join(' | ')} | `
    + `${sides.map(([n]) => med(cpu[n]).toFixed(3)).join(' | ')} | ${gc.toFixed(3)} | ${sides.map(([n]) => (gc / med(cpu[n])).toFixed(2) + 'x').join(' | ')} | ${equal ? 'yes' : 'NO'} |`);
}
for (const [, n] of sides) await n.close();
