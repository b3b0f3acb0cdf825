import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

// Every method of the registry, once, through `nosh serve` over real pipes: a runtime's
// connection (--trust-request-context), which has the runtime methods too.
const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
let base: string;
let child: ReturnType<typeof spawn>;
const pending = new Map<number, (m: any) => void>();
let nextId = 1;

function call(method: string, params: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
}

beforeAll(() => {
  base = tempDir('nosh-every-');
  fs.writeFileSync(path.join(base, 'nosh.json'), JSON.stringify({ base: path.join(base, 'ws'), groups: { team: ['alice'] } }));
  child = spawn(process.execPath, [bin, 'serve', '--config', path.join(base, 'nosh.json'), '--user', 'alice', '--conversation', 'c1', '--trust-request-context'], { stdio: ['pipe', 'pipe', 'inherit'] });
  createInterface({ input: child.stdout! }).on('line', (l) => {
    const m = JSON.parse(l);
    pending.get(m.id)?.(m);
    pending.delete(m.id);
  });
});
afterAll(async () => {
  child.stdin!.end();
  await new Promise((r) => child.once('exit', r));
  fs.rmSync(base, { recursive: true, force: true });
});

// In order: later calls use what earlier ones made. [method, params, check of data]
const CALLS: [string, Record<string, unknown>, (d: any) => void][] = [
  ['help', {}, (d) => expect(d.text).toMatch(/Zones:/)],
  ['parameters', {}, (d) => expect(d.zones).toContain('storage')],
  ['write', { path: 'notes/a.txt', content: 'one\ntwo\n', create_dirs: true }, (d) => expect(d).toBeTruthy()],
  ['exec', { command: 'cat notes/a.txt' }, (d) => expect(d.stdout).toBe('one\ntwo\n')],
  ['read', { path: 'notes/a.txt', offset: 2 }, (d) => expect(d.content).toBe('two\n')],
  ['write', { path: 'c.yaml', content: 'a: [1, 2]\n' }, (d) => expect(d).toBeTruthy()],
  ['read', { path: 'c.yaml', parse: 'yaml' }, (d) => expect(d.parsed).toEqual({ a: [1, 2] })],
  ['write', { zone: 'session:s1', path: 's.txt', content: 's' }, (d) => expect(d).toBeTruthy()],
  ['list_workspaces', {}, (d) => expect(d.workspaces.map((w: any) => w.id)).toEqual(['s1'])],
  ['delete_workspace', { session: 's1' }, (d) => expect(d.deleted).toBe('session:s1')],
  ['read_many', { paths: ['notes/a.txt', 'nope'] }, (d) => expect(JSON.stringify(d)).toContain('FILE_NOT_FOUND')],
  ['edit', { path: 'notes/a.txt', edits: [{ old_text: 'two', new_text: 'TWO' }] }, (d) => expect(d.diff).toContain('+TWO')],
  ['exists', { path: 'notes/a.txt' }, (d) => expect(d.exists).toBe(true)],
  ['stat', { path: 'notes/a.txt' }, (d) => expect(d.size).toBe(8)],
  ['mkdir', { path: 'm/n', parents: true }, (d) => expect(d).toBeTruthy()],
  ['copy', { from: 'notes/a.txt', to: 'm/b.txt' }, (d) => expect(d).toBeTruthy()],
  ['move', { from: 'm/b.txt', to: 'm/c.txt' }, (d) => expect(d).toBeTruthy()],
  ['rename', { from: 'm/c.txt', to: 'm/d.txt' }, (d) => expect(d).toBeTruthy()],
  ['list', { path: 'm', recursive: true }, (d) => expect(JSON.stringify(d)).toContain('d.txt')],
  ['tree', { depth: 3 }, (d) => expect(JSON.stringify(d)).toContain('notes')],
  ['find', { pattern: '*.txt' }, (d) => expect(JSON.stringify(d)).toContain('a.txt')],
  ['search', { pattern: 'TW.', path: '.' }, (d) => expect(JSON.stringify(d)).toContain('TWO')],
  ['zip', { path: 'bundle.zip', paths: ['notes'] }, (d) => expect(d.entries_added).toBe(2)],
  ['zipinfo', { path: 'bundle.zip' }, (d) => expect(d.entries.map((e: { name: string }) => e.name)).toEqual(['notes/', 'notes/a.txt'])],
  ['hexdump', { path: 'notes/a.txt', length: 4 }, (d) => expect(d.dump).toBe('00000000  6f 6e 65 0a                                       |one.|\n00000004\n')],
  ['convert_eol', { path: 'notes/a.txt', to: 'crlf' }, (d) => expect(d).toMatchObject({ changed: 2, size_before: 8, size_after: 10 })],
  ['unzip', { path: 'bundle.zip', destination: 'out' }, (d) => expect(d.files).toEqual(['/out/notes/a.txt'])],
  ['convert_eol', { path: 'notes/a.txt', to: 'lf' }, (d) => expect(d).toMatchObject({ changed: 2, size_after: 8 })],
  ['import_csv', { path: 'db.sqlite', table: 't', csv_path: 'notes/a.txt', header: false }, (d) => expect(JSON.stringify(d)).toMatch(/2/)],
  ['sqlite', { path: 'db.sqlite', sql: 'select count(*) as n from t where c1 = ?', params: ['TWO'] }, (d) => expect(d.rows).toEqual([[1]])],
  ['check_access', { path: '.env', operation: 'read' }, (d) => expect(d.allowed).toBe(false)],
  ['delete', { path: 'm', recursive: true }, (d) => expect(d).toBeTruthy()],
  ['import', { name: 'up.txt', content: 'uploaded\n' }, (d) => expect(d.bytes).toBe(9)],
  ['transfer', { from: 'uploads', to: 'storage', path: 'up.txt' }, (d) => expect(d.moved).toBe(true)],
  ['allowed_commands', { zone: 'uploads' }, (d) => expect(d.commands.map((c: any) => c.name)).toContain('cat')],
  ['stats', {}, (d) => expect(Object.keys(d.quotas)).toContain('user:alice')],
  ['write', { zone: 'documents', path: 'v.md', content: 'v1\n', message: 'first' }, (d) => expect(d).toBeTruthy()],
  ['write', { zone: 'documents', path: 'v.md', content: 'v2\n' }, (d) => expect(d).toBeTruthy()],
  ['history', { zone: 'documents', path: 'v.md' }, (d) => expect(d.commits.map((c: any) => c.message)).toEqual(['write: v.md (1 file)', 'first'])],
  ['diff_versions', { zone: 'documents', path: 'v.md', from: 'HEAD~1' }, (d) => expect(d.diff).toContain('-v1\n+v2')],
  ['restore', { zone: 'documents', path: 'v.md', version: 'HEAD~1' }, (d) => expect(d.diff).toContain('-v2\n+v1')],
  ['undo', { zone: 'documents', path: 'v.md' }, (d) => expect(d.files).toEqual(['/v.md'])],
  // group ownership and locked edits (issue #20)
  ['write', { zone: 'group:team', path: 'g.md', content: 'g\n', group_mode: 'owner' }, (d) => expect(d).toBeTruthy()],
  ['group_list', {}, (d) => expect(d.groups).toEqual([{ id: 'team', zone: 'group:team' }])],
  ['group_info', { group: 'team' }, (d) => expect(d.files_by_owner.alice).toContain('/g.md')],
  ['group_set_mode', { group: 'team', path: 'g.md', mode: 'owner_ro' }, (d) => expect(d).toMatchObject({ owner: 'alice', mode: 'owner_ro' })],
  ['group_set_mode', { group: 'team', path: 'g.md', mode: 'group' }, (d) => expect(d.mode).toBe('group')],
  ['group_chown', { group: 'team', path: 'g.md', owner: 'alice' }, (d) => expect(d.owner).toBe('alice')],
  ['stat', { zone: 'group:team', path: 'g.md' }, (d) => expect(d).toMatchObject({ owner: 'alice', group_mode: 'group' })],
  ['lockedit_open', { zone: 'group:team', path: 'g.md' }, (d) => expect(d).toMatchObject({ path: '/g.md', user: 'alice', conversation: 'c1' })],
  ['lockedit_exec', { zone: 'group:team', path: 'g.md', command: 'sed -i s/g/G/ g.md' }, (d) => expect(d.exit_code).toBe(0)],
  ['lockedit_overwrite', { zone: 'group:team', path: 'g.md', content: 'G2\n' }, (d) => expect(d).toBeTruthy()],
  ['lockedit_save', { zone: 'group:team', path: 'g.md' }, (d) => expect(d.saved).toBe(true)],
  ['read', { zone: 'group:team', path: 'g.md' }, (d) => expect(d.content).toBe('G2\n')],
  ['lockedit_open', { zone: 'group:team', path: 'g.md' }, (d) => expect(d.reopened).toBe(false)],
  ['lockedit_cancel', { zone: 'group:team', path: 'g.md' }, (d) => expect(d.cancelled).toBe(true)],
  ['lockedit_open', { zone: 'group:team', path: 'g.md' }, (d) => expect(d.reopened).toBe(false)],
  ['force_unlock', { zone: 'group:team', path: 'g.md' }, (d) => expect(d.unlocked).toBe(true)],
  ['link_create', { path: 'notes/a.txt', expires_in: 600 }, (d) => expect(d.markdown).toBe(`[a.txt](${d.url})`)],
  ['link_list', {}, (d) => expect(d.links.map((l: any) => l.path)).toEqual(['/notes/a.txt'])],
  ['link_delete', { id: '__first_link__' }, (d) => expect(d.deleted).toBe(true)],
  ['save_result_page', { title: 'R', content: '|a|\n|-|\n|1|\n' }, (d) => expect(d.path).toMatch(/^\/report_\d{8}_\d{6}_[\w-]{8}\.md$/)],
  ['maintenance', { rescan: true }, (d) => expect(d.rescan['user:alice'].ledger).toBe(d.rescan['user:alice'].disk)],
];

describe('nosh serve answers every method', () => {
  it('the calls below cover the whole registry', async () => {
    const listed = (await call('methods', {})).result.map((m: { name: string }) => m.name).sort();
    expect(listed).toEqual([...new Set(CALLS.map(([m]) => m))].sort());
  });

  for (const [method, params, check] of CALLS) {
    it(method, async () => {
      if (params.id === '__first_link__') params.id = (await call('link_list', {})).result.data.links[0].id;
      const res = await call(method, params);
      expect(res.error).toBeUndefined();
      expect(res.result.success, JSON.stringify(res.result)).toBe(true);
      check(res.result.data);
    });
  }
});
