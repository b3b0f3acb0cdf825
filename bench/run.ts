/**
 * nosh benchmark harness: `npm run bench [-- --quick] [-- --filter NAME] [-- --json FILE]`.
 * Runs every scenario, checks that all systems gave the same answer before timing them, and
 * prints one table: nosh's median, each alternative's median and the ratio alternative/nosh.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { parseArgs } from 'node:util';
import { defaultDataDir, ensureData, type DataSet } from './data.js';
import { REPO, ensureAlternatives } from './deps.js';
import { fmtValue } from './measure.js';
import { Gnu, JustBashSystem, NoshLib, NoshServe, RustBashSystem, type System } from './systems.js';
import { FULL, QUICK, type Cell, type Ctx, type Scenario, type ScenarioResult } from './scenarios/common.js';
import { latencyScenarios } from './scenarios/latency.js';
import { throughputScenarios } from './scenarios/throughput.js';
import { searchScenarios } from './scenarios/search.js';
import { bigFileScenarios } from './scenarios/bigfile.js';
import { startupScenarios } from './scenarios/startup.js';
import { memoryScenarios } from './scenarios/memory.js';
import { closeMcp, mcpScenarios } from './scenarios/mcp.js';
import { breakdownScenarios } from './scenarios/breakdown.js';
import { toolboxScenarios } from './scenarios/toolbox.js';
import { versioningScenarios } from './scenarios/versioning.js';
import { metaScenarios } from './scenarios/meta.js';

export const SCENARIOS: Scenario[] = [
  ...latencyScenarios, ...throughputScenarios, ...searchScenarios, ...bigFileScenarios,
  ...startupScenarios, ...memoryScenarios, ...mcpScenarios, ...breakdownScenarios, ...toolboxScenarios, ...versioningScenarios, ...metaScenarios,
];

const USAGE = `Usage: npm run bench -- [--quick] [--filter NAME]... [--json FILE] [--data DIR] [--fresh] [--no-install] [--list]
  --quick        smaller data sets and fewer samples (under 2 minutes on 2 cores)
  --filter NAME  run only scenarios whose id contains NAME (repeat or comma-separate)
  --json FILE    write the raw figures (min / median / p90 / max of every measurement)
  --data DIR     where the generated data set lives (default: a folder in the temp dir)
  --fresh        regenerate the data set even if a finished one is there
  --no-install   do not npm-install the alternatives when they are missing
  --list         list the scenario ids and exit
`;

/** Table columns: system ids that go in each (the row's base system fills the nosh column). */
const COLUMNS: { title: string; ids: string[] }[] = [
  { title: 'nosh', ids: ['nosh', 'nosh-mcp', 'nosh-cache'] },
  { title: 'nosh serve', ids: ['serve', 'nosh-rpc'] },
  { title: 'GNU spawn', ids: ['gnu'] },
  { title: 'just-bash mem', ids: ['jb-mem'] },
  { title: 'just-bash disk', ids: ['jb-disk'] },
  { title: 'rust-bash mem', ids: ['rb-mem'] },
  { title: 'MCP fs server', ids: ['mcp-fs'] },
  { title: 'node -e 0', ids: ['node0'] },
  { title: 'node + 1 worker', ids: ['node1w'] },
];

function progress(s: string): void {
  process.stderr.write(`  … ${s}\n`);
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+dirty` : head;
  } catch {
    return 'unknown';
  }
}

function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown', cores: os.availableParallelism(), memory_gb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`, node: process.version, commit: gitCommit(), date: new Date().toISOString(),
  };
}

/** The base system of a row: its cell in the nosh column. */
function baseCell(r: ScenarioResult): Cell | undefined {
  return r.cells.find((c) => c.system === 'nosh' || c.system === 'nosh-mcp' || c.system === 'nosh-cache') ??
    (r.id === 'startup/server' ? r.cells.find((c) => c.system === 'serve') : undefined);
}

