// What the GNU fixtures cannot show for the digest and base-encoding commands: zone policy
// on the names a -c file lists, streamed inputs larger than one chunk, and nosh's refusals.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BLOCKED_PATTERNS } from '../../src/vfs/index.js';
import { buildTree, run, tempDir } from '../helpers.js';

const blocked = { policy: { blockedPatterns: DEFAULT_BLOCKED_PATTERNS } };
const md5 = (s: string | Buffer) => createHash('md5').update(s).digest('hex');

const root = tempDir('nosh-checksums-');
buildTree(root, { 'a.txt': 'abc', '.env': 'SECRET=1\n', 'sub': { dir: true } });
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('checksums and zone policy', () => {
  it('-c refuses a blocked name it lists, as an unreadable file, and checks the others', async () => {
    fs.writeFileSync(path.join(root, 'sums'), `${md5('SECRET=1\n')}  .env\n${md5('abc')}  a.txt\n`);
    const r = await run(root, 'md5sum -c sums', blocked);
    expect(r.stdout.toString()).toBe('.env: FAILED open or read\na.txt: OK\n');
    expect(r.stderr).toBe('md5sum: .env: Permission denied (blocked by zone policy)\nmd5sum: WARNING: 1 listed file could not be read\n');
    expect(r.exitCode).toBe(1);
    expect(r.stdout.toString()).not.toContain('SECRET');
  });

  it('a blocked checksum file is refused, and a listed path cannot leave the zone', async () => {
    const r = await run(root, 'sha256sum -c .env', blocked);
    expect(r.stderr).toBe('sha256sum: .env: Permission denied (blocked by zone policy)\n');
    expect(r.exitCode).toBe(1);
    fs.writeFileSync(path.join(root, 'sub', 'sums'), `${md5('abc')}  ../../../../a.txt\n`);
    // '..' stops at the zone root: the listed file is the zone's own a.txt, never a host file.
    const e = await run(root, 'md5sum -c sums', { cwd: '/sub' });
    expect(e.stdout.toString()).toBe('../../../../a.txt: OK\n');
    expect(e.exitCode).toBe(0);
  });

  it('base64 -d of a blocked file is refused', async () => {
    const r = await run(root, 'base64 .env', blocked);
    expect(r.stderr).toBe('base64: .env: Permission denied (blocked by zone policy)\n');
    expect(r.stdout.length).toBe(0);
  });
});

describe('streaming', () => {
  it('hashes a file of many chunks as node:crypto does over the whole', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 9)) & 0xff;
    fs.writeFileSync(path.join(root, 'big.bin'), big);
    const r = await run(root, 'sha512sum big.bin');
    expect(r.stdout.toString()).toBe(`${createHash('sha512').update(big).digest('hex')}  big.bin\n`);
    const b = await run(root, 'b2sum --tag big.bin');
    expect(b.stdout.toString()).toBe(`BLAKE2b (big.bin) = ${createHash('blake2b512').update(big).digest('hex')}\n`);
  });

  it('base64 and basenc round-trip a multi-chunk input through a pipe', async () => {
    const r = await run(root, 'base64 big.bin | base64 -d | md5sum');
    expect(r.stdout.toString()).toBe(`${md5(fs.readFileSync(path.join(root, 'big.bin')))}  -\n`);
    const z = await run(root, 'basenc --z85 -w 0 big.bin');
    expect(z.stderr).toBe('basenc: invalid input (length must be multiple of 4 characters)\n');
    const h = await run(root, 'basenc --base32hex -w 100 big.bin | basenc --base32hex -d | cksum');
    const c = await run(root, 'cksum big.bin');
    expect(h.stdout.toString()).toBe(c.stdout.toString().replace(' big.bin', ''));
  });
});

describe('refusals', () => {
  it('b2sum -l other than 512 is a usage error saying why (node:crypto gives BLAKE2b-512 only)', async () => {
    const r = await run(root, 'b2sum -l 256 a.txt');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('b2sum: invalid length');
    expect(r.stderr).toContain('512');
    expect(r.stdout.length).toBe(0);
  });
});
