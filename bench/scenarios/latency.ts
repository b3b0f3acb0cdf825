/**
 * Latency: one small command at a time, many samples, through every system.
 * In-memory just-bash cannot match owners, inodes or times, so ls and stat answers are
 * compared on what every system can know: names and sizes.
 */
import { P } from '../data.js';
import { runCommandScenario, type Ctx, type Scenario } from './common.js';

const SYSTEMS = ['nosh', 'serve', 'gnu', 'jb-mem', 'jb-disk', 'rb-mem'];

/** `ls -la`: each entry's name, and its size when it is a regular file. */
export function lsNames(s: string): string {
  return s.split('\n').filter((l) => l !== '' && !l.startsWith('total ')).map((l) => {
    const f = l.trim().split(/\s+/);
    return l.startsWith('-') ? `${f[f.length - 1]} ${f[4]}` : `${f[f.length - 1]}`;
  }).sort().join('\n');
}

/** `stat`: the file's name and size. */
export function statNameSize(s: string): string {
  const name = /File:\s*'?([^'\n]+?)'?\s*$/m.exec(s)?.[1] ?? '?';
  const size = /Size:\s*(\d+)/.exec(s)?.[1] ?? '?';
  return `${name} ${size}`;
}

function latency(id: string, title: string, argv: string[], normalize?: (s: string) => string): Scenario {
  return {
    id, group: 'latency', title,
    run: (ctx: Ctx) => runCommandScenario(ctx, {
      id, group: 'latency', title, cmd: { argv, cwd: P.lat }, systems: SYSTEMS, normalize,
      opts: (sys) => (sys === 'gnu' ? ctx.profile.spawn : ctx.profile.lib),
    }),
  };
}

export const latencyScenarios: Scenario[] = [
  latency('latency/cat', 'cat small.txt (1 KiB)', ['cat', P.small]),
  latency('latency/ls', 'ls -la dir (40 files)', ['ls', '-la', P.dir], lsNames),
  latency('latency/stat', 'stat small.txt', ['stat', P.small], statNameSize),
  latency('latency/head', 'head -n 20 medium.txt (64 KiB)', ['head', '-n', '20', P.medium]),
];
