// Archive streaming soak (not part of npm test; test/commands/archive-big.test.ts runs the same
// at 256 MB): builds a file of --mb MiB (default 1024) in a temp zone, then through the library
// with the worker memory limit at --memory MB (default 64; heap plus Buffers, src/runtime/memory.ts):
// gzip -k, gunzip, zip, unzip -d, unzip -p. Each output is compared with the original by sha256.
// Prints each step's seconds and the process's peak RSS (VmHWM: main thread and workers).
//
//   npx tsc -p tsconfig.json && node bench/soak-archives.mjs [--mb 1024] [--memory 64] [--only gzip|zip] [--info-zip] [--keep]
// Each call may take up to 300 s (the largest timeoutMs): on a loaded host a 1 GB step can pass it.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createNosh } from '../dist/src/index.js';
import { sha256File, writeBigText } from '../dist/bench/big-text.js';

const MiB = 1024 * 1024;
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const SIZE_MB = arg('mb', 1024);
const MEMORY_MB = arg('memory', 64);
const KEEP = process.argv.includes('--keep');
// --only gzip | zip: one half (the other is skipped)
// --info-zip: the archive unzip reads is made by Info-ZIP's zip (nosh's zip step is skipped)
const INFO_ZIP = process.argv.includes('--info-zip');
const ONLY = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : '';

function vm(key) {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : -1;
}

const makeBig = (file) => writeBigText(file, SIZE_MB);
const sha256 = sha256File;

const top = fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-soak-arch-'));
const root = path.join(top, 'zone');
fs.mkdirSync(root);
let failed = false;
const rows = [];
const nosh = await createNosh({ root, base: path.join(top, 'base'), threads: 1, limits: { memoryMb: MEMORY_MB, timeoutMs: 300_000, maxFileSize: 4 * 1024 * MiB } });
try {
  let t = process.hrtime.bigint();
  const want = makeBig(path.join(root, 'big.bin'));
  const step = async (label, command, stdoutFile, check) => {
    const t0 = process.hrtime.bigint();
    const r = await nosh.call('exec', { command, ...(stdoutFile ? { stdout_file: stdoutFile } : {}) });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    let ok = r.success && r.data.exit_code === 0;
    let note = ok ? '' : JSON.stringify(r.error ?? r.data.stderr).slice(0, 300);
    if (ok && check) {
      const got = await sha256(path.join(root, check));
      ok = got === want;
      if (!ok) note = `sha256 differs: ${got}`;
    }
    if (!ok) failed = true;
    rows.push({ step: label, seconds: s.toFixed(1), ok, peak_rss_mb: vm('VmHWM'), note });
    console.log(`${label.padEnd(24)} ${s.toFixed(1).padStart(7)} s  ${ok ? 'ok ' : 'FAIL'}  peak RSS ${vm('VmHWM')} MB ${note}`);
    return ok;
  };
  const size = (f) => `  ${f}: ${(fs.statSync(path.join(root, f)).size / MiB).toFixed(0)} MiB`;
  console.log(`file of ${SIZE_MB} MiB written and hashed in ${(Number(process.hrtime.bigint() - t) / 1e9).toFixed(1)} s; worker memory limit ${MEMORY_MB} MB; RSS now ${vm('VmRSS')} MB, peak ${vm('VmHWM')} MB`);
  if (ONLY !== 'zip' && await step('gzip -k big.bin', 'gzip -k big.bin')) {
    console.log(size('big.bin.gz'));
    fs.mkdirSync(path.join(root, 'g'));
    fs.renameSync(path.join(root, 'big.bin.gz'), path.join(root, 'g/big.bin.gz'));
    await step('gunzip g/big.bin.gz', 'gunzip g/big.bin.gz', undefined, 'g/big.bin');
    fs.rmSync(path.join(root, 'g'), { recursive: true });
  }
  const zipped = ONLY === 'gzip' ? false : INFO_ZIP
    ? spawnSync('zip', ['-q', 'z.zip', 'big.bin'], { cwd: root }).status === 0
    : await step('zip -q z.zip big.bin', 'zip -q z.zip big.bin');
  if (zipped) {
    console.log(size('z.zip'));
    await step('unzip -q z.zip -d u', 'unzip -q z.zip -d u', undefined, 'u/big.bin');
    fs.rmSync(path.join(root, 'u'), { recursive: true });
    await step('unzip -p z.zip > p.bin', 'unzip -p z.zip big.bin', 'p.bin', 'p.bin');
  }
  t = process.hrtime.bigint();
  console.log(`peak RSS of the process (VmHWM) ${vm('VmHWM')} MB; ${failed ? 'FAILED' : 'all outputs identical'}`);
} finally {
  await nosh.close();
  if (!KEEP) fs.rmSync(top, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
