// The typed zip / unzip / zipinfo tools through the library: results as data, and the archive
// defences of the commands they run (all or nothing, unsafe names, bombs, read-only zones).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { snapshotTree, tempDir } from '../helpers.js';
import { makeZip } from '../commands/archive-zone.js';

let nosh: Nosh;
let base: string;
let root: string;
const call = (method: string, params: Record<string, unknown>) => nosh.call(method, params) as Promise<any>;

beforeAll(async () => {
  base = tempDir('nosh-ziptools-');
  root = path.join(base, 'zone');
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(base, 'outside'));
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});
beforeEach(() => {
  for (const n of fs.readdirSync(root)) fs.rmSync(path.join(root, n), { recursive: true, force: true });
});
const put = (rel: string, data: string | Buffer) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), data);
};

describe('zip, zipinfo and unzip tools', () => {
  it('round trip: zip a folder, list it as data, extract it elsewhere', async () => {
    put('src/a.txt', 'alpha\n');
    put('src/sub/b.txt', 'beta\n'.repeat(100));
    const z = await call('zip', { path: 'pack.zip', paths: ['src'], level: 9 });
    expect(z.success, JSON.stringify(z)).toBe(true);
    expect(z.data).toMatchObject({ path: '/pack.zip', entries_added: 4 });
    expect(z.data.size).toBe(fs.statSync(path.join(root, 'pack.zip')).size);
    const info = await call('zipinfo', { path: 'pack.zip' });
    expect(info.data.entries.map((e: any) => [e.name, e.size, e.is_dir])).toEqual([
      ['src/', 0, true], ['src/a.txt', 6, false], ['src/sub/', 0, true], ['src/sub/b.txt', 500, false],
    ]);
    expect(info.data.entries[3].method).toBe('deflated');
    expect(info.data.entries[3].compressed).toBeLessThan(500);
    expect(info.data.total_size).toBe(506);
    const u = await call('unzip', { path: 'pack.zip', destination: 'copy' });
    expect(u.success, JSON.stringify(u)).toBe(true);
    expect(u.data.files.sort()).toEqual(['/copy/src/a.txt', '/copy/src/sub/b.txt']);
    expect(fs.readFileSync(path.join(root, 'copy/src/sub/b.txt'), 'utf8')).toBe('beta\n'.repeat(100));
  });

  it('unzip keeps existing files unless overwrite is set, and says which it kept', async () => {
    put('a.txt', 'new\n');
    expect((await call('zip', { path: 'p.zip', paths: ['a.txt'] })).success).toBe(true);
    put('a.txt', 'old\n');
    const kept = await call('unzip', { path: 'p.zip' });
    expect(kept.data.files).toEqual([]);
    expect(kept.data.skipped).toEqual(['a.txt']);
    expect(kept.message).toMatch(/overwrite: true/);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('old\n');
    const replaced = await call('unzip', { path: 'p.zip', overwrite: true });
    expect(replaced.data.files).toEqual(['/a.txt']);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('new\n');
  });

  it('unsafe entry names stay inside the destination, links are never created', async () => {
    put('evil.zip', makeZip([{ name: '../../outside/x', data: 'x' }, { name: 'link', data: '/etc/passwd', mode: 0o120777 }, { name: 'ok.txt', data: 'ok' }]));
    const u = await call('unzip', { path: 'evil.zip', destination: 'd' });
    expect(u.success, JSON.stringify(u)).toBe(true);
    expect(fs.readdirSync(path.join(base, 'outside'))).toEqual([]);
    expect(u.data.files.sort()).toEqual(['/d/ok.txt', '/d/outside/x']);
    expect(fs.existsSync(path.join(root, 'd/link'))).toBe(false);
    expect(u.data.warnings.join('\n')).toMatch(/link/);
  });

  it('a zip bomb is refused whole: an error envelope, nothing left behind', async () => {
    const zeros = Buffer.alloc(5_000_000);
    put('bomb.zip', makeZip([{ name: 'a.txt', data: 'fine' }, { name: 'zeros', data: zeros, deflate: true }]));
    const before = snapshotTree(root);
    const u = await call('unzip', { path: 'bomb.zip', destination: 'd' });
    expect(u.success).toBe(false);
    expect(u.error.code).toBe('INVALID_ARGUMENT');
    expect(u.error.message).toMatch(/ratio|bomb/);
    expect(snapshotTree(root)).toEqual(before.concat(snapshotTree(root).filter((l: string) => l.startsWith('d '))));
    expect(fs.existsSync(path.join(root, 'd/a.txt'))).toBe(false);
  });

  it('an argument that could be read as an option is refused before anything runs', async () => {
    put('p.zip', makeZip([{ name: 'a', data: 'a' }]));
    for (const [m, p] of [['unzip', { path: '-o' }], ['unzip', { path: 'p.zip', members: ['-x'] }], ['zip', { path: 'q.zip', paths: ['-m'] }], ['unzip', { path: 'p.zip', destination: '-d' }]] as const) {
      const r = await call(m, p);
      expect(r.success).toBe(false);
      expect(r.error.code).toBe('INVALID_ARGUMENT');
    }
    expect(fs.readdirSync(root)).toEqual(['p.zip']);
  });

  it('not a zip, a missing archive, no match', async () => {
    put('t.txt', 'plain text\n');
    const bad = await call('zipinfo', { path: 't.txt' });
    expect(bad.error.code).toBe('INVALID_ARGUMENT');
    expect((await call('zipinfo', { path: 'nope.zip' })).error.code).toBe('FILE_NOT_FOUND');
    expect((await call('unzip', { path: 'nope.zip' })).error.code).toBe('FILE_NOT_FOUND');
    put('p.zip', makeZip([{ name: 'a', data: 'a' }]));
    const none = await call('unzip', { path: 'p.zip', members: ['zz*'] });
    expect(none.error.message).toMatch(/not matched/);
    const missing = await call('zip', { path: 'q.zip', paths: ['missing'] });
    expect(missing.success).toBe(false);
    expect(missing.error.message).toMatch(/missing/);
    const noDir = await call('zip', { path: 'no/such/q.zip', paths: ['p.zip'] });
    expect(noDir.error.message).toMatch(/No such file or directory/);
    expect(fs.existsSync(path.join(root, 'q.zip'))).toBe(false);
  });
});

