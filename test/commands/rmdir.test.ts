import * as fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { run } from '../helpers.js';
import { zone } from './fileops-fixture.js';

describe('rmdir', () => {
  test('works in a read-only zone that allows deleting, refused in one that does not', async () => {
    const z = zone({ e: null });
    const refused = await run(z.root, 'rmdir e', { policy: { readonly: true, allowDelete: false } });
    expect(refused.error?.code).toBe('ZONE_READONLY');
    expect(fs.existsSync(z.at('e'))).toBe(true);
    const r = await run(z.root, 'rmdir e', { policy: { readonly: true, allowDelete: true } });
    expect(r.exitCode).toBe(0);
    expect(fs.existsSync(z.at('e'))).toBe(false);
  });

  test('a symlink to a directory outside is not followed', async () => {
    const z = zone();
    fs.mkdirSync(`${z.outside}/empty`);
    fs.symlinkSync(`${z.outside}/empty`, z.at('l'));
    const r = await run(z.root, 'rmdir l');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe("rmdir: failed to remove 'l': Not a directory\n");
    expect(fs.existsSync(`${z.outside}/empty`)).toBe(true);
  });

  test('the zone root is never removed', async () => {
    const z = zone();
    const r = await run(z.root, 'rmdir -p /', {});
    expect(r.exitCode).toBe(1);
    expect(fs.existsSync(z.root)).toBe(true);
    const r2 = await run(z.root, 'rmdir ..', { cwd: '/' });
    expect(r2.exitCode).toBe(1);
    expect(fs.existsSync(z.root)).toBe(true);
  });

  test('-p goes up to the zone root, which it cannot remove (EBUSY, as GNU at /)', async () => {
    const z = zone({ 'a/b': null });
    const r = await run(z.root, 'rmdir -p /a/b');
    expect(r.stderr).toBe("rmdir: failed to remove directory '/': Device or resource busy\n");
    expect(r.exitCode).toBe(1);
    expect(fs.existsSync(z.at('a'))).toBe(false);
    expect(fs.existsSync(z.root)).toBe(true);
  });

  test("'link/' is not followed: the directory it points to stays", async () => {
    const z = zone({ e: null });
    fs.symlinkSync('e', z.at('l'));
    const r = await run(z.root, 'rmdir l/', { policy: { followSymlinks: true } });
    expect(r.stderr).toBe("rmdir: failed to remove 'l/': Symbolic link not followed\n");
    expect(r.exitCode).toBe(1);
    expect(fs.existsSync(z.at('e'))).toBe(true);
  });
});
