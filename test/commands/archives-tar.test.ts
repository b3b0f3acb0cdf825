// tar defences (crafted archives) and round trips with GNU tar, through the library (createNosh).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { archiveZone } from './archive-zone.js';

const { base, root, outside, sh, fresh } = archiveZone('nosh-tar-');

/**
 * Build an archive with Python's tarfile (entries: [name, type, data|linkname]); pax headers let
 * a name hold anything (NUL, 5000 bytes).
 */
function craft(file: string, entries: Array<[string, string, string]>, gz = false): void {
  const py = `
import tarfile, io, json, sys
es = json.loads(sys.argv[2])
with tarfile.open(sys.argv[1], 'w:gz' if sys.argv[3] == '1' else 'w', format=tarfile.PAX_FORMAT) as t:
    for name, typ, data in es:
        i = tarfile.TarInfo('placeholder'); i.mtime = 1704164645; i.mode = 0o644
        i.pax_headers = {'path': name}
        i.type = {'file': tarfile.REGTYPE, 'symlink': tarfile.SYMTYPE, 'link': tarfile.LNKTYPE, 'fifo': tarfile.FIFOTYPE, 'chr': tarfile.CHRTYPE, 'dir': tarfile.DIRTYPE}[typ]
        if typ in ('symlink', 'link'): i.linkname = data; t.addfile(i)
        elif typ == 'file':
            if data.startswith('ZEROS:'): n = int(data[6:]); i.size = n; t.addfile(i, io.BytesIO(bytes(n)))
            else: b = data.encode(); i.size = len(b); t.addfile(i, io.BytesIO(b))
        else: t.addfile(i)
`;
  const r = spawnSync('python3', ['-c', py, file, JSON.stringify(entries), gz ? '1' : '0']);
  if (r.status !== 0) throw new Error(r.stderr.toString());
}

function listAll(dir: string): string[] {
  const out: string[] = [];
  const rec = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      out.push(rel + e.name + (e.isDirectory() ? '/' : e.isSymbolicLink() ? '@' : ''));
      if (e.isDirectory()) rec(path.join(d, e.name), rel + e.name + '/');
    }
  };
  rec(dir, '');
  return out.sort();
}

describe('tar extraction refuses escapes', () => {
  it('../ names, absolute names, NUL and names over 4096 bytes: nothing outside, exit 2, the good entries extracted', async () => {
    const d = fresh('esc');
    craft(path.join(d, 'a.tar'), [
      ['ok.txt', 'file', 'fine\n'],
      ['../../outside/up.txt', 'file', 'bad\n'],
      ['x/../../../outside/up2.txt', 'file', 'bad\n'],
      ['/' + outside.slice(1) + '/abs.txt', 'file', 'abs\n'],
      ['nul\u0000name', 'file', 'nul\n'],
      ['n/' + 'y'.repeat(5000), 'file', 'long\n'],
    ]);
    const r = await sh('tar -xf esc/a.tar -C esc');
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain("tar: ../../outside/up.txt: Member name contains '..'\n");
    expect(r.stderr).toContain("tar: Removing leading `/' from member names\n");
    expect(r.stderr).toContain('member name refused (NUL byte or over 4096 bytes)');
    expect(r.stderr).toMatch(/tar: Exiting with failure status due to previous errors\n$/);
    expect(fs.readdirSync(outside)).toEqual([]);
    // the absolute name lands inside the zone, below -C, as GNU strips the '/'
    expect(listAll(d)).toContain('ok.txt');
    expect(listAll(d)).toContain(outside.slice(1) + '/abs.txt');
    expect(fs.readFileSync(path.join(d, 'ok.txt'), 'utf8')).toBe('fine\n');
    expect(listAll(d).some((x) => x.includes('nul') || x.includes('yyyy'))).toBe(false);
  });

  it('symlink, hard link, FIFO and device entries are never created; a later entry is not written through a link', async () => {
    const d = fresh('lnk');
    fs.writeFileSync(path.join(outside, 'victim'), 'safe\n');
    craft(path.join(d, 'l.tar'), [
      ['evil', 'symlink', outside],
      ['evil/victim', 'file', 'pwned\n'],
      ['hl', 'link', '../outside/victim'],
      ['p', 'fifo', ''],
      ['c', 'chr', ''],
      ['after', 'file', 'after\n'],
    ]);
    const r = await sh('tar xvf lnk/l.tar -C lnk');
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain('tar: evil: Cannot create symlink: not supported');
    expect(r.stderr).toContain('tar: hl: Cannot create hard link: not supported');
    expect(r.stderr).toContain('tar: p: Cannot create fifo');
    expect(r.stderr).toContain('tar: c: Cannot create device');
    expect(fs.readFileSync(path.join(outside, 'victim'), 'utf8')).toBe('safe\n');
    expect(listAll(d)).toEqual(['after', 'evil/', 'evil/victim', 'l.tar']);
  });

  it('a symlink already in the zone is never written through (as a folder or as the file)', async () => {
    const d = fresh('pre');
    fs.symlinkSync(outside, path.join(d, 'dirlink'));
    fs.symlinkSync(path.join(outside, 'victim2'), path.join(d, 'filelink'));
    craft(path.join(d, 'p.tar'), [['dirlink/x', 'file', 'x\n'], ['filelink', 'file', 'y\n']]);
    const r = await sh('tar -xf pre/p.tar -C pre');
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain('tar: dirlink/x: Cannot open: ');
    expect(fs.existsSync(path.join(outside, 'x'))).toBe(false);
    expect(fs.existsSync(path.join(outside, 'victim2'))).toBe(false);
    // as GNU tar: an existing link is replaced by the member (unlinked, never followed)
    expect(fs.lstatSync(path.join(d, 'filelink')).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(d, 'filelink'), 'utf8')).toBe('y\n');
  });

  it('a tar.gz bomb stops at maxFileSize with no partial file left', async () => {
    const d = fresh('bomb');
    craft(path.join(d, 'b.tgz'), [['small', 'file', 'ok\n'], ['big', 'file', 'ZEROS:20000000']], true);
    const r = await sh('tar xzf bomb/b.tgz -C bomb');
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain('tar: big: Cannot write: File too large; extraction stopped, nothing was extracted');
    // all or nothing: the member before it is not left either, nor the staging folder
    expect(listAll(d)).toEqual(['b.tgz']);
  });

  it('a size stop leaves nothing: no file, no folder the archive would have made', async () => {
    const d = fresh('quota');
    craft(path.join(d, 'q.tgz'), [['new/sub/a', 'file', 'a\n'], ['new/big', 'file', 'ZEROS:1500000']], true);
    const r = await sh('tar -xzf quota/q.tgz -C quota');
    expect(r.exit).toBe(2);
    expect(r.stderr).toMatch(/new\/big: Cannot write: .*extraction stopped, nothing was extracted/);
    expect(listAll(d)).toEqual(['q.tgz']);
  });
});

