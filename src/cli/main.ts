#!/usr/bin/env node
import { runCli } from './run.js';

runCli(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`nosh: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
