/** Search: grep -r over the 1000-file tree, find -name over the 20 000-file tree. */
import { P } from '../data.js';
import { runCommandScenario, sortedLines, type Ctx, type Scenario } from './common.js';

const SYSTEMS = ['nosh', 'serve', 'gnu', 'jb-mem', 'jb-disk', 'rb-mem'];

function search(id: string, title: (ctx: Ctx) => string, argv: string[], systems = SYSTEMS): Scenario {
  return {
    id, group: 'search', title: title({ quick: false } as Ctx),
    async run(ctx) {
      const r = await runCommandScenario(ctx, {
        id, group: 'search', title: title(ctx), cmd: { argv, cwd: '/' }, systems,
        // Directory order differs between systems; the set of lines must not.
        normalize: sortedLines,
        opts: () => ctx.profile.search,
      });
      return r;
    },
  };
}

export const searchScenarios: Scenario[] = [
  search('search/grep-r', (ctx) => `grep -r needle (${ctx.quick ? ctx.data.sizes.smallTreeFiles : 1000} files)`,
    ['grep', '-r', 'needle', P.tree1k.slice(1)]),
  search('search/find-name', (ctx) => `find -name '*7.txt' (${ctx.quick ? ctx.data.sizes.bigTreeFiles : 20000} files)`,
    ['find', P.tree20k.slice(1), '-name', '*7.txt']),
  // The same search again and again over an unchanged tree (an agent's repeated greps), with
  // nosh's content cache on (limits.contentCacheMb): every timed run after the first is a repeat.
  search('search/grep-r-repeat', (ctx) => `grep -r needle again, content cache (${ctx.quick ? ctx.data.sizes.smallTreeFiles : 1000} files)`,
    ['grep', '-r', 'needle', P.tree1k.slice(1)], ['nosh-cache', 'gnu', 'jb-mem']),
];