describe('tar archives nosh writes', () => {
  it('pass GNU tar -tvf and gzip -t, and extract to the same bytes (old-style czf)', async () => {
    const d = fresh('rt');
    fs.mkdirSync(path.join(d, 'src/deep'), { recursive: true });
    const big = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 31) % 256));
    fs.writeFileSync(path.join(d, 'src/deep/big.bin'), big);
    fs.writeFileSync(path.join(d, 'src/a.txt'), 'a\n');
    const long = 'L'.repeat(120);
    fs.writeFileSync(path.join(d, 'src', long), 'long name\n');
    expect((await sh('tar czf rt/a.tgz -C rt src')).exit).toBe(0);
    expect((await sh('tar -cf rt/a.tar -C rt src')).exit).toBe(0);
    expect(spawnSync('gzip', ['-t', path.join(d, 'a.tgz')]).status).toBe(0);
    const list = spawnSync('tar', ['-tvf', path.join(d, 'a.tar')], { env: { TZ: 'UTC', LC_ALL: 'C', PATH: process.env.PATH } });
    expect(list.status).toBe(0);
    expect(list.stdout.toString().split('\n').filter(Boolean).map((l) => l.split(' ').pop()).sort()).toEqual(['src/', 'src/a.txt', 'src/deep/', 'src/deep/big.bin', `src/${long}`].sort());
    const out = path.join(base, 'gnu-x');
    fs.mkdirSync(out);
    expect(spawnSync('tar', ['-xzf', path.join(d, 'a.tgz'), '-C', out]).status).toBe(0);
    expect(fs.readFileSync(path.join(out, 'src/deep/big.bin')).equals(big)).toBe(true);
    expect(fs.readFileSync(path.join(out, 'src', long), 'utf8')).toBe('long name\n');
    // and nosh reads GNU's own .tgz of the same tree
    expect(spawnSync('tar', ['-czf', path.join(d, 'gnu.tgz'), '-C', out, 'src']).status).toBe(0);
    const x = await sh('tar -xzf rt/gnu.tgz -C rt --strip-components=1');
    expect(x.exit).toBe(0);
    expect(fs.readFileSync(path.join(d, 'deep/big.bin')).equals(big)).toBe(true);
    expect(zlib.crc32(fs.readFileSync(path.join(d, long)))).toBe(zlib.crc32(Buffer.from('long name\n')));
  });

  it('-j and -J are refused with a hint; t and -O do not mutate (read-only zone)', async () => {
    const j = await sh('tar cjf x.tbz rt');
    expect(j.exit).toBe(2);
    expect(j.stderr).toContain('use -z (gzip)');
    const ro = tempDir('nosh-tar-ro-');
    spawnSync('tar', ['-cf', path.join(ro, 'a.tar'), '-C', ro, '.']);
    fs.writeFileSync(path.join(ro, 'f'), 'f\n');
    spawnSync('tar', ['-cf', path.join(ro, 'b.tar'), '-C', ro, 'f']);
    const n = await createNosh({ root: ro, threads: 1, policy: { readonly: true } });
    try {
      const t = await n.exec({ command: 'tar tf b.tar' });
      expect(t.success && t.data.stdout).toBe('f\n');
      const o = await n.exec({ command: 'tar xOf b.tar' });
      expect(o.success && o.data.stdout).toBe('f\n');
      const x = await n.exec({ command: 'tar xf b.tar' });
      expect(x.success).toBe(false);
    } finally {
      await n.close();
      fs.rmSync(ro, { recursive: true, force: true });
    }
  });
});
