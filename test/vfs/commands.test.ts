// The same attacks through whole command lines (in-process runner): mkdir -p, rm -r, cp, mv,
// touch, ls, stat, head, tail.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import { run } from '../helpers.js';
import { CANARY, MARK, SECRET, assertNoHostPaths, guardLeaks, makeZone, markerEscaped, record, withinMs, type Zone } from './fixture.js';

guardLeaks();


let z: Zone;
let before: Record<string, string>;
beforeEach(() => {
  z = makeZone();
  const out = path.join(z.base, 'outside');
  fs.mkdirSync(z.at('d'));
  fs.writeFileSync(z.at('f.txt'), 'f\n');
  fs.symlinkSync(path.join(out, 'secret.txt'), z.at('abs-link'));
  fs.symlinkSync(out, z.at('abs-dir'));
  fs.symlinkSync(path.join(out, MARK), z.at('dangling'));
  fs.symlinkSync(`${z.root}/../outside`, z.at('reenter'));
  execFileSync('mkfifo', [z.at('fifo')]);
  before = z.outsideSnapshot();
});

async function sh(line: string, opts: Parameters<typeof run>[2] = {}) {
  const r = await run(z.root, line, opts);
  record(new Error(r.stdout.toString('utf8') + '\n' + r.stderr + '\n' + JSON.stringify(r.error ?? null)));
  return r;
}

function assertOutsideUntouched(): void {
  expect(z.outsideSnapshot()).toEqual(before);
  expect(fs.readFileSync(path.join(z.base, 'canary.txt'), 'utf8')).toBe(CANARY);
  expect(markerEscaped(z.base)).toEqual([]);
}

const POLICIES = [{}, { followSymlinks: true }];

describe('mutating commands stay inside', () => {
  test('mkdir -p with climbing paths creates inside only', async () => {
    for (const policy of POLICIES) {
      await sh(`mkdir -p a/../../${MARK}-1 ../../${MARK}-2/x /../../${MARK}-3`, { policy, cwd: '/d' });
      const r = await sh(`mkdir -p abs-dir/${MARK} reenter/${MARK} dangling/x`, { policy });
      expect(r.exitCode).not.toBe(0);
    }
    expect(fs.existsSync(z.at(`${MARK}-1`))).toBe(true);
    expect(fs.existsSync(z.at(`${MARK}-2/x`))).toBe(true);
    assertOutsideUntouched();
  });

  test('rm -rf on links to outside folders removes the links only; .. and / are not the host', async () => {
    for (const line of ['rm -rf abs-dir/', 'rm -rf reenter/ abs-link', 'rm -rf abs-dir/secret.txt', 'rm -rf ../outside', 'rm -rf ../..', 'rm -rf /']) {
      await sh(line, { policy: { followSymlinks: true } });
      await sh(line);
    }
    assertOutsideUntouched();
    expect(fs.existsSync(z.root)).toBe(true);
  });

  test('cp never reads from or writes through a link to outside', async () => {
    for (const policy of POLICIES) {
      for (const line of ['cp abs-link stolen1', 'cp -r abs-dir stolen2', 'cp -rL abs-dir stolen3', 'cp reenter/secret.txt stolen4',
        'cp f.txt abs-link', 'cp f.txt abs-dir/', 'cp f.txt dangling', 'cp -r d abs-dir', `cp f.txt ../../outside/${MARK}`]) {
        await sh(line, { policy });
      }
    }
    for (const n of fs.readdirSync(z.root)) {
      const p = z.at(n);
      if (fs.lstatSync(p).isFile()) expect(fs.readFileSync(p, 'utf8')).not.toContain('SECRET');
    }
    assertOutsideUntouched();
  });

  test('mv onto or into links to outside does not move anything out', async () => {
    for (const policy of POLICIES) {
      for (const line of ['mv f.txt abs-dir/', 'mv f.txt reenter/x', 'mv f.txt ../../outside/x', 'mv abs-dir/secret.txt here.txt']) {
        await sh(line, { policy });
      }
    }
    // `mv f.txt abs-dir/` used to replace the link by the file (trailing slash ignored)
    expect(fs.readFileSync(z.at('f.txt'), 'utf8')).toBe('f\n');
    expect(fs.lstatSync(z.at('abs-dir')).isSymbolicLink()).toBe(true);
    await sh('mv f.txt abs-link'); // without a slash: replaces the link itself, like GNU
    expect(fs.lstatSync(z.at('abs-link')).isFile()).toBe(true);
    assertOutsideUntouched();
  });

  test('touch does not create or stamp anything through a link', async () => {
    const t0 = fs.statSync(path.join(z.base, 'outside/secret.txt')).mtimeMs;
    for (const policy of POLICIES) {
      await sh(`touch dangling abs-link abs-dir/${MARK} reenter/${MARK} ../../${MARK}-t`, { policy });
    }
    expect(fs.statSync(path.join(z.base, 'outside/secret.txt')).mtimeMs).toBe(t0);
    expect(fs.existsSync(z.at(`${MARK}-t`))).toBe(true);
    assertOutsideUntouched();
  });
});

describe('reading commands show nothing from outside', () => {
  test('ls -l shows links without host paths and does not list outside folders', async () => {
    for (const policy of POLICIES) {
      const r = await sh('ls -la / abs-dir abs-dir/ reenter/ ../..', { policy });
      const out = r.stdout.toString('utf8') + r.stderr;
      assertNoHostPaths([out]);
      expect(out).not.toContain('secret.txt');
      expect(out).toContain('abs-link');
    }
  });

  test('stat of links prints no host path', async () => {
    for (const policy of POLICIES) {
      const r = await sh('stat abs-link abs-dir reenter dangling', { policy });
      assertNoHostPaths([r.stdout.toString('utf8'), r.stderr]);
    }
  });

  test('head and tail of a FIFO fail at once; of links out, print nothing', async () => {
    for (const policy of POLICIES) {
      for (const c of ['head', 'tail', 'head -c 5', 'tail -f -n 1']) {
        const r = await withinMs(5000, () => sh(`${c} fifo abs-link reenter/secret.txt`, { policy }));
        expect(r.stdout.toString()).not.toContain(SECRET.trim());
      }
    }
  });
});
