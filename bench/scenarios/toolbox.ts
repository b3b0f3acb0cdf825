/**
 * The toolbox, archive, language and SQLite commands against spawning the real tools (issues
 * #22-#25): checksums, base64, gzip and gunzip of the big file, tar and zip of the 1000-file tree and
 * their extraction, unzip of the big file, awk, diff, jq and sqlite3 on the CSV. Inputs the rows need beyond the data
 * set are made once by the real tools. Outputs to files are compared by digest; archives by what they hold (their bytes
 * carry times and host ids that differ between tools).
 */
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import { P } from '../data.js';
import { runCommandScenario, type Ctx, type Scenario } from './common.js';
import type { Cmd, System } from '../systems.js';

const SYSTEMS = ['nosh', 'gnu'];
const mb = (b: number) => `${Math.round(b / 1048576)} MB`;
const bigName = P.big.slice(1);
const csvName = P.csv.slice(1);
const tree = P.tree1k.slice(1);
const out = P.out.slice(1);

/**
 * Archive rows: `@N@` in an argument or the out file becomes a new name on every run (each
 * extraction into a new folder, each archive a new file, as an agent unpacking an upload does;
 * an argument after -C is made first, as tar needs), removed after the row. `gunzipOut`: the
 * out file is compared by its decompressed content (zlib's and gzip's deflate bytes differ).
 * `memory`: one more run of each, GNU's tool and the nosh CLI (a whole process: node, the
 * worker), under /usr/bin/time for its peak RSS, shown in the row's notes.
 */
interface RowOpts {
  gunzipOut?: boolean;
  memory?: boolean;
  /** Each timed run is this many calls in a row (a cache that serves repeated calls shows). */
  repeat?: number;
  /** Note nosh's memory as the library holds it: the RSS of this process (library and workers) during the row. */
  rss?: boolean;
}

function row(id: string, group: string, title: (ctx: Ctx) => string, cmd: Cmd, prepare?: (ctx: Ctx) => Promise<void>, ro: RowOpts = {}): Scenario {
  return {
    id, group, title: title({ data: { sizes: { bigFileBytes: 100 * 1048576, csvBytes: 10 * 1048576 } } } as Ctx).replace(/\(\d+ MB\)/, '(big file)'),
    async run(ctx) {
      await prepare?.(ctx);
      const fresh = JSON.stringify(cmd).includes('@N@') || ro.gunzipOut;
      const made: string[] = [];
      let c = fresh ? freshCtx(ctx, made, ro) : ctx;
      const probe = ro.rss ? rssProbe() : undefined;
      if (ro.repeat || probe) {
        const under = c;
        c = { ...under, system: async (sid) => {
          const s = await under.system(sid);
          const r = ro.repeat ? repeated(s, ro.repeat) : s;
          return probe && sid === 'nosh' ? probe.watch(r) : r;
        } };
      }
      try {
        const res = await runCommandScenario(c, { id, group, title: title(ctx), cmd, systems: SYSTEMS, opts: () => ctx.profile.big });
        if (ro.memory) {
          for (const cell of res.cells) {
            if (cell.status !== 'ok') continue;
            const mb = peakRss(ctx.data.root, cell.system, cmd, made);
            cell.note = `peak RSS of one run ${mb} (${cell.system === 'gnu' ? 'the tool' : 'nosh exec CLI: node + worker'})`;
          }
        }
        const nosh = res.cells.find((x) => x.system === 'nosh');
        if (probe && nosh?.status === 'ok') nosh.note = probe.done();
        return res;
      } finally {
        for (const m of made) fs.rmSync(join(ctx.data.root, m), { recursive: true, force: true });
      }
    },
  };
}

/** A system whose run is `n` runs in a row (the last one's outcome). */
function repeated(s: System, n: number): System {
  return Object.assign(Object.create(s) as System, {
    async run(cmd: Cmd) {
      let r = await s.run(cmd);
      for (let i = 1; i < n; i++) r = await s.run(cmd);
      return r;
    },
  });
}

