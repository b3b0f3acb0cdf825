/** Throughput: small commands per second from 32 concurrent callers. */
import { P } from '../data.js';
import { throughput } from '../measure.js';
import type { Cell, Scenario } from './common.js';

const CALLERS = 32;
const SYSTEMS = ['nosh', 'serve', 'gnu', 'jb-mem', 'jb-disk', 'rb-mem'];

export const throughputScenarios: Scenario[] = [{
  id: 'throughput/cat',
  group: 'throughput',
  title: `cat small.txt, ${CALLERS} concurrent callers`,
  async run(ctx) {
    const cmd = { argv: ['cat', P.small], cwd: P.lat };
    const cells: Cell[] = [];
    let expected: string | undefined;
    for (const id of SYSTEMS) {
      const sys = await ctx.system(id);
      if (sys.unavailable) {
        cells.push({ system: id, label: sys.label, status: sys.unavailable.startsWith('absent') ? 'absent' : 'skipped', note: sys.unavailable });
        continue;
      }
      const first = await sys.run(cmd).catch((e: Error) => e);
      if (first instanceof Error) { cells.push({ system: id, label: sys.label, status: 'error', note: `error: ${first.message}` }); continue; }
      if (first.missing) { cells.push({ system: id, label: sys.label, status: 'skipped', note: 'skipped: command missing (cat)' }); continue; }
      expected ??= first.stdout;
      if (first.stdout !== expected) { cells.push({ system: id, label: sys.label, status: 'wrong', note: 'WRONG: stdout differs' }); continue; }
      ctx.progress(`throughput/cat: ${sys.label}`);
      let wrong = 0;
      const stats = await throughput(async () => {
        const r = await sys.run(cmd);
        if (r.stdout !== expected) wrong++;
      }, CALLERS, ctx.profile.throughputMs, ctx.profile.throughputWarmupMs);
      cells.push(wrong > 0
        ? { system: id, label: sys.label, status: 'wrong', note: `WRONG: ${wrong} answers differed under load` }
        : { system: id, label: sys.label, status: 'ok', stats });
    }
    return { id: 'throughput/cat', group: 'throughput', title: this.title, better: 'higher', cells };
  },
}];
