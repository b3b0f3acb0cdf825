// transfer and import never replace a file silently: FILE_EXISTS unless overwrite: true.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { startServe, type RpcSession } from './transports.js';

let base: string;
let nosh: Nosh;
const ctx = { user: 'alice', conversation: 'c1' };
const docs = (...p: string[]) => path.join(base, 'users', 'alice', 'Documents', ...p);
const store = (...p: string[]) => path.join(base, 'users', 'alice', 'Storage', ...p);

beforeAll(async () => {
  base = tempDir('nosh-overwrite-');
  nosh = await createNosh({ base });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});

async function put(zone: string, p: string, content: string) {
  const r = await nosh.call('write', { zone, context: ctx, path: p, content, create_dirs: true });
  expect(r.success).toBe(true);
}

describe('transfer', () => {
  it('refuses to replace a document, and changes nothing', async () => {
    await put('documents', 'plan.md', 'IMPORTANT DOCUMENT v7\n');
    await put('storage', 'plan.md', 'scratch\n');
    const r = await nosh.call('transfer', { context: ctx, from: 'storage', to: 'documents', path: 'plan.md' });
    expect(r.success).toBe(false);
    if (!r.success) {
      expect(r.error.code).toBe('FILE_EXISTS');
      expect(r.error.hint).toMatch(/overwrite/);
    }
    expect(fs.readFileSync(docs('plan.md'), 'utf8')).toBe('IMPORTANT DOCUMENT v7\n');
    expect(fs.readFileSync(store('plan.md'), 'utf8')).toBe('scratch\n');
  });

  it('replaces it with overwrite: true', async () => {
    const r = await nosh.call('transfer', { context: ctx, from: 'storage', to: 'documents', path: 'plan.md', overwrite: true });
    expect(r.success).toBe(true);
    expect(fs.readFileSync(docs('plan.md'), 'utf8')).toBe('scratch\n');
  });

  it('a move from uploads onto an existing file keeps both', async () => {
    expect((await nosh.call('import', { context: ctx, name: 'data.csv', content: 'new\n' })).success).toBe(true);
    await put('storage', 'data.csv', 'old\n');
    const r = await nosh.call('transfer', { context: ctx, from: 'uploads', to: 'storage', path: 'data.csv' });
    expect(!r.success && r.error.code).toBe('FILE_EXISTS');
    expect(fs.readFileSync(store('data.csv'), 'utf8')).toBe('old\n');
    expect(fs.readFileSync(path.join(base, 'users', 'alice', 'Uploads', 'c1', 'data.csv'), 'utf8')).toBe('new\n');
  });

  it('a folder whose files would replace others is refused whole: nothing copied', async () => {
    await put('storage', 'dir/a.txt', 'a\n');
    await put('storage', 'dir/b.txt', 'b\n');
    await put('documents', 'dir/b.txt', 'kept\n');
    const r = await nosh.call('transfer', { context: ctx, from: 'storage', to: 'documents', path: 'dir' });
    expect(!r.success && r.error.code).toBe('FILE_EXISTS');
    expect(fs.existsSync(docs('dir', 'a.txt'))).toBe(false);
    expect(fs.readFileSync(docs('dir', 'b.txt'), 'utf8')).toBe('kept\n');
  });

  it('create_dirs makes the destination\'s folders', async () => {
    await put('storage', 'note.txt', 'n\n');
    const without = await nosh.call('transfer', { context: ctx, from: 'storage', to: 'documents', path: 'note.txt', dest: 'deep/er/note.txt' });
    expect(without.success).toBe(false);
    const r = await nosh.call('transfer', { context: ctx, from: 'storage', to: 'documents', path: 'note.txt', dest: 'deep/er/note.txt', create_dirs: true });
    expect(r.success).toBe(true);
    expect(fs.readFileSync(docs('deep', 'er', 'note.txt'), 'utf8')).toBe('n\n');
  });
});

describe('import', () => {
  it('refuses an existing name unless overwrite: true', async () => {
    expect((await nosh.call('import', { context: ctx, name: 'up.txt', content: 'first\n' })).success).toBe(true);
    const again = await nosh.call('import', { context: ctx, name: 'up.txt', content: 'second\n' });
    expect(!again.success && again.error.code).toBe('FILE_EXISTS');
    const up = path.join(base, 'users', 'alice', 'Uploads', 'c1', 'up.txt');
    expect(fs.readFileSync(up, 'utf8')).toBe('first\n');
    expect((await nosh.call('import', { context: ctx, name: 'up.txt', content: 'second\n', overwrite: true })).success).toBe(true);
    expect(fs.readFileSync(up, 'utf8')).toBe('second\n');
  });
});

describe('over JSON-RPC (a runtime connection)', () => {
  let rpc: RpcSession;
  beforeAll(() => {
    rpc = startServe(['--base', base, '--user', 'alice', '--trust-request-context']);
  });
  afterAll(async () => rpc?.close());

  it('transfer onto a document is FILE_EXISTS', async () => {
    await put('documents', 'rpc.md', 'v1\n');
    await put('storage', 'rpc.md', 'v2\n');
    const r = await rpc.call('transfer', { from: 'storage', to: 'documents', path: 'rpc.md' });
    expect(r.result.error.code).toBe('FILE_EXISTS');
    expect(fs.readFileSync(docs('rpc.md'), 'utf8')).toBe('v1\n');
  });
});