/** Samples this process's RSS every 20 ms while nosh's calls run: nosh's memory (bench, library and workers). */
function rssProbe() {
  const base = process.memoryUsage.rss();
  let peak = base;
  let busy = 0;
  const timer = setInterval(() => { if (busy > 0) peak = Math.max(peak, process.memoryUsage.rss()); }, 20);
  timer.unref();
  const m = (b: number) => `${Math.round(b / 1048576)} MB`;
  return {
    watch(s: System): System {
      return Object.assign(Object.create(s) as System, {
        async run(cmd: Cmd) {
          busy++;
          try { return await s.run(cmd); } finally { busy--; peak = Math.max(peak, process.memoryUsage.rss()); }
        },
      });
    },
    done(): string {
      clearInterval(timer);
      return `memory: RSS of the process holding nosh (library and workers) ${m(base)} before the row, peak ${m(peak)} during nosh's calls (+${m(peak - base)})`;
    },
  };
}

function sub(argv: string[], name: string, root: string, made: string[]): string[] {
  return argv.map((a, i) => {
    if (!a.includes('@N@')) return a;
    const r = a.replace('@N@', name);
    made.push(r);
    if (argv[i - 1] === '-C') fs.mkdirSync(join(root, r), { recursive: true });
    return r;
  });
}

