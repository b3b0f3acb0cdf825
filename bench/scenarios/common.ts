/**
 * What every scenario shares: the context it runs in, its result (one row of the table),
 * and the generic "same command on every system" runner that checks answers before timing.
 */
import type { DataSet } from '../data.js';
import { measureInterleaved, summarise, type MeasureOptions, type Stats } from '../measure.js';
import type { Cmd, System } from '../systems.js';

export type CellStatus = 'ok' | 'skipped' | 'absent' | 'wrong' | 'error';

export interface Cell {
  system: string;
  label: string;
  status: CellStatus;
  stats?: Stats;
  /** Why skipped / what was wrong. */
  note?: string;
}

export interface ScenarioResult {
  id: string;
  group: string;
  title: string;
  /** 'lower' when a smaller figure is better (times, memory), 'higher' for throughput. */
  better: 'lower' | 'higher';
  cells: Cell[];
  note?: string;
  /** Wall time of the whole scenario, s. */
  seconds?: number;
}

export interface Profile {
  /** Latency calls through a library (nosh, just-bash, JSON-RPC). */
  lib: MeasureOptions;
  /** Latency calls that spawn a process. */
  spawn: MeasureOptions;
  search: MeasureOptions;
  big: MeasureOptions;
  throughputMs: number;
  throughputWarmupMs: number;
  startupRuns: number;
}

export const QUICK: Profile = {
  lib: { warmup: 3000, warmupMs: 1000, samples: 400, budgetMs: 800 },
  spawn: { warmup: 5, samples: 40, budgetMs: 800 },
  search: { warmup: 0, samples: 3, budgetMs: 1000, minSamples: 1 },
  big: { warmup: 0, samples: 3, budgetMs: 1500, minSamples: 1 },
  throughputMs: 1000,
  throughputWarmupMs: 250,
  startupRuns: 2,
};

export const FULL: Profile = {
  lib: { warmup: 5000, warmupMs: 3000, samples: 2000, budgetMs: 10_000 },
  spawn: { warmup: 10, samples: 200, budgetMs: 10_000 },
  search: { warmup: 2, samples: 20, budgetMs: 10_000, minSamples: 3 },
  big: { warmup: 1, samples: 5, budgetMs: 60_000, minSamples: 1 },
  throughputMs: 5000,
  throughputWarmupMs: 1000,
  startupRuns: 10,
};

export interface Ctx {
  data: DataSet;
  quick: boolean;
  profile: Profile;
  progress(s: string): void;
  /** Systems by id, created once and kept warm: nosh, serve, gnu, jb-mem, jb-disk. */
  system(id: string): Promise<System>;
}

export interface Scenario {
  id: string;
  group: string;
  title: string;
  run(ctx: Ctx): Promise<ScenarioResult>;
}

export interface CommandScenarioSpec {
  id: string;
  group: string;
  title: string;
  cmd: Cmd;
  /** System ids, nosh first. */
  systems: string[];
  /** Reduce an answer to what every system must agree on (default: exact stdout). */
  normalize?: (stdout: string) => string;
  /** Measurement options for a system id. */
  opts: (systemId: string) => MeasureOptions;
}

/** The nosh command a scenario needs, for "skipped: command missing". */
export function commandName(cmd: Cmd): string {
  return cmd.argv[0]!;
}

/** One answer of a system: normalized stdout (or the digest of the out file) and exit code. */
async function answerOf(sys: System, cmd: Cmd, normalize: (s: string) => string): Promise<{ answer?: string; missing?: boolean; error?: string; ns?: number }> {
  try {
    const t0 = process.hrtime.bigint();
    const out = await sys.run(cmd);
    const ns = Number(process.hrtime.bigint() - t0);
    if (out.missing) return { missing: true };
    const body = cmd.outFile ? await sys.readOut(cmd.outFile) : normalize(out.stdout);
    return { answer: `exit ${out.exitCode}\n${body}`, ns };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

function short(s: string, n = 120): string {
  const one = s.replace(/\n/g, '⏎');
  return one.length > n ? one.slice(0, n) + '…' : one;
}

/**
 * Run one command on every system: first once each to check the answers (GNU's is the
 * reference, or nosh's when GNU cannot run), then time only the systems that agreed.
 */
export async function runCommandScenario(ctx: Ctx, spec: CommandScenarioSpec): Promise<ScenarioResult> {
  const normalize = spec.normalize ?? ((s: string) => s);
  const cells: Cell[] = [];
  const answers = new Map<string, string>();
  const checkNs = new Map<string, number>();
  const systems: System[] = [];
  for (const id of spec.systems) {
    const sys = await ctx.system(id);
    systems.push(sys);
    if (sys.unavailable) {
      cells.push({ system: id, label: sys.label, status: sys.unavailable.startsWith('absent') ? 'absent' : 'skipped', note: sys.unavailable });
      continue;
    }
    const cmd = withOut(spec, id);
    const a = await answerOf(sys, cmd, normalize);
    if (a.missing) cells.push({ system: id, label: sys.label, status: 'skipped', note: `skipped: command missing (${commandName(cmd)})` });
    else if (a.error !== undefined) cells.push({ system: id, label: sys.label, status: 'error', note: `error: ${short(a.error)}` });
    else {
      answers.set(id, a.answer!);
      checkNs.set(id, a.ns!);
      cells.push({ system: id, label: sys.label, status: 'ok' });
    }
  }
  const ref = answers.get('gnu') ?? answers.get('nosh') ?? [...answers.values()][0];
  for (const c of cells) {
    if (c.status !== 'ok') continue;
    const a = answers.get(c.system)!;
    if (a !== ref) {
      c.status = 'wrong';
      c.note = `WRONG: got ${short(a)} expected ${short(ref!)}`;
    }
  }
  const timed: { cell: Cell; run: () => Promise<unknown>; opts: MeasureOptions }[] = [];
  for (const [i, c] of cells.entries()) {
    if (c.status !== 'ok') continue;
    const sys = systems[i]!;
    const cmd = withOut(spec, c.system);
    const o = spec.opts(c.system);
    const first = checkNs.get(c.system)!;
    if ((o.minSamples ?? 3) <= 1 && first > o.budgetMs * 1e6 / 2) {
      // One run already took half the budget: the (checked) first run is the one sample.
      c.stats = summarise([first]);
      continue;
    }
    timed.push({ cell: c, run: () => sys.run(cmd), opts: o });
  }
  if (timed.length > 0) {
    ctx.progress(`${spec.id}: timing ${timed.map((t) => t.cell.label).join(', ')} in turns`);
    try {
      const stats = await measureInterleaved(timed.map((t) => t.run), timed.map((t) => t.opts));
      timed.forEach((t, i) => { t.cell.stats = stats[i]; });
    } catch (e) {
      for (const t of timed) {
        t.cell.status = 'error';
        t.cell.note = `error: ${short(e instanceof Error ? e.message : String(e))}`;
      }
    }
  }
  return { id: spec.id, group: spec.group, title: spec.title, better: 'lower', cells };
}

/** Each system writes its own out file, so they can be compared afterwards. */
function withOut(spec: CommandScenarioSpec, systemId: string): Cmd {
  return spec.cmd.outFile ? { ...spec.cmd, outFile: `${spec.cmd.outFile}.${systemId}` } : spec.cmd;
}

/** Sorted lines: for outputs whose order depends on directory order (grep -r, find). */
export function sortedLines(s: string): string {
  return s.split('\n').filter((l) => l !== '').sort().join('\n');
}
