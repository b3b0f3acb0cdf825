// grep -r on two threads (commands/grep/parallel.ts) must print exactly what the one-thread
// run prints (which the GNU fixtures check): the same bytes in the same order, the same
// messages, exit codes and truncation, whatever each file is.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Helper, setHelper } from '../../commands/grep/parallel.js';
import { run, tempDir, type RunOptions } from '../helpers.js';

const root = tempDir('nosh-grep-par-');
afterAll(() => { setHelper(true); fs.rmSync(root, { recursive: true, force: true }); });

function write(rel: string, content: string | Buffer): void {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

beforeAll(async () => {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = ['alpha', 'needle', 'Needle', 'hay', 'stack', 'needles', 'x', ''];
  for (let d = 0; d < 12; d++) {
    for (let f = 0; f < 1 + Math.floor(rand() * 25); f++) {
      const lines: string[] = [];
      for (let l = 0; l < Math.floor(rand() * 30); l++) lines.push(Array.from({ length: 1 + Math.floor(rand() * 6) }, () => words[Math.floor(rand() * words.length)]).join(' '));
      write(`t/d${d}/${d % 3 === 0 ? `s${f % 4}/` : ''}f${f}.txt`, lines.join('\n') + (f % 5 === 0 ? '' : '\n'));
    }
  }
  write('t/d1/bin.dat', Buffer.from('needle\0binary\nneedle\n'));
  write('t/d1/big.txt', ('needle in a big file\n' + 'hay\n'.repeat(20)).repeat(1200));
  write('t/d2/empty.txt', '');
  write('t/d2/.env', 'needle=secret\n');
  write('t/d2/key.pem', 'needle\n');
  write('t/d3/name with spaces é.txt', 'needle é\n');
  write('t/d4/locked.txt', 'needle\n');
  fs.chmodSync(path.join(root, 't/d4/locked.txt'), 0);
  fs.symlinkSync('../d3', path.join(root, 't/d5/link'));
  try { execFileSync('mkfifo', [path.join(root, 't/d6/fifo')]); } catch { /* no mkfifo: no FIFO */ }
  // Start the helper and let it come up: the first search of a worker runs on one thread.
  await run(root, 'grep -r needle t');
  for (let i = 0; i < 50 && !Helper.answered; i++) {
    await new Promise((r) => setTimeout(r, 20));
    await run(root, 'grep -r needle t');
  }
});

async function both(line: string, opts: RunOptions = {}) {
  setHelper(false);
  const one = await run(root, line, opts);
  setHelper(true);
  const before = Helper.answered;
  const two = await run(root, line, opts);
  return { one, two, helped: Helper.answered > before };
}

const policy = { blockedPatterns: ['.env', '*.pem'] };
const lines = [
  'grep -r needle t', 'grep -rn needle t', 'grep -rc needle t', 'grep -rl needle t', 'grep -rL needle t',
  'grep -rh needle t', 'grep -rbT needle t', 'grep -rnH --color=always needle t', 'grep -rv needle t',
  'grep -ri NEEDLE t', 'grep -rw needle t', 'grep -rx needle t', 'grep -rm1 needle t', 'grep -rE needles?|stack t',
  'grep -rF -e hay -e alpha t', 'grep -rI needle t', 'grep -ra needle t', 'grep -rs needle t', 'grep -rZl needle t',
  'grep -r --include=*.txt needle t', 'grep -r --exclude-dir=s1 needle t', 'grep -r needle t/d1 t/d3', 'grep -rz needle t',
  'grep -r zzz-nothing t', 'grep -rc needle',
];

describe('grep -r on two threads', () => {
  for (const line of lines) {
    it(`${line}: the one-thread output`, async () => {
      const { one, two, helped } = await both(line, { policy });
      expect(two.stdout.toString('latin1')).toBe(one.stdout.toString('latin1'));
      expect(two.stderr).toBe(one.stderr);
      expect(two.exitCode).toBe(one.exitCode);
      expect(two.error).toEqual(one.error);
      expect(helped).toBe(true);
    });
  }

  it('an output cap cuts at the same place', async () => {
    const { one, two, helped } = await both('grep -rn needle t', { policy, maxOutputBytes: 3000 });
    expect(two.truncated).toBe(true);
    expect(two.stdout.toString('latin1')).toBe(one.stdout.toString('latin1'));
    expect(helped).toBe(true);
  });

  it('the zone policy decides for both threads (blocked names, extensions, size)', async () => {
    for (const p of [policy, { ...policy, allowedExtensions: ['.txt'] }, { ...policy, maxFileSize: 60 }]) {
      const { one, two } = await both('grep -rn needle t', { policy: p });
      expect(two.stdout.toString('latin1')).toBe(one.stdout.toString('latin1'));
      expect(two.stderr).toBe(one.stderr);
      expect(two.stdout.toString()).not.toContain('secret');
    }
  });
});

describe('grep -r on two threads: a directory moved out of the zone while its files are read', () => {
  // The helper opens its half through the directory's descriptor; the walk's thread moves the
  // directory out as it opens its own half (before or after the helper's opens: both must be
  // clean). Nothing read through it may show; the move is reported as on one thread.
  const cfs = createRequire(import.meta.url)('node:fs') as Record<string, (...a: unknown[]) => unknown>;
  const outside = tempDir('nosh-grep-par-out-');
  afterAll(() => fs.rmSync(outside, { recursive: true, force: true }));
  for (let round = 0; round < 6; round++) {
    it(`round ${round}`, async () => {
      const zoneDir = path.join(root, `esc${round}`);
      for (let i = 0; i < 12; i++) write(`esc${round}/mv/f${String(i).padStart(2, '0')}.txt`, `needle inside ${i}\n`);
      write(`esc${round}/z.txt`, 'needle after\n');
      const moved = path.join(outside, `moved${round}`);
      const orig = cfs.openSync!;
      cfs.openSync = function hooked(this: unknown, ...args: unknown[]) {
        const p = args[0];
        if (typeof p === 'string' && /^\/proc\/(self|\d+)\/fd\/\d+\/f(0[6-9]|1\d)\.txt$/.test(p) && fs.existsSync(path.join(zoneDir, 'mv'))) {
          fs.renameSync(path.join(zoneDir, 'mv'), moved);
          for (let i = 0; i < 12; i++) fs.writeFileSync(path.join(moved, `f${String(i).padStart(2, '0')}.txt`), `needle TOP-SECRET ${i}\n`);
        }
        return orig.apply(this, args);
      };
      syncBuiltinESMExports();
      let r;
      try {
        r = await run(root, `grep -r needle esc${round}`);
      } finally {
        cfs.openSync = orig;
        syncBuiltinESMExports();
      }
      expect(r.stdout.toString()).not.toContain('TOP-SECRET');
      expect(r.stdout.toString()).not.toContain('/mv/');
      expect(r.stdout.toString()).toContain(`esc${round}/z.txt:needle after`);
      expect(r.stderr).toContain(`esc${round}/mv: Permission denied (path leaves the zone)`);
      expect(r.exitCode).toBe(2);
    });
  }
  it('the helper took part', () => {
    expect(Helper.answered).toBeGreaterThan(0);
  });
});
