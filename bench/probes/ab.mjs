/**
 * The A/B harness of the probes (toolbox-ab.mjs, lang-ab.mjs, archive-ab.mjs): each row's
 * command run through the library by this build and, optionally, by an older build loaded in
 * the same process, alternating with the real tool spawned; a warm-up round, then the medians
 * of the rounds. CPU time beside wall time (a loaded host's wall clock measures the
 * scheduler): nosh's is this process's (every thread: the pool's worker runs here), the real
 * tool's the child's user + system from /usr/bin/time.
 *
 *   node bench/probes/NAME-ab.mjs DATA_DIR [ROUNDS] [FILTER] [OLD_DIST]
 *
 * A row: { id, line, maxExit = 0, compare: stdout of both written to files and compared byte
 * for byte, rm: a path removed after each run, mk: a folder made before it }; `@` in line, rm
 * and mk is a number new for each run (a fresh archive name or destination).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' };

export async function runAb(allRows) {
  const root = resolve(process.argv[2] ?? '.');
  const ROUNDS = Number(process.argv[3] ?? 3);
  const filter = process.argv[4] ?? '';
  const oldDist = process.argv[5];
  const rows = allRows.filter((row) => row.id.includes(filter));
  const engine = async (dist) => {
    const { createNosh } = await import(pathToFileURL(join(dist, 'src/index.js')).href);
    // A base of its own: the default (~/.nosh) is shared with every other nosh process here.
    return createNosh({ root, base: fs.mkdtempSync(join(tmpdir(), 'nosh-ab-')), threads: 1 });
  };
  const sides = [['new', await engine(new URL('../../dist', import.meta.url).pathname)]];
  if (oldDist) sides.push(['old', await engine(resolve(oldDist))]);
  const compares = rows.some((row) => row.compare);
  if (compares) fs.mkdirSync(join(root, 'out'), { recursive: true });
  const gnuOut = join(root, 'out', 'gnu.out');
  const cols = (f) => sides.map(([s]) => f(s)).join(' | ');
  const dashes = () => sides.map(() => '---|').join('');
  console.log(`| command | ${cols((s) => `nosh ${s} s`)} | real s | ${cols((s) => `ratio ${s}`)} | ${cols((s) => `CPU s ${s}`)} | real CPU s | ${cols((s) => `CPU ratio ${s}`)} |${compares ? ' same bytes |' : ''}`);
  console.log(`|---|${dashes()}---|${dashes()}${dashes()}---|${dashes()}${compares ? '---|' : ''}`);
  let n = 0;
  /** One run's command with its fresh number, the folder it needs made. */
  const fresh = (row) => {
    const k = String(++n);
    if (row.mk) fs.mkdirSync(join(root, row.mk.replaceAll('@', k)));
    return { cmd: row.line.replaceAll('@', k), done: () => row.rm && fs.rmSync(join(root, row.rm.replaceAll('@', k)), { recursive: true, force: true }) };
  };
  for (const row of rows) {
    const maxExit = row.maxExit ?? 0;
    const t = Object.fromEntries(sides.map(([s]) => [s, []]));
    const cpu = Object.fromEntries(sides.map(([s]) => [s, []]));
    const g = [];
    const gcpu = [];
    let equal = true;
    for (let r = -1; r < ROUNDS; r++) { // round -1: a warm-up, not counted
      for (const [s, nosh] of sides) {
        const { cmd, done } = fresh(row);
        const t0 = process.hrtime.bigint();
        const c0 = process.cpuUsage();
        const res = await nosh.exec({ command: cmd, cwd: '/' }, { timeoutMs: 300_000, ...(row.compare ? { stdoutFile: `/out/${s}.out` } : {}) });
        if (r >= 0) t[s].push(Number(process.hrtime.bigint() - t0) / 1e9);
        const c = process.cpuUsage(c0);
        if (r >= 0) cpu[s].push((c.user + c.system) / 1e6);
        if (!res.success || res.data.exit_code > maxExit) throw new Error(`${s} ${cmd}: ${JSON.stringify(res.success ? res.data.stderr : res.error)}`);
        done();
      }
      const { cmd, done } = fresh(row);
      const fd = row.compare ? fs.openSync(gnuOut, 'w') : 'ignore';
      const t0 = process.hrtime.bigint();
      const p = spawnSync('/usr/bin/time', ['-f', '%U %S', 'sh', '-c', cmd], { cwd: root, env, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
      if (r >= 0) g.push(Number(process.hrtime.bigint() - t0) / 1e9);
      if (r >= 0) gcpu.push(p.stderr.trim().split('\n').pop().split(' ').reduce((a, b) => a + Number(b), 0));
      if (row.compare) fs.closeSync(fd);
      if (p.status > maxExit) throw new Error(`real ${cmd}: ${p.status} ${p.stderr}`);
      done();
      if (row.compare) for (const [s] of sides) equal &&= fs.readFileSync(join(root, 'out', `${s}.out`)).equals(fs.readFileSync(gnuOut));
    }
    const gm = med(g);
    const gc = med(gcpu);
    console.log(`| \`${row.line.replaceAll('@', 'N')}\` | ${cols((s) => med(t[s]).toFixed(3))} | ${gm.toFixed(3)} | ${cols((s) => (gm / med(t[s])).toFixed(2) + 'x')} | `
      + `${cols((s) => med(cpu[s]).toFixed(3))} | ${gc.toFixed(3)} | ${cols((s) => (gc / med(cpu[s])).toFixed(2) + 'x')} |${compares ? ` ${row.compare ? (equal ? 'yes' : 'NO') : '-'} |` : ''}`);
  }
  for (const [, e] of sides) await e.close();
}
