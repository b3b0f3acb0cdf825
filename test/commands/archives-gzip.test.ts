// gzip/gunzip/zcat defences and round trips with the real gzip, through the library (createNosh).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { archiveZone } from './archive-zone.js';

const { root, outside, sh, fresh, nosh } = archiveZone('nosh-gz-');

/** A gzip member with a chosen stored name. */
function gzWithName(data: Buffer, name: string): Buffer {
  const head = Buffer.from([0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 0, 3]);
  const tr = Buffer.alloc(8);
  tr.writeUInt32LE(zlib.crc32(data) >>> 0, 0);
  tr.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, Buffer.from(name + '\0', 'latin1'), zlib.deflateRawSync(data), tr]);
}

describe('gzip bombs', () => {
  it('gunzip of a bomb past maxFileSize stops with a clear error and leaves no output, no temp file, the input kept', async () => {
    const d = fresh('bomb');
    fs.writeFileSync(path.join(d, 'bomb.gz'), zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024)));
    const r = await sh('gunzip bomb/bomb.gz');
    expect(r.exit).toBe(1);
    expect(r.stderr).toBe('\ngzip: bomb/bomb.gz: decompressed data exceeds the limit of 1000000 bytes\n');
    expect(fs.readdirSync(d)).toEqual(['bomb.gz']);
  });

  it('a bomb hidden as the second member stops too, nothing left', async () => {
    const d = fresh('bomb2');
    fs.writeFileSync(path.join(d, 'x.gz'), Buffer.concat([zlib.gzipSync('small\n'), zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024))]));
    const r = await sh('gzip -d bomb2/x.gz');
    expect(r.exit).toBe(1);
    expect(fs.readdirSync(d)).toEqual(['x.gz']);
  });

  it('a corrupt member after good data leaves no partial file (atomic writer)', async () => {
    const d = fresh('corrupt');
    const good = zlib.gzipSync(Buffer.alloc(100_000, 'a'));
    const bad = Buffer.from(good);
    bad[bad.length - 8] ^= 0xff; // the CRC
    fs.writeFileSync(path.join(d, 'c.gz'), Buffer.concat([good, bad]));
    const r = await sh('gunzip corrupt/c.gz');
    expect(r.stderr).toBe('\ngzip: corrupt/c.gz: invalid compressed data--crc error\n');
    expect(r.exit).toBe(1);
    expect(fs.readdirSync(d)).toEqual(['c.gz']);
  });
});

describe('gzip names and links', () => {
  it('-N never takes a folder from the stored name: ../evil becomes evil beside the input', async () => {
    const d = fresh('named');
    fs.writeFileSync(path.join(d, 'n.gz'), gzWithName(Buffer.from('payload\n'), '../../outside/evil'));
    const r = await sh('gunzip -N named/n.gz');
    expect(r.exit).toBe(0);
    expect(fs.readdirSync(d)).toEqual(['evil']);
    expect(fs.readFileSync(path.join(d, 'evil'), 'utf8')).toBe('payload\n');
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('a symlink operand is not compressed; gunzip -f onto a symlink is refused, never written through', async () => {
    const d = fresh('links');
    fs.writeFileSync(path.join(outside, 'target'), 'outside\n');
    fs.symlinkSync(path.join(outside, 'target'), path.join(d, 'l'));
    const a = await sh('gzip links/l');
    expect(a.exit).toBe(2);
    expect(a.stderr).toBe('gzip: links/l is not a directory or a regular file - ignored\n');
    fs.writeFileSync(path.join(d, 'f.gz'), zlib.gzipSync('inside\n'));
    fs.symlinkSync(path.join(outside, 'target'), path.join(d, 'f'));
    const b = await sh('gunzip -f links/f.gz');
    expect(b.exit).toBe(1);
    expect(b.stderr).toBe('gzip: links/f: Symbolic link not followed (zone policy)\n');
    expect(fs.readFileSync(path.join(outside, 'target'), 'utf8')).toBe('outside\n');
    expect(fs.lstatSync(path.join(d, 'f')).isSymbolicLink()).toBe(true);
    expect(fs.readdirSync(d).sort()).toEqual(['f', 'f.gz', 'l']);
  });
});

describe('gzip round trips with the real gzip', () => {
  it('files nosh compresses (gzip -r, -1, -9, -n) pass the real gzip -t and decompress to the same bytes', async () => {
    const d = fresh('rt');
    fs.mkdirSync(path.join(d, 'sub'));
    const big = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 251));
    fs.writeFileSync(path.join(d, 'a.txt'), 'alpha\n'.repeat(1000));
    fs.writeFileSync(path.join(d, 'sub', 'b.bin'), big);
    fs.writeFileSync(path.join(d, 'empty'), '');
    expect((await sh('gzip -r rt')).exit).toBe(0);
    expect(fs.readdirSync(d).sort()).toEqual(['a.txt.gz', 'empty.gz', 'sub']);
    for (const f of ['a.txt.gz', 'empty.gz', 'sub/b.bin.gz']) {
      expect(spawnSync('gzip', ['-t', path.join(d, f)]).status, f).toBe(0);
    }
    expect(spawnSync('gzip', ['-dc', path.join(d, 'sub/b.bin.gz')]).stdout.equals(big)).toBe(true);
    // the stored name is the file's: the real gzip -lN shows it
    expect(spawnSync('gzip', ['-l', path.join(d, 'a.txt.gz')]).stdout.toString()).toMatch(/ 6000 .* \/.*a\.txt\n$/);
    const named = spawnSync('gzip', ['-dN', '-c', path.join(d, 'a.txt.gz')]);
    expect(named.status).toBe(0);
    for (const lvl of ['-1', '-9', '-n']) {
      const r = await nosh().exec({ command: `gzip -c ${lvl} rt/sub/b.bin.gz` });
      expect(r.success).toBe(true);
    }
    fs.writeFileSync(path.join(d, 'c'), big);
    expect((await sh('gzip -9 -n rt/c')).exit).toBe(0);
    const real = spawnSync('gzip', ['-dc', path.join(d, 'c.gz')]);
    expect(real.status).toBe(0);
    expect(real.stdout.equals(big)).toBe(true);
    // and back through nosh
    expect((await sh('gunzip rt/c.gz')).exit).toBe(0);
    expect(fs.readFileSync(path.join(d, 'c')).equals(big)).toBe(true);
  });

  it('zcat, -l and -t do not mutate: they run in a read-only zone; gzip FILE is refused there', async () => {
    const ro = tempDir('nosh-gz-ro-');
    fs.writeFileSync(path.join(ro, 'f.gz'), zlib.gzipSync('ro\n'));
    const n = await createNosh({ root: ro, threads: 1, policy: { readonly: true } });
    try {
      const z = await n.exec({ command: 'zcat f.gz' });
      expect(z.success && z.data.stdout).toBe('ro\n');
      const t = await n.exec({ command: 'gzip -t f.gz' });
      expect(t.success && t.data.exit_code).toBe(0);
      const w = await n.exec({ command: 'gunzip f.gz' });
      expect(w.success).toBe(false);
    } finally {
      await n.close();
      fs.rmSync(ro, { recursive: true, force: true });
    }
  });
});
