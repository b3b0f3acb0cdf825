// Defence 10, end to end: grep -r / -R and find (with -size, -newer, -empty, -ls, -printf,
// -L, so they stat) walk a tree holding every kind of trap the walking API must refuse:
// links to outside (absolute, relative, prefix sibling, re-entering), inside links,
// dangling links, loops, FIFOs, devices, a socket, a hard link to an outside file, blocked
// names (.env, .ENV, .ssh/, .git/config), hidden extensions, a deep tree past the 128
// open-directory limit, and directories swapped or moved out in the middle of a walk. No
// outside content, no blocked content, no host path may appear, nothing outside may change,
// and nothing may block.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { run } from '../helpers.js';
import { DEFAULT_BLOCKED_PATTERNS, type ZonePolicy } from '../../src/vfs/index.js';
import { CANARY, guardLeaks, makeZone, markerEscaped, record, withinMs, type Zone } from './fixture.js';

guardLeaks();

const cfs = createRequire(import.meta.url)('node:fs') as Record<string, (...a: unknown[]) => unknown>;
/** A path through this process's descriptor table, as the Vfs builds them (/proc/self/fd or /proc/PID/fd). */
const PROC_FD_PATH = /^\/proc\/(self|\d+)\/fd\//;
const restores: (() => void)[] = [];
/** Run `before` just before the first call of fs[name] for which `when` holds (then unhook). */
function hookOnce(name: string, before: () => void, when: (...args: unknown[]) => boolean): void {
  const orig = cfs[name]!;
  const restore = () => { cfs[name] = orig; syncBuiltinESMExports(); };
  cfs[name] = function hooked(this: unknown, ...args: unknown[]) {
    if (when(...args)) {
      restore();
      before();
    }
    return orig.apply(this, args);
  };
  syncBuiltinESMExports();
  restores.push(restore);
}
afterEach(() => { for (const r of restores.splice(0)) r(); });

/** Text that may only be seen if a check failed. */
const OUT_TEXT = 'TOP-SECRET-OUTSIDE';
const BLOCKED_TEXT = 'BLOCKED-CONTENT';
const HIDDEN_TEXT = 'HIDDEN-EXTENSION';
const DEEP = 135;

let z: Zone;
let outside: string;
let before: Record<string, string>;
let server: net.Server;

