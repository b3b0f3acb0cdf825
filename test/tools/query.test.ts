import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspace, type Ws } from './setup.js';

let ws: Ws;
beforeAll(async () => {
  ws = await workspace({ policy: { blockedPatterns: ['.env', '*.key', 'secrets/'] } });
  ws.put('src/main.ts', 'import x from "./x";\n// TODO: fix\nconsole.log(x);\n');
  ws.put('src/x.ts', 'export default 1; // todo lower\n');
  ws.put('src/deep/y.test.ts', 'it("works")\nline two\nTODO three\nline four\nline five\n');
  ws.put('README.md', '# Title\n\nSee TODO list.\n');
  ws.put('big.bin', Buffer.concat([Buffer.from('TODO'), Buffer.alloc(10), Buffer.from('TODO\n')]));
  ws.put('.hidden/h.txt', 'TODO hidden\n');
  ws.put('.env', 'TODO=secret\n');
  ws.put('node_modules/m/index.js', 'TODO nm\n');
  ws.put('sizes/a', 'x');
  ws.put('sizes/b', 'xxx');
  ws.put('sizes/c', 'xx');
  fs.utimesSync(path.join(ws.root, 'sizes/a'), 3000, 3000);
  fs.utimesSync(path.join(ws.root, 'sizes/b'), 1000, 1000);
  fs.utimesSync(path.join(ws.root, 'sizes/c'), 2000, 2000);
});
afterAll(async () => { await ws.close(); });

const names = (r: any) => r.data.entries.map((e: any) => e.name);

describe('list', () => {
  it('direct entries sorted by name, hidden and blocked left out', async () => {
    const r = await ws.call('list', {});
    expect(names(r)).toEqual(['README.md', 'big.bin', 'node_modules', 'sizes', 'src']);
    expect(r.data.entries[0]).toEqual({ name: 'README.md', type: 'file' });
    expect((await ws.call('list', { details: true })).data.entries[0]).toMatchObject({ name: 'README.md', type: 'file', size: 24 });
    expect(names(await ws.call('list', { hidden: true }))).toEqual(['.hidden', 'README.md', 'big.bin', 'node_modules', 'sizes', 'src']);
  });

  it('recursive with a glob; sort by size and mtime; reverse', async () => {
    expect(names(await ws.call('list', { path: 'src', recursive: true, pattern: '*.ts' }))).toEqual(['deep/y.test.ts', 'main.ts', 'x.ts']);
    expect(names(await ws.call('list', { path: 'src', recursive: true, pattern: 'deep/**' }))).toEqual(['deep/y.test.ts']);
    expect(names(await ws.call('list', { path: 'sizes', sort: 'size' }))).toEqual(['b', 'c', 'a']);
    expect(names(await ws.call('list', { path: 'sizes', sort: 'mtime' }))).toEqual(['a', 'c', 'b']);
    expect(names(await ws.call('list', { path: 'sizes', sort: 'mtime', reverse: true }))).toEqual(['b', 'c', 'a']);
  });

  it('mtime as toISOString gives it, also for files within one second', async () => {
    const own = await workspace({});
    try {
      const times = { p: 1_700_000_000.005, q: 1_700_000_000.25, r: 1_700_000_000.999, s: 1_600_000_000 };
      for (const [name, t] of Object.entries(times)) {
        own.put(name, name);
        fs.utimesSync(path.join(own.root, name), t, t);
      }
      const r = await own.call('list', { sort: 'mtime' });
      expect(r.data.entries.map((e: any) => `${e.name} ${e.mtime}`)).toEqual(['r', 'q', 'p', 's'].map((n) =>
        `${n} ${fs.statSync(path.join(own.root, n)).mtime.toISOString()}`));
      expect(r.data.entries[0].mtime).toBe('2023-11-14T22:13:20.999Z');
    } finally {
      await own.close();
    }
  });

  it('pages with limit and cursor', async () => {
    const p1 = await ws.call('list', { path: 'sizes', limit: 2 });
    expect(names(p1)).toEqual(['a', 'b']);
    expect(p1.data.total).toBe(3);
    const p2 = await ws.call('list', { path: 'sizes', limit: 2, cursor: p1.data.next_cursor });
    expect(names(p2)).toEqual(['c']);
    expect(p2.data.next_cursor).toBeNull();
    expect((await ws.call('list', { path: 'sizes', cursor: 'zzz' })).error.code).toBe('INVALID_ARGUMENT');
    expect((await ws.call('list', { path: 'README.md' })).error.code).toBe('NOT_A_DIRECTORY');
  });
});

