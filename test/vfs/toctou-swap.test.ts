// Issue 17.1: every change must happen relative to a held directory. A second process (python3
// with ctypes, renameat2(RENAME_EXCHANGE)) exchanges a real folder of the zone with a symlink to
// an outside folder holding the same names, in a tight loop, while nosh runs every mutating
// command and tool through the library. Whatever fails under the swap must fail as an error
// envelope; the outside folders (names, contents, modes, mtimes) must never change, no
// `.nosh-tmp-*` file may appear there, and nothing of theirs may be copied into the zone.
//
// NOSH_TOCTOU_OPS sets the operations per command and scenario (default 40: about 120 per command
// over the three swap scenarios);
// NOSH_TOCTOU_RUNS repeats every scenario (the acceptance: NOSH_TOCTOU_RUNS=20 NOSH_TOCTOU_OPS=200).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';

const OPS = Number(process.env.NOSH_TOCTOU_OPS ?? 40);
const RUNS = Number(process.env.NOSH_TOCTOU_RUNS ?? 1);
const HAVE_PY = spawnSync('python3', ['-c', 'import ctypes'], { stdio: 'ignore' }).status === 0;
const LINUX = process.platform === 'linux';

/** Exchanges each pair (a, b) of host paths with renameat2(RENAME_EXCHANGE) until killed. */
const SWAPPER = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
pairs = [(sys.argv[i].encode(), sys.argv[i + 1].encode()) for i in range(1, len(sys.argv), 2)]
try:
    renameat2 = libc.renameat2
    def exchange(a, b): return renameat2(-100, a, -100, b, 2)
except AttributeError:
    import platform
    nr = {'x86_64': 316, 'aarch64': 276}[platform.machine()]
    def exchange(a, b): return libc.syscall(nr, -100, a, -100, b, 2)
print('ready', flush=True)
while True:
    for a, b in pairs:
        exchange(a, b)
