#!/usr/bin/env node
/**
 * Issue #25's big-file toolbox rows (and #27's sort, cut and sed), A/B through bench/probes/ab.mjs (this build, an older one, the real tool, in turns).
 *
 *   npx tsc -p tsconfig.json && node bench/probes/toolbox-ab.mjs DATA_DIR [ROUNDS] [FILTER] [OLD_DIST]
 *
 * DATA_DIR holds csv10.csv (10 MB CSV), big100.txt (100 MB text; both as the bench makes them), j1.csv and j2.csv (two 10 MB
 * CSVs sorted on their first field, for join). OLD_DIST: another build's dist/ folder.
 */
import { runAb } from './ab.mjs';

const rows = [
  ['paste', 'paste -d, csv10.csv csv10.csv'],
  ['join', 'join -t, j1.csv j2.csv'],
  ['base64', 'base64 big100.txt'],
  ['od', 'od -An -tx1 csv10.csv'],
  ['sha256sum', 'sha256sum big100.txt'],
  ['md5sum', 'md5sum big100.txt'],
  ['sort', 'sort big100.txt'],
  ['cut-big', "cut -d ' ' -f3 big100.txt"],
  ['cut-csv', 'cut -d, -f3 csv10.csv'],
  ['sed', 'sed s/a/b/g big100.txt'],
].map(([id, line]) => ({ id, line, compare: true }));

await runAb(rows);
