import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let base: string;
let nosh: Nosh;
const call = (m: string, p: Record<string, unknown>) => nosh.call(m, p) as Promise<any>;

beforeAll(async () => {
  base = tempDir('nosh-companion-');
  nosh = await createNosh({ base, threads: 1, companion: {} });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
});

describe('the companion scope (HomeClaw)', () => {
  it('a call with no user runs as the companion, whose storage and output live under companion/', async () => {
    expect((await call('write', { path: 'notes.md', content: 'mine' })).success).toBe(true);
    expect((await call('write', { zone: 'output', path: 'report.html', content: '<p>r</p>' })).success).toBe(true);
    expect(fs.readFileSync(path.join(base, 'companion', 'Storage', 'notes.md'), 'utf8')).toBe('mine');
    expect(fs.readFileSync(path.join(base, 'companion', 'Storage', 'output', 'report.html'), 'utf8')).toBe('<p>r</p>');
    expect(fs.existsSync(path.join(base, 'users'))).toBe(false);
    const ls = await nosh.exec({ command: 'ls' }) as any;
    expect(ls.data.stdout).toContain('notes.md\noutput\n');
    const stats = await call('stats', {});
    expect(stats.data.quotas['user:companion'].used).toBeGreaterThan(0);
  });

  it('a named user keeps users/{id}/, and does not see the companion\'s files', async () => {
    await call('write', { path: 'a.txt', content: 'alice', context: { user: 'alice' } });
    expect(fs.existsSync(path.join(base, 'users', 'alice', 'Storage', 'a.txt'))).toBe(true);
    const r = await call('read', { path: 'notes.md', context: { user: 'alice' } });
    expect(r.error.code).toBe('FILE_NOT_FOUND');
  });

  it('the companion id is configurable and validated; without the setting nothing changes', async () => {
    const b2 = tempDir('nosh-companion-');
    const n = await createNosh({ base: b2, threads: 1, companion: { user: 'homeclaw' } });
    await n.call('write', { path: 'x', content: 'x' });
    expect(fs.existsSync(path.join(b2, 'companion', 'Storage', 'x'))).toBe(true);
    await n.close();
    const plain = await createNosh({ base: b2, threads: 1 });
    await plain.call('write', { path: 'y', content: 'y' });
    expect(fs.existsSync(path.join(b2, 'users', 'default', 'Storage', 'y'))).toBe(true);
    await plain.close();
    fs.rmSync(b2, { recursive: true, force: true });
    await expect(createNosh({ base: b2, companion: { user: 'x', extra: 1 } as never })).rejects.toThrow(/companion/);
  });
});
