// The typed hexdump and convert_eol tools (Fileshed's shed_hexdump / shed_convert_eol) through
// the library: dumps as the real hexdump -C / xxd print them, line ends as dos2unix / unix2dos
// write them (streamed across chunk edges), and the zone's rules (read-only, blocked names, escapes).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let nosh: Nosh;
let base: string;
let root: string;
const call = (method: string, params: Record<string, unknown>) => nosh.call(method, params) as Promise<any>;
const put = (rel: string, data: string | Buffer) => fs.writeFileSync(path.join(root, rel), data);
const host = (rel: string) => path.join(root, rel);

beforeAll(async () => {
  base = tempDir('nosh-hexeol-');
  root = path.join(base, 'zone');
  fs.mkdirSync(root);
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});
beforeEach(() => {
  for (const n of fs.readdirSync(root)) fs.rmSync(path.join(root, n), { recursive: true, force: true });
});

const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37 + 5) & 0xff));
const real = (cmd: string, args: string[]) => spawnSync(cmd, args, { cwd: root, env: { LC_ALL: 'C', PATH: process.env.PATH } }).stdout.toString('latin1');

describe('hexdump tool', () => {
  it('canonical is hexdump -C of the same window, offsets from the file start', async () => {
    put('bin', bytes);
    for (const [offset, length] of [[0, 300], [0, 16], [5, 40], [290, 100], [17, 1]]) {
      const r = await call('hexdump', { path: 'bin', offset, length });
      expect(r.success, JSON.stringify(r)).toBe(true);
      expect(r.data.dump).toBe(real('hexdump', ['-C', '-s', String(offset), '-n', String(length), 'bin']));
    }
  });

  it('xxd and plain are xxd and xxd -p of the same window', async () => {
    put('bin', bytes);
    for (const [offset, length] of [[0, 300], [7, 33], [299, 5]]) {
      const x = await call('hexdump', { path: 'bin', offset, length, format: 'xxd' });
      expect(x.data.dump).toBe(real('xxd', ['-s', String(offset), '-l', String(length), 'bin']));
      const p = await call('hexdump', { path: 'bin', offset, length, format: 'plain' });
      expect(p.data.dump).toBe(real('xxd', ['-p', '-s', String(offset), '-l', String(length), 'bin']));
    }
  });

  it('pages with next_offset, 512 bytes by default; past the end is an empty dump', async () => {
    put('big', Buffer.alloc(1000, 0x41));
    const a = await call('hexdump', { path: 'big' });
    expect(a.data).toMatchObject({ size: 1000, offset: 0, length: 512, next_offset: 512 });
    const b = await call('hexdump', { path: 'big', offset: a.data.next_offset });
    expect(b.data).toMatchObject({ length: 488, next_offset: null });
    const c = await call('hexdump', { path: 'big', offset: 5000 });
    expect(c.data).toMatchObject({ length: 0, dump: '', next_offset: null });
    expect((await call('hexdump', { path: 'big', length: 70000 })).error.code).toBe('INVALID_ARGUMENT');
  });

  it('refuses what the zone refuses: blocked names, escapes, folders, missing files', async () => {
    put('.env', 'SECRET=1\n');
    fs.writeFileSync(path.join(base, 'outside'), 'x');
    expect((await call('hexdump', { path: '.env' })).success).toBe(false);
    for (const p of ['../outside', '/../outside', '../../' + path.basename(base) + '/outside']) {
      const esc = await call('hexdump', { path: p });
      expect(esc.success).toBe(false);
      expect(JSON.stringify(esc)).not.toContain(base);
    }
    fs.symlinkSync(path.join(base, 'outside'), host('link'));
    expect((await call('hexdump', { path: 'link' })).success).toBe(false);
    fs.mkdirSync(host('d'));
    expect((await call('hexdump', { path: 'd' })).error.code).toBe('IS_A_DIRECTORY');
    expect((await call('hexdump', { path: 'nope' })).error.code).toBe('FILE_NOT_FOUND');
  });
});

