// tee behaviour the GNU fixtures cannot show: times left alone, appends to a file named
// twice arriving in pieces, no temp files.
import * as fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { run } from '../helpers.js';
import { leftovers, zone } from './fileops-fixture.js';

describe('tee', () => {
  test('-a with nothing to append leaves an existing file untouched, its time too (as O_APPEND)', async () => {
    const z = zone({ old: 'a\n' });
    fs.utimesSync(z.at('old'), 1_000_000_000, 1_000_000_000);
    const r = await run(z.root, 'tee -a old new', { stdin: '' });
    expect(r.exitCode).toBe(0);
    expect(fs.readFileSync(z.at('old'), 'utf8')).toBe('a\n');
    expect(fs.statSync(z.at('old')).mtimeMs).toBe(1_000_000_000_000);
    // A new file is still created (O_CREAT), empty.
    expect(fs.readFileSync(z.at('new'), 'utf8')).toBe('');
    expect(leftovers(z.root)).toEqual([]);
  });

  test('-a, a file named twice: every 8 KiB piece read goes in twice, as GNU (read size BUFSIZ)', async () => {
    const z = zone({ 'in.txt': 'x'.repeat(8192) + 'y'.repeat(100) });
    const r = await run(z.root, 'cat in.txt | tee -a out ./out', {});
    expect(r.exitCode).toBe(0);
    expect(fs.readFileSync(z.at('out'), 'utf8')).toBe('x'.repeat(16384) + 'y'.repeat(200));
  });

  test("a name ending in '/' or '.' is never created as a file", async () => {
    const z = zone({ f: 'keep\n' });
    const r = await run(z.root, 'tee nope/ nope/. f/', { stdin: 'x\n' });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('tee: nope/: Is a directory\ntee: nope/.: No such file or directory\ntee: f/: Is a directory\n');
    expect(fs.readdirSync(z.root).sort()).toEqual(['f']);
    expect(fs.readFileSync(z.at('f'), 'utf8')).toBe('keep\n');
  });
});
