#!/usr/bin/env node
/**
 * Issue #22's archive rows, A/B through bench/probes/ab.mjs (this build, an older one, the real tool, in turns).
 *
 *   npx tsc -p tsconfig.json && node bench/probes/archive-ab.mjs DATA_DIR [ROUNDS] [FILTER] [OLD_DIST]
 *
 * DATA_DIR holds tree1k/ (the bench's 1000-file tree), gnu.tgz and gnu.zip of it (made by the
 * real tar czf and zip -q -r) and an empty out/. OLD_DIST: another build's dist/ folder (with a
 * node_modules beside it).
 */
import { runAb } from './ab.mjs';

const rows = [
  { id: 'tar-xzf', line: 'tar xzf gnu.tgz -C out/tx@', rm: 'out/tx@', mk: 'out/tx@' },
  { id: 'unzip', line: 'unzip -q gnu.zip -d out/ux@', rm: 'out/ux@' },
  { id: 'zip-r', line: 'zip -q -r out/z@.zip tree1k', rm: 'out/z@.zip' },
  { id: 'tar-czf', line: 'tar czf out/t@.tgz tree1k', rm: 'out/t@.tgz' },
];

await runAb(rows);
