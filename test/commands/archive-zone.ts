// The zone the archive attack suites share: a zone folder and an `outside` folder beside it
// (what no entry may reach), one nosh on the zone, and a shell that fails on an error envelope;
// makeZip writes crafted archives byte by byte.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { afterAll, beforeAll } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

export function archiveZone(prefix: string) {
  const base = tempDir(prefix);
  const root = path.join(base, 'zone');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  let nosh: Nosh;
  beforeAll(async () => {
    nosh = await createNosh({ root, threads: 1, limits: { maxFileSize: 1_000_000 } });
  });
  afterAll(async () => {
    await nosh.close();
    fs.rmSync(base, { recursive: true, force: true });
  });
  return {
    base, root, outside,
    nosh: () => nosh,
    async sh(command: string): Promise<{ exit: number; stdout: string; stderr: string }> {
      const r = await nosh.exec({ command }, { maxOutputBytes: 5_000_000 });
      if (!r.success) throw new Error(`${r.error.code}: ${r.error.message}`);
      return { exit: r.data.exit_code, stdout: r.data.stdout, stderr: r.data.stderr };
    },
    /** An empty folder of that name in the zone (emptied if it was there). */
    fresh(name: string): string {
      const d = path.join(root, name);
      fs.rmSync(d, { recursive: true, force: true });
      fs.mkdirSync(d);
      return d;
    },
  };
}

export interface Ent {
  name: string | Buffer;
  data?: Buffer | string;
  /** store the data deflated */
  deflate?: boolean;
  /** unix mode (made by Unix) */
  mode?: number;
  flags?: number;
  crc?: number;
  /** declared uncompressed size (default: the real one) */
  size?: number;
  /** raw compressed bytes instead of the data's */
  raw?: Buffer;
  /** central directory offset override (overlapping entries) */
  offset?: number;
}

/** A zip written byte by byte (stored or deflated entries, any name, attributes, sizes or CRC). */
export function makeZip(ents: Ent[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let off = 0;
  const offsets: number[] = [];
  for (const e of ents) {
    const name = Buffer.isBuffer(e.name) ? e.name : Buffer.from(e.name);
    const data = Buffer.from(e.data ?? '');
    const comp = e.raw ?? (e.deflate ? zlib.deflateRawSync(data) : data);
    const crc = e.crc ?? zlib.crc32(data);
    const size = e.size ?? data.length;
    const method = e.deflate || e.raw ? 8 : 0;
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(20, 4);
    lh.writeUInt16LE(e.flags ?? 0, 6);
    lh.writeUInt16LE(method, 8);
    lh.writeUInt16LE(0x1822, 10); // 03:01:04
    lh.writeUInt16LE(0x5822, 12); // 2024-01-02
    lh.writeUInt32LE(crc >>> 0, 14);
    lh.writeUInt32LE(comp.length, 18);
    lh.writeUInt32LE(size, 22);
    lh.writeUInt16LE(name.length, 26);
    offsets.push(e.offset ?? off);
    const local = Buffer.concat([lh, name, comp]);
    locals.push(local);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(0x031e, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(e.flags ?? 0, 8);
    ch.writeUInt16LE(method, 10);
    ch.writeUInt16LE(0x1822, 12);
    ch.writeUInt16LE(0x5822, 14);
    ch.writeUInt32LE(crc >>> 0, 16);
    ch.writeUInt32LE(comp.length, 20);
    ch.writeUInt32LE(size, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt32LE(((e.mode ?? 0o100644) << 16) >>> 0, 38);
    ch.writeUInt32LE(e.offset ?? off, 42);
    centrals.push(Buffer.concat([ch, name]));
    off += local.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(ents.length, 8);
  eocd.writeUInt16LE(ents.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(off, 16);
  return Buffer.concat([...locals, cd, eocd]);
}
