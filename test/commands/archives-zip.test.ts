// unzip / zipinfo defences: crafted archives (hand-written bytes) through the library's createNosh.
// Each attack must be refused with nothing written outside the destination and nothing partial left.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { snapshotTree, tempDir } from '../helpers.js';
import { makeZip } from './archive-zone.js';

let nosh: Nosh;
let root: string;
let outside: string;

beforeAll(async () => {
  const top = tempDir('nosh-zip-');
  root = path.join(top, 'zone');
  outside = path.join(top, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(path.dirname(root), { recursive: true, force: true });
});
beforeEach(() => {
  for (const n of fs.readdirSync(root)) fs.rmSync(path.join(root, n), { recursive: true, force: true });
});

async function sh(command: string): Promise<{ exit: number; stdout: string; stderr: string }> {
  const r = await nosh.exec({ command });
  if (!r.success) throw new Error(`${r.error.code}: ${r.error.message}`);
  return { exit: r.data.exit_code, stdout: r.data.stdout, stderr: r.data.stderr };
}

function put(name: string, zip: Buffer): void {
  fs.writeFileSync(path.join(root, name), zip);
}

/** The zone after the run, the archive left out; no staging folder may remain. */
function tree(): string[] {
  return snapshotTree(root).filter((l) => !l.startsWith('a.zip '));
}

describe('unzip: entry names', () => {
  it('strips ../ and leading / as Info-ZIP does: everything stays inside the destination', async () => {
    put('a.zip', makeZip([{ name: '../../outside/evil', data: 'x' }, { name: '/abs/evil2', data: 'y' }]));
    const r = await sh('unzip a.zip -d dest');
    expect(r.stdout).toContain('warning:  skipped "../" path component(s) in ../../outside/evil\n extracting: dest/outside/evil');
    expect(r.stderr).toBe('warning:  stripped absolute path spec from /abs/evil2\n');
    expect(r.exit).toBe(1);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(tree()).toEqual(['dest/', 'dest/abs/', 'dest/abs/evil2 644 eQ==', 'dest/outside/', 'dest/outside/evil 644 eA==']);
  });

  it.each([
    ['C:\\windows\\evil', 'backslash'],
    ['C:/evil', 'drive letter'],
    ['a\\..\\..\\evil', 'backslash'],
    ['a\u2215..\u2215evil', 'look-alike'],
    ['dir\uff0fevil', 'look-alike'],
    ['x'.repeat(4097), 'longer than 4096'],
    ['..', 'empty once made relative'],
    ['./', 'empty once made relative'],
    ['a\x01b', 'control character'],
  ])('refuses the entry %j (%s)', async (name, why) => {
    put('a.zip', makeZip([{ name, data: 'bad' }, { name: 'ok.txt', data: 'fine' }]));
    const r = await sh('unzip -q a.zip');
    expect(r.stderr).toContain(why);
    expect(r.exit).toBe(1);
    expect(tree()).toEqual(['ok.txt 644 ZmluZQ==']);
  });

  it('refuses a name with a NUL byte', async () => {
    put('a.zip', makeZip([{ name: Buffer.from('evil\0.txt'), data: 'bad' }]));
    const r = await sh('unzip -q a.zip');
    expect(r.stderr).toContain('NUL');
    expect(tree()).toEqual([]);
  });
});

describe('unzip: links and special files', () => {
  it('never creates a symbolic link entry (or a device or FIFO)', async () => {
    put('a.zip', makeZip([
      { name: 'link', data: '/etc/passwd', mode: 0o120777 },
      { name: 'fifo', data: '', mode: 0o010644 },
      { name: 'dev', data: '', mode: 0o020644 },
      { name: 'f.txt', data: 'ok' },
    ]));
    const r = await sh('unzip -q a.zip');
    expect(r.stderr).toContain('skipping: link  symbolic link entries are never created');
    expect(r.stderr).toContain('FIFO');
    expect(r.stderr).toContain('device');
    expect(tree()).toEqual(['f.txt 644 b2s=']);
  });

  it('writes no entry through an existing symbolic link (directory or file)', async () => {
    fs.symlinkSync(outside, path.join(root, 'sub'));
    fs.writeFileSync(path.join(outside, 'target'), 'keep');
    fs.symlinkSync(path.join(outside, 'target'), path.join(root, 'file'));
    put('a.zip', makeZip([{ name: 'sub/evil', data: 'x' }, { name: 'file', data: 'overwrite' }]));
    const r = await sh('unzip -o -q a.zip');
    expect(r.exit).not.toBe(0);
    expect(fs.readdirSync(outside).sort()).toEqual(['target']);
    expect(fs.readFileSync(path.join(outside, 'target'), 'utf8')).toBe('keep');
    // the link itself may be replaced by a plain file (rename, never written through)
    expect(fs.readdirSync(root).filter((n) => n.startsWith('.nosh-unzip'))).toEqual([]);
  });
});

describe('unzip: encryption, CRC, sizes, truncation', () => {
  it('refuses an encrypted entry with a clear message', async () => {
    put('a.zip', makeZip([{ name: 'secret.txt', data: 'x'.repeat(24), size: 12, flags: 1 }]));
    const r = await sh('unzip a.zip');
    expect(r.stderr).toContain('encrypted entry: nosh does not decrypt');
    expect(tree()).toEqual([]);
    const t = await sh('unzip -t a.zip');
    expect(t.exit).toBe(2);
  });

  it('unzip -t reports a CRC mismatch; extraction refuses that file but keeps the others', async () => {
    put('a.zip', makeZip([{ name: 'bad.txt', data: 'hello', crc: 0x12345678 }, { name: 'good.txt', data: 'good' }]));
    const t = await sh('unzip -t a.zip');
    expect(t.stdout).toContain('    testing: bad.txt                  bad CRC');
    expect(t.stdout).toContain('(should be 12345678)');
    expect(t.stdout).toContain('At least one error was detected in a.zip.');
    expect(t.exit).toBe(2);
    const x = await sh('unzip -q a.zip');
    expect(x.exit).toBe(2);
    expect(x.stderr).toContain('bad.txt');
    expect(tree()).toEqual(['good.txt 644 Z29vZA==']);
  });

  it('a declared size that lies (smaller than the data) stops at the declared size', async () => {
    put('a.zip', makeZip([{ name: 'lie.txt', data: 'x'.repeat(5000), deflate: true, size: 10 }]));
    const r = await sh('unzip -q a.zip');
    expect(r.exit).toBe(2);
    expect(r.stderr).toMatch(/too many bytes|size/);
    expect(tree()).toEqual([]);
    expect((await sh('unzip -t a.zip')).exit).toBe(2);
  });

  it('a declared size larger than the data is refused', async () => {
    put('a.zip', makeZip([{ name: 'short.txt', data: 'abc', size: 3000 }]));
    const r = await sh('unzip -q a.zip');
    expect(r.exit).toBe(3); // yauzl refuses the stored entry's sizes: a damaged archive
    expect(tree()).toEqual([]);
  });

  it('a truncated archive is refused without writing anything', async () => {
    const z = makeZip([{ name: 'a.txt', data: 'a'.repeat(100) }, { name: 'b.txt', data: 'b'.repeat(100) }]);
    put('a.zip', z.subarray(0, z.length - 30));
    const r = await sh('unzip a.zip');
    expect(r.exit).toBe(9);
    expect(tree()).toEqual([]);
  });

  it('a corrupt deflate stream after a good entry leaves nothing behind (all or nothing)', async () => {
    put('a.zip', makeZip([{ name: 'first.txt', data: 'first' }, { name: 'second.txt', raw: Buffer.from([0xff, 0xff, 0xff, 0xff, 0x00]), size: 100, crc: 1 }]));
    const r = await sh('unzip a.zip -d out');
    expect(r.exit).toBe(3);
    expect(r.stderr).toContain('nothing was extracted');
    expect(r.stderr).toContain('second.txt');
    expect(tree()).toEqual(['out/']);
  });
});

describe('unzip: bombs', () => {
  it('refuses an entry whose declared ratio exceeds 200:1, before writing anything', async () => {
    const big = Buffer.alloc(4 * 1024 * 1024);
    put('a.zip', makeZip([{ name: 'ok.txt', data: 'fine' }, { name: 'bomb.bin', data: big, deflate: true }]));
    const r = await sh('unzip a.zip');
    expect(r.exit).toBe(3);
    expect(r.stderr).toContain('bomb.bin: compression ratio');
    expect(r.stderr).toContain('200:1');
    expect(tree()).toEqual([]);
  });

  it('refuses overlapping entries (the "better zip bomb": entries sharing their data)', async () => {
    const z = makeZip([{ name: 'a', data: 'shared data' }, { name: 'b', data: 'shared data', offset: 0 }]);
    put('a.zip', z);
    const r = await sh('unzip a.zip');
    expect(r.exit).toBe(3);
    expect(r.stderr).toContain('overlapping entries');
    expect(tree()).toEqual([]);
    expect((await sh('unzip -l a.zip')).exit).toBe(3);
  });

  it('leaves no staging folder after a stop', async () => {
    put('a.zip', makeZip([{ name: 'x', raw: Buffer.from([0xff, 0xff]), size: 5, crc: 0 }]));
    await sh('unzip a.zip');
    expect(fs.readdirSync(root)).toEqual(['a.zip']);
  });
});

describe('unzip: existing files, never a prompt', () => {
  it('skips an existing file without -o, says how to overwrite, exit 1', async () => {
    fs.writeFileSync(path.join(root, 'f.txt'), 'old');
    put('a.zip', makeZip([{ name: 'f.txt', data: 'new' }, { name: 'g.txt', data: 'g' }]));
    const r = await sh('unzip a.zip');
    expect(r.exit).toBe(1);
    expect(r.stderr).toContain('f.txt exists: not replaced');
    expect(r.stderr).toContain('-o overwrites');
    expect(tree()).toEqual(['f.txt 644 b2xk', 'g.txt 644 Zw==']);
    expect((await sh('unzip -o -q a.zip')).exit).toBe(0);
    expect(fs.readFileSync(path.join(root, 'f.txt'), 'utf8')).toBe('new');
  });

  it('is read-only for -l, -t, -p, -Z and zipinfo (mutates)', async () => {
    const unzip = (await import('../../commands/unzip/index.js')).default;
    const zipinfo = (await import('../../commands/zipinfo/index.js')).default;
    const m = unzip.mutates as (args: string[]) => boolean;
    for (const args of [['-l', 'a.zip'], ['-t', 'a.zip'], ['-p', 'a.zip'], ['-v', 'a.zip'], ['-Z', 'a.zip'], ['-qql', 'a.zip'], ['a.zip', '-l']]) expect(m(args)).toBe(false);
    for (const args of [['a.zip'], ['-o', 'a.zip', '-d', 'x'], ['-q', 'a.zip', 'f']]) expect(m(args)).toBe(true);
    expect(zipinfo.mutates).toBe(false);
  });
});

describe('round trip with the real tools', () => {
  it('nosh reads what Info-ZIP zip wrote (deflated, nested), byte for byte', async () => {
    const src = path.join(path.dirname(root), 'src');
    fs.mkdirSync(path.join(src, 'd'), { recursive: true });
    const big = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 251));
    fs.writeFileSync(path.join(src, 'd', 'big.bin'), big);
    fs.writeFileSync(path.join(src, 'small.txt'), 'small\n');
    const z = spawnSync('zip', ['-qr', path.join(root, 'a.zip'), 'd', 'small.txt'], { cwd: src });
    if (z.error) return; // no Info-ZIP zip on this machine
    const r = await sh('unzip -q a.zip -d x');
    expect(r.exit).toBe(0);
    expect(fs.readFileSync(path.join(root, 'x', 'd', 'big.bin')).equals(big)).toBe(true);
    expect(fs.readFileSync(path.join(root, 'x', 'small.txt'), 'utf8')).toBe('small\n');
  });
});