beforeAll(async () => {
  z = makeZone();
  outside = path.join(z.base, 'outside');
  fs.writeFileSync(path.join(outside, 'secret.txt'), `needle ${OUT_TEXT}\n`);
  fs.writeFileSync(path.join(z.base, 'root-evil', 'secret.txt'), `needle ${OUT_TEXT}\n`);
  fs.mkdirSync(path.join(outside, 'sub'));
  fs.writeFileSync(path.join(outside, 'sub', 'g.txt'), `needle ${OUT_TEXT}\n`);
  fs.writeFileSync(path.join(outside, 'hard.txt'), 'needle hardlinked (reading is allowed)\n');

  const t = (rel: string) => z.at(path.join('tree', rel));
  fs.mkdirSync(t('sub'), { recursive: true });
  fs.writeFileSync(t('plain.txt'), 'needle inside\n');
  fs.writeFileSync(t('sub/g.txt'), 'needle g\n');
  fs.writeFileSync(t('empty.txt'), '');
  fs.mkdirSync(t('emptydir'));
  fs.symlinkSync(path.join(outside, 'secret.txt'), t('abs-file'));
  fs.symlinkSync(outside, t('abs-dir'));
  fs.symlinkSync('../../outside/secret.txt', t('rel-out'));
  fs.symlinkSync('../../outside', t('rel-dir'));
  fs.symlinkSync(`${z.root}-evil/secret.txt`, t('evil'));
  fs.symlinkSync(`${z.root}/../outside`, t('reenter'));
  fs.symlinkSync('plain.txt', t('in-file'));
  fs.symlinkSync('sub', t('in-dir'));
  fs.symlinkSync('..', t('up'));
  fs.symlinkSync('nowhere', t('dangling'));
  fs.symlinkSync('loop', t('loop'));
  execFileSync('mkfifo', [t('fifo')]);
  execFileSync('mknod', [t('null'), 'c', '1', '3']);
  execFileSync('mknod', [t('zero'), 'c', '1', '5']);
  execFileSync('mknod', [t('blk'), 'b', '7', '0']);
  fs.linkSync(path.join(outside, 'hard.txt'), t('hard.txt'));
  fs.writeFileSync(t('.env'), `needle ${BLOCKED_TEXT} env\n`);
  fs.writeFileSync(t('sub/.ENV'), `needle ${BLOCKED_TEXT} ENV\n`);
  fs.mkdirSync(t('.ssh'));
  fs.writeFileSync(t('.ssh/notes.txt'), `needle ${BLOCKED_TEXT} ssh\n`);
  fs.mkdirSync(t('.git'));
  fs.writeFileSync(t('.git/config'), `needle ${BLOCKED_TEXT} git config\n`);
  fs.writeFileSync(t('.git/HEAD'), 'needle git head\n');
  fs.writeFileSync(t('sub/server.key'), `needle ${BLOCKED_TEXT} key\n`);
  fs.writeFileSync(t('run.sh'), `needle ${HIDDEN_TEXT}\n`);
  let deep = t('deep');
  for (let i = 0; i < DEEP; i++) deep = path.join(deep, `n${i}`);
  fs.mkdirSync(deep, { recursive: true });
  fs.writeFileSync(path.join(deep, 'bottom.txt'), 'needle bottom\n');
  fs.writeFileSync(path.join(deep, '.env'), `needle ${BLOCKED_TEXT} deep env\n`);
  fs.mkdirSync(path.join(deep, '.git'));
  fs.writeFileSync(path.join(deep, '.git', 'config'), `needle ${BLOCKED_TEXT} deep git config\n`);
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(deep, 'abs-file'));
  execFileSync('mkfifo', [path.join(deep, 'fifo')]);
  server = net.createServer(() => {});
  await new Promise<void>((res) => server.listen(t('sock'), res));
  before = z.outsideSnapshot();
});

afterAll(async () => {
  await new Promise<void>((res) => server.close(() => res()));
});

beforeEach(() => {
  // tests that swap things restore them; make sure each starts from the same tree
  expect(fs.lstatSync(z.at('tree/sub')).isDirectory()).toBe(true);
});

const BASE: Partial<ZonePolicy> = { blockedPatterns: DEFAULT_BLOCKED_PATTERNS };
const POLICIES: Partial<ZonePolicy>[] = [
  BASE,
  { ...BASE, followSymlinks: true },
  { ...BASE, allowedExtensions: ['.txt', ''] },
  { ...BASE, followSymlinks: true, allowedExtensions: ['.txt', ''] },
];

async function sh(line: string, policy: Partial<ZonePolicy>, cwd = '/') {
  const r = await withinMs(20_000, () => run(z.root, line, { policy, cwd }));
  const out = r.stdout.toString('utf8');
  record(new Error(out + '\n' + r.stderr + '\n' + JSON.stringify(r.error ?? null)));
  return { ...r, out, all: out + '\n' + r.stderr + '\n' + JSON.stringify(r.error ?? null) };
}

