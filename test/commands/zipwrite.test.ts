// The zip writer (src/gnulib/zipwrite.ts) checked by the real Info-ZIP unzip and by our reader:
// zip64 end records past 65 535 entries, streamed entries with a data descriptor, UTF-8 names.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as zlib from 'node:zlib';
import { ZipWriter, deflateStream } from '../../src/gnulib/zipwrite.js';
import { ZipArchive } from '../../src/gnulib/zipread.js';
import { tempDir } from '../helpers.js';

const dir = tempDir('nosh-zipwrite-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const mtime = new Date('2024-01-02T03:04:06Z');

function build(fill: (w: ZipWriter) => Promise<void> | void): Promise<Buffer> {
  const parts: Buffer[] = [];
  const w = new ZipWriter((b) => parts.push(Buffer.from(b)));
  return Promise.resolve(fill(w)).then(() => { w.end(); return Buffer.concat(parts); });
}

const reader = (zip: Buffer) => ({ size: zip.length, readAt: (b: Uint8Array, pos: number, len = b.length) => zip.copy(b, 0, pos, Math.min(zip.length, pos + len)), close() {} });

describe('ZipWriter', () => {
  it('writes zip64 end records past 65 535 entries: Info-ZIP and our reader see them all', async () => {
    const zip = await build((w) => { for (let i = 0; i < 66_000; i++) w.addBuffer(`f${i}`, Buffer.from(String(i)), 0, { mode: 0o100644, mtime }); });
    expect(zip.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true);
    const file = path.join(dir, 'many.zip');
    fs.writeFileSync(file, zip);
    const t = spawnSync('unzip', ['-tqq', file]);
    expect(t.status, t.stdout.toString() + t.stderr.toString()).toBe(0);
    const l = spawnSync('unzip', ['-l', file], { maxBuffer: 1 << 26 }).stdout.toString();
    expect(l).toMatch(/\s66000 files\n$/);
    const a = await ZipArchive.open(reader(zip));
    expect(a.entries.length).toBe(66_000);
    expect(a.entries[65_999]!.name).toBe('f65999');
    a.close();
  }, 120_000);

  it('streams an entry with a data descriptor; stores what deflate does not shrink; UTF-8 names', async () => {
    const big = Buffer.from(Array.from({ length: 3_000_000 }, (_, i) => (i * 7919) % 251));
    let x = 2463534242;
    const random = Buffer.from(Array.from({ length: 1000 }, () => { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; return (x >>> 0) & 0xff; }));
    const chunks = [big.subarray(0, 1_000_000), big.subarray(1_000_000)];
    let stored = false;
    const zip = await build(async (w) => {
      await w.addStream('big.bin', chunks, big.length, 6, { mode: 0o100600, mtime });
      stored = !w.addBuffer('rnd', random, 9, { mode: 0o100644, mtime }).deflated;
      w.addDirectory('d/', { mode: 0o40755, mtime });
      w.addBuffer('d/é.txt', Buffer.from('accent\n'), 6, { mode: 0o100644, mtime, dosOnly: true });
    });
    expect(stored).toBe(true);
    const file = path.join(dir, 'mixed.zip');
    fs.writeFileSync(file, zip);
    const t = spawnSync('unzip', ['-tqq', file]);
    expect(t.status, t.stdout.toString() + t.stderr.toString()).toBe(0);
    const out = path.join(dir, 'x');
    expect(spawnSync('unzip', ['-qq', '-d', out, file]).status).toBe(0);
    expect(fs.readFileSync(path.join(out, 'big.bin')).equals(big)).toBe(true);
    expect(fs.readFileSync(path.join(out, 'd/é.txt'), 'utf8')).toBe('accent\n');
    expect(fs.statSync(path.join(out, 'big.bin')).mtime.toISOString()).toBe('2024-01-02T03:04:06.000Z');
    expect(fs.statSync(path.join(out, 'big.bin')).mode & 0o777).toBe(0o600);
    const zi = spawnSync('zipinfo', [file]).stdout.toString();
    expect(zi).toMatch(/-rw-------\s+3\.0 unx\s+3000000 bX defN 24-Jan-02 03:04 big\.bin/);
    expect(zi).toMatch(/-rw-r--r--\s+3\.0 unx\s+1000 bx stor 24-Jan-02 03:04 rnd/);
  });

  it('deflates a stream in 1 MiB blocks primed with the window before them: one deflate stream at every size and cut', async () => {
    const MiB = 1 << 20;
    const text = Buffer.from(Array.from({ length: 2 * MiB + 77_777 }, (_, i) => 97 + ((i * i) % 13)));
    for (const size of [0, 1, MiB, MiB + 1, 2 * MiB, text.length]) {
      const data = text.subarray(0, size);
      const cuts: Buffer[] = [];
      for (let at = 0; at < size; at += 300_007) cuts.push(data.subarray(at, at + 300_007));
      let seen = 0;
      const parts: Buffer[] = [];
      for await (const b of deflateStream(cuts, 6, (b) => { seen += b.length; })) parts.push(b);
      expect(seen).toBe(size);
      expect(zlib.inflateRawSync(Buffer.concat(parts)).equals(data), `size ${size}`).toBe(true);
    }
    const zip = await build(async (w) => { await w.addStream('t.txt', [text], text.length, 6, { mode: 0o100644, mtime }); });
    const file = path.join(dir, 'blocks.zip');
    fs.writeFileSync(file, zip);
    const t = spawnSync('unzip', ['-tqq', file]);
    expect(t.status, t.stdout.toString() + t.stderr.toString()).toBe(0);
    expect(spawnSync('unzip', ['-p', file], { maxBuffer: 1 << 26 }).stdout.equals(text)).toBe(true);
  });
});
