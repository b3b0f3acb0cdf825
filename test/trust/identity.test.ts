// The trust boundary: identity, role and groups are bound by whoever starts nosh; what a request
// (written by the model) says can only narrow them. Each reproduction goes through the transport
// where it was found.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { startMcp, startServe, type McpSession, type RpcSession } from './transports.js';

let base: string;
const storage = (user: string, ...p: string[]) => path.join(base, 'users', user, 'Storage', ...p);
const group = (id: string, ...p: string[]) => path.join(base, 'groups', id, ...p);

beforeAll(() => {
  base = tempDir('nosh-trust-');
  fs.mkdirSync(storage('alice'), { recursive: true });
  fs.writeFileSync(storage('alice', 'README.txt'), 'keep me\n');
  fs.mkdirSync(group('finance'), { recursive: true });
  fs.writeFileSync(group('finance', 'payroll.csv'), 'bob,100\n');
  fs.writeFileSync(path.join(base, 'nosh.json'), JSON.stringify({ base, groups: { finance: ['bob'] } }));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('nosh mcp: the model cannot widen its identity', () => {
  let gen: McpSession;
  let mallory: McpSession;
  beforeAll(async () => {
    gen = await startMcp(['--config', path.join(base, 'nosh.json'), '--user', 'alice', '--role', 'generalist']);
    mallory = await startMcp(['--config', path.join(base, 'nosh.json'), '--user', 'mallory']);
  }, 30_000);
  afterAll(async () => {
    await gen?.close();
    await mallory?.close();
  });

  it('role escalation: a generalist naming role developer creates nothing', async () => {
    const r = await gen.call('exec', { command: 'touch g2.txt', context: { role: 'developer' } });
    expect(r.isError).toBe(true);
    expect(r.env.error.code).toBe('PERMISSION_DENIED');
    expect(fs.existsSync(storage('alice', 'g2.txt'))).toBe(false);
    // and without a claim the role is what the flags said
    const plain = await gen.call('exec', { command: 'touch g2.txt' });
    expect(plain.env.error.code).toBe('ZONE_READONLY');
    expect(fs.existsSync(storage('alice', 'g2.txt'))).toBe(false);
  });

  it('impersonation: a write naming user bob does not land in bob\'s storage', async () => {
    const r = await mallory.call('write', { path: 'bob.txt', content: 'x', context: { user: 'bob' } });
    expect(r.isError).toBe(true);
    expect(fs.existsSync(storage('bob', 'bob.txt'))).toBe(false);
    expect(fs.existsSync(storage('mallory', 'bob.txt'))).toBe(false);
  });

  it('joining a group by claiming it: payroll.csv stays', async () => {
    const r = await mallory.call('exec', { zone: 'group:finance', command: 'rm payroll.csv', context: { groups: ['finance'] } });
    expect(r.isError).toBe(true);
    expect(fs.existsSync(group('finance', 'payroll.csv'))).toBe(true);
    const plain = await mallory.call('exec', { zone: 'group:finance', command: 'rm payroll.csv' });
    expect(plain.env.error.code).toBe('GROUP_ACCESS_DENIED');
    expect(fs.existsSync(group('finance', 'payroll.csv'))).toBe(true);
  });

  it('runtime-only tools are not offered and cannot be called', async () => {
    const { tools } = await mallory.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).not.toContain('import');
    expect(names).not.toContain('maintenance');
    for (const t of tools) expect(Object.keys(t.inputSchema.properties ?? {}), t.name).not.toContain('context');
    const imp = await mallory.call('import', { name: 'fake.txt', content: 'forged' });
    expect(imp.isError).toBe(true);
    expect(fs.existsSync(path.join(base, 'users', 'mallory', 'Uploads'))).toBe(false);
    expect((await mallory.call('maintenance', {})).isError).toBe(true);
  });

  it('a context equal to the bound one is refused too: MCP takes no context at all', async () => {
    const r = await mallory.call('exec', { command: 'echo hi', context: { user: 'mallory' } });
    expect(r.env.error.code).toBe('PERMISSION_DENIED');
  });
});

describe('nosh serve without --trust-request-context', () => {
  let rpc: RpcSession;
  beforeAll(() => {
    rpc = startServe(['--config', path.join(base, 'nosh.json'), '--user', 'alice', '--role', 'generalist']);
  });
  afterAll(async () => rpc?.close());

  it('role escalation: rm README.txt with role developer deletes nothing', async () => {
    const r = await rpc.call('exec', { command: 'rm README.txt', context: { role: 'developer' } });
    expect(r.result.success).toBe(false);
    expect(r.result.error.code).toBe('PERMISSION_DENIED');
    expect(fs.readFileSync(storage('alice', 'README.txt'), 'utf8')).toBe('keep me\n');
  });

  it('impersonation and group claims are refused', async () => {
    fs.mkdirSync(storage('bob'), { recursive: true });
    fs.writeFileSync(storage('bob', 'private.txt'), 'bob only\n');
    const w = await rpc.call('read', { path: 'private.txt', context: { user: 'bob' } });
    expect(w.result.error.code).toBe('PERMISSION_DENIED');
    expect(JSON.stringify(w)).not.toContain('bob only');
    const g = await rpc.call('exec', { zone: 'group:finance', command: 'cat payroll.csv', context: { groups: ['finance'] } });
    expect(g.result.error.code).toBe('PERMISSION_DENIED');
  });

  it('a request may narrow: name its own user, or a read-only role', async () => {
    const r = await rpc.call('exec', { command: 'cat README.txt', context: { user: 'alice', role: 'critic' } });
    expect(r.result).toMatchObject({ success: true, data: { stdout: 'keep me\n' } });
  });

  it('runtime methods are not listed and not served, even to a developer role', async () => {
    const dev = startServe(['--config', path.join(base, 'nosh.json'), '--user', 'alice', '--conversation', 'c1']);
    try {
      const names = (await dev.call('methods', {})).result.map((m: { name: string }) => m.name);
      expect(names).toContain('write');
      expect(names).not.toContain('import');
      expect(names).not.toContain('maintenance');
      const imp = await dev.call('import', { name: 'fake.txt', content: 'forged' });
      expect(imp.error ?? imp.result?.error).toBeTruthy();
      expect(fs.existsSync(path.join(base, 'users', 'alice', 'Uploads', 'c1', 'fake.txt'))).toBe(false);
    } finally {
      await dev.close();
    }
  });
});

describe('nosh serve --trust-request-context: the runtime speaks for many users', () => {
  let rpc: RpcSession;
  beforeAll(() => {
    rpc = startServe(['--config', path.join(base, 'nosh.json'), '--trust-request-context']);
  });
  afterAll(async () => rpc?.close());

  it('takes each request\'s user, groups and the runtime methods', async () => {
    const w = await rpc.call('write', { path: 'carol.txt', content: 'c\n', context: { user: 'carol' } });
    expect(w.result.success).toBe(true);
    expect(fs.readFileSync(storage('carol', 'carol.txt'), 'utf8')).toBe('c\n');
    const g = await rpc.call('exec', { zone: 'group:finance', command: 'cat payroll.csv', context: { user: 'bob' } });
    expect(g.result.data.stdout).toBe('bob,100\n');
    const imp = await rpc.call('import', { name: 'up.txt', content: 'u\n', context: { user: 'carol', conversation: 'c1' } });
    expect(imp.result.success).toBe(true);
  });

  it('a group claim still cannot add a group the configuration does not give', async () => {
    const r = await rpc.call('exec', { zone: 'group:finance', command: 'cat payroll.csv', context: { user: 'mallory', groups: ['finance'] } });
    expect(r.result.error.code).toBe('GROUP_ACCESS_DENIED');
  });
});

describe('the library: groups come from the groupProvider, not from a claim', () => {
  let nosh: Nosh;
  beforeAll(async () => {
    nosh = await createNosh({ base }, { groupProvider: (u) => (u === 'bob' ? ['finance'] : []) });
  });
  afterAll(async () => nosh?.close());

  it('a context naming a group the provider does not give is refused', async () => {
    const r = await nosh.exec({ zone: 'group:finance', context: { user: 'mallory', groups: ['finance'] }, command: 'rm payroll.csv' });
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.code).toBe('GROUP_ACCESS_DENIED');
    expect(fs.existsSync(group('finance', 'payroll.csv'))).toBe(true);
  });

  it('a member reaches the group; a claim only narrows', async () => {
    const ok = await nosh.exec({ zone: 'group:finance', context: { user: 'bob' }, command: 'cat payroll.csv' });
    expect(ok.success && ok.data.stdout).toBe('bob,100\n');
    const narrowed = await nosh.exec({ zone: 'group:finance', context: { user: 'bob', groups: [] }, command: 'cat payroll.csv' });
    expect(!narrowed.success && narrowed.error.code).toBe('GROUP_ACCESS_DENIED');
  });
});

describe('the audit log holds the refused claims, as the bound identity', () => {
  it('an MCP context claim and a serve role escalation are refusal lines of the real user', async () => {
    const lines = () => fs.readFileSync(path.join(base, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const refused = lines().filter((l) => l.event === 'refused' && l.result === 'PERMISSION_DENIED');
    // from the tests above: mallory's MCP write as bob, alice's serve rm as developer
    expect(refused.some((l) => l.user === 'mallory' && l.method === 'write')).toBe(true);
    expect(refused.some((l) => l.user === 'alice' && l.method === 'exec' && l.command === 'rm README.txt')).toBe(true);
    expect(refused.every((l) => l.user !== 'bob')).toBe(true);
  });
});