function freshCtx(ctx: Ctx, made: string[], ro: RowOpts): Ctx {
  const root = ctx.data.root;
  const wrapped = new Map<string, System>();
  return {
    ...ctx,
    async system(id) {
      const sys = await ctx.system(id);
      let w = wrapped.get(id);
      if (w) return w;
      let n = 0;
      w = {
        id: sys.id, label: sys.label, unavailable: sys.unavailable,
        run: (c) => sys.run({ ...c, argv: sub(c.argv, `${id}-${n++}`, root, made) }),
        readOut: ro.gunzipOut
          ? async (p) => {
            const data = zlib.gunzipSync(fs.readFileSync(join(root, p)));
            return `${crypto.createHash('sha256').update(data).digest('hex')} ${data.length} (decompressed)`;
          }
          : (p) => sys.readOut(p),
        close: () => sys.close(),
      };
      wrapped.set(id, w);
      return w;
    },
  };
}

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/** Peak RSS (MB) of one run in its own process: the real tool, or `nosh exec` (its workers are threads). */
function peakRss(root: string, system: string, cmd: Cmd, made: string[]): string {
  const argv = sub(cmd.argv, `${system}-mem`, root, made);
  const base = fs.mkdtempSync(join(os.tmpdir(), 'nosh-bench-rss-'));
  try {
    const full = system === 'gnu' ? argv : [process.execPath, MAIN, 'exec', '--root', root, '--timeout', '300000', '--', ...argv];
    const out = cmd.outFile ? fs.openSync(join(root, `${cmd.outFile}.${system}-mem`), 'w') : 'ignore';
    made.push(`${cmd.outFile}.${system}-mem`.slice(1));
    try {
      const r = spawnSync('/usr/bin/time', ['-f', 'RSS %M', ...full], { cwd: join(root, cmd.cwd), stdio: ['ignore', out, 'pipe'], env: { ...process.env, LC_ALL: 'C', TZ: 'UTC', NOSH_HOME: base } });
      const m = /RSS (\d+)/.exec(r.stderr?.toString() ?? '');
      return m && r.status === 0 ? `${Math.round(Number(m[1]) / 1024)} MB` : `unknown (exit ${r.status})`;
    } finally {
      if (typeof out === 'number') fs.closeSync(out);
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

/** An input archive made once by the real tool (what an agent is handed). */
const made = new Set<string>();
function byGnu(argv: string[]): (ctx: Ctx) => Promise<void> {
  return async (ctx) => {
    const key = argv.join(' ');
    if (made.has(key)) return;
    const r = await (await ctx.system('gnu')).run({ argv, cwd: '/' });
    if (r.exitCode !== 0) throw new Error(`${key}: exit ${r.exitCode}`);
    made.add(key);
  };
}

/** Issue #24's sizes in the full run: awk -F, on a 100 MB CSV (the CSV repeated), jq on 20 MB of JSON. */
const bigCsvCopies = (c: Ctx) => Math.max(1, Math.round(c.data.sizes.bigFileBytes / c.data.sizes.csvBytes));
const bigCsvBytes = (c: Ctx) => bigCsvCopies(c) * c.data.sizes.csvBytes;
const jsonBytes = (c: Ctx) => c.data.sizes.csvBytes * 2;
/** Issue #23's: a COUNT/GROUP BY on a 50 MB database repeated 20 times (the CSV's size in --quick). */
const GROUP_BY_CALLS = 20;
const dbBytes = (c: Ctx) => (c.quick ? c.data.sizes.csvBytes : 50 * 1048576);

/** The database, made by the real sqlite3: the CSV imported, then its rows again until it reaches dbBytes. */
async function makeDb(ctx: Ctx): Promise<void> {
  const db = `${out}/bench.db`;
  const key = `db ${db}`;
  if (made.has(key)) return;
  const gnu = await ctx.system('gnu');
  const run = async (argv: string[]) => {
    const r = await gnu.run({ argv, cwd: '/' });
    if (r.exitCode !== 0) throw new Error(`${argv.join(' ')}: exit ${r.exitCode}`);
  };
  await run(['rm', '-f', db]);
  await run(['sqlite3', db, `.import --csv ${csvName} t`]);
  while (fs.statSync(join(ctx.data.root, db)).size < dbBytes(ctx) * 0.95) await run(['sqlite3', db, `.import --csv --skip 1 ${csvName} t`]);
  made.add(key);
}

export const toolboxScenarios: Scenario[] = [
  row('toolbox/sha256sum', 'toolbox', (c) => `sha256sum (${mb(c.data.sizes.bigFileBytes)})`, { argv: ['sha256sum', bigName], cwd: '/' }),
  row('toolbox/md5sum', 'toolbox', (c) => `md5sum (${mb(c.data.sizes.bigFileBytes)})`, { argv: ['md5sum', bigName], cwd: '/' }),
  row('toolbox/base64', 'toolbox', (c) => `base64 (${mb(c.data.sizes.bigFileBytes)}) > file`, { argv: ['base64', bigName], cwd: '/', outFile: `${P.out}/b64.txt` }),
  row('toolbox/paste', 'toolbox', (c) => `paste -d, CSV CSV (${mb(c.data.sizes.csvBytes)}) > file`, { argv: ['paste', '-d,', csvName, csvName], cwd: '/', outFile: `${P.out}/paste.txt` }),
  row('toolbox/join', 'toolbox', (c) => `join -t, of two CSVs sorted on the id (${mb(c.data.sizes.csvBytes)} each) > file`,
    { argv: ['join', '-t,', `${out}/j1.csv`, `${out}/j2.csv`], cwd: '/', outFile: `${P.out}/join.txt` },
    byGnu(['sh', '-c', `sort -t, -k1,1 ${csvName} > ${out}/j1.csv && cut -d, -f1,3- ${csvName} | sort -t, -k1,1 > ${out}/j2.csv`])),
  row('toolbox/od', 'toolbox', (c) => `od -An -tx1 CSV (${mb(c.data.sizes.csvBytes)}) > file`, { argv: ['od', '-An', '-tx1', csvName], cwd: '/', outFile: `${P.out}/od.txt` }),
  row('archive/gzip', 'archive', (c) => `gzip -c (${mb(c.data.sizes.bigFileBytes)} text) > file`, { argv: ['gzip', '-c', bigName], cwd: '/', outFile: `${P.out}/gzip.gz` },
    undefined, { gunzipOut: true, memory: true }),
  row('archive/gunzip', 'archive', (c) => `gzip -dc (${mb(c.data.sizes.bigFileBytes)} text) > file`, { argv: ['gzip', '-dc', `${out}/gnu.gz`], cwd: '/', outFile: `${P.out}/gunzip.txt` },
    async (ctx) => { await byGnu(['sh', '-c', `gzip -c ${bigName} > ${out}/gnu.gz`])(ctx); }, { memory: true }),
  row('archive/tar-czf', 'archive', () => 'tar czf of the 1000-file tree (a new archive each run)', { argv: ['tar', 'czf', `${out}/t-@N@.tgz`, tree], cwd: '/' },
    undefined, { memory: true }),
  row('archive/tar-xzf', 'archive', () => 'tar xzf of the 1000-file tree (into a new folder each run)', { argv: ['tar', 'xzf', `${out}/gnu.tgz`, '-C', `${out}/tx-@N@`], cwd: '/' },
    byGnu(['tar', 'czf', `${out}/gnu.tgz`, tree]), { memory: true }),
  row('archive/zip-r', 'archive', () => 'zip -q -r of the 1000-file tree (a new archive each run)', { argv: ['zip', '-q', '-r', `${out}/z-@N@.zip`, tree], cwd: '/' },
    undefined, { memory: true }),
  row('archive/unzip', 'archive', () => 'unzip -q of the 1000-file tree (into a new folder each run)', { argv: ['unzip', '-q', `${out}/gnu.zip`, '-d', `${out}/ux-@N@`], cwd: '/' },
    byGnu(['zip', '-q', '-r', `${out}/gnu.zip`, tree]), { memory: true }),
  row('archive/unzip-big', 'archive', (c) => `unzip -q of one ${mb(c.data.sizes.bigFileBytes)} file (into a new folder each run)`, { argv: ['unzip', '-q', `${out}/big.zip`, '-d', `${out}/ub-@N@`], cwd: '/' },
    byGnu(['zip', '-q', '-j', `${out}/big.zip`, bigName]), { memory: true }),
  row('lang/awk-sum', 'languages', (c) => `awk '{s+=$3} END{print s}' (${mb(c.data.sizes.bigFileBytes)})`, { argv: ['awk', '{s+=$3} END{print s}', bigName], cwd: '/' }),
  row('lang/awk-field', 'languages', (c) => `awk -F, '{print $1}' CSV (${mb(bigCsvBytes(c))}) > file`, { argv: ['awk', '-F,', '{print $1}', `${out}/big.csv`], cwd: '/', outFile: `${P.out}/awk.txt` },
    (ctx) => byGnu(['sh', '-c', `for i in $(seq ${bigCsvCopies(ctx)}); do cat ${csvName}; done > ${out}/big.csv`])(ctx)),
  row('lang/awk-group', 'languages', (c) => `awk -F, sum by city CSV (${mb(c.data.sizes.csvBytes)})`, { argv: ['awk', '-F,', 'NR>1{s[$3]+=$4} END{for (k in s) printf "%s %.2f\\n", k, s[k]}', csvName], cwd: '/' }),
  row('lang/diff-u', 'languages', (c) => `diff -u CSV and a copy with scattered changes (${mb(c.data.sizes.csvBytes)}) > file`,
    { argv: ['diff', '-u', '--label', 'a', '--label', 'b', csvName, `${out}/data2.csv`], cwd: '/', outFile: `${P.out}/diff.txt` },
    byGnu(['sh', '-c', `gawk -F, -v OFS=, 'NR%500==0{$2="changed"} NR%777==0{next} 1' ${csvName} > ${out}/data2.csv`])),
  row('lang/jq', 'languages', (c) => `jq select/length of a JSON array of objects (${mb(jsonBytes(c))})`,
    { argv: ['jq', 'map(select(.city == "Riga") | .amount | tonumber) | {n: length, sum: add}', `${out}/data.json`], cwd: '/' },
    (ctx) => byGnu(['sh', '-c', `jq -R -s -c 'split("\\n") | .[1:] | map(select(length > 0) | split(",") | {id: .[0], name: .[1], city: .[2], amount: .[3], date: .[4]})' `
      + `${csvName} > ${out}/data.json && head -c ${jsonBytes(ctx)} ${out}/data.json | sed 's/,{[^}]*$//; s/,$//; s/}$/}]/' > ${out}/data.tmp && mv ${out}/data.tmp ${out}/data.json`])(ctx)),
  row('sqlite/group-by', 'sqlite', (c) => `sqlite3 COUNT/GROUP BY on a ${mb(dbBytes(c))} database, ${GROUP_BY_CALLS} calls`,
    { argv: ['sqlite3', `${out}/bench.db`, 'select city, count(*) from t group by city order by city'], cwd: '/' },
    makeDb, { repeat: GROUP_BY_CALLS, rss: true }),
  row('sqlite/import', 'sqlite', (c) => `sqlite3 .import of the CSV (${mb(c.data.sizes.csvBytes)}) into :memory:`,
    { argv: ['sqlite3', ':memory:', `.import --csv ${csvName} t`, 'select count(*) from t'], cwd: '/' }, undefined, { rss: true }),
];