describe('in a read-only zone', () => {
  it('zip and unzip are refused, zipinfo reads', async () => {
    const ro = tempDir('nosh-ziptools-ro-');
    fs.writeFileSync(path.join(ro, 'p.zip'), makeZip([{ name: 'a.txt', data: 'a' }]));
    const n = await createNosh({ root: ro, threads: 1, policy: { readonly: true } });
    try {
      expect(((await n.call('unzip', { path: 'p.zip' })) as any).error.code).toBe('ZONE_READONLY');
      expect(((await n.call('zip', { path: 'q.zip', paths: ['p.zip'] })) as any).error.code).toBe('ZONE_READONLY');
      expect(((await n.call('zipinfo', { path: 'p.zip' })) as any).data.count).toBe(1);
      expect(fs.readdirSync(ro)).toEqual(['p.zip']);
    } finally {
      await n.close();
      fs.rmSync(ro, { recursive: true, force: true });
    }
  });
});

describe('in a zone with allowed extensions', () => {
  it('unzip and tar extract the allowed names (their staging keeps each name) and refuse the others', async () => {
    const z = tempDir('nosh-ziptools-ext-');
    fs.writeFileSync(path.join(z, 'p.zip'), makeZip([{ name: 'a.txt', data: 'a' }, { name: 'b.sh', data: 'b' }]));
    const n = await createNosh({ root: z, threads: 1, policy: { allowedExtensions: ['.txt', '.zip', '.tar'] } });
    try {
      const u = (await n.call('unzip', { path: 'p.zip', destination: 'd' })) as any;
      expect(u.success, JSON.stringify(u)).toBe(true);
      expect(u.data.files).toEqual(['/d/a.txt']);
      expect(fs.readdirSync(path.join(z, 'd'))).toEqual(['a.txt']);
      expect(u.data.warnings.join('\n')).toMatch(/skipping: b.sh .*extension not allowed/);
      expect((await n.exec({ command: 'tar -cf t.tar d' })).success).toBe(true);
      const x = (await n.exec({ command: 'tar -xf t.tar -C d2' })) as any;
      expect(x.data.stderr).toMatch(/Cannot open/);
      fs.mkdirSync(path.join(z, 'd2'));
      expect(((await n.exec({ command: 'tar -xf t.tar -C d2' })) as any).data.exit_code).toBe(0);
      expect(fs.readFileSync(path.join(z, 'd2/d/a.txt'), 'utf8')).toBe('a');
    } finally {
      await n.close();
      fs.rmSync(z, { recursive: true, force: true });
    }
  });
});

describe('archive limits come from the configuration', () => {
  it('limits.archiveRatio and limits.archiveEntries decide what unzip and zipinfo accept', async () => {
    const z = tempDir('nosh-ziptools-lim-');
    fs.writeFileSync(path.join(z, 'r.zip'), makeZip([{ name: 'zeros', data: Buffer.alloc(2_000_000), deflate: true }]));
    fs.writeFileSync(path.join(z, 'n.zip'), makeZip(Array.from({ length: 12 }, (_, i) => ({ name: `f${i}`, data: 'x' }))));
    const strict = await createNosh({ root: z, threads: 1, limits: { archiveEntries: 10 } });
    const loose = await createNosh({ root: z, threads: 1, limits: { archiveRatio: 5000 } });
    try {
      const refused = (await strict.call('unzip', { path: 'r.zip', destination: 'a' })) as any;
      expect(refused.error.message).toMatch(/exceeds the limit of 200:1/);
      expect(((await strict.call('zipinfo', { path: 'n.zip' })) as any).error.message).toMatch(/12 entries \(the limit is 10/);
      const ok = (await loose.call('unzip', { path: 'r.zip', destination: 'b' })) as any;
      expect(ok.success, JSON.stringify(ok)).toBe(true);
      expect(fs.statSync(path.join(z, 'b/zeros')).size).toBe(2_000_000);
      expect(((await loose.call('zipinfo', { path: 'n.zip' })) as any).data.count).toBe(12);
    } finally {
      await strict.close();
      await loose.close();
      fs.rmSync(z, { recursive: true, force: true });
    }
  });
});
