import * as fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { run } from '../helpers.js';
import { zone } from './fileops-fixture.js';

describe('mv', () => {
  test('moves a symlink itself, never its target', async () => {
    const z = zone({ d: null });
    fs.symlinkSync(z.outside, z.at('out'));
    const r = await run(z.root, 'mv out d');
    expect(r.exitCode).toBe(0);
    expect(fs.readlinkSync(z.at('d/out'))).toBe(z.outside);
    expect(fs.readFileSync(`${z.outside}/keep.txt`, 'utf8')).toBe('outside\n');
  });

  test('a hard-linked destination is not replaced', async () => {
    const z = zone({ a: 'new\n', b: 'old\n' });
    fs.linkSync(z.at('b'), z.at('b2'));
    const r = await run(z.root, 'mv a b');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe("mv: cannot move 'a' to 'b': Permission denied (file has several hard links; not written through)\n");
    expect(fs.readFileSync(z.at('a'), 'utf8')).toBe('new\n');
  });

  test("the zone root and '.' cannot be moved; '..' never leaves the zone", async () => {
    const z = zone({ 'sub/f': 'x' });
    expect((await run(z.root, 'mv / x')).stderr).toBe("mv: cannot move '/' to 'x': Device or resource busy\n");
    expect((await run(z.root, 'mv . x', { cwd: '/sub' })).stderr).toBe("mv: cannot move '.' to 'x': Device or resource busy\n");
    const r = await run(z.root, 'mv f ../../../g', { cwd: '/sub' });
    expect(r.exitCode).toBe(0);
    expect(fs.existsSync(z.at('g'))).toBe(true);
  });

  test('moving a directory into itself changes nothing', async () => {
    const z = zone({ 's/t/f': 'x' });
    const r = await run(z.root, 'mv s s/t/u');
    expect(r.stderr).toBe("mv: cannot move 's' to a subdirectory of itself, 's/t/u'\n");
    expect(fs.readdirSync(z.at('s/t'))).toEqual(['f']);
  });

  test('refused in a read-only zone, even when deleting is allowed', async () => {
    const z = zone({ a: 'x' });
    const r = await run(z.root, 'mv a b', { policy: { readonly: true, allowDelete: true } });
    expect(r.error?.code).toBe('ZONE_READONLY');
    expect(fs.existsSync(z.at('a'))).toBe(true);
  });

  test('-i asks on stderr and reads the answer from stdin: no answer keeps the file, y replaces it', async () => {
    const z = zone({ a: 'x', b: 'y' });
    const r = await run(z.root, 'mv -i a b');
    expect([r.exitCode, r.stderr]).toEqual([0, "mv: overwrite 'b'? "]);
    expect(fs.readFileSync(z.at('b'), 'utf8')).toBe('y');
    const r2 = await run(z.root, 'mv -i a b', { stdin: 'yes\n' });
    expect([r2.exitCode, r2.stderr]).toEqual([0, "mv: overwrite 'b'? "]);
    expect(fs.readFileSync(z.at('b'), 'utf8')).toBe('x');
    expect(fs.existsSync(z.at('a'))).toBe(false);
  });

  test('-b moves a hard-linked destination aside instead of refusing', async () => {
    const z = zone({ a: 'new\n', b: 'old\n' });
    fs.linkSync(z.at('b'), z.at('b2'));
    const r = await run(z.root, 'mv -bv a b');
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString()).toBe("renamed 'a' -> 'b' (backup: 'b~')\n");
    expect(fs.readFileSync(z.at('b'), 'utf8')).toBe('new\n');
    expect(fs.readFileSync(z.at('b~'), 'utf8')).toBe('old\n');
    expect(fs.readFileSync(z.at('b2'), 'utf8')).toBe('old\n');
  });

  test('a hard-linked file in the way of the backup name is never replaced', async () => {
    const z = zone({ a: 'new\n', b: 'old\n', 'b~': 'keep\n' });
    fs.linkSync(z.at('b~'), z.at('other'));
    const r = await run(z.root, 'mv -b a b');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe("mv: cannot backup 'b': Permission denied (file has several hard links; not written through)\n");
    expect(fs.readFileSync(z.at('a'), 'utf8')).toBe('new\n');
    expect(fs.readFileSync(z.at('b'), 'utf8')).toBe('old\n');
  });

  test('-b is refused in a read-only zone', async () => {
    const z = zone({ a: 'new\n', b: 'old\n' });
    const r = await run(z.root, 'mv -b a b', { policy: { readonly: true, allowDelete: true } });
    expect(r.error?.code).toBe('ZONE_READONLY');
    expect(fs.readdirSync(z.root).sort()).toEqual(['a', 'b']);
  });
});