describe('tree', () => {
  it('depth, exclude, entry cap', async () => {
    const r = await ws.call('tree', { depth: 2, exclude: ['node_modules'] });
    expect(r.data.tree).toBe('/\n  README.md\n  big.bin\n  sizes/\n    a\n    b\n    c\n  src/\n    deep/\n    main.ts\n    x.ts\n');
    expect(r.data).toMatchObject({ dirs: 3, files: 7, truncated: false });
    const capped = await ws.call('tree', { max_entries: 3 });
    expect(capped.data.truncated).toBe(true);
    expect(capped.data.files + capped.data.dirs).toBe(3);
  });
});

describe('find', () => {
  it('glob, type, depth, cap, exclude', async () => {
    const ts = await ws.call('find', { pattern: '*.ts' });
    expect(ts.data.matches.map((m: any) => m.path)).toEqual(['/src/deep/y.test.ts', '/src/main.ts', '/src/x.ts']);
    const dirs = await ws.call('find', { type: 'dir', max_depth: 1 });
    expect(dirs.data.matches.map((m: any) => m.path)).toEqual(['/.hidden', '/node_modules', '/sizes', '/src']);
    const capped = await ws.call('find', { type: 'file', max_results: 2 });
    expect(capped.data).toMatchObject({ count: 2, truncated: true });
    const ex = await ws.call('find', { pattern: '*.js', exclude: ['node_modules'] });
    expect(ex.data.count).toBe(0);
    const env = await ws.call('find', { pattern: '.env*' });
    expect(env.data.count).toBe(0);
    expect((await ws.call('find', { pattern: 'README.MD', ignore_case: true })).data.count).toBe(1);
  });
});

describe('search', () => {
  it('a line longer than many read chunks is searched whole, and the lines after it keep their numbers', async () => {
    ws.put('long/one.txt', 'y'.repeat(3_000_000) + 'needle\nshort needle\n' + 'z'.repeat(700_000) + '\nneedle at the end');
    const r = await ws.call('search', { pattern: 'needle', path: 'long' });
    expect(r.data.matches.map((m: any) => `${m.path}:${m.line}`)).toEqual(['/long/one.txt:1', '/long/one.txt:2', '/long/one.txt:4']);
    expect(r.data.matches[1].text).toBe('short needle');
  });

  it('regex, recursive, skips binary, hidden, blocked', async () => {
    const r = await ws.call('search', { pattern: 'TODO' });
    const hits = r.data.matches.map((m: any) => `${m.path}:${m.line}`);
    expect(hits).toEqual(['/README.md:3', '/node_modules/m/index.js:1', '/src/deep/y.test.ts:3', '/src/main.ts:2']);
    expect(r.data.binary_files_skipped).toBe(1);
    const hid = await ws.call('search', { pattern: 'TODO', hidden: true, include: ['*.txt'] });
    expect(hid.data.matches.map((m: any) => m.path)).toEqual(['/.hidden/h.txt']);
  });

  it('ignore case, literal, include/exclude, per-file and total caps', async () => {
    const ic = await ws.call('search', { pattern: 'todo', ignore_case: true, path: 'src' });
    expect(ic.data.count).toBe(3);
    const lit = await ws.call('search', { pattern: '("works")', literal: true });
    expect(lit.data.matches[0]).toMatchObject({ path: '/src/deep/y.test.ts', line: 1, text: 'it("works")' });
    const ere = await ws.call('search', { pattern: 'line (two|five)$', path: 'src' });
    expect(ere.data.matches.map((m: any) => m.line)).toEqual([2, 5]);
    const ex = await ws.call('search', { pattern: 'TODO', exclude: ['node_modules', '*.md'] });
    expect(ex.data.matches.map((m: any) => m.path)).toEqual(['/src/deep/y.test.ts', '/src/main.ts']);
    const pf = await ws.call('search', { pattern: 'line', path: 'src/deep', max_per_file: 1 });
    expect(pf.data.count).toBe(1);
    const cap = await ws.call('search', { pattern: 'line', path: 'src/deep', max_results: 2 });
    expect(cap.data).toMatchObject({ count: 2, truncated: true });
  });

  it('context lines before and after', async () => {
    const r = await ws.call('search', { pattern: 'TODO', path: 'src/deep/y.test.ts', context_lines: 1 });
    expect(r.data.matches).toEqual([{
      path: '/src/deep/y.test.ts', line: 3, text: 'TODO three',
      before: [{ line: 2, text: 'line two' }], after: [{ line: 4, text: 'line four' }],
    }]);
  });

  it('a bad regex is INVALID_ARGUMENT with a hint', async () => {
    const r = await ws.call('search', { pattern: 'a[' });
    expect(r.error.code).toBe('INVALID_ARGUMENT');
    expect(r.error.hint).toContain('literal');
  });

  it('a catastrophic pattern does not hang', async () => {
    ws.put('evil.txt', 'a'.repeat(40) + 'b\n');
    const r = await ws.call('search', { pattern: '(a+)+$', path: 'evil.txt' });
    expect(r.success).toBe(true);
  });
});

