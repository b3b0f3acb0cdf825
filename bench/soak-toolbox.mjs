#!/usr/bin/env node
/**
 * Issue #25, "every command streams": each toolbox command of the issue run once through the
 * library on a 1 GB input (not a test: minutes of work and gigabytes of disk).
 *
 *   npx tsc -p tsconfig.json && node --expose-gc bench/soak-toolbox.mjs [--size-mb 1024] [--memory-mb 64]
 *     [--timeout-s 300] [--only NAME,...] [--input FILE] [--keep]
 *
 * --input: an in.txt made by an earlier run (--keep), hard-linked into the zone instead of
 * made again (making 1 GB takes minutes on a loaded host).
 *
 * A temp folder gets a zone holding in.txt: SIZE MB of lines `k<10 digits> <number> word<TAB>word
 * word`, keys increasing (sorted in the C locale, so comm and join can read it twice). Each
 * command runs in a pool of one worker whose memory budget is --memory-mb (limits.memoryMb:
 * V8's heap limit plus nosh's own check of heap + Buffers every MiB read: a command that
 * holds its input ends with MEMORY_LIMIT), its stdout to a file in the zone (removed after;
 * limits.maxFileSize raised to 8 GiB: xxd writes 4 bytes per byte read).
 * The process's resident memory is sampled every 25 ms (the worker is a thread of this
 * process: Node 20 cannot read a busy worker's heap from the main thread); the table gives
 * the peak and its growth over the idle process. Commands that must hold their input are
 * expected to stop at the budget and say why.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNosh } from '../dist/src/index.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const SIZE = Number(arg('size-mb', '1024')) * 1048576;
const MEMORY_MB = Number(arg('memory-mb', '64'));
const ONLY = arg('only', '')?.split(',').filter(Boolean) ?? [];
const KEEP = process.argv.includes('--keep');
const TIMEOUT_MS = Number(arg('timeout-s', '300')) * 1000;
const INPUT = arg('input', '');

/** [command line, what is expected when it does not stream (the reason it holds its input)] */
const COMMANDS = [
  ['sha256sum in.txt'], ['md5sum in.txt'], ['base64 in.txt', null, 'in.b64'], ['od -An -tx1 in.txt'], ['paste in.txt in.txt'],
  ['join in.txt in.txt'], ['comm in.txt in.txt'], ['tac in.txt'], ['rev in.txt'], ['xxd in.txt'], ['nl in.txt'],
  ['fold -w 20 in.txt'], ['expand in.txt'], ['unexpand -a in.txt'], ['strings in.txt'], ['file in.txt'],
  ['sha1sum in.txt'], ['sha224sum in.txt'], ['sha384sum in.txt'], ['sha512sum in.txt'], ['b2sum in.txt'], ['cksum in.txt'],
  ['cksum -a sha256 in.txt'], ['sum in.txt'], ['base32 in.txt'], ['basenc --base16 in.txt'], ['base64 -d in.b64'],
  ['od -c in.txt'], ['xxd -p in.txt'], ['hexdump -C in.txt'], ['hd in.txt'], ['paste -s in.txt'], ['fmt in.txt'], ['cat in.txt | fmt'],
  ['cat in.txt | numfmt --field=2 --to=si'], ['split -l 5000000 in.txt parts/x'], ['csplit -f parts/c in.txt 1000000'], ['csplit -f parts/r in.txt /^k0015000000/-2'],
  ['dos2unix -n in.txt out2.txt'], ['unix2dos -n in.txt out2.txt'],
  ['column -t in.txt', 'column lines up every line\'s columns: it reads all input before it writes (as util-linux does)'],
  ['shuf in.txt', 'a permutation of all lines needs all of them (GNU shuf reads the whole input too)'],
  ['shuf -n 3 in.txt', 'GNU shuf -n on a file also reads every line; a reservoir would not need to'],
  ['tsort in.txt', 'a topological sort holds the whole graph'],
];

const dir = fs.mkdtempSync(join(tmpdir(), 'nosh-soak-toolbox-'));
const root = join(dir, 'zone');
fs.mkdirSync(join(root, 'parts'), { recursive: true });

// The input: one write per 4 MiB of lines.
if (INPUT) {
  fs.linkSync(INPUT, join(root, 'in.txt'));
  console.error(`input: ${INPUT} (${(fs.statSync(INPUT).size / 1048576).toFixed(0)} MB), in ${dir}`);
} else {
  const fd = fs.openSync(join(root, 'in.txt'), 'w');
  let n = 0;
  let k = 0;
  const words = ['alpha', 'beta', 'gamma', 'delta', 'needle', 'x', 'zeta'];
  while (n < SIZE) {
    const lines = [];
    let len = 0;
    while (len < 4 << 20 && n + len < SIZE) {
      const l = `k${String(k).padStart(10, '0')} ${(k * 7919) % 100000} ${words[k % 7]}\t${words[(k >> 3) % 7]} ${words[(k >> 6) % 7]}\n`;
      lines.push(l);
      len += l.length;
      k++;
    }
    fs.writeSync(fd, lines.join(''));
    n += len;
  }
  fs.closeSync(fd);
  console.error(`input: ${(n / 1048576).toFixed(0)} MB, ${k} lines, in ${dir}`);
}

const nosh = await createNosh({ root, base: join(dir, 'base'), threads: 1, limits: { memoryMb: MEMORY_MB, maxFileSize: 8 * 1024 ** 3 } });
await nosh.exec({ command: 'true' });
const mb = (b) => (b / 1048576).toFixed(0);
console.log(`| command | exit | seconds | peak RSS MB | RSS growth MB | note |`);
console.log('|---|---|---|---|---|---|');
for (const [line, holds, keepAs] of COMMANDS) {
  if (ONLY.length && !ONLY.some((o) => line.startsWith(o))) continue;
  globalThis.gc?.();
  const idle = process.memoryUsage.rss();
  let peak = idle;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 25);
  const t0 = Date.now();
  const out = keepAs ?? 'out.dat';
  const r = await nosh.exec({ command: line, cwd: '/' }, { stdoutFile: `/${out}`, timeoutMs: TIMEOUT_MS });
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage.rss());
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  let exit;
  let note;
  if (r.success) {
    exit = String(r.data.exit_code);
    const err = r.data.stderr.trim().split('\n')[0];
    note = r.data.exit_code === 0 && !err ? (holds ? `streamed (expected to hold: ${holds})` : 'streamed') : err;
  } else {
    exit = r.error.code;
    note = holds ? `holds its input: ${holds}` : r.error.message;
  }
  console.log(`| \`${line}\` | ${exit} | ${secs} | ${mb(peak)} | ${mb(peak - idle)} | ${note} |`);
  for (const f of ['out.dat', 'out2.txt']) fs.rmSync(join(root, f), { force: true });
  for (const f of fs.readdirSync(join(root, 'parts'))) fs.rmSync(join(root, 'parts', f));
}
await nosh.close();
if (KEEP && INPUT) fs.rmSync(join(root, 'in.txt'));
if (!KEEP) fs.rmSync(dir, { recursive: true, force: true });
