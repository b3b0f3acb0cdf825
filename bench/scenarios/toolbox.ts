/**
 * The toolbox, archive, language and SQLite commands against spawning the real tools (issues
 * #22-#25): checksums, base64 and gunzip of the big file, tar and zip of the 1000-file tree and
 * their extraction, awk, diff, jq and sqlite3 on the CSV. Inputs the rows need beyond the data
 * set are made once by the real tools. Outputs to files are compared by digest; archives by what they hold (their bytes
 * carry times and host ids that differ between tools).
 */
import { P } from '../data.js';
import { runCommandScenario, type Ctx, type Scenario } from './common.js';
import type { Cmd } from '../systems.js';

const SYSTEMS = ['nosh', 'gnu'];
const mb = (b: number) => `${Math.round(b / 1048576)} MB`;
const bigName = P.big.slice(1);
const csvName = P.csv.slice(1);
const tree = P.tree1k.slice(1);
const out = P.out.slice(1);

function row(id: string, group: string, title: (ctx: Ctx) => string, cmd: Cmd, prepare?: (ctx: Ctx) => Promise<void>): Scenario {
  return {
    id, group, title: title({ data: { sizes: { bigFileBytes: 100 * 1048576, csvBytes: 10 * 1048576 } } } as Ctx).replace(/\(\d+ MB\)/, '(big file)'),
    async run(ctx) {
      await prepare?.(ctx);
      return runCommandScenario(ctx, { id, group, title: title(ctx), cmd, systems: SYSTEMS, opts: () => ctx.profile.big });
    },
  };
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

export const toolboxScenarios: Scenario[] = [
  row('toolbox/sha256sum', 'toolbox', (c) => `sha256sum (${mb(c.data.sizes.bigFileBytes)})`, { argv: ['sha256sum', bigName], cwd: '/' }),
  row('toolbox/md5sum', 'toolbox', (c) => `md5sum (${mb(c.data.sizes.bigFileBytes)})`, { argv: ['md5sum', bigName], cwd: '/' }),
  row('toolbox/base64', 'toolbox', (c) => `base64 (${mb(c.data.sizes.bigFileBytes)}) > file`, { argv: ['base64', bigName], cwd: '/', outFile: `${P.out}/b64.txt` }),
  row('toolbox/paste', 'toolbox', (c) => `paste -d, CSV CSV (${mb(c.data.sizes.csvBytes)}) > file`, { argv: ['paste', '-d,', csvName, csvName], cwd: '/', outFile: `${P.out}/paste.txt` }),
  row('toolbox/join', 'toolbox', (c) => `join -t, of two CSVs sorted on the id (${mb(c.data.sizes.csvBytes)} each) > file`,
    { argv: ['join', '-t,', `${out}/j1.csv`, `${out}/j2.csv`], cwd: '/', outFile: `${P.out}/join.txt` },
    byGnu(['sh', '-c', `sort -t, -k1,1 ${csvName} > ${out}/j1.csv && cut -d, -f1,3- ${csvName} | sort -t, -k1,1 > ${out}/j2.csv`])),
  row('toolbox/od', 'toolbox', (c) => `od -An -tx1 CSV (${mb(c.data.sizes.csvBytes)}) > file`, { argv: ['od', '-An', '-tx1', csvName], cwd: '/', outFile: `${P.out}/od.txt` }),
  // (compression is not a row: zlib's deflate and gzip's own give different bytes to compare)
  row('archive/gunzip', 'archive', (c) => `gzip -dc (${mb(c.data.sizes.bigFileBytes)} text) > file`, { argv: ['gzip', '-dc', `${out}/gnu.gz`], cwd: '/', outFile: `${P.out}/gunzip.txt` },
    async (ctx) => { await byGnu(['sh', '-c', `gzip -c ${bigName} > ${out}/gnu.gz`])(ctx); }),
  row('archive/tar-czf', 'archive', () => 'tar czf of the 1000-file tree', { argv: ['tar', 'czf', `${out}/t.tgz`, tree], cwd: '/' }),
  row('archive/tar-xzf', 'archive', () => 'tar xzf of the 1000-file tree', { argv: ['tar', 'xzf', `${out}/gnu.tgz`, '-C', `${out}/tx`], cwd: '/' },
    async (ctx) => { await byGnu(['mkdir', '-p', `${out}/tx`])(ctx); await byGnu(['tar', 'czf', `${out}/gnu.tgz`, tree])(ctx); }),
  row('archive/zip-r', 'archive', () => 'zip -q -r of the 1000-file tree', { argv: ['zip', '-q', '-r', `${out}/z.zip`, tree], cwd: '/' }),
  row('archive/unzip', 'archive', () => 'unzip -q -o of the 1000-file tree', { argv: ['unzip', '-q', '-o', `${out}/gnu.zip`, '-d', `${out}/ux`], cwd: '/' },
    byGnu(['zip', '-q', '-r', `${out}/gnu.zip`, tree])),
  row('lang/awk-sum', 'languages', (c) => `awk '{s+=$3} END{print s}' (${mb(c.data.sizes.bigFileBytes)})`, { argv: ['awk', '{s+=$3} END{print s}', bigName], cwd: '/' }),
  row('lang/awk-field', 'languages', (c) => `awk -F, '{print $1}' CSV (${mb(c.data.sizes.csvBytes)}) > file`, { argv: ['awk', '-F,', '{print $1}', csvName], cwd: '/', outFile: `${P.out}/awk.txt` }),
  row('lang/awk-group', 'languages', (c) => `awk -F, sum by city CSV (${mb(c.data.sizes.csvBytes)})`, { argv: ['awk', '-F,', 'NR>1{s[$3]+=$4} END{for (k in s) printf "%s %.2f\\n", k, s[k]}', csvName], cwd: '/' }),
  row('lang/diff-u', 'languages', (c) => `diff -u CSV and a copy with scattered changes (${mb(c.data.sizes.csvBytes)}) > file`,
    { argv: ['diff', '-u', '--label', 'a', '--label', 'b', csvName, `${out}/data2.csv`], cwd: '/', outFile: `${P.out}/diff.txt` },
    byGnu(['sh', '-c', `gawk -F, -v OFS=, 'NR%500==0{$2="changed"} NR%777==0{next} 1' ${csvName} > ${out}/data2.csv`])),
  row('lang/jq', 'languages', (c) => `jq over the CSV as JSON (${mb(c.data.sizes.csvBytes)} CSV)`,
    { argv: ['jq', '-c', 'map(select(.[2] == "Riga")) | length', `${out}/data.json`], cwd: '/' },
    byGnu(['sh', '-c', `jq -R -s -c 'split("\\n") | map(select(length > 0) | split(","))' ${csvName} > ${out}/data.json`])),
  row('sqlite/group-by', 'sqlite', (c) => `sqlite3 COUNT/GROUP BY on the CSV's table (${mb(c.data.sizes.csvBytes)} CSV)`,
    { argv: ['sqlite3', `${out}/bench.db`, 'select city, count(*) from t group by city order by city'], cwd: '/' },
    byGnu(['sh', '-c', `rm -f ${out}/bench.db && sqlite3 ${out}/bench.db '.import --csv ${csvName} t'`])),
  row('sqlite/import', 'sqlite', (c) => `sqlite3 .import of the CSV (${mb(c.data.sizes.csvBytes)}) into :memory:`,
    { argv: ['sqlite3', ':memory:', `.import --csv ${csvName} t`, 'select count(*) from t'], cwd: '/' }),
];