describe('zip', () => {
  it('archives nosh writes pass the real unzip -t, and nosh reads them back', async () => {
    fs.mkdirSync(path.join(root, 'd', 'sub'), { recursive: true });
    const big = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31) % 97));
    fs.writeFileSync(path.join(root, 'd', 'big.bin'), big);
    fs.writeFileSync(path.join(root, 'd', 'sub', 'x.txt'), 'x\n');
    fs.writeFileSync(path.join(root, 'top.txt'), '');
    const z = await sh('zip -r out.zip d top.txt');
    expect(z.exit).toBe(0);
    expect(z.stdout).toContain('  adding: d/big.bin (deflated');
    const t = spawnSync('unzip', ['-t', path.join(root, 'out.zip')], { env: { LC_ALL: 'C', PATH: process.env.PATH } });
    if (!t.error) {
      expect(t.status).toBe(0);
      expect(t.stdout.toString()).toContain('No errors detected in compressed data');
    }
    const back = await sh('unzip -q out.zip -d back');
    expect(back.exit).toBe(0);
    expect(fs.readFileSync(path.join(root, 'back', 'd', 'big.bin')).equals(big)).toBe(true);
    // -d and -u rewrite the archive: still valid
    expect((await sh('zip -d out.zip top.txt')).stdout).toBe('deleting: top.txt\n');
    expect((await sh('unzip -Z -1 out.zip')).stdout).toBe('d/\nd/big.bin\nd/sub/\nd/sub/x.txt\n');
  });

  it('refuses -y (links), -e and -P (encryption)', async () => {
    fs.writeFileSync(path.join(root, 'f'), 'x');
    for (const c of ['zip -y a.zip f', 'zip -e a.zip f', 'zip -P secret a.zip f', 'zip -rP secret a.zip f']) {
      const r = await sh(c);
      expect(r.exit).toBe(16);
      expect(r.stderr).toMatch(/refused/);
    }
    expect(fs.existsSync(path.join(root, 'a.zip'))).toBe(false);
  });

  it('never stores a symbolic link (or what it points to) with -r', async () => {
    fs.mkdirSync(path.join(root, 'd'));
    fs.writeFileSync(path.join(outside, 'secret'), 'outside');
    fs.symlinkSync(path.join(outside, 'secret'), path.join(root, 'd', 'ln'));
    fs.symlinkSync(outside, path.join(root, 'd', 'dirln'));
    fs.writeFileSync(path.join(root, 'd', 'ok'), 'ok');
    const r = await sh('zip -r z.zip d');
    expect(r.stdout).toContain('skipping symbolic link d/ln');
    expect((await sh('unzip -Z -1 z.zip')).stdout).toBe('d/\nd/ok\n');
    expect((await sh('unzip -p z.zip')).stdout).toBe('ok');
  });

  it('-m moves the files into the archive (the sources are removed only after it is written)', async () => {
    fs.writeFileSync(path.join(root, 'm1'), 'one');
    const r = await sh('zip -m mv.zip m1');
    expect(r.exit).toBe(0);
    expect(fs.existsSync(path.join(root, 'm1'))).toBe(false);
    expect((await sh('unzip -p mv.zip m1')).stdout).toBe('one');
  });
});

