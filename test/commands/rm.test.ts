import * as fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { run } from '../helpers.js';
import { zone } from './fileops-fixture.js';

describe('rm', () => {
  test('read-only zone: refused with ZONE_READONLY, the file stays', async () => {
    const z = zone({ f: 'x' });
    const r = await run(z.root, 'rm f', { policy: { readonly: true, allowDelete: false } });
    expect(r.error?.code).toBe('ZONE_READONLY');
    expect(fs.existsSync(z.at('f'))).toBe(true);
  });

  test('read-only zone that allows deleting: rm works, the writing commands are refused', async () => {
    const z = zone({ f: 'x', g: 'y', d: null });
    const policy = { readonly: true, allowDelete: true };
    const r = await run(z.root, 'rm f', { policy });
    expect(r.error).toBeUndefined();
    expect(r.exitCode).toBe(0);
    expect(fs.existsSync(z.at('f'))).toBe(false);
    for (const cmd of ['cp g h', 'mv g h', 'touch g', 'touch h', 'mkdir e']) {
      const w = await run(z.root, cmd, { policy });
      expect(w.error?.code, cmd).toBe('ZONE_READONLY');
    }
    expect(fs.readdirSync(z.root).sort()).toEqual(['d', 'g']);
  });

  test('never follows symlinks: a link to a folder outside the zone is removed itself', async () => {
    const z = zone({ 'd/f': 'x' });
    fs.symlinkSync(z.outside, z.at('out'));
    fs.symlinkSync(z.outside, z.at('d/out'));
    const r = await run(z.root, 'rm -rf out d');
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(fs.readdirSync(z.root)).toEqual([]);
    expect(fs.readFileSync(`${z.outside}/keep.txt`, 'utf8')).toBe('outside\n');
  });

  test('a trailing slash on a link does not reach through it', async () => {
    const z = zone();
    fs.symlinkSync(z.outside, z.at('out'));
    const r = await run(z.root, 'rm -rf out/');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^rm: cannot remove 'out\/': Symbolic link not followed/);
    expect(fs.existsSync(`${z.outside}/keep.txt`)).toBe(true);
  });

  test("with symlinks followed, 'link/' is never removed itself (GNU: rmdir/unlink of it is ENOTDIR)", async () => {
    const z = zone({ 'dir/f': 'x', 'dir/sub': null, e: null });
    fs.symlinkSync('dir', z.at('ld'));
    fs.symlinkSync('e', z.at('le'));
    fs.symlinkSync('nope', z.at('dang'));
    const policy = { followSymlinks: true };
    // Expected output from GNU rm 9.1 on the same tree.
    const r = await run(z.root, 'rm -rv ld//', { policy });
    expect(r.stdout.toString()).toBe("removed 'ld/f'\nremoved directory 'ld/sub'\n");
    expect(r.stderr).toBe("rm: cannot remove 'ld/': Not a directory\n");
    expect(r.exitCode).toBe(1);
    expect(fs.readdirSync(z.at('dir'))).toEqual([]);
    const d = await run(z.root, 'rm -d le/ dang/', { policy });
    expect(d.stderr).toBe("rm: cannot remove 'le/': Not a directory\nrm: cannot remove 'dang/': Not a directory\n");
    expect(d.exitCode).toBe(1);
    expect((await run(z.root, 'rm -rf le/ dang/', { policy })).exitCode).toBe(0);
    expect(fs.readdirSync(z.root).sort()).toEqual(['dang', 'dir', 'e', 'ld', 'le']);
  });

  test('--preserve-root is always on, whatever the cwd', async () => {
    const z = zone({ 'sub/f': 'x' });
    const cases: [string, string][] = [
      ['rm -rf /', "rm: it is dangerous to operate recursively on '/'\nrm: use --no-preserve-root to override this failsafe\n"],
      ['rm -rf ..', "rm: refusing to remove '.' or '..' directory: skipping '..'\n"],
      ['rm -rf ../..', "rm: refusing to remove '.' or '..' directory: skipping '../..'\n"],
      ['rm -rf /..', "rm: refusing to remove '.' or '..' directory: skipping '/..'\n"],
      ['rm -rf .', "rm: refusing to remove '.' or '..' directory: skipping '.'\n"],
      ['rm -rf ///', "rm: it is dangerous to operate recursively on '/'\nrm: use --no-preserve-root to override this failsafe\n"],
      ['rm -rf //', "rm: it is dangerous to operate recursively on '//' (same as '/')\nrm: use --no-preserve-root to override this failsafe\n"],
    ];
    for (const [cmd, err] of cases) {
      const r = await run(z.root, cmd, { cwd: '/sub' });
      expect(r.stderr, cmd).toBe(err);
      expect(r.exitCode, cmd).toBe(1);
    }
    expect(fs.existsSync(z.at('sub/f'))).toBe(true);
  });

  test('-i, -I and --no-preserve-root are not accepted', async () => {
    const z = zone({ f: 'x' });
    expect((await run(z.root, 'rm -i f')).stderr).toBe("rm: invalid option -- 'i'\nTry 'rm --help' for more information.\n");
    expect((await run(z.root, 'rm -I f')).exitCode).toBe(1);
    const r = await run(z.root, 'rm -rf --no-preserve-root /');
    expect(r.stderr).toMatch(/^rm: unrecognized option '--no-preserve-root'/);
    expect(fs.existsSync(z.at('f'))).toBe(true);
  });

  test('entries hidden by the zone policy are not removed; their folder stays', async () => {
    const z = zone({ 'd/ok.txt': 'x', 'd/.env': 'SECRET=1' });
    const r = await run(z.root, 'rm -r d', { policy: { blockedPatterns: ['.env'] } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe("rm: cannot remove 'd': Directory not empty\n");
    expect(fs.readdirSync(z.at('d'))).toEqual(['.env']);
  });
});
