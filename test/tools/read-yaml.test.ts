import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspace, type Ws } from './setup.js';

let ws: Ws;
beforeAll(async () => { ws = await workspace(); });
afterAll(async () => { await ws.close(); });

describe('read parse: "yaml"', () => {
  it('returns the value of a YAML file', async () => {
    ws.put('cfg.yaml', '# settings\nname: nosh\nlimits:\n  timeout: 30\n  zones: [storage, share]\nflag: yes\nempty:\n');
    const r = await ws.call('read', { path: 'cfg.yaml', parse: 'yaml' });
    expect(r.success).toBe(true);
    expect(r.data.parsed).toEqual({ name: 'nosh', limits: { timeout: 30, zones: ['storage', 'share'] }, flag: 'yes', empty: null });
    expect(r.data.documents).toBeUndefined();
  });

  it('several documents give their array and the count; binary and odd numbers stay JSON', async () => {
    ws.put('multi.yml', 'a: 1\n---\n- x\n- y\n');
    const r = await ws.call('read', { path: 'multi.yml', parse: 'yaml' });
    expect(r.data).toMatchObject({ parsed: [{ a: 1 }, ['x', 'y']], documents: 2 });
    ws.put('odd.yaml', 'b: !!binary aGVsbG8=\ninf: .inf\n');
    const o = await ws.call('read', { path: 'odd.yaml', parse: 'yaml' });
    expect(o.data.parsed).toEqual({ b: 'aGVsbG8=', inf: 'Infinity' });
  });

  it('bad YAML is INVALID_ARGUMENT with the line; duplicate keys too', async () => {
    ws.put('bad.yaml', 'a: 1\nb: [1, 2\nc: }\n');
    const bad = await ws.call('read', { path: 'bad.yaml', parse: 'yaml' });
    expect(bad.error.code).toBe('INVALID_ARGUMENT');
    expect(bad.error.message).toMatch(/not valid YAML at line \d+/);
    expect(bad.error.details.line).toBeGreaterThan(1);
    ws.put('dup.yaml', 'a: 1\na: 2\n');
    expect((await ws.call('read', { path: 'dup.yaml', parse: 'yaml' })).error.code).toBe('INVALID_ARGUMENT');
  });

  it('an alias bomb and a deep nest are refused, not expanded', async () => {
    const lv = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    let bomb = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    for (let i = 1; i < lv.length; i++) bomb += `${lv[i]}: &${lv[i]} [${Array(9).fill('*' + lv[i - 1]).join(',')}]\n`;
    ws.put('bomb.yaml', bomb);
    const b = await ws.call('read', { path: 'bomb.yaml', parse: 'yaml' });
    expect(b.error.code).toBe('INVALID_ARGUMENT');
    ws.put('deep.yaml', '['.repeat(5000) + ']'.repeat(5000));
    const d = await ws.call('read', { path: 'deep.yaml', parse: 'yaml' });
    expect(d.success).toBe(false);
    expect(['INVALID_ARGUMENT', 'MEMORY_LIMIT']).toContain(d.error.code);
    let block = '';
    for (let i = 0; i < 3000; i++) block += ' '.repeat(i) + 'k:\n';
    ws.put('deep-block.yaml', block);
    expect(['INVALID_ARGUMENT', 'MEMORY_LIMIT']).toContain((await ws.call('read', { path: 'deep-block.yaml', parse: 'yaml' })).error.code);
    ws.put('deep-block2.yaml', '- '.repeat(3000) + 'k\n');
    expect((await ws.call('read', { path: 'deep-block2.yaml', parse: 'yaml' })).error.message).toMatch(/nested/);
    ws.put('ok.yaml', 'a: [1]\nb: "' + '['.repeat(3000) + '"\n');
    const ok = await ws.call('read', { path: 'ok.yaml', parse: 'yaml' });
    expect(ok.data.parsed).toEqual({ a: [1], b: '['.repeat(3000) });
  });

  it('a YAML file whose parse would not fit the worker memory is MEMORY_LIMIT before parsing', async () => {
    ws.put('huge.yaml', '[' + '{},'.repeat(2_000_000) + '{}]');
    const r = await ws.call('read', { path: 'huge.yaml', parse: 'yaml' });
    expect(r.error.code).toBe('MEMORY_LIMIT');
    expect(r.error.hint).toMatch(/without parse/);
  });

  it('parse yaml with byte reads is refused as parse json is', async () => {
    const r = await ws.call('read', { path: 'cfg.yaml', parse: 'yaml', encoding: 'base64' });
    expect(r.error.code).toBe('INVALID_ARGUMENT');
  });
});
