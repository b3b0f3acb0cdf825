import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type AuditEvent, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

// The audit log (src/audit): one JSON line per refused attempt and per change, through the
// library callback and the file sink; never file contents, never a host path.

const SECRET = 'SECRET-MARKER-7f3a9c';
const dirs: string[] = [];
function dir(prefix: string): string {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
}
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

function lines(file: string): AuditEvent[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as AuditEvent);
}

describe('audit events through the library', () => {
  let base: string;
  let nosh: Nosh;
  const events: AuditEvent[] = [];
  /** The events the next call emits. */
  async function during(f: () => Promise<unknown>): Promise<AuditEvent[]> {
    const n = events.length;
    await f();
    return events.slice(n);
  }

  beforeAll(async () => {
    base = dir('nosh-audit-');
    nosh = await createNosh({
      base, threads: 1,
      groups: { finance: ['bob'] },
      zones: { share: { allowedCommands: ['ls', 'cat'] } },
      quotas: { sessionMb: 1 },
    }, { audit: (e) => { events.push(e); } });
    // a symlink out of alice's storage, made behind nosh's back
    await nosh.exec({ context: { user: 'alice' }, command: 'ls' });
    fs.symlinkSync('/etc', path.join(base, 'users', 'alice', 'Storage', 'out'));
  });
  afterAll(async () => { await nosh.close(); });

  const alice = { user: 'alice' };

  it.each([
    ['PATH_ESCAPE', () => nosh.call('read', { context: alice, path: 'out/hostname' }), 'out/hostname'],
    ['BLOCKED_PATH', () => nosh.call('read', { context: alice, path: '.env' }), '.env'],
    ['BLOCKED_PATH', () => nosh.call('write', { context: alice, path: 'id_rsa', content: SECRET }), 'id_rsa'],
    ['METACHAR_REJECTED', () => nosh.exec({ context: alice, command: 'ls; rm -rf /' }), undefined],
    ['COMMAND_FORBIDDEN', () => nosh.exec({ zone: 'share', context: alice, command: 'touch x' }), undefined],
    ['PERMISSION_DENIED', () => nosh.call('delete', { context: alice, path: '/', recursive: true }), '/'],
    ['GROUP_ACCESS_DENIED', () => nosh.exec({ zone: 'group:finance', context: { user: 'mallory' }, command: 'rm payroll.csv' }), undefined],
    ['ZONE_READONLY', () => nosh.call('write', { context: { user: 'alice', role: 'generalist' }, path: 'r.txt', content: SECRET }), 'r.txt'],
    ['QUOTA_EXCEEDED', () => nosh.call('write', { zone: 'session', context: { user: 'alice', session: 's1' }, path: 'big.txt', content: SECRET.repeat(100_000) }), 'big.txt'],
    ['INVALID_ID', () => nosh.exec({ context: { user: '../bob' }, command: 'ls' }), undefined],
  ] as const)('%s is one "refused" line', async (code, act, p) => {
    const got = await during(act);
    expect(got).toHaveLength(1);
    const e = got[0]!;
    expect(e).toMatchObject({ event: 'refused', result: code });
    expect(typeof e.ms).toBe('number');
    expect(new Date(e.time).toISOString()).toBe(e.time);
    if (p !== undefined) expect(e.paths).toContain(p);
  });

  it('names who, where and what', async () => {
    const [e] = await during(() => nosh.exec({ zone: 'session', context: { user: 'alice', session: 's2', conversation: 'c1', role: 'critic' }, command: 'touch a' }));
    expect(e).toMatchObject({ event: 'refused', user: 'alice', role: 'critic', session: 's2', conversation: 'c1', zone: 'session:s2',
      method: 'exec', command: 'touch a', result: 'ZONE_READONLY' });
    const [g] = await during(() => nosh.exec({ zone: 'group:finance', context: { user: 'mallory' }, command: 'rm payroll.csv' }));
    expect(g).toMatchObject({ user: 'mallory', zone: 'group:finance', command: 'rm payroll.csv', result: 'GROUP_ACCESS_DENIED' });
    const [s] = await during(() => nosh.exec({ zone: 'session:s1', context: { user: 'bob' }, command: 'ls' }));
    expect(s).toMatchObject({ user: 'bob', zone: 'session:s1', result: 'PERMISSION_DENIED' });
  });

  it('a refusal a command reports on stderr is logged, with the exit status', async () => {
    const got = await during(() => nosh.exec({ context: alice, command: 'cat .env out/passwd' }));
    expect(got).toEqual([expect.objectContaining({ event: 'refused', method: 'exec', command: 'cat .env out/passwd', exit_code: 1 })]);
    expect(got[0]!.paths!.sort()).toEqual(['.env', 'out/passwd']);
    expect(['BLOCKED_PATH', 'PATH_ESCAPE']).toContain(got[0]!.result);
    await nosh.exec({ context: alice, command: 'mkdir -p sub' });
    const [inDir] = await during(() => nosh.exec({ context: alice, cwd: '/sub', command: 'cat ../.env' }));
    expect(inDir).toMatchObject({ cwd: '/sub', paths: ['../.env'], result: 'BLOCKED_PATH' });
  });

  it('a call neither refused nor changing anything logs nothing (reads, listings, plain failures)', async () => {
    const got = await during(async () => {
      await nosh.exec({ context: alice, command: 'ls -laR' });
      await nosh.exec({ context: alice, command: 'find .' });
      await nosh.exec({ context: alice, command: 'grep -r x .' });
      await nosh.call('read', { context: alice, path: 'README.txt' });
      await nosh.call('read', { context: alice, path: 'missing.txt' });
      await nosh.exec({ context: alice, command: 'cat missing.txt' });
    });
    expect(got).toEqual([]);
  });

  it('changes: write, edit, exec touch, transfer (both zones), each one "change" line with virtual paths', async () => {
    const w = await during(() => nosh.call('write', { context: alice, path: 'notes/a.md', content: `x ${SECRET}\n`, create_dirs: true }));
    expect(w).toEqual([expect.objectContaining({ event: 'change', method: 'write', user: 'alice', zone: 'storage', result: 'ok' })]);
    expect(w[0]!.changes!.map((c) => `${c.op} ${c.path}`)).toContain('write /notes/a.md');
    const ed = await during(() => nosh.call('edit', { context: alice, path: 'notes/a.md', edits: [{ old_text: 'x', new_text: `y ${SECRET}` }] }));
    expect(ed).toEqual([expect.objectContaining({ event: 'change', method: 'edit', changes: [{ op: 'write', path: '/notes/a.md' }] })]);
    const t = await during(() => nosh.exec({ context: alice, command: 'touch t.txt' }));
    expect(t).toEqual([expect.objectContaining({ event: 'change', method: 'exec', command: 'touch t.txt', exit_code: 0, result: 'ok' })]);
    expect(t[0]!.changes!.map((c) => c.path)).toContain('/t.txt');
    const tee = await during(() => nosh.exec({ context: alice, command: 'tee s.txt' }, { stdin: SECRET }));
    expect(tee[0]!.changes!.map((c) => c.path)).toEqual(['/s.txt']);
    const tr = await during(() => nosh.call('transfer', { context: alice, from: 'storage', to: 'documents', path: 't.txt' }));
    expect(tr).toEqual([expect.objectContaining({ event: 'change', method: 'transfer', zone: 'storage', to_zone: 'documents',
      changes: [{ op: 'write', path: '/t.txt', zone: 'documents' }] })]);
    const b64 = await during(() => nosh.call('write', { context: alice, path: 'b.bin', content_base64: Buffer.from(SECRET).toString('base64') }));
    expect(b64).toHaveLength(1);
    const mv = await during(() => nosh.exec({ context: alice, cmd: 'mv', args: ['b.bin', 'c d.bin'] }));
    expect(mv[0]).toMatchObject({ command: "mv b.bin 'c d.bin'", changes: [{ op: 'rename', path: '/b.bin', to: '/c d.bin' }] });
  });

  it('no line holds file contents or a host path', async () => {
    await nosh.exec({ context: alice, command: 'cat notes/a.md' });
    const text = events.map((e) => JSON.stringify(e)).join('\n') + fs.readFileSync(path.join(base, 'audit.log'), 'utf8');
    expect(events.length).toBeGreaterThan(15);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(text).not.toContain(base);
    expect(text).not.toContain(fs.realpathSync(base));
    // the default file sink holds the same lines as the callback saw
    expect(lines(path.join(base, 'audit.log'))).toEqual(events);
  });
});

