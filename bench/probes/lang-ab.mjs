#!/usr/bin/env node
/**
 * Issue #24's awk and diff rows, A/B through bench/probes/ab.mjs (this build, an older one, the real tool, in turns).
 *
 *   npx tsc -p tsconfig.json && node bench/probes/lang-ab.mjs DATA_DIR [ROUNDS] [FILTER] [OLD_DIST]
 *
 * DATA_DIR holds big100.txt (the bench's 100 MB text), big.csv (its 10 MB CSV ten times), csv10.csv
 * (the CSV) and data2.csv (the CSV with the diff row's scattered changes, made by gawk as in
 * scenarios/toolbox.ts). OLD_DIST: another build's dist/ folder.
 */
import { runAb } from './ab.mjs';

const rows = [
  { id: 'awk-sum', line: "awk '{s+=$3} END{print s}' big100.txt", compare: true },
  { id: 'awk-field', line: "awk -F, '{print $1}' big.csv", compare: true },
  { id: 'diff-u', line: 'diff -u --label a --label b csv10.csv data2.csv', compare: true, maxExit: 1 },
];

await runAb(rows);
