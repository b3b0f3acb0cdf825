/**
 * Issue #20 through the transports: the group tools and locked edits over JSON-RPC (`nosh serve`
 * with request contexts: PERMISSION_DENIED and FILE_LOCKED between users) and MCP (the SDK client;
 * one bound identity: owner_ro refuses its own owner, and the lock workflow).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempDir } from '../helpers.js';

const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = tempDir('nosh-own-tr-');
  fs.writeFileSync(path.join(dir, 'nosh.json'), JSON.stringify({ base: path.join(dir, 'ws'), groups: { team: ['alice', 'bob'] } }));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('JSON-RPC (nosh serve)', () => {
  let child: ReturnType<typeof spawn>;
  const pending = new Map<number, (m: any) => void>();
  let next = 1;
  const rpc = (method: string, params: Record<string, unknown>): Promise<any> => new Promise((resolve) => {
    const id = next++;
    pending.set(id, (m) => resolve(m.result));
    child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  const ALICE = { user: 'alice', conversation: 'c1' };
  const BOB = { user: 'bob', conversation: 'c9' };

  beforeAll(() => {
    child = spawn(process.execPath, [MAIN, 'serve', '--config', path.join(dir, 'nosh.json'), '--trust-request-context'], { stdio: ['pipe', 'pipe', 'inherit'] });
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = JSON.parse(l);
      pending.get(m.id)?.(m);
      pending.delete(m.id);
    });
  });
  afterAll(async () => {
    child.stdin!.end();
    await new Promise((r) => child.once('exit', r));
  });

  it('owner mode refuses another member (tool and exec); a lock refuses every other writer with FILE_LOCKED', async () => {
    expect((await rpc('write', { zone: 'group:team', context: ALICE, path: 'o.md', content: 'o\n', group_mode: 'owner' })).success).toBe(true);
    const w = await rpc('write', { zone: 'group:team', context: BOB, path: 'o.md', content: 'b\n' });
    expect(w.error).toMatchObject({ code: 'PERMISSION_DENIED', details: { owner: 'alice', mode: 'owner' } });
    expect(w.error.message).toContain('owned by alice, mode owner');
    const rm = await rpc('exec', { zone: 'group:team', context: BOB, command: 'rm o.md' });
    expect(rm.data).toMatchObject({ exit_code: 1, stderr: "rm: cannot remove 'o.md': Permission denied (owned by alice, mode owner)\n" });
    expect((await rpc('group_set_mode', { group: 'team', context: ALICE, path: 'o.md', mode: 'group' })).success).toBe(true);
    expect((await rpc('lockedit_open', { zone: 'group:team', context: ALICE, path: 'o.md' })).success).toBe(true);
    const l = await rpc('write', { zone: 'group:team', context: BOB, path: 'o.md', content: 'b\n' });
    expect(l.error).toMatchObject({ code: 'FILE_LOCKED', details: { holder: 'alice' } });
    const ex = await rpc('exec', { zone: 'group:team', context: BOB, command: 'sed -i s/o/b/ o.md' });
    expect(ex.data.exit_code).not.toBe(0);
    expect(ex.data.stderr).toContain('File locked (by alice since');
    expect((await rpc('read', { zone: 'group:team', context: BOB, path: 'o.md' })).data.content).toBe('o\n');
    expect((await rpc('force_unlock', { zone: 'group:team', context: BOB, path: 'o.md' })).error.code).toBe('PERMISSION_DENIED');
    expect((await rpc('lockedit_save', { zone: 'group:team', context: ALICE, path: 'o.md' })).success).toBe(true);
    expect((await rpc('write', { zone: 'group:team', context: BOB, path: 'o.md', content: 'b\n' })).success).toBe(true);
  }, 120_000);

  it('sqlite3 and the sqlite tool cannot change another member\'s owner database', async () => {
    const made = await rpc('exec', { zone: 'group:team', context: ALICE, command: 'sqlite3 o.db "create table t(a); insert into t values(1)"', group_mode: 'owner' });
    expect(made.data.exit_code).toBe(0);
    const ex = await rpc('exec', { zone: 'group:team', context: BOB, command: 'sqlite3 o.db "insert into t values(666)"' });
    expect(ex.data).toMatchObject({ exit_code: 1, stderr: 'sqlite3: /o.db: Permission denied (owned by alice, mode owner)\n' });
    const tool = await rpc('sqlite', { zone: 'group:team', context: BOB, path: 'o.db', sql: 'insert into t values(777)' });
    expect(tool.error).toMatchObject({ code: 'PERMISSION_DENIED', details: { owner: 'alice', mode: 'owner' } });
    expect((await rpc('sqlite', { zone: 'group:team', context: BOB, path: 'o.db', sql: 'select a from t' })).data.rows).toEqual([[1]]);
  }, 120_000);
});

describe('MCP (SDK client)', () => {
  let client: Client;
  beforeAll(async () => {
    const transport = new StdioClientTransport({ command: process.execPath,
      args: [MAIN, 'mcp', '--config', path.join(dir, 'nosh.json'), '--user', 'alice', '--conversation', 'm1'], stderr: 'pipe' });
    client = new Client({ name: 'nosh-test', version: '1.0.0' });
    await client.connect(transport);
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })).structuredContent as any;

  it('lists the group and lockedit tools; owner_ro refuses its owner; the lock workflow works', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const n of ['group_list', 'group_info', 'group_set_mode', 'group_chown', 'lockedit_open', 'lockedit_exec', 'lockedit_overwrite',
      'lockedit_save', 'lockedit_cancel', 'force_unlock']) expect(names).toContain(n);
    expect((await call('group_list', {})).data.groups).toEqual([{ id: 'team', zone: 'group:team' }]);
    expect((await call('write', { zone: 'group:team', path: 'ro.md', content: 'r\n', group_mode: 'owner_ro' })).success).toBe(true);
    const w = await call('exec', { zone: 'group:team', command: 'tee ro.md', stdin: 'x\n' });
    expect(w.data.stderr).toContain('Permission denied (owned by alice, mode owner_ro)');
    expect((await call('lockedit_open', { zone: 'group:team', path: 'ro.md' })).error.code).toBe('PERMISSION_DENIED');
    expect((await call('group_set_mode', { group: 'team', path: 'ro.md', mode: 'owner' })).data.mode).toBe('owner');
    expect((await call('lockedit_open', { zone: 'group:team', path: 'ro.md' })).success).toBe(true);
    expect((await call('lockedit_exec', { zone: 'group:team', path: 'ro.md', command: 'sed -i s/r/R/ ro.md' })).data.exit_code).toBe(0);
    expect((await call('lockedit_save', { zone: 'group:team', path: 'ro.md' })).success).toBe(true);
    expect((await call('read', { zone: 'group:team', path: 'ro.md' })).data.content).toBe('R\n');
    const info = await call('group_info', { group: 'team' });
    expect(info.data.files_by_owner.alice).toContain('/ro.md');
  }, 120_000);
});
