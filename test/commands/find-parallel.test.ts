// find on two threads (commands/find/parallel.ts): the helper thread walks subtrees of the
// start and the command's thread puts their output back in walk order, so what is printed must
// be exactly the one-thread run's (which the GNU fixtures check), byte for byte, with the same
// messages and exit code; and the helper's walk must keep the walk's rules: no symlink
// followed, nothing outside the zone, blocked names never shown.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Helper, setHelper } from '../../src/gnulib/helper-thread.js';
import { runFindJob, setHelperWait, setSplitAfter, splitAfter, type FindJob } from '../../commands/find/parallel.js';
import { Walker } from '../../commands/find/eval.js';
import { defaultPolicy } from '../../src/vfs/index.js';
import type { CommandContext } from '../../src/command/index.js';
import { run, tempDir, type RunOptions } from '../helpers.js';

const base = tempDir('nosh-find-par-');
const root = path.join(base, 'zone');
const outside = path.join(base, 'outside');
const OUT_TEXT = 'OUTSIDE-NAME';
const usual = splitAfter();

function write(rel: string, content = 'x\n'): void {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

beforeAll(async () => {
  fs.mkdirSync(path.join(outside, `${OUT_TEXT}-dir`), { recursive: true });
  fs.writeFileSync(path.join(outside, `${OUT_TEXT}-dir`, `${OUT_TEXT}.txt`), 'x');
  for (let d = 0; d < 9; d++) {
    for (let s = 0; s < 1 + (d % 3); s++) {
      for (let f = 0; f < 2 + ((d * 7 + s) % 5); f++) write(`t/d${d}/s${s}/f${f}${f % 2 ? '.txt' : '.log'}`, 'y'.repeat(f * 300));
    }
    write(`t/d${d}/top${d}.txt`);
  }
  write('t/d1/name with spaces é.txt');
  write('t/d2/.env', 'secret\n');
  write('t/d2/key.pem', 'secret\n');
  write('t/d3/empty.txt', '');
  fs.mkdirSync(path.join(root, 't/d3/emptydir'));
  write('t/file-at-top.txt');
  fs.symlinkSync('../d3', path.join(root, 't/d5/link-in')); // a link to a directory of the zone: listed, not walked
  fs.symlinkSync(path.join(outside, `${OUT_TEXT}-dir`), path.join(root, 't/d6/link-out')); // out of the zone
  fs.symlinkSync(path.join(outside, `${OUT_TEXT}-dir`), path.join(root, 't/d8-link-out'));
  try { execFileSync('mkfifo', [path.join(root, 't/d7/fifo')]); } catch { /* no mkfifo: no FIFO */ }
  setSplitAfter(0); // split from the first subdirectory on (a real walk: after 1000 events)
  setHelperWait(true); // and the helper's subtrees always taken from it (a real walk takes back those not done yet)
  // Start the helper and let it come up: the first find of a worker runs on one thread.
  await run(root, 'find t');
  for (let i = 0; i < 1000 && !Helper.get('find')?.ready(); i++) await new Promise((r) => setTimeout(r, 20));
}, 30_000);
afterAll(() => {
  setHelper(true);
  setHelperWait(false);
  setSplitAfter(usual);
  fs.rmSync(base, { recursive: true, force: true });
});

async function both(line: string, opts: RunOptions = {}) {
  setHelper(false);
  const one = await run(root, line, opts);
  setHelper(true);
  const before = Helper.answered;
  const two = await run(root, line, opts);
  return { one, two, helped: Helper.answered > before };
}

describe('find on two threads: the one-thread output, byte for byte', () => {
  const lines = [
    'find t',
    "find t -name '*.txt'",
    'find t/ -type d',
    "find t -name 'f[13]*' -o -name 'top*'",
    'find t -name d3 -prune -o -print',
    "find t -path '*/s1' -prune -o -type f -print",
    "find t -printf '%p|%d|%y|%s|%f|%H|%P\\n'",
    'find t -empty',
    'find t -type l',
    "find t -iname 'F1*' -print0",
    "find t -size +1 -regex '.*s[0-9].*'",
    "find t t/d2 . -name '*.log'",
    'find t ! -type d -mmin -60',
  ];
  for (const line of lines) {
    it(line, async () => {
      const { one, two, helped } = await both(line, { policy: { blockedPatterns: ['.env', '*.pem'] } });
      expect(helped).toBe(true);
      expect(two.stdout.toString('latin1')).toBe(one.stdout.toString('latin1'));
      expect(two.stderr).toBe(one.stderr);
      expect(two.exitCode).toBe(one.exitCode);
      expect(two.stdout.toString('latin1')).not.toContain(OUT_TEXT);
      expect(two.stdout.toString('latin1')).not.toMatch(/\.env|key\.pem/);
    });
  }

  it('the symlinks are listed as links and never walked (-P), inside or out of the zone', async () => {
    const { two, helped } = await both('find t -name "*link*" -o -path "*link*/*"');
    expect(helped).toBe(true);
    expect(two.stdout.toString().split('\n').filter(Boolean).sort()).toEqual(['t/d5/link-in', 't/d6/link-out', 't/d8-link-out']);
  });

  it('without waiting for the helper (subtrees it has not done yet taken back), the same bytes', async () => {
    setHelperWait(false);
    try {
      for (const line of ['find t', "find t -name '*.txt'", 'find t -name d3 -prune -o -print']) {
        for (let k = 0; k < 5; k++) {
          const { one, two } = await both(line);
          expect(two.stdout.equals(one.stdout), line).toBe(true);
          expect(two.stderr).toBe(one.stderr);
        }
      }
    } finally {
      setHelperWait(true);
    }
  });

  it('plans that are not split run on one thread: -ls, -quit, -maxdepth, -L, -delete', async () => {
    for (const line of ['find t -ls', 'find t -name top4.txt -quit', 'find t -maxdepth 2', 'find t -depth']) {
      const { one, two, helped } = await both(line);
      expect(helped, line).toBe(false);
      expect(two.stdout.equals(one.stdout), line).toBe(true);
    }
  });
});

describe("the helper's walk of a subtree (runFindJob)", () => {
  const job = (names: string[], sig = new Int32Array(new SharedArrayBuffer(8))): FindJob => {
    Atomics.store(sig, 0, names.length << 16);
    return {
      run: 1, root, policy: defaultPolicy({ followSymlinks: true }), args: ['t'], cwd: '/', nowMs: Date.now(), top: 't', sig,
      subtrees: names.map((name) => ({ path: `t/${name}`, bytes: `t/${name}`, name, nameBytes: name })),
    };
  };
  const walkJob = (j: FindJob) => {
    const answers: { index?: number; out?: Uint8Array | null; done?: boolean }[] = [];
    runFindJob(j, (m) => answers.push(m), (ctx, plan, nowMs) => new Walker(ctx as unknown as CommandContext, plan, nowMs));
    return answers;
  };

  it('walks its subtrees from the back and answers each one, then says it is done', () => {
    const answers = walkJob(job(['d0', 'd1']));
    expect(answers.map((a) => a.index ?? 'done')).toEqual([1, 0, 'done']);
    expect(Buffer.from(answers[0]!.out!).toString()).toMatch(/^t\/d1\nt\/d1\/name with spaces é\.txt\n/);
  });

  it('a subtree that became a symlink (even where the zone follows links) is handed back, never walked', () => {
    // Listed as a directory by the command's thread, then swapped for a link before the helper opens it.
    fs.renameSync(path.join(root, 't/d4'), path.join(base, 'd4-aside'));
    fs.symlinkSync(path.join(outside, `${OUT_TEXT}-dir`), path.join(root, 't/d4'));
    try {
      const answers = walkJob(job(['d3', 'd4']));
      expect(answers[0]).toMatchObject({ index: 1, out: null });
      expect(Buffer.from(answers[1]!.out!).toString()).toContain('t/d3/emptydir');
      for (const a of answers) if (a.out) expect(Buffer.from(a.out).toString()).not.toContain(OUT_TEXT);
    } finally {
      fs.unlinkSync(path.join(root, 't/d4'));
      fs.renameSync(path.join(base, 'd4-aside'), path.join(root, 't/d4'));
    }
  });

  it('a subtree the command thread took back (front past it) is stopped and handed back', () => {
    const sig = new Int32Array(new SharedArrayBuffer(8));
    const j = job(['d0', 'd1', 'd2'], sig);
    Atomics.store(sig, 0, (3 << 16) | 3); // the command's thread already passed them all
    expect(walkJob(j)).toEqual([{ find: 1, done: true }]);
  });
});

describe('find on two threads: the tree changes during the walk (host attacker)', () => {
  const cfs = createRequire(import.meta.url)('node:fs') as Record<string, (...a: unknown[]) => unknown>;
  const restores: (() => void)[] = [];
  afterEach(() => { for (const r of restores.splice(0)) r(); });

  it("a subdirectory swapped for a link to outside right after the start's listing: never walked, reported", async () => {
    const orig = cfs.readdirSync!;
    const restore = () => { cfs.readdirSync = orig; syncBuiltinESMExports(); };
    restores.push(restore);
    const startHost = path.join(root, 't');
    cfs.readdirSync = function hooked(this: unknown, ...args: unknown[]) {
      const listed = orig.apply(this, args);
      const p = args[0];
      if (typeof p === 'string' && /^\/proc\/(self|\d+)\/fd\/\d+$/.test(p) && fs.readlinkSync(p) === startHost) {
        restore();
        // The last subdirectory: the helper's first.
        fs.renameSync(path.join(root, 't/d7'), path.join(base, 'd7-aside'));
        fs.symlinkSync(path.join(outside, `${OUT_TEXT}-dir`), path.join(root, 't/d7'));
      }
      return listed;
    };
    syncBuiltinESMExports();
    const before = Helper.answered;
    try {
      const r = await run(root, 'find t');
      const out = r.stdout.toString();
      expect(Helper.answered).toBeGreaterThan(before);
      expect(out + r.stderr).not.toContain(OUT_TEXT);
      expect(out).not.toContain('t/d7/');
      expect(out).toContain('t/d8-link-out\n');
      expect(r.stderr).toContain("find: 't/d7'");
      expect(r.exitCode).toBe(1);
    } finally {
      restore();
      fs.unlinkSync(path.join(root, 't/d7'));
      fs.renameSync(path.join(base, 'd7-aside'), path.join(root, 't/d7'));
    }
  });
});