describe('convert_eol tool', () => {
  // (unix2dos 7.4 turns CR CR LF into CR CR CR LF, an oddity nosh's unix2dos command does not copy either)
  const texts = ['a\nb\r\nc\rd\n\n', 'no newline at all', 'x\r\n\r\n\r\n', '\n', 'end with cr\r', '', 'q\r\r\r\n'];

  it('to crlf writes what unix2dos writes, to lf what dos2unix writes', async () => {
    for (const t of texts) {
      for (const [to, tool] of [['crlf', 'unix2dos'], ['lf', 'dos2unix']] as const) {
        put('t.txt', t);
        put('ref.txt', t);
        spawnSync(tool, ['-q', 'ref.txt'], { cwd: root });
        const r = await call('convert_eol', { path: 't.txt', to });
        expect(r.success, JSON.stringify(r)).toBe(true);
        expect(fs.readFileSync(host('t.txt')).toString('latin1'), `${to} ${JSON.stringify(t)}`).toBe(fs.readFileSync(host('ref.txt')).toString('latin1'));
        expect(r.data.size_after).toBe(fs.statSync(host('t.txt')).size);
        expect(r.data.size_before).toBe(t.length);
      }
    }
  });

  it('streams: a CR LF split across read chunks is one line end', async () => {
    const chunk = 256 * 1024;
    const body = Buffer.alloc(3 * chunk + 10, 0x61);
    for (const at of [chunk - 1, 2 * chunk - 1, 2 * chunk + 7, 3 * chunk + 3]) {
      body[at] = 0x0d;
      body[at + 1] = 0x0a;
    }
    body[chunk + 50] = 0x0a; // a bare LF
    body[3 * chunk - 1] = 0x0d; // a lone CR at a chunk end
    put('big.txt', body);
    const lf = await call('convert_eol', { path: 'big.txt', to: 'lf' });
    expect(lf.data.changed).toBe(4);
    const want = Buffer.from(body.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
    expect(fs.readFileSync(host('big.txt')).equals(want)).toBe(true);
    const crlf = await call('convert_eol', { path: 'big.txt', to: 'crlf' });
    expect(crlf.data.changed).toBe(5);
    expect(fs.readFileSync(host('big.txt')).toString('latin1')).toBe(want.toString('latin1').replace(/\n/g, '\r\n'));
  });

  it('a file already in form is untouched; binary and folders are refused; the mode is kept', async () => {
    put('ok.txt', 'a\nb\n');
    fs.chmodSync(host('ok.txt'), 0o640);
    const before = fs.statSync(host('ok.txt')).mtimeMs;
    const same = await call('convert_eol', { path: 'ok.txt', to: 'lf' });
    expect(same.data.changed).toBe(0);
    expect(fs.statSync(host('ok.txt')).mtimeMs).toBe(before);
    expect((await call('convert_eol', { path: 'ok.txt', to: 'crlf' })).data.changed).toBe(2);
    expect(fs.statSync(host('ok.txt')).mode & 0o777).toBe(0o640);
    put('bin', Buffer.from('a\n\0b\n'));
    const bin = await call('convert_eol', { path: 'bin', to: 'crlf' });
    expect(bin.error.code).toBe('INVALID_ARGUMENT');
    expect(fs.readFileSync(host('bin')).toString('latin1')).toBe('a\n\0b\n');
    fs.mkdirSync(host('d'));
    expect((await call('convert_eol', { path: 'd', to: 'lf' })).success).toBe(false);
    expect((await call('convert_eol', { path: 'x', to: 'cr' })).error.code).toBe('INVALID_ARGUMENT');
    put('.env', 'A=1\n');
    expect((await call('convert_eol', { path: '.env', to: 'crlf' })).success).toBe(false);
    expect(fs.readFileSync(host('.env'), 'utf8')).toBe('A=1\n');
  });

  it('is refused in a read-only zone, where hexdump reads', async () => {
    const ro = tempDir('nosh-hexeol-ro-');
    fs.writeFileSync(path.join(ro, 'a.txt'), 'a\n');
    const n = await createNosh({ root: ro, threads: 1, policy: { readonly: true } });
    try {
      expect(((await n.call('convert_eol', { path: 'a.txt', to: 'crlf' })) as any).error.code).toBe('ZONE_READONLY');
      expect(((await n.call('hexdump', { path: 'a.txt' })) as any).data.length).toBe(2);
      expect(fs.readFileSync(path.join(ro, 'a.txt'), 'utf8')).toBe('a\n');
    } finally {
      await n.close();
      fs.rmSync(ro, { recursive: true, force: true });
    }
  });
});