describe('audit sinks', () => {
  it('a library root is logged as the zone "root" (its folder never appears); a root-only setup writes no file by default', async () => {
    const root = dir('nosh-audit-root-');
    const events: AuditEvent[] = [];
    const nosh = await createNosh({ root, threads: 1 }, { audit: (e) => { events.push(e); } });
    await nosh.exec({ command: 'touch a.txt' });
    await nosh.exec({ root, command: 'cat .env' });
    await nosh.close();
    expect(events.map((e) => [e.event, e.zone])).toEqual([['change', 'root'], ['refused', 'root']]);
    expect(JSON.stringify(events)).not.toContain(root);
    expect(fs.readdirSync(root)).toEqual(['a.txt']);
  });

  it('rotates by size: audit.log, audit.log.1 .. .keep, each under maxBytes, every line whole JSON', async () => {
    const base = dir('nosh-audit-rot-');
    const nosh = await createNosh({ base, threads: 1, audit: { maxBytes: 2048, keep: 2 } });
    await Promise.all(Array.from({ length: 60 }, (_, i) => nosh.call('read', { path: '.env', context: { user: 'alice', conversation: `c${i}` } })));
    await nosh.close();
    const files = fs.readdirSync(base).filter((f) => f.startsWith('audit.log')).sort();
    expect(files).toEqual(['audit.log', 'audit.log.1', 'audit.log.2']);
    for (const f of files) {
      expect(fs.statSync(path.join(base, f)).size).toBeLessThanOrEqual(2048);
      for (const e of lines(path.join(base, f))) expect(e).toMatchObject({ event: 'refused', result: 'BLOCKED_PATH' });
    }
    const all = files.flatMap((f) => lines(path.join(base, f)));
    expect(all.length).toBeGreaterThan(10);
    expect(all.length).toBeLessThan(60); // the oldest were dropped
  });

  it('the file can be named, relative to the base, or turned off', async () => {
    const base = dir('nosh-audit-name-');
    let nosh = await createNosh({ base, threads: 1, audit: { file: 'logs/nosh-audit.jsonl' } });
    await nosh.call('read', { path: '.env' });
    await nosh.close();
    expect(lines(path.join(base, 'logs', 'nosh-audit.jsonl'))).toEqual([expect.objectContaining({ result: 'BLOCKED_PATH' })]);
    for (const file of [false, 'off'] as const) {
      const b2 = dir('nosh-audit-off-');
      nosh = await createNosh({ base: b2, threads: 1, audit: { file } });
      await nosh.call('read', { path: '.env' });
      await nosh.call('write', { path: 'x.txt', content: 'x' });
      await nosh.close();
      expect(fs.readdirSync(b2).filter((f) => f.startsWith('audit'))).toEqual([]);
    }
    await expect(createNosh({ audit: { maxBytes: -1 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('a failing sink never fails a call', async () => {
    const base = dir('nosh-audit-fail-');
    fs.writeFileSync(path.join(base, 'notadir'), '');
    const nosh = await createNosh({ base, threads: 1, audit: { file: 'notadir/audit.log' } }, {
      audit: () => { throw new Error('sink down'); },
    });
    const w = await nosh.call('write', { path: 'x.txt', content: 'x' });
    const r = await nosh.call('read', { path: '.env' });
    const rejected = await createNosh({ base, threads: 1, audit: { file: false } }, { audit: () => Promise.reject(new Error('async sink down')) });
    const w2 = await rejected.exec({ command: 'touch y.txt' });
    await nosh.close();
    await rejected.close();
    expect(w.success).toBe(true);
    expect(!r.success && r.error.code).toBe('BLOCKED_PATH');
    expect(w2.success && w2.data.exit_code).toBe(0);
  });
});