describe('glob arguments', () => {
  it('a glob too long for the matcher is INVALID_ARGUMENT naming the parameter, in every tool that takes globs', async () => {
    const long = 'x'.repeat(70_000);
    for (const [method, params, param] of [
      ['list', { pattern: long }, 'pattern'], ['find', { pattern: long }, 'pattern'], ['find', { exclude: [long] }, 'exclude'],
      ['tree', { exclude: [long] }, 'exclude'], ['search', { pattern: 'x', include: [long] }, 'include'], ['search', { pattern: 'x', exclude: [long] }, 'exclude'],
    ] as const) {
      const r = await ws.call(method, params);
      expect(r.success, method).toBe(false);
      expect(r.error.code, method).toBe('INVALID_ARGUMENT');
      expect(r.error.message, method).toContain(param);
      expect(r.error.hint, method).not.toBe('');
    }
  });
});

describe('check_access', () => {
  it('explains allowed and refused paths', async () => {
    expect((await ws.call('check_access', { path: 'README.md' })).data).toMatchObject({ allowed: true, exists: true, type: 'file' });
    const env = await ws.call('check_access', { path: '.env' });
    expect(env.data).toMatchObject({ allowed: false, code: 'BLOCKED_PATH' });
    expect(env.data.reason).toContain("'.env'");
    const sec = await ws.call('check_access', { path: 'secrets/a.txt', operation: 'write' });
    expect(sec.data.reason).toContain("'secrets/'");
    const miss = await ws.call('check_access', { path: 'READM.md' });
    expect(miss.data).toMatchObject({ allowed: false, code: 'FILE_NOT_FOUND', exists: false });
    expect(miss.data.reason).toContain('README.md');
    expect((await ws.call('check_access', { path: 'new.txt', operation: 'write' })).data).toMatchObject({ allowed: true, exists: false });
    expect((await ws.call('check_access', { path: '/', operation: 'delete' })).data.allowed).toBe(false);
    expect((await ws.call('check_access', { path: 'src', operation: 'read' })).data.code).toBe('IS_A_DIRECTORY');
    fs.symlinkSync('/etc/passwd', path.join(ws.root, 'out'));
    expect((await ws.call('check_access', { path: 'out/x' })).data.code).toBe('PATH_ESCAPE');
  });

  it('read-only zones and extension filters', async () => {
    const ro = await (await import('./setup.js')).workspace({ policy: { readonly: true, allowDelete: false, allowedExtensions: ['.md'] } });
    try {
      ro.put('a.md', 'x');
      ro.put('b.txt', 'y');
      expect((await ro.call('check_access', { path: 'a.md', operation: 'write' })).data.code).toBe('ZONE_READONLY');
      expect((await ro.call('check_access', { path: 'a.md', operation: 'delete' })).data.code).toBe('ZONE_READONLY');
      const ext = await ro.call('check_access', { path: 'b.txt' });
      expect(ext.data).toMatchObject({ allowed: false, code: 'BLOCKED_PATH' });
      expect(ext.data.reason).toContain("'.txt'");
      expect((await ro.call('write', { path: 'a.md', content: 'z' })).error.code).toBe('ZONE_READONLY');
    } finally {
      await ro.close();
    }
  });
});