`;

function startSwapper(pairs: [string, string][]): Promise<ChildProcess> {
  const p = spawn('python3', ['-c', SWAPPER, ...pairs.flat()], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    p.once('error', reject);
    p.stdout!.once('data', () => resolve(p));
  });
}

async function stopSwapper(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null) return;
  const gone = new Promise((r) => p.once('exit', r));
  p.kill('SIGKILL');
  await gone;
}

/** Every entry below `dir` (symlinks not followed): type, mode, mtime in ns, content. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    const st = fs.lstatSync(d, { bigint: true });
    out[rel || '.'] = `dir:${st.mode.toString(8)}:${st.mtimeNs}`;
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      const s = fs.lstatSync(p, { bigint: true });
      if (s.isDirectory()) walk(p, r);
      else if (s.isSymbolicLink()) out[r] = 'link:' + fs.readlinkSync(p);
      else out[r] = `file:${s.mode.toString(8)}:${s.mtimeNs}:${s.nlink}:` + fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

/** Files below `dir` (links not followed) whose content passes `bad`. */
function filesWith(dir: string, bad: (text: string) => boolean): string[] {
  const hits: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
    if (e.isFile() && bad(fs.readFileSync(p, 'utf8'))) hits.push(path.relative(dir, p));
  }
  return hits;
}

/** Names the operations of one K use in the swapped folder (present both inside and outside). */
function fillFolder(dir: string, k: number, text: string): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const n of ['v', 'c', 't', 's', 'e', 'f', 'n', 'w', 'a', 'ed', 'del', 'cr']) fs.writeFileSync(path.join(dir, `${n}${k}`), `${text} a\n`);
  // rm -r and cp -r walk these trees.
  for (const sub of [`r${k}/x/y`, `r${k}/z`, `sr${k}/x`]) {
    fs.mkdirSync(path.join(dir, sub), { recursive: true });
    fs.writeFileSync(path.join(dir, sub, 'f1'), `${text} a\n`);
    fs.writeFileSync(path.join(dir, sub, 'f2'), `${text} a\n`);
  }
}

interface Outcome { ok: number; errors: Record<string, number> }

/** Every mutating command and tool, K times, on names below `p` (the swapped folder's path in the zone). */
async function attack(nosh: Nosh, p: string, ops: number, out: Outcome): Promise<void> {
  const note = (r: { success: boolean; error?: { code: string } }) => {
    if (r.success) out.ok++;
    else out.errors[r.error!.code] = (out.errors[r.error!.code] ?? 0) + 1;
  };
  const ex = (command: string, o: { stdin?: string; stdoutFile?: string } = {}) => nosh.exec({ command }, o).then(note);
  const call = (m: string, a: object) => nosh.call(m, a).then(note);
  for (let k = 0; k < ops; k++) {
    await Promise.all([
      ex(`rm ${p}/v${k}`),
      ex(`cp ok.txt ${p}/c${k}`),
      ex(`mkdir ${p}/m${k}`),
      ex(`mkdir -p ${p}/p${k}/q`),
      ex(`touch ${p}/t${k}`),
      ex('echo hi', { stdoutFile: `${p}/s${k}` }),
      ex(`sed -i s/a/b/ ${p}/e${k}`),
      ex(`tee ${p}/f${k}`, { stdin: 'tee\n' }),
      ex(`mv ${p}/n${k} ${p}/o${k}`),
      ex(`mv ok.txt ${p}/cr${k}`).then(() => fs.writeFileSync(okFile, 'ok\n')),
      ex(`rm -r ${p}/r${k}`),
      ex(`cp -r ${p}/sr${k} c${k}`),
      ex(`cp -r src ${p}/cr${k}d`),
      call('write', { path: `${p}/w${k}`, content: 'write\n' }),
      call('write', { path: `${p}/a${k}`, content: 'append\n', mode: 'append' }),
      call('edit', { path: `${p}/ed${k}`, edits: [{ old_text: 'a', new_text: 'b' }] }),
      call('delete', { path: `${p}/del${k}` }),
      call('mkdir', { path: `${p}/md${k}` }),
      call('write', { path: `${p}/wd${k}/x`, content: 'x\n', create_dirs: true }),
    ]);
  }
}
let okFile = '';

/** Walkers (rm -r, cp -r, find -delete, the delete tool) over trees whose own subfolder `sub` is being swapped. */
async function attackWalks(nosh: Nosh, ops: number, out: Outcome): Promise<void> {
  const note = (r: { success: boolean; error?: { code: string } }) => {
    if (r.success) out.ok++;
    else out.errors[r.error!.code] = (out.errors[r.error!.code] ?? 0) + 1;
  };
  for (let k = 0; k < ops; k++) {
    await Promise.all([
      nosh.exec({ command: `rm -r w/r${k}` }).then(note),
      nosh.exec({ command: `cp -r w/s${k} w/c${k}` }).then(note),
      nosh.exec({ command: `find w/f${k} -delete` }).then(note),
      nosh.call('delete', { path: `w/d${k}`, recursive: true }).then(note),
    ]);
  }
}

/** A tree for the walkers: sub/ (real, inside) and lnk (to the same tree outside), exchanged by the swapper. */
function walkTree(base: string, name: string): [string, string] {
  for (const [top, text] of [[`root/w/${name}/sub`, 'inside'], [`outside/${name}/sub`, 'OUTSIDE']] as const) {
    for (const d of ['', '/x', '/x/y', '/z']) {
      fs.mkdirSync(path.join(base, top + d), { recursive: true });
      fs.writeFileSync(path.join(base, top + d, 'f1'), `${text} a\n`);
      fs.writeFileSync(path.join(base, top + d, 'f2'), `${text} a\n`);
    }
  }
  fs.symlinkSync(path.join(base, `outside/${name}/sub`), path.join(base, `root/w/${name}/lnk`));
  return [`root/w/${name}/sub`, `root/w/${name}/lnk`];
}

interface Scenario {
  name: string;
  /** Build root and outside folders for `ops` operations; returns the swapped pairs (relative to base) and the zone path to attack. */
  build(base: string, ops: number): { pairs: [string, string][]; at: string; outside: string[] };
  attack?: (nosh: Nosh, ops: number, out: Outcome) => Promise<void>;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'one level: root/d exchanged with root/x -> outside',
    build(base, ops) {
      for (let k = 0; k < ops; k++) {
        fillFolder(path.join(base, 'root/d'), k, 'inside');
        fillFolder(path.join(base, 'outside'), k, 'OUTSIDE');
      }
      fs.symlinkSync(path.join(base, 'outside'), path.join(base, 'root/x'));
      return { pairs: [['root/d', 'root/x']], at: 'd', outside: ['outside'] };
    },
  },
  {
    name: 'two levels: root/a (holding d) exchanged with root/y -> outside2 (holding d)',
    build(base, ops) {
      for (let k = 0; k < ops; k++) {
        fillFolder(path.join(base, 'root/a/d'), k, 'inside');
        fillFolder(path.join(base, 'outside2/d'), k, 'OUTSIDE');
      }
      fs.symlinkSync(path.join(base, 'outside2'), path.join(base, 'root/y'));
      return { pairs: [['root/a', 'root/y']], at: 'a/d', outside: ['outside2'] };
    },
  },
  {
    name: 'both levels at once: root/a <-> root/y and root/a/d <-> root/a/x',
    build(base, ops) {
      for (let k = 0; k < ops; k++) {
        fillFolder(path.join(base, 'root/a/d'), k, 'inside');
        fillFolder(path.join(base, 'root/a/dd'), k, 'inside');
        fillFolder(path.join(base, 'outside'), k, 'OUTSIDE');
        fillFolder(path.join(base, 'outside2/d'), k, 'OUTSIDE');
      }
      fs.symlinkSync(path.join(base, 'outside'), path.join(base, 'root/a/x'));
      fs.symlinkSync(path.join(base, 'outside2'), path.join(base, 'root/y'));
      return { pairs: [['root/a', 'root/y'], ['root/a/d', 'root/a/x']], at: 'a/d', outside: ['outside', 'outside2'] };
    },
  },
  {
    name: 'mid-walk: the folder rm -r, cp -r, find -delete and delete are walking exchanged with a symlink to outside',
    build(base, ops) {
      const pairs: [string, string][] = [];
      for (let k = 0; k < ops; k++) for (const n of ['r', 's', 'f', 'd']) pairs.push(walkTree(base, `${n}${k}`));
      return { pairs, at: 'w', outside: ['outside'] };
    },
    attack: attackWalks,
  },
];

const bases: string[] = [];
afterAll(() => {
  for (const b of bases) fs.rmSync(b, { recursive: true, force: true });
}, 120_000);

describe('TOCTOU: a folder exchanged with a symlink to outside while nosh changes files in it', () => {
  // The swapper is python3 (ctypes renameat2): without it these tests fail, never skip.
  test('python3 with ctypes runs here (Linux)', () => {
    expect(HAVE_PY && LINUX, 'the swapper needs python3 with ctypes on Linux (Debian: apt-get install python3)').toBe(true);
  });
  for (const sc of SCENARIOS) {
    test(sc.name, async () => {
      for (let run = 0; run < RUNS; run++) {
        const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nosh-swap-')));
        bases.push(base);
        fs.mkdirSync(path.join(base, 'root'));
        okFile = path.join(base, 'root/ok.txt');
        fs.writeFileSync(okFile, 'ok\n');
        fs.mkdirSync(path.join(base, 'root/src/sub'), { recursive: true });
        fs.writeFileSync(path.join(base, 'root/src/sub/f'), 'src a\n');
        const { pairs, at, outside } = sc.build(base, OPS);
        const before = outside.map((o) => snapshot(path.join(base, o)));
        const nosh = await createNosh({ root: path.join(base, 'root'), threads: 2 });
        const out: Outcome = { ok: 0, errors: {} };
        const swapper = await startSwapper(pairs.map(([a, b]) => [path.join(base, a), path.join(base, b)]));
        try {
          await (sc.attack ? sc.attack(nosh, OPS, out) : attack(nosh, at, OPS, out));
        } finally {
          await stopSwapper(swapper);
          await nosh.close();
        }
        const after = outside.map((o) => snapshot(path.join(base, o)));
        const changed = after.map((snap, i) => diff(before[i]!, snap));
        // eslint-disable-next-line no-console
        console.log(`${sc.name} run ${run + 1}: ${out.ok} ok, errors ${JSON.stringify(out.errors)}, outside changes ${changed.flat().length}`);
        expect(changed.flat().slice(0, 20)).toEqual([]);
        for (const o of outside) expect(tempNames(path.join(base, o))).toEqual([]);
        // Nothing of the outside folder was read into the zone (cp -r from the swapped folder).
        expect(filesWith(path.join(base, 'root'), (t) => t.includes('OUTSIDE'))).toEqual([]);
        // Failures under the swap are error envelopes of known kinds, never a crash.
        expect(Object.keys(out.errors).filter((c) => /INTERNAL|CRASH|WORKER/.test(c))).toEqual([]);
        expect(out.ok).toBeGreaterThan(0);
        fs.rmSync(base, { recursive: true, force: true }); // kept for a look when a check failed
      }
    }, 120_000 + RUNS * OPS * 2_000);
  }
});

function diff(a: Record<string, string>, b: Record<string, string>): string[] {
  const d: string[] = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (a[k] !== b[k]) d.push(`${k}: ${a[k]?.slice(0, 80) ?? '(none)'} -> ${b[k]?.slice(0, 80) ?? '(none)'}`);
  }
  return d;
}

function tempNames(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((n) => n.includes('.nosh-tmp-'));
}