function assertClean(all: string, policy: Partial<ZonePolicy>): void {
  expect(all).not.toContain(OUT_TEXT);
  expect(all).not.toContain(BLOCKED_TEXT);
  if (policy.allowedExtensions) {
    expect(all).not.toContain(HIDDEN_TEXT);
    expect(all).not.toMatch(/run\.sh/);
  }
  expect(all).not.toContain(z.base);
  expect(all).not.toContain(os.tmpdir() + '/');
  expect(all).not.toMatch(/\/proc\/(self|\d+)\//);
  for (const name of ['.env', '.ENV', '.ssh', 'server.key', '.git/config']) expect(all, name).not.toContain(name);
}

function assertOutsideUntouched(): void {
  expect(z.outsideSnapshot()).toEqual(before);
  expect(fs.readFileSync(path.join(z.base, 'canary.txt'), 'utf8')).toBe(CANARY);
  expect(markerEscaped(z.base)).toEqual([]);
}

describe('grep -r / -R over the trap tree', () => {
  const LINES = [
    'grep -r needle tree', 'grep -R needle tree', 'grep -rn needle .', 'grep -Rl needle /', 'grep -rc needle tree',
    'grep -rT needle tree', 'grep -rh needle tree/sub tree/.git tree/deep', 'grep -r --include=* needle tree',
    'grep -rL nothing-matches tree', 'grep -r needle', 'grep -r needle tree/abs-dir tree/rel-dir tree/reenter tree/up',
  ];

  for (const line of LINES) {
    test(line, async () => {
      for (const policy of POLICIES) {
        const r = await sh(line, policy, line === 'grep -r needle' ? '/tree' : '/');
        expect(r.error, JSON.stringify(r.error)).toBeUndefined();
        assertClean(r.all, policy);
        if (['grep -r needle tree', 'grep -R needle tree', 'grep -rn needle .', 'grep -rT needle tree', 'grep -r needle'].includes(line)) {
          expect(r.out).toContain('needle inside');
          expect(r.out).toContain('needle g');
          expect(r.out).toContain('needle bottom'); // past the open-directory limit
          expect(r.out).toContain('needle git head');
          expect(r.out).toContain('hardlinked');
        }
      }
      assertOutsideUntouched();
    });
  }

  test('-R with followSymlinks follows inside links only (in-file, in-dir), never up / outside', async () => {
    const r = await sh('grep -R needle tree', { ...BASE, followSymlinks: true });
    expect(r.out).toContain('tree/in-file:needle inside');
    expect(r.out).toContain('tree/in-dir/g.txt:needle g');
    assertClean(r.all, BASE);
    const plain = await sh('grep -r needle tree', { ...BASE, followSymlinks: true });
    expect(plain.out).not.toContain('tree/in-file');
    expect(plain.out).not.toContain('tree/in-dir');
  });
});

describe('find over the trap tree (stats every entry)', () => {
  const LINES = [
    'find tree', 'find tree -size -1k', 'find tree -size +0', 'find tree -newer tree/plain.txt', 'find tree -empty',
    'find tree -type f -size -2', 'find tree -ls', "find tree -printf '%p %s %y %l\\n'", 'find -L tree', 'find -L tree -size -1k -empty',
    'find tree -type l -lname *', 'find / -name secret.txt', 'find tree/abs-dir tree/rel-dir tree/reenter -size -1k',
    'find -H tree/abs-dir tree/in-dir -empty', 'find tree -xtype f', 'find tree -links +1',
  ];

  for (const line of LINES) {
    test(line, async () => {
      for (const policy of POLICIES) {
        const r = await sh(line, policy);
        expect(r.error, JSON.stringify(r.error)).toBeUndefined();
        assertClean(r.all, policy);
        expect(r.out).not.toContain('outside/');
        expect(r.out).not.toMatch(/root-evil/);
      }
      assertOutsideUntouched();
    });
  }

  test('find lists the deep tree and the traps as names only (no target host paths)', async () => {
    const r = await sh("find tree -printf '%p|%y|%l\\n'", BASE);
    expect(r.out).toContain(`/n${DEEP - 1}/bottom.txt|f|`);
    expect(r.out).toContain('tree/.git/HEAD|f|');
    expect(r.out).toContain('tree/abs-file|l|(outside the zone)');
    expect(r.out).toContain('tree/in-file|l|plain.txt');
    for (const n of ['fifo|p|', 'null|c|', 'blk|b|', 'sock|s|']) expect(r.out).toContain(n);
    expect(r.exitCode).toBe(0);
  });

  test('find -empty names empty.txt, emptydir, and the deep .git whose only entry (config) is blocked, so invisible', async () => {
    const deepGit = 'tree/deep/' + Array.from({ length: DEEP }, (_, i) => `n${i}`).join('/') + '/.git';
    for (const policy of POLICIES) {
      const r = await sh('find tree -empty', policy);
      expect(r.out.trim().split('\n').sort(), JSON.stringify(policy)).toEqual([deepGit, 'tree/empty.txt', 'tree/emptydir']);
    }
  });
});

describe('the tree changes during the walk (host attacker)', () => {
  /** Is `p` the /proc path of an fd open on host directory `host`? */
  const fdOn = (host: string) => (p: unknown) => {
    if (typeof p !== 'string' || !/^\/proc\/(self|\d+)\/fd\/\d+$/.test(p)) return false;
    try { return fs.readlinkSync(p) === host; } catch { return false; }
  };

  function moveOut(): void {
    // tree/sub leaves the zone with an outside file planted in it; a link to outside takes its place
    fs.renameSync(z.at('tree/sub'), path.join(z.base, 'moved-sub'));
    fs.writeFileSync(path.join(z.base, 'moved-sub', 'planted.txt'), `needle ${OUT_TEXT}\n`);
    fs.symlinkSync(path.join(outside, 'sub'), z.at('tree/sub'));
  }
  function moveBack(): void {
    fs.unlinkSync(z.at('tree/sub'));
    fs.unlinkSync(path.join(z.base, 'moved-sub', 'planted.txt'));
    fs.renameSync(path.join(z.base, 'moved-sub'), z.at('tree/sub'));
  }

  for (const line of ['grep -r needle tree', 'find tree -size -1k', 'find tree -empty', 'find tree -newer tree/plain.txt']) {
    test(`${line}: tree/sub moved out right after it was opened, before it is listed`, async () => {
      before = z.outsideSnapshot();
      const snap = before;
      try {
        hookOnce('readdirSync', moveOut, fdOn(z.at('tree/sub')));
        const r = await sh(line, BASE);
        assertClean(r.all, BASE);
        expect(r.all).not.toContain('planted');
        expect(r.stderr).toContain('tree/sub');
      } finally {
        moveBack();
      }
      expect(z.outsideSnapshot()).toEqual(snap);
    });
  }

  test('grep -r: a file swapped for a link to outside between its lstat and its open', async () => {
    const target = z.at('tree/sub/g.txt');
    hookOnce('openSync', () => {
      fs.renameSync(target, path.join(z.base, 'g-aside'));
      fs.symlinkSync(path.join(outside, 'secret.txt'), target);
    }, (p) => typeof p === 'string' && PROC_FD_PATH.test(p) && p.endsWith('/g.txt'));
    try {
      const r = await sh('grep -r needle tree', BASE);
      assertClean(r.all, BASE);
      expect(r.stderr).toContain('tree/sub/g.txt');
      expect(r.out).toContain('needle inside');
    } finally {
      fs.unlinkSync(target);
      fs.renameSync(path.join(z.base, 'g-aside'), target);
    }
  });

  test('find: a directory swapped for a link to outside between its lstat and its open', async () => {
    hookOnce('openSync', () => {
      fs.renameSync(z.at('tree/sub'), path.join(z.base, 'sub-aside'));
      fs.symlinkSync(path.join(outside, 'sub'), z.at('tree/sub'));
    }, (p) => typeof p === 'string' && PROC_FD_PATH.test(p) && p.endsWith('/sub'));
    try {
      const r = await sh('find tree -size -1k', BASE);
      assertClean(r.all, BASE);
      expect(r.out).not.toContain('tree/sub/g.txt');
      expect(r.stderr).toContain('tree/sub');
    } finally {
      fs.unlinkSync(z.at('tree/sub'));
      fs.renameSync(path.join(z.base, 'sub-aside'), z.at('tree/sub'));
    }
  });
});

describe('grep -r: a directory moved out of the zone after its listing, while its files are read', () => {
  // grep reads the files of a listed directory through its fd without a location check per
  // file; the directory's location is checked after its files and before any output leaves.
  // Here walk2/mv leaves the zone just as its first file is opened, and its second (listed
  // while inside) gets outside content: nothing read through it may show, not even a count,
  // a name, a binary-match note or -q's exit status.
  const big = `needle ${OUT_TEXT}\n`.repeat(8000); // past the whole-file read and the output flush
  const moved = () => path.join(z.base, 'moved-mv');
  function setUp(): void {
    fs.mkdirSync(z.at('walk2/mv'), { recursive: true });
    fs.writeFileSync(z.at('walk2/a0.txt'), 'needle before\n');
    fs.writeFileSync(z.at('walk2/mv/a.txt'), 'needle a-inside\n');
    fs.writeFileSync(z.at('walk2/mv/b.txt'), 'needle b-inside\n');
    fs.writeFileSync(z.at('walk2/z.txt'), 'needle after\n');
  }
  function moveOut(content: string | Buffer): void {
    fs.renameSync(z.at('walk2/mv'), moved());
    fs.writeFileSync(path.join(moved(), 'b.txt'), content);
  }
  afterEach(() => {
    fs.rmSync(z.at('walk2'), { recursive: true, force: true });
    fs.rmSync(moved(), { recursive: true, force: true });
  });

  const CASES: [string, string | Buffer][] = [
    ['grep -r needle walk2', `needle ${OUT_TEXT}\n`],
    ['grep -r needle walk2', big],
    ['grep -rn needle walk2', big],
    ['grep -rc needle walk2', big],
    ['grep -rl needle walk2', `needle ${OUT_TEXT}\n`],
    ['grep -rL needle walk2', 'no match here\n'],
    ['grep -r needle walk2', Buffer.from(`needle ${OUT_TEXT}\0binary\n`)],
    ['grep -rq needle walk2/mv', `needle ${OUT_TEXT}\n`],
  ];
  for (const [line, content] of CASES) {
    test(`${line} (${typeof content === 'string' ? content.length : 'binary'} bytes outside)`, async () => {
      setUp();
      before = z.outsideSnapshot();
      hookOnce('openSync', () => moveOut(content), (p) => typeof p === 'string' && PROC_FD_PATH.test(p) && p.endsWith('/a.txt'));
      const r = await sh(line, BASE);
      assertClean(r.all, BASE);
      expect(r.out).not.toContain('mv/');
      expect(r.stderr).not.toContain('binary file matches');
      expect(r.stderr).toContain('walk2/mv: Permission denied (path leaves the zone)');
      expect(r.exitCode).toBe(2);
      if (line === 'grep -r needle walk2') {
        expect(r.out).toContain('walk2/a0.txt:needle before');
        expect(r.out).toContain('walk2/z.txt:needle after');
      }
    });
  }

  test('unmoved, the same walk prints everything (the check costs no output)', async () => {
    setUp();
    const r = await sh('grep -r needle walk2', BASE);
    expect(r.out.split('\n').sort().join('\n')).toBe(['', 'walk2/a0.txt:needle before', 'walk2/mv/a.txt:needle a-inside',
      'walk2/mv/b.txt:needle b-inside', 'walk2/z.txt:needle after'].join('\n'));
    expect(r.exitCode).toBe(0);
  });
});

test('nothing outside changed over the whole file, and no host path was ever printed', () => {
  assertOutsideUntouched();
  expect(fs.readFileSync(path.join(outside, 'hard.txt'), 'utf8')).toBe('needle hardlinked (reading is allowed)\n');
  expect(fs.statSync(path.join(outside, 'hard.txt')).nlink).toBe(2);
});