describe('zip reader limits', () => {
  it('refuses an archive with more entries than the limit, before reading any data', async () => {
    const { ARCHIVE_DEFAULTS, ZipArchive, ZipError } = await import('../../src/gnulib/zipread.js');
    const zip = makeZip([{ name: 'a', data: '1' }, { name: 'b', data: '2' }, { name: 'c', data: '3' }]);
    const reader = { size: zip.length, readAt: (b: Uint8Array, pos: number, len = b.length) => zip.copy(b, 0, pos, Math.min(zip.length, pos + len)), close() {} };
    const two = { ...ARCHIVE_DEFAULTS, maxEntries: 2 };
    await expect(ZipArchive.open(reader, two)).rejects.toThrow(ZipError);
    await expect(ZipArchive.open(reader, two)).rejects.toThrow(/3 entries \(the limit is 2:/);
    const ok = await ZipArchive.open(reader);
    expect(ok.entries.map((e) => e.name)).toEqual(['a', 'b', 'c']);
    ok.close();
  });
});

describe('unzip: the quota stops the whole extraction', () => {
  it('a quota stop leaves nothing behind (no file, no staging folder) and names the entry', async () => {
    const base = tempDir('nosh-zipq-');
    const q = await createNosh({ base, threads: 1, quotas: { userMb: 1, groupMb: 1, sessionMb: 1 } });
    try {
      const ctx = { user: 'alice' };
      const rand = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 2654435761) >>> 24));
      const zip = makeZip([{ name: 'one.bin', data: rand(300_000) }, { name: 'two.bin', data: rand(300_000) }]);
      const w = await q.call('write', { context: ctx, path: 'a.zip', content_base64: zip.toString('base64') });
      expect(w.success).toBe(true);
      const r = await q.call('exec', { context: ctx, command: 'unzip a.zip -d out' }) as { success: boolean; data: { exit_code: number; stderr: string } };
      expect(r.success).toBe(true);
      expect(r.data.exit_code).toBe(3);
      expect(r.data.stderr).toContain('nothing was extracted');
      expect(r.data.stderr).toContain('two.bin');
      const ls = await q.call('exec', { context: ctx, command: 'ls -A out' }) as { data: { stdout: string } };
      expect(ls.data.stdout).toBe('');
    } finally {
      await q.close();
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it('blocked names of the zone apply to extracted entries', async () => {
    put('a.zip', makeZip([{ name: '.env', data: 'SECRET=1' }, { name: 'ok', data: 'ok' }]));
    const r = await sh('unzip -q a.zip');
    expect(r.exit).not.toBe(0);
    expect(fs.existsSync(path.join(root, '.env'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'ok'), 'utf8')).toBe('ok');
  });
});

describe('unzip: local header against the central directory', () => {
  it('refuses an entry whose local header names another file (nothing extracted)', async () => {
    const z = makeZip([{ name: 'good.txt', data: 'g' }, { name: 'evil.txt', data: 'e' }]);
    // rename the second local header's file to 'EVIL.txt' (the central directory still says evil.txt)
    const at = z.indexOf(Buffer.from('evil.txt'));
    z.write('EVIL', at);
    put('a.zip', z);
    const r = await sh('unzip a.zip');
    expect(r.exit).toBe(3);
    expect(r.stderr).toContain('local header disagrees with the central directory (name)');
    expect(tree()).toEqual([]);
    expect((await sh('unzip -t a.zip')).exit).toBe(2);
  });

  it('refuses a local header whose sizes disagree', async () => {
    const z = makeZip([{ name: 'a.txt', data: 'hello' }]);
    z.writeUInt32LE(999, 22); // local uncompressed size
    put('a.zip', z);
    const r = await sh('unzip -t a.zip');
    expect(r.exit).toBe(2);
    expect(r.stdout).toContain('(sizes)');
  });
});
