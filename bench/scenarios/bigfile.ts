/**
 * Big file: wc -l, grep -c, sed s/a/b/g, sort and cut -d' ' -f3 on the big text file (100 MB;
 * 2 MB with --quick), and cut on the CSV. Whole outputs go to a file in the data set (stdout_file for
 * nosh, a redirection for just-bash, an fd for GNU) and are compared by sha256.
 */
import { P } from '../data.js';
import { runCommandScenario, type Ctx, type Scenario } from './common.js';
import type { Cmd } from '../systems.js';

const SYSTEMS = ['nosh', 'serve', 'gnu', 'jb-mem', 'jb-disk', 'rb-mem'];
const mb = (b: number) => `${Math.round(b / 1048576)} MB`;

function big(id: string, title: (ctx: Ctx) => string, cmd: Cmd): Scenario {
  return {
    id, group: 'bigfile', title: title({ data: { sizes: { bigFileBytes: 100 * 1048576, csvBytes: 10 * 1048576 } } } as Ctx).replace(/\(\d+ MB\)/, '(big file)'),
    run: (ctx) => runCommandScenario(ctx, {
      id, group: 'bigfile', title: title(ctx), cmd, systems: SYSTEMS, opts: () => ctx.profile.big,
    }),
  };
}

const bigName = P.big.slice(1);
const csvName = P.csv.slice(1);

export const bigFileScenarios: Scenario[] = [
  big('bigfile/wc-l', (c) => `wc -l (${mb(c.data.sizes.bigFileBytes)})`, { argv: ['wc', '-l', bigName], cwd: '/' }),
  big('bigfile/grep-c', (c) => `grep -c needle (${mb(c.data.sizes.bigFileBytes)})`, { argv: ['grep', '-c', 'needle', bigName], cwd: '/' }),
  big('bigfile/sed', (c) => `sed s/a/b/g (${mb(c.data.sizes.bigFileBytes)}) > file`, { argv: ['sed', 's/a/b/g', bigName], cwd: '/', outFile: `${P.out}/sed.txt` }),
  big('bigfile/sort', (c) => `sort (${mb(c.data.sizes.bigFileBytes)}) > file`, { argv: ['sort', bigName], cwd: '/', outFile: `${P.out}/sort.txt` }),
  big('bigfile/cut-big', (c) => `cut -d' ' -f3 (${mb(c.data.sizes.bigFileBytes)}) > file`, { argv: ['cut', '-d', ' ', '-f3', bigName], cwd: '/', outFile: `${P.out}/cut-big.txt` }),
  big('bigfile/cut-csv', (c) => `cut -d, -f3 CSV (${mb(c.data.sizes.csvBytes)}) > file`, { argv: ['cut', '-d,', '-f3', csvName], cwd: '/', outFile: `${P.out}/cut.txt` }),
];
