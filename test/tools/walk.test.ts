import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { workspace, type Ws } from './setup.js';

/**
 * The walking tools (list, tree, find, search) go through open folders (Vfs.openDir and the
 * *At calls). Symlinks out of the zone, to a folder or to a file, are listed as symlinks and
 * never entered or read; blocked names never show.
 */
let ws: Ws;
let outside: string;

beforeAll(async () => {
  ws = await workspace({ policy: { blockedPatterns: ['.env', 'secrets/'] } });
  outside = tempDir('nosh-outside-');
  fs.writeFileSync(path.join(outside, 'leak.txt'), 'TODO outside\n');
  ws.put('a/in.txt', 'TODO inside\n');
  ws.put('a/b/deep.txt', 'TODO deep\n');
  ws.put('a/.env', 'TODO env\n');
  ws.put('a/secrets/s.txt', 'TODO secret\n');
  fs.symlinkSync(outside, path.join(ws.root, 'a/outdir'));
  fs.symlinkSync(path.join(outside, 'leak.txt'), path.join(ws.root, 'a/outfile.txt'));
});
afterAll(async () => {
  await ws.close();
  fs.rmSync(outside, { recursive: true, force: true });
});

describe('walking tools and symlinks out of the zone', () => {
  it('search reads inside files only', async () => {
    const r = await ws.call('search', { pattern: 'TODO', hidden: true });
    expect(r.data.matches.map((m: any) => `${m.path}: ${m.text}`)).toEqual(['/a/b/deep.txt: TODO deep', '/a/in.txt: TODO inside']);
  });

  it('list shows the links as symlinks with their own size, and nothing under them', async () => {
    const r = await ws.call('list', { path: 'a', recursive: true, hidden: true, details: true });
    const rows = r.data.entries.map((e: any) => `${e.name} ${e.type} ${e.size}`);
    const size = (rel: string) => fs.lstatSync(path.join(ws.root, 'a', rel)).size;
    expect(rows).toEqual([`b dir ${size('b')}`, 'b/deep.txt file 10', 'in.txt file 12',
      `outdir symlink ${size('outdir')}`, `outfile.txt symlink ${size('outfile.txt')}`]);
    expect(r.data.entries.every((e: any) => typeof e.mtime === 'string')).toBe(true);
  });

  it('tree and find do not enter the linked folder', async () => {
    const t = await ws.call('tree', { path: 'a' });
    expect(JSON.stringify(t.data)).not.toContain('leak');
    const f = await ws.call('find', { pattern: '*.txt', path: 'a' });
    expect(JSON.stringify(f.data)).not.toContain('leak');
    expect(JSON.stringify(f.data)).toContain('deep.txt');
  });

  it('a folder that vanishes under the walk start is skipped; the start itself is an error', async () => {
    expect((await ws.call('list', { path: 'nope' })).error.code).toBe('FILE_NOT_FOUND');
    fs.chmodSync(path.join(ws.root, 'a/b'), 0o000);
    try {
      const r = await ws.call('search', { pattern: 'TODO' });
      // root can read a 000 folder; anyone else skips it. Either way the rest is searched.
      expect(r.data.matches.map((m: any) => m.path)).toContain('/a/in.txt');
    } finally {
      fs.chmodSync(path.join(ws.root, 'a/b'), 0o755);
    }
  });
});
