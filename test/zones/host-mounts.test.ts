/**
 * Issue 17 §7: configuration that hands out the host. A mount of /proc, /sys, /dev (or
 * anything under them), of a folder holding them, or of a folder that is or holds the base is
 * refused at start, naming the mount; real paths decide (a symlink to /proc is /proc). A
 * `/proc/self` mount returned the server's environment before.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNosh, type NoshConfig } from '../../src/index.js';
import { tempDir } from '../helpers.js';

const outer = tempDir('nosh-hostmount-');
const base = path.join(outer, 'base');
const beside = path.join(outer, 'course');
fs.mkdirSync(base);
fs.mkdirSync(beside);
fs.symlinkSync('/proc/self', path.join(outer, 'self-link'));
afterAll(() => fs.rmSync(outer, { recursive: true, force: true }));

async function refused(cfg: NoshConfig, name: RegExp) {
  let err: unknown;
  try {
    const nosh = await createNosh({ base, threads: 1, ...cfg });
    await nosh.close();
  } catch (e) {
    err = e;
  }
  expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(name) });
  // the operator's host path is not echoed
  expect(String((err as Error).message)).not.toContain(outer);
}

describe('mounts that hand out the host are refused at start', () => {
  const cases: [string, string][] = [
    ['/proc', '/proc'], ['/proc/self', '/proc/self'], ['/sys', '/sys'], ['/sys/kernel', '/sys/kernel'], ['/dev', '/dev'],
    ['/dev/shm', '/dev/shm'], ['the file system root', '/'], ['a symlink to /proc/self', path.join(outer, 'self-link')],
    ['the base', base], ['the base, spelled with ..', path.join(base, '..', 'base')], ['a folder holding the base', outer],
  ];
  for (const [what, p] of cases) {
    it(what, async () => {
      await refused({ mounts: [{ name: 'hostview', path: p }] }, /mount 'hostview'/);
    });
  }

  it('the root zone may not be a system folder either', async () => {
    await refused({ root: '/proc/self' }, /root/);
    await refused({ root: '/' }, /root/);
  });

  it('the base is refused as the root zone when both are configured', async () => {
    await refused({ root: outer }, /root/);
  });
});

describe('ordinary mounts still start', () => {
  it('a folder beside the base, read through the mount', async () => {
    fs.writeFileSync(path.join(beside, 'a.py'), 'print(1)\n');
    const nosh = await createNosh({ base, threads: 1, mounts: [{ name: 'course', path: beside }] });
    try {
      const r = await nosh.exec({ zone: 'course', context: { user: 'alice' }, command: 'cat a.py' });
      expect(r.success && r.data.stdout).toBe('print(1)\n');
    } finally {
      await nosh.close();
    }
  });
});
