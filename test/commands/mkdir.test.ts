import * as fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { run } from '../helpers.js';
import { zone } from './fileops-fixture.js';
import { adjustMode, compileMode } from '../../src/gnulib/fileops.js';

const modeOf = (p: string) => fs.statSync(p).mode & 0o7777;

describe('mkdir', () => {
  test.each([
    ['700', 0o700], ['0', 0o0], ['u=rwx,go=', 0o700], ['a+X,g-w', 0o757], ['go=,u=rx', 0o500], ['-w', 0o577],
    ['a-w', 0o555], ['u=g', 0o777], ['=,u+w', 0o200], ['1777', 0o1777],
    // An operator and an octal number (GNU's modes, recorded under umask 022; the umask does not apply).
    ['=700', 0o700], ['+644', 0o777], ['-644', 0o133], ['a=r,+700', 0o744], ['u+x,=640', 0o640], ['=0', 0o0],
    // The Vfs never sets setuid/setgid bits (a deliberate deviation from GNU's 2777).
    ['g+s', 0o777],
    // The umask does not apply to what MODE sets; with special bits involved the directory
    // is made without group/other write and only the bits MODE touched are set after
    // (GNU 9.1 under umask 022; setuid/setgid dropped as above: GNU's =sx is 6111).
    ['a-st', 0o755], ['+w', 0o777], ['o-w', 0o775], ['u=rw', 0o677], ['+x+wt', 0o1755], ['a+t', 0o1755],
    ['=t', 0o1000], ['u=u,+Xx,-r-ssx', 0o200], ['=sx', 0o111], ['u+s', 0o777],
  ])('-m %s gives mode %o', async (spec, want) => {
    const z = zone();
    const r = await run(z.root, `mkdir -m ${spec} d`);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(modeOf(z.at('d'))).toBe(want);
  });

  test('-p creates parents 755 and applies -m to the last one only', async () => {
    const z = zone();
    const r = await run(z.root, 'mkdir -p -m 700 a/b/c');
    expect(r.exitCode).toBe(0);
    expect(modeOf(z.at('a'))).toBe(0o755);
    expect(modeOf(z.at('a/b'))).toBe(0o755);
    expect(modeOf(z.at('a/b/c'))).toBe(0o700);
  });

  test("'..' never leaves the zone: mkdir -p a/../../x makes /x", async () => {
    const z = zone();
    const r = await run(z.root, 'mkdir -p a/../../x');
    expect(r.exitCode).toBe(0);
    expect(fs.existsSync(z.at('x'))).toBe(true);
    expect(fs.existsSync(z.at('../x'))).toBe(false);
  });

  test('a symlink in the path is not followed (zone policy)', async () => {
    const z = zone({ real: null });
    fs.symlinkSync(z.outside, z.at('out'));
    const r = await run(z.root, 'mkdir -p out/x');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe("mkdir: cannot create directory 'out': Symbolic link not followed (zone policy)\n");
    expect(fs.existsSync(`${z.outside}/x`)).toBe(false);
  });

  test('a symlink as the last component is never followed, trailing slash or not (EEXIST, as mkdir(2))', async () => {
    const z = zone();
    fs.symlinkSync('nowhere', z.at('d'));
    for (const cmd of ['mkdir d/', 'mkdir -p d//', 'mkdir d']) {
      const r = await run(z.root, cmd, { policy: { followSymlinks: true } });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toBe(`mkdir: cannot create directory '${cmd.split(' ').pop()}': File exists\n`);
    }
    expect(fs.existsSync(z.at('nowhere'))).toBe(false);
  });

  test('refused in a read-only zone, even when deleting is allowed', async () => {
    const z = zone();
    for (const policy of [{ readonly: true, allowDelete: false }, { readonly: true, allowDelete: true }]) {
      const r = await run(z.root, 'mkdir d', { policy });
      expect(r.error?.code).toBe('ZONE_READONLY');
      expect(fs.existsSync(z.at('d'))).toBe(false);
    }
  });

  test('blocked names cannot be created', async () => {
    const z = zone();
    const r = await run(z.root, 'mkdir secrets', { policy: { blockedPatterns: ['secrets*'] } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^mkdir: cannot create directory 'secrets': Permission denied/);
    expect(fs.existsSync(z.at('secrets'))).toBe(false);
  });

  test('mode parser: invalid modes are refused', () => {
    for (const bad of ['foo', '8', '12345', 'u', 'u+z', '+x,', 'a=r,,', '']) expect(compileMode(bad)).toBeNull();
    expect(adjustMode(0o644, false, 0o022, compileMode('u+x,g=u')!).mode).toBe(0o774);
    expect(adjustMode(0o644, false, 0o022, compileMode('+w')!).mode).toBe(0o644);
  });
});
