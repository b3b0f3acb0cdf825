import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspace, type Ws } from './setup.js';

let ws: Ws;
beforeAll(async () => { ws = await workspace({ policy: { blockedPatterns: ['.env', '*.key'] } }); });
afterAll(async () => { await ws.close(); });

describe('read', () => {
  it('head and tail give the first and last N lines', async () => {
    ws.put('n.txt', '1\n2\n3\n4\n5\n');
    const h = await ws.call('read', { path: 'n.txt', head: 2 });
    expect(h.data).toMatchObject({ content: '1\n2\n', start_line: 1, end_line: 2, total_lines: 5 });
    const t = await ws.call('read', { path: 'n.txt', tail: 2, line_numbers: true });
    expect(t.data).toMatchObject({ content: '     4\t4\n     5\t5\n', start_line: 4, end_line: 5, total_lines: 5 });
    ws.put('long.txt', Array.from({ length: 5000 }, (_, i) => `l${i + 1}`).join('\n'));
    const lt = await ws.call('read', { path: 'long.txt', tail: 3 });
    expect(lt.data).toMatchObject({ content: 'l4998\nl4999\nl5000', start_line: 4998, end_line: 5000, total_lines: 5000 });
    const both = await ws.call('read', { path: 'n.txt', head: 1, offset: 2 });
    expect(both.error.code).toBe('INVALID_ARGUMENT');
  });

  it('parse json returns the value; bad JSON is INVALID_ARGUMENT with the line', async () => {
    ws.put('ok.json', '{"a": [1, 2], "b": null}');
    expect((await ws.call('read', { path: 'ok.json', parse: 'json' })).data.parsed).toEqual({ a: [1, 2], b: null });
    ws.put('bad.json', '{\n  "a": 1,\n  "b": \n}\n');
    const bad = await ws.call('read', { path: 'bad.json', parse: 'json' });
    expect(bad.error.code).toBe('INVALID_ARGUMENT');
    expect(bad.error.message).toContain('not valid JSON');
    expect(bad.error.details.line).toBe(4);
  });

  it('FILE_NOT_FOUND suggests the closest names, and strict input refuses unknown keys', async () => {
    ws.put('docs/readme.md', 'x');
    const r = await ws.call('read', { path: 'docs/redme.md' });
    expect(r.error.code).toBe('FILE_NOT_FOUND');
    expect(r.error.hint).toContain('readme.md');
    const dir = await ws.call('read', { path: 'dcs/readme.md' });
    expect(dir.error.details.suggestions).toEqual(['docs/']);
    const extra = await ws.call('read', { path: 'docs/readme.md', bogus: 1 });
    expect(extra.error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('read of a line longer than max_bytes', () => {
  it('returns the start of the line and says so, instead of nothing and the same offset again', async () => {
    ws.put('long.txt', 'short\n' + 'é'.repeat(100) + '\nend\n');
    const r = await ws.call('read', { path: 'long.txt', offset: 2, max_bytes: 51 });
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({ content: 'é'.repeat(25), start_line: 2, end_line: 2, truncated: true, partial_line: true });
    expect(r.message).toMatch(/line 2 is longer than 51 bytes/);
    expect(r.message).not.toMatch(/continue with offset 2/);
    const t = await ws.call('read', { path: 'long.txt', tail: 2, max_bytes: 10 });
    expect(t.data).toMatchObject({ content: 'end\n', start_line: 3, end_line: 3, truncated: true });
    const t1 = await ws.call('read', { path: 'long.txt', tail: 1, max_bytes: 2 });
    expect(t1.data).toMatchObject({ content: 'nd\n'.slice(-2), start_line: 3, end_line: 3, truncated: true, partial_line: true });
  });
});

describe('read_many', () => {
  it('one failure does not fail the rest', async () => {
    ws.put('m1.txt', 'one\n');
    ws.put('m2.txt', 'two\n');
    const r = await ws.call('read_many', { paths: ['m1.txt', 'missing.txt', 'm2.txt', '.env'] });
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({ read: 2, failed: 2 });
    const [a, b, c, d] = r.data.results;
    expect(a).toMatchObject({ path: 'm1.txt', success: true, data: { content: 'one\n' } });
    expect(b).toMatchObject({ path: 'missing.txt', success: false, error: { code: 'FILE_NOT_FOUND' } });
    expect(c).toMatchObject({ path: 'm2.txt', success: true, data: { content: 'two\n' } });
    expect(d).toMatchObject({ success: false, error: { code: 'BLOCKED_PATH' } });
  });
});

describe('write', () => {
  it('overwrite, append, create (FILE_EXISTS), base64, create_dirs', async () => {
    const w = await ws.call('write', { path: 'w/new.txt', content: 'a\n', create_dirs: true });
    expect(w.data).toMatchObject({ path: '/w/new.txt', created: true, bytes_written: 2, created_dirs: ['/w'] });
    await ws.call('write', { path: 'w/new.txt', content: 'b\n', mode: 'append' });
    expect(ws.get('w/new.txt')).toBe('a\nb\n');
    const c = await ws.call('write', { path: 'w/new.txt', content: 'c', mode: 'create' });
    expect(c.error.code).toBe('FILE_EXISTS');
    expect(ws.get('w/new.txt')).toBe('a\nb\n');
    await ws.call('write', { path: 'w/new.txt', content: 'over' });
    expect(ws.get('w/new.txt')).toBe('over');
    await ws.call('write', { path: 'bin.dat', content_base64: Buffer.from([0, 255, 10]).toString('base64') });
    expect([...fs.readFileSync(path.join(ws.root, 'bin.dat'))]).toEqual([0, 255, 10]);
  });

  it('refuses a missing parent without create_dirs, both or no content, blocked names, and leaves no temp files', async () => {
    expect((await ws.call('write', { path: 'nodir/x.txt', content: 'x' })).error.code).toBe('FILE_NOT_FOUND');
    expect((await ws.call('write', { path: 'x.txt' })).error.code).toBe('MISSING_PARAMETER');
    expect((await ws.call('write', { path: 'x.txt', content: 'a', content_base64: 'YQ==' })).error.code).toBe('INVALID_ARGUMENT');
    expect((await ws.call('write', { path: 'x.txt', content_base64: '!!!' })).error.code).toBe('INVALID_ARGUMENT');
    expect((await ws.call('write', { path: 'server.key', content: 'k' })).error.code).toBe('BLOCKED_PATH');
    expect(fs.readdirSync(ws.root).filter((n) => n.includes('nosh-tmp'))).toEqual([]);
  });
});

describe('refusals of a bad path', () => {
  it('each says what to do next (a hint), whatever the errno', async () => {
    ws.put('plain.txt', 'x\n');
    ws.put('dir1/f.txt', 'x\n');
    fs.linkSync(path.join(ws.root, 'plain.txt'), path.join(ws.root, 'linked.txt'));
    const cases: [string, Record<string, unknown>, string][] = [
      ['read', { path: 'plain.txt/x' }, 'NOT_A_DIRECTORY'],
      ['read', { path: 'a\u0000b' }, 'INVALID_ARGUMENT'],
      ['read', { path: 'n'.repeat(256) }, 'INVALID_ARGUMENT'],
      ['read', { path: 'plain.txt', cwd: '\u0000' }, 'INVALID_ARGUMENT'],
      ['write', { path: 'dir1', content: 'x' }, 'IS_A_DIRECTORY'],
      ['write', { path: 'linked.txt', content: 'x' }, 'PERMISSION_DENIED'],
      ['list', { path: '.', cwd: 'plain.txt' }, 'NOT_A_DIRECTORY'],
    ];
    for (const [method, params, code] of cases) {
      const r = await ws.call(method, params);
      expect(r.success, JSON.stringify(params)).toBe(false);
      expect(r.error.code, JSON.stringify(params)).toBe(code);
      expect(r.error.hint, JSON.stringify(params)).not.toBe('');
    }
    expect(ws.get('plain.txt')).toBe('x\n');
  });
});

describe('delete, move, rename, copy, mkdir, exists', () => {
  it('mkdir with and without parents', async () => {
    expect((await ws.call('mkdir', { path: 'p/q/r', parents: true })).data.created).toEqual(['/p', '/p/q', '/p/q/r']);
    expect((await ws.call('mkdir', { path: 'p/q/r', parents: true })).data.created).toEqual([]);
    expect((await ws.call('mkdir', { path: 'p/q/r' })).error.code).toBe('FILE_EXISTS');
    expect((await ws.call('mkdir', { path: 'x/y' })).error.code).toBe('FILE_NOT_FOUND');
  });

  it('exists', async () => {
    ws.put('e/f.txt', 'x');
    expect((await ws.call('exists', { path: 'e/f.txt' })).data).toMatchObject({ exists: true, type: 'file' });
    expect((await ws.call('exists', { path: 'e' })).data).toMatchObject({ exists: true, type: 'dir' });
    expect((await ws.call('exists', { path: 'e/nope' })).data).toMatchObject({ exists: false, type: null });
    expect((await ws.call('exists', { path: 'e/f.txt/x' })).data.exists).toBe(false);
    expect((await ws.call('exists', { path: '.env' })).error.code).toBe('BLOCKED_PATH');
  });

  it('delete: files, empty dirs, recursive; refuses root and non-empty dirs', async () => {
    ws.put('d/a/b.txt', 'x');
    ws.put('d/c.txt', 'y');
    const nr = await ws.call('delete', { path: 'd' });
    expect(nr.error.code).toBe('INVALID_ARGUMENT');
    expect(nr.error.hint).toContain('recursive');
    expect((await ws.call('delete', { path: '/' , recursive: true })).error.code).toBe('PERMISSION_DENIED');
    expect((await ws.call('delete', { path: '../..', recursive: true })).error.code).toBe('PERMISSION_DENIED');
    expect((await ws.call('delete', { path: 'd/c.txt' })).data).toMatchObject({ type: 'file', deleted_files: 1 });
    const r = await ws.call('delete', { path: 'd', recursive: true });
    expect(r.data).toMatchObject({ type: 'dir', deleted_files: 1, deleted_dirs: 2 });
    expect(fs.existsSync(path.join(ws.root, 'd'))).toBe(false);
    expect((await ws.call('delete', { path: 'd' })).error.code).toBe('FILE_NOT_FOUND');
  });

  it('move and rename: into folders, overwrite, refusals', async () => {
    ws.put('mv/a.txt', 'A');
    ws.put('mv/b.txt', 'B');
    fs.mkdirSync(path.join(ws.root, 'mv/into'));
    expect((await ws.call('move', { from: 'mv/a.txt', to: 'mv/b.txt' })).error.code).toBe('FILE_EXISTS');
    expect((await ws.call('move', { from: 'mv/a.txt', to: 'mv/b.txt', overwrite: true })).data).toMatchObject({ to: '/mv/b.txt', replaced: true });
    expect(ws.get('mv/b.txt')).toBe('A');
    expect((await ws.call('rename', { from: 'mv/b.txt', to: 'mv/into' })).data.to).toBe('/mv/into/b.txt');
    expect((await ws.call('move', { from: 'mv/into', to: 'mv/deep/er', create_dirs: true })).data.to).toBe('/mv/deep/er');
    expect(ws.get('mv/deep/er/b.txt')).toBe('A');
    expect((await ws.call('move', { from: 'mv', to: 'mv/deep/x' })).error.code).toBe('INVALID_ARGUMENT');
    expect((await ws.call('move', { from: '/', to: 'x' })).error.code).toBe('PERMISSION_DENIED');
  });

  it('copy: files, folders with recursive, refusals', async () => {
    ws.put('cp/src/a.txt', 'a\n');
    ws.put('cp/src/sub/b.txt', 'b\n');
    fs.chmodSync(path.join(ws.root, 'cp/src/a.txt'), 0o640);
    fs.symlinkSync('a.txt', path.join(ws.root, 'cp/src/link'));
    expect((await ws.call('copy', { from: 'cp/src', to: 'cp/dst' })).error.code).toBe('INVALID_ARGUMENT');
    const r = await ws.call('copy', { from: 'cp/src', to: 'cp/dst', recursive: true });
    expect(r.data).toMatchObject({ files: 2, dirs: 2, bytes: 4, skipped: ['/cp/src/link'] });
    expect(ws.get('cp/dst/sub/b.txt')).toBe('b\n');
    expect(fs.statSync(path.join(ws.root, 'cp/dst/a.txt')).mode & 0o777).toBe(0o640);
    expect((await ws.call('copy', { from: 'cp/src/a.txt', to: 'cp/dst/a.txt' })).error.code).toBe('FILE_EXISTS');
    expect((await ws.call('copy', { from: 'cp/src/a.txt', to: 'cp/dst' , overwrite: true })).data.to).toBe('/cp/dst/a.txt');
    expect((await ws.call('copy', { from: 'cp/src', to: 'cp/src/sub', recursive: true })).error.code).toBe('INVALID_ARGUMENT');
  });

  it('copy names the first 1000 skipped entries and counts the rest', async () => {
    ws.put('cpl/src/a.txt', 'a\n');
    for (let i = 0; i < 1005; i++) fs.symlinkSync('a.txt', path.join(ws.root, `cpl/src/l${String(i).padStart(4, '0')}`));
    const r = await ws.call('copy', { from: 'cpl/src', to: 'cpl/dst', recursive: true });
    expect(r.data).toMatchObject({ files: 1, skipped_total: 1005 });
    expect(r.data.skipped).toHaveLength(1000);
    expect(r.message).toMatch(/1005 symlinks\/special files skipped, the first 1000 listed/);
  });
});

describe('stat', () => {
  it('file: size, mode, times, mime, line count', async () => {
    ws.put('s/t.txt', 'a\nb\nc');
    const r = await ws.call('stat', { path: 's/t.txt' });
    expect(r.data).toMatchObject({ path: '/s/t.txt', type: 'file', size: 5, mime: 'text/plain', is_text: true, line_count: 3 });
    expect(r.data.mode).toMatch(/^0[0-7]{3}$/);
    expect(r.data.mtime).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('mime by magic bytes beats the extension; folders count entries; symlinks show targets', async () => {
    ws.put('s/pic.dat', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(20)]));
    expect((await ws.call('stat', { path: 's/pic.dat' })).data).toMatchObject({ mime: 'image/png', is_text: false, line_count: null });
    ws.put('s/doc.pdf', '%PDF-1.4\n');
    expect((await ws.call('stat', { path: 's/doc.pdf' })).data.mime).toBe('application/pdf');
    ws.put('s/x.ts', 'let a = 1;\n');
    expect((await ws.call('stat', { path: 's/x.ts' })).data.mime).toBe('text/x-typescript');
    expect((await ws.call('stat', { path: 's' })).data).toMatchObject({ type: 'dir', entries: 4 });
    fs.symlinkSync('t.txt', path.join(ws.root, 's/ln'));
    expect((await ws.call('stat', { path: 's/ln' })).data).toMatchObject({ type: 'symlink', target: 't.txt' });
  });
});

describe('write: encodings and byte patches (issue 28)', () => {
  it('encoding latin1 and base64 for content; characters latin1 cannot hold are refused', async () => {
    expect((await ws.call('write', { path: 'l1.bin', content: 'caf\u00e9\u00ff', encoding: 'latin1' })).data.bytes_written).toBe(5);
    expect(Buffer.from(ws.get('l1.bin'), 'latin1')).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0xff]));
    await ws.call('write', { path: 'b64.bin', content: 'AAEC/w==', encoding: 'base64' });
    expect(Buffer.from(ws.get('b64.bin'), 'latin1')).toEqual(Buffer.from([0, 1, 2, 255]));
    const bad = await ws.call('write', { path: 'x.txt', content: '\u20ac', encoding: 'latin1' });
    expect(bad.error.code).toBe('INVALID_ARGUMENT');
    expect(ws.get('l1.bin')).toBe('caf\u00e9\u00ff');
  });

  it('offset replaces bytes in place, may extend at the end, and refuses a gap or a missing file', async () => {
    ws.put('p.bin', '0123456789');
    const r = await ws.call('write', { path: 'p.bin', content_base64: Buffer.from('AB').toString('base64'), offset: 3 });
    expect(r.data).toMatchObject({ bytes_written: 2, size: 10, mode: 'patch', offset: 3 });
    expect(ws.get('p.bin')).toBe('012AB56789');
    expect((await ws.call('write', { path: 'p.bin', content: 'XYZ', offset: 9 })).data.size).toBe(12);
    expect(ws.get('p.bin')).toBe('012AB5678XYZ');
    expect((await ws.call('write', { path: 'p.bin', content: '!', offset: 12 })).data.size).toBe(13);
    const gap = await ws.call('write', { path: 'p.bin', content: '!', offset: 20 });
    expect(gap.error.code).toBe('INVALID_ARGUMENT');
    expect(gap.error.hint).toMatch(/from 0 to 13/);
    expect((await ws.call('write', { path: 'nope.bin', content: 'x', offset: 0 })).error.code).toBe('FILE_NOT_FOUND');
    expect((await ws.call('write', { path: 'p.bin', content: 'x', offset: 0, mode: 'append' })).error.code).toBe('INVALID_ARGUMENT');
    expect(ws.get('p.bin')).toBe('012AB5678XYZ!');
  });
});
