// Memory that V8's heap limit does not see (issue 17 §2): the process's peak RSS stays under
// the configured budget plus a margin. Each case runs in a child `node` (the built dist,
// createNosh, one 128 MB worker) that reports its own peak RSS (VmHWM, /proc/self/status).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

const dist = process.env.NOSH_RSS_DIST ?? fileURLToPath(new URL('../../dist/src/index.js', import.meta.url));
/** NOSH_RSS_DIST=<an older build> NOSH_RSS_NO_BUDGET=1: the same cases against code without limits.rssMb. */
const budgetArg = process.env.NOSH_RSS_NO_BUDGET ? '' : undefined;
/** The process budget the children are given (limits.rssMb) and what the peak may pass it by. */
const BUDGET_MB = 500;
/** One watch period (75 ms) of growth at ~1 GB/s, plus terminating the worker. */
const MARGIN_MB = 150;

let dir: string;
let root: string;

// Words over a-y; the regex patterns end in 'z', which the text never holds: no line matches,
// so a backtracking alternation tries every pattern at every byte.
let seed = 1;
const rnd = (n: number) => {
  seed = (seed * 48271) % 2147483647;
  return seed % n;
};
const word = () => {
  let w = '';
  for (let n = 4 + rnd(8); n > 0; n--) w += String.fromCharCode(97 + rnd(25));
  return w;
};

beforeAll(() => {
  dir = tempDir('nosh-rss-');
  root = path.join(dir, 'root');
  fs.mkdirSync(root);
  const fixed: string[] = [];
  const regexes: string[] = [];
  for (let i = 0; i < 2000; i++) {
    fixed.push(word() + word());
    regexes.push(word() + '.' + word() + 'z');
  }
  fs.writeFileSync(path.join(root, 'fixed.txt'), fixed.join('\n') + '\n');
  fs.writeFileSync(path.join(root, 'regex.txt'), regexes.join('\n') + '\n');
  const lines: string[] = [];
  for (let i = 0; i < 20_000; i++) lines.push(Array.from({ length: 8 }, word).join(' '));
  // Line 20001 holds one of the fixed strings.
  lines.push('found ' + fixed[1234] + ' here');
  fs.writeFileSync(path.join(root, 'text.txt'), lines.join('\n') + '\n');
  // 4 GB, no newline, allocates nothing on disk.
  fs.writeFileSync(path.join(root, 'sparse'), '');
  fs.truncateSync(path.join(root, 'sparse'), 4 * 1024 ** 3);
  fs.writeFileSync(path.join(dir, 'child.mjs'), `
import * as fs from 'node:fs';
const { createNosh } = await import(${JSON.stringify(dist)});
const [root, rssMb, ...commands] = process.argv.slice(2);
const nosh = await createNosh({ root, threads: 1, limits: { memoryMb: 128, timeoutMs: 15000, maxFileSize: 8 * 1024 ** 3, ...(rssMb ? { rssMb: Number(rssMb) } : {}) } });
const out = [];
for (const command of commands) {
  const t0 = Date.now();
  const r = await nosh.exec({ command });
  out.push({ command, ms: Date.now() - t0, stdout: r.success ? r.data.stdout : undefined, error: r.success ? undefined : r.error.code,
    message: r.success ? undefined : r.error.message });
}
await nosh.close();
const hwmMb = Number(/VmHWM:\\s*(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
process.stdout.write(JSON.stringify({ out, hwmMb }));
`);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface ChildResult {
  out: { command: string; ms: number; stdout?: string; error?: string; message?: string }[];
  hwmMb: number;
}

function child(budgetMb: number, ...commands: string[]): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(dir, 'child.mjs'), root, budgetArg ?? String(budgetMb), ...commands], { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as ChildResult);
    });
  });
}

describe(`peak RSS stays under the budget (limits.rssMb) + ${MARGIN_MB} MB`, () => {
  it('grep -c -F -f with 2000 strings (and the same as BRE, and -e x 2000 through -f) answers, within the budget', async () => {
    const r = await child(BUDGET_MB, 'grep -c -F -f fixed.txt text.txt', 'grep -c -f fixed.txt text.txt', 'grep -o -w -i -F -f fixed.txt text.txt');
    expect(r.out.map((o) => o.stdout ?? o.error)).toEqual(['1\n', '1\n', `${fs.readFileSync(path.join(root, 'fixed.txt'), 'utf8').split('\n')[1234]}\n`]);
    expect(r.hwmMb).toBeLessThan(BUDGET_MB + MARGIN_MB);
  }, 60_000);

  it('grep -c x on a 4 GB sparse file without a newline is MEMORY_LIMIT, quickly, within the budget', async () => {
    const r = await child(BUDGET_MB, 'grep -c x sparse', 'cat sparse | grep -c x');
    for (const o of r.out) {
      expect(o.error).toBe('MEMORY_LIMIT');
      expect(o.message).toContain('a line longer than 32 MB');
    }
    expect(r.hwmMb).toBeLessThan(BUDGET_MB + MARGIN_MB);
  }, 60_000);

  it('2000 regex patterns that grow memory outside the worker heap: the pool stops the task (MEMORY_LIMIT) and the next one runs', async () => {
    // A lower budget: the regex engine's memory grows at 80-500 MB/s depending on the CPU.
    const budget = 300;
    const r = await child(budget, 'grep -c -f regex.txt text.txt', 'grep -c -F -f fixed.txt text.txt');
    expect(r.out[0]!.error).toBe('MEMORY_LIMIT');
    expect(r.out[0]!.message).toContain(`memory budget of ${budget} MB`);
    expect(r.out[1]!.stdout).toBe('1\n');
    expect(r.hwmMb).toBeLessThan(budget + MARGIN_MB);
  }, 60_000);
});