function ratio(r: ScenarioResult, base: Cell | undefined, c: Cell): number | undefined {
  if (!base || base === c || base.status !== 'ok' || c.status !== 'ok' || !base.stats || !c.stats) return undefined;
  return r.better === 'lower' ? c.stats.median / base.stats.median : base.stats.median / c.stats.median;
}

function cellText(r: ScenarioResult, base: Cell | undefined, c: Cell | undefined): string {
  if (!c) return '';
  if (c.status === 'ok') {
    const x = ratio(r, base, c);
    return fmtValue(c.stats!) + (x !== undefined ? ` (${x >= 10 ? x.toFixed(0) : x.toFixed(2)}x)` : '');
  }
  if (c.status === 'wrong') return 'WRONG';
  if (c.status === 'error') return 'error';
  if (c.status === 'absent') return 'absent';
  return c.note?.startsWith('skipped: command missing') ? 'skipped: command missing' : (c.note ?? 'skipped');
}

export function renderTable(results: ScenarioResult[]): string {
  const rows = results.filter((r) => r.group !== 'breakdown');
  const head = ['scenario', ...COLUMNS.map((c) => c.title)];
  const body = rows.map((r) => {
    const base = baseCell(r);
    return [
      `${r.group}: ${r.title}`,
      ...COLUMNS.map((col, i) => {
        if (i === 0) return cellText(r, base, base);
        const c = r.cells.find((x) => col.ids.includes(x.system) && x !== base);
        return cellText(r, base, c);
      }),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(fmt)].join('\n');
}

function renderNotes(results: ScenarioResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    for (const c of r.cells) {
      const skipMissing = c.note?.startsWith('skipped:') || c.status === 'absent';
      if (c.note && !skipMissing) lines.push(`- ${r.id} / ${c.label}: ${c.note}`);
    }
  }
  return lines.join('\n');
}

function renderBreakdown(results: ScenarioResult[]): string {
  const r = results.find((x) => x.group === 'breakdown');
  if (!r) return '';
  const w = Math.max(...r.cells.map((c) => c.label.length));
  const lines = [`| ${'phase'.padEnd(w)} | median    | p90       |`, `|${'-'.repeat(w + 2)}|-----------|-----------|`];
  for (const c of r.cells) {
    const med = c.stats ? fmtValue(c.stats) : c.note ?? c.status;
    const p90 = c.stats ? fmtValue({ ...c.stats, median: c.stats.p90 }) : '';
    lines.push(`| ${c.label.padEnd(w)} | ${med.padEnd(9)} | ${p90.padEnd(9)} |`);
  }
  return lines.join('\n');
}

/** Issue #2's targets for `cat small.txt`: nosh at least 50x faster than the spawn, median under 100 µs. */
function targets(results: ScenarioResult[]): string {
  const r = results.find((x) => x.id === 'latency/cat');
  if (!r) return '';
  const nosh = r.cells.find((c) => c.system === 'nosh');
  const gnu = r.cells.find((c) => c.system === 'gnu');
  if (nosh?.status !== 'ok' || gnu?.status !== 'ok') return 'targets (cat small.txt): cannot tell, nosh or GNU did not run';
  const med = nosh.stats!.median / 1e3;
  const x = gnu.stats!.median / nosh.stats!.median;
  return `targets (cat small.txt): median ${med.toFixed(1)} µs ${med < 100 ? '< 100 µs: MET' : '>= 100 µs: NOT MET'}; ` +
    `${x.toFixed(1)}x faster than the spawn ${x >= 50 ? '>= 50x: MET' : '< 50x: NOT MET'}`;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' }, filter: { type: 'string', multiple: true }, json: { type: 'string' },
      data: { type: 'string' }, fresh: { type: 'boolean' }, 'no-install': { type: 'boolean' },
      list: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) { process.stdout.write(USAGE); return 0; }
  if (values.list) { process.stdout.write(SCENARIOS.map((s) => `${s.id}  ${s.title}`).join('\n') + '\n'); return 0; }
  const quick = values.quick ?? false;
  const filters = (values.filter ?? []).flatMap((f) => f.split(',')).filter((f) => f !== '');
  const chosen = SCENARIOS.filter((s) => filters.length === 0 || filters.some((f) => s.id.includes(f)));
  if (chosen.length === 0) { process.stderr.write(`no scenario matches ${filters.join(', ')}; try --list\n`); return 2; }

  const t0 = Date.now();
  const m = machine();
  process.stderr.write(`nosh bench${quick ? ' --quick (smaller data sets, fewer samples)' : ''}: ${chosen.length} scenarios; ` +
    `${m.cpu}, ${m.cores} cores, Node ${m.node}, commit ${m.commit}\n`);
  const deps = ensureAlternatives(!values['no-install'], progress);
  progress(deps);
  const data: DataSet = ensureData(values.data ?? defaultDataDir(quick), quick, values.fresh ?? false, progress);
  progress(data.generated ? `data set generated in ${data.seconds.toFixed(1)} s` : `data set reused from ${data.root}`);

  const systems = new Map<string, Promise<System>>();
  const makers: Record<string, () => Promise<System>> = {
    nosh: () => NoshLib.create(data.root),
    'nosh-cache': () => NoshLib.cached(data.root),
    gnu: async () => new Gnu(data.root),
    'jb-mem': async () => JustBashSystem.memory(data.root, ['/lat', '/tree1k', '/tree20k', '/big']),
    'jb-disk': async () => JustBashSystem.disk(data.root),
    'rb-mem': () => RustBashSystem.memory(data.root, ['/lat', '/tree1k', '/tree20k', '/big']),
    serve: async () => { const s = new NoshServe(data.root); await s.start(); return s; },
  };
  const ctx: Ctx = {
    data, quick, profile: quick ? QUICK : FULL, progress,
    system(id) {
      let p = systems.get(id);
      if (!p) { p = makers[id]!(); systems.set(id, p); }
      return p;
    },
  };

  const results: ScenarioResult[] = [];
  for (const [i, s] of chosen.entries()) {
    process.stderr.write(`[${i + 1}/${chosen.length}] ${s.id}\n`);
    const ts = Date.now();
    try {
      const r = await s.run(ctx);
      r.seconds = (Date.now() - ts) / 1000;
      results.push(r);
    } catch (e) {
      results.push({ id: s.id, group: s.group, title: s.title, better: 'lower', cells: [], note: `error: ${(e as Error).message}` });
      process.stderr.write(`  ! ${s.id} failed: ${(e as Error).stack}\n`);
    }
  }
  for (const p of systems.values()) await (await p).close();
  await closeMcp();

  const seconds = (Date.now() - t0) / 1000;
  const out: string[] = [];
  out.push(`nosh bench${quick ? ' --quick' : ''} — ${m.date.slice(0, 10)}, commit ${m.commit}, ${m.cpu} (${m.cores} cores, ${m.memory_gb} GB), Node ${m.node}`);
  out.push(`data: ${data.sizes.smallTreeFiles}-file tree, ${data.sizes.bigTreeFiles}-file tree, ${data.sizes.bigFileBytes / 1048576} MB text, ` +
    `${data.sizes.csvBytes / 1048576} MB CSV${quick ? ' (quick sizes)' : ''}; medians; (Nx) = how many times better nosh is than that system`);
  out.push('');
  out.push(renderTable(results));
  const notes = renderNotes(results);
  if (notes) out.push('', notes);
  const bd = renderBreakdown(results);
  if (bd) out.push('', "where one nosh.exec('cat small.txt') spends its time:", '', bd);
  const tg = targets(results);
  if (tg) out.push('', tg);
  out.push('', `(${seconds.toFixed(0)} s)`);
  process.stdout.write(out.join('\n') + '\n');

  if (values.json) {
    fs.writeFileSync(values.json, JSON.stringify({ machine: m, quick, data: { sizes: data.sizes }, seconds, results }, null, 2) + '\n');
    process.stderr.write(`raw figures written to ${values.json}\n`);
  }
  return 0;
}

main().then((code) => { process.exitCode = code; }, (e) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
