/**
 * Resident memory (RSS) of a process hosting each system: idle after one small call, and
 * after the big-file commands (wc -l, grep -c, sed, sort). Each system runs in its own
 * child process (bench/memprobe.ts) so the figures do not mix. nosh's RSS includes its workers.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { summarise } from '../measure.js';
import type { Cell, Ctx, Scenario, ScenarioResult } from './common.js';

const PROBE = fileURLToPath(new URL('../memprobe.js', import.meta.url));
const SYSTEMS: [string, string][] = [['nosh', 'nosh (library)'], ['jb-mem', 'just-bash mem'], ['jb-disk', 'just-bash disk']];

interface Probe { idle?: number; after?: number; peak?: number; missing?: string[]; unavailable?: string; error?: string }

function probe(id: string, root: string, quick: boolean): Promise<Probe> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--expose-gc', PROBE, id, root, quick ? 'quick' : 'full'], { maxBuffer: 1 << 20, timeout: 600_000 }, (err, stdout) => {
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop()!) as Probe);
      } catch {
        resolve({ error: err ? err.message.split('\n')[0] : 'no answer' });
      }
    });
  });
}

let cache: Promise<Map<string, Probe>> | null = null;

function probes(ctx: Ctx): Promise<Map<string, Probe>> {
  cache ??= (async () => {
    // One child process per system, run side by side (RSS is per process; CPU load does not change it much).
    ctx.progress(`memory: ${SYSTEMS.map(([, l]) => l).join(', ')} (child processes)`);
    const got = await Promise.all(SYSTEMS.map(([id]) => probe(id, ctx.data.root, ctx.quick)));
    return new Map(SYSTEMS.map(([id], i) => [id, got[i]!]));
  })();
  return cache;
}

function row(id: string, title: string, pick: (p: Probe) => number | undefined): Scenario {
  return {
    id, group: 'memory', title,
    async run(ctx): Promise<ScenarioResult> {
      const m = await probes(ctx);
      const cells: Cell[] = SYSTEMS.map(([sid, label]) => {
        const p = m.get(sid)!;
        if (p.unavailable) return { system: sid, label, status: 'absent', note: p.unavailable };
        const v = pick(p);
        if (p.error || v === undefined) return { system: sid, label, status: 'error', note: `error: ${p.error ?? 'no figure'}` };
        const note = p.missing && p.missing.length > 0 && id !== 'memory/idle' ? `commands missing: ${p.missing.join(' ')}` : undefined;
        return { system: sid, label, status: 'ok', stats: summarise([v], 'bytes'), note };
      });
      return { id, group: 'memory', title: ctx.quick ? title.replace('big-file commands', 'big-file commands but sed') : title, better: 'lower', cells };
    },
  };
}

export const memoryScenarios: Scenario[] = [
  row('memory/idle', 'RSS idle (after one call)', (p) => p.idle),
  row('memory/after-big', 'RSS after big-file commands', (p) => p.after),
  row('memory/peak', 'peak RSS over big-file commands', (p) => p.peak),
];
