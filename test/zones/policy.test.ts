/**
 * Issue 16, item 9 (policy footguns): a configured blockedPatterns list adds to the default
 * credential patterns (replaceDefaultBlocked drops them), the default list knows more secret
 * names, and maxFileSize holds for reads (read, cat, grep, search and check_access agree).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { startServe, type RpcSession } from '../trust/transports.js';

const CTX = { user: 'alice' };
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function folder(prefix: string, files: Record<string, string | Buffer>): string {
  const d = tempDir(prefix);
  dirs.push(d);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
    fs.writeFileSync(path.join(d, rel), text);
  }
  return d;
}

async function sh(nosh: Nosh, zone: string, command: string) {
  const r = await nosh.exec({ zone, context: CTX, command });
  if (!r.success) throw new Error(`${command}: ${r.error.code} ${r.error.message}`);
  return r.data;
}

const code = (r: { success: boolean; error?: { code: string } }) => (r.success ? 'ok' : r.error!.code);

describe('a blockedPatterns list adds to the default credential patterns', () => {
  let nosh: Nosh;
  const FILES = { '.env': 'needle env\n', 'server.key': 'needle key\n', 'app.log': 'needle log\n', 'main.py': 'needle main\n' };
  beforeAll(async () => {
    const base = folder('nosh-pol-base-', {});
    nosh = await createNosh({
      base, threads: 1,
      zones: { storage: { blockedPatterns: ['*.log'] } },
      mounts: [
        { name: 'own', path: folder('nosh-pol-own-', FILES), blockedPatterns: ['*.log'] },
        { name: 'bare', path: folder('nosh-pol-bare-', FILES), blockedPatterns: ['*.log'], replaceDefaultBlocked: true },
        { name: 'none', path: folder('nosh-pol-none-', FILES), replaceDefaultBlocked: true },
      ],
    });
    fs.mkdirSync(path.join(base, 'users', 'alice', 'Storage'), { recursive: true });
    for (const [n, t] of Object.entries(FILES)) fs.writeFileSync(path.join(base, 'users', 'alice', 'Storage', n), t);
  });
  afterAll(() => nosh.close());

  it('a mount with its own patterns still hides .env and *.key, and its own *.log', async () => {
    expect((await sh(nosh, 'own', 'ls -a')).stdout).toBe('.\n..\nmain.py\n');
    expect((await sh(nosh, 'own', 'grep -r needle .')).stdout).toBe('./main.py:needle main\n');
    for (const f of ['.env', 'server.key', 'app.log']) {
      expect(code(await nosh.call('read', { zone: 'own', context: CTX, path: f })), f).toBe('BLOCKED_PATH');
      const c = await sh(nosh, 'own', `cat ${f}`);
      expect(c.stdout, f).toBe('');
      expect(c.stderr, f).toMatch(/blocked by zone policy/);
    }
    const p = await nosh.call('check_access', { zone: 'own', context: CTX, path: '.env' });
    expect(p.success && p.data).toMatchObject({ allowed: false, code: 'BLOCKED_PATH' });
  });

  it('a zone kind with its own patterns keeps the defaults too', async () => {
    expect((await sh(nosh, 'storage', 'ls -a')).stdout).toBe('.\n..\nmain.py\n');
    for (const f of ['.env', 'server.key', 'app.log']) {
      expect(code(await nosh.call('read', { context: CTX, path: f })), f).toBe('BLOCKED_PATH');
    }
  });

  it('replaceDefaultBlocked: true drops the defaults (and keeps the listed patterns)', async () => {
    expect((await sh(nosh, 'bare', 'ls -a')).stdout).toBe('.\n..\n.env\nmain.py\nserver.key\n');
    expect((await sh(nosh, 'bare', 'cat .env')).stdout).toBe('needle env\n');
    expect(code(await nosh.call('read', { zone: 'bare', context: CTX, path: 'app.log' }))).toBe('BLOCKED_PATH');
    expect((await sh(nosh, 'none', 'ls -a')).stdout).toBe('.\n..\n.env\napp.log\nmain.py\nserver.key\n');
  });

  it('the effective patterns are listed by check_access', async () => {
    const own = await nosh.call('check_access', { zone: 'own', context: CTX, path: 'main.py' });
    const patterns = (own as { data: { policy: { blocked_patterns: string[] } } }).data.policy.blocked_patterns;
    expect(patterns).toEqual(expect.arrayContaining(['.env', '*.key', '*token*', '*.log']));
    const none = await nosh.call('check_access', { zone: 'none', context: CTX, path: 'main.py' });
    expect((none as { data: { policy: { blocked_patterns: string[] } } }).data.policy.blocked_patterns).toEqual([]);
  });
});

describe('the default list blocks the common secret names', () => {
  const SECRETS = ['api_token.txt', 'tokenize.ts', 'GITHUB_TOKEN', 'db.password', '.password', 'aws_credentials',
    'my_secret_notes.md', 'TopSecret', 'client_secrets.json', '.git-credentials', 'cert.p12', 'cert.PFX', 'vault.kdbx'];
  let nosh: Nosh;
  beforeAll(async () => {
    const files: Record<string, string> = { 'ok.txt': 'needle ok\n', 'sub/ok.md': 'needle sub\n' };
    for (const s of SECRETS) {
      files[s] = 'needle secret\n';
      files[`sub/${s}`] = 'needle secret\n';
    }
    nosh = await createNosh({ base: folder('nosh-pol-sec-base-', {}), threads: 1, root: folder('nosh-pol-sec-', files) });
  });
  afterAll(() => nosh.close());

  it('listings, find and grep -r show none of them', async () => {
    expect((await sh(nosh, 'root', 'ls -a')).stdout).toBe('.\n..\nok.txt\nsub\n');
    expect((await sh(nosh, 'root', 'find .')).stdout).toBe('.\n./ok.txt\n./sub\n./sub/ok.md\n');
    const g = await sh(nosh, 'root', 'grep -r needle .');
    expect(g.stdout).toBe('./ok.txt:needle ok\n./sub/ok.md:needle sub\n');
    const list = await nosh.call('list', { context: CTX, path: '.', recursive: true });
    expect(list.success).toBe(true);
    const found = await nosh.call('find', { context: CTX, pattern: '*' });
    const searched = await nosh.call('search', { context: CTX, pattern: 'needle', path: '.' });
    for (const [what, r] of [['list', list], ['find', found], ['search', searched]] as const) {
      expect(r.success, what).toBe(true);
      const text = JSON.stringify(r.success && r.data);
      for (const s of SECRETS) expect(text, `${what} ${s}`).not.toContain(s);
    }
  });

  for (const s of SECRETS) {
    it(`${s}: read, cat, grep, list and check_access refuse it`, async () => {
      for (const p of [s, `sub/${s}`]) {
        expect(code(await nosh.call('read', { context: CTX, path: p })), p).toBe('BLOCKED_PATH');
        expect(code(await nosh.call('list', { context: CTX, path: p })), p).toBe('BLOCKED_PATH');
        for (const cmd of [`cat ${p}`, `grep needle ${p}`]) {
          const r = await sh(nosh, 'root', cmd);
          expect(r.exit_code, cmd).not.toBe(0);
          expect(r.stdout, cmd).toBe('');
          expect(r.stderr, cmd).toMatch(/blocked by zone policy/);
        }
        const a = await nosh.call('check_access', { context: CTX, path: p });
        expect(a.success && a.data, p).toMatchObject({ allowed: false, code: 'BLOCKED_PATH' });
      }
    });
  }
});

describe('maxFileSize holds for reads: a larger file is refused, its listing still works', () => {
  const LIMIT = 1000;
  const BIG = 'needle big\n'.repeat(200); // 2200 bytes
  let nosh: Nosh;
  beforeAll(async () => {
    nosh = await createNosh({
      base: folder('nosh-pol-big-base-', {}), threads: 1, policy: { maxFileSize: LIMIT },
      root: folder('nosh-pol-big-', { 'big.txt': BIG, 'a/small.txt': 'needle small\n', 'z/other.txt': 'needle other\n' }),
      mounts: [{ name: 'docs', path: folder('nosh-pol-bigm-', { 'big.txt': BIG }), maxFileSize: LIMIT }],
    });
  });
  afterAll(() => nosh.close());

  it('read refuses it with FILE_TOO_LARGE, the hint naming the limit', async () => {
    for (const zone of ['root', 'docs']) {
      const r = await nosh.call('read', { zone, context: CTX, path: 'big.txt' });
      expect(r.success, zone).toBe(false);
      if (r.success) continue;
      expect(r.error.code).toBe('FILE_TOO_LARGE');
      expect(r.error.hint).toContain(`${LIMIT} bytes`);
      expect(r.error.details).toMatchObject({ size: BIG.length, limit: LIMIT });
    }
    const many = await nosh.call('read_many', { context: CTX, paths: ['big.txt', 'a/small.txt'] });
    expect(JSON.stringify(many)).toContain('FILE_TOO_LARGE');
    expect(JSON.stringify(many)).not.toContain('needle big');
  });

  it('cat, head, sed, grep, wc -l refuse it with a GNU-like message', async () => {
    for (const cmd of ['cat big.txt', 'head -n 1 big.txt', 'tail -n 1 big.txt', 'sed -n 1p big.txt', 'grep needle big.txt', 'wc -l big.txt', 'sort big.txt']) {
      const r = await sh(nosh, 'root', cmd);
      expect(r.stdout, cmd).not.toContain('needle big');
      expect(r.exit_code, cmd).not.toBe(0);
      expect(r.stderr, cmd).toMatch(/big\.txt'?(?: for reading)?: File too large\n$/);
    }
  });

  it('grep -r reports it, keeps the others and exits 2', async () => {
    const r = await sh(nosh, 'root', 'grep -r needle .');
    expect(r.stdout).toBe('./a/small.txt:needle small\n./z/other.txt:needle other\n');
    expect(r.stderr).toBe('grep: ./big.txt: File too large\n');
    expect(r.exit_code).toBe(2);
  });

  it('search skips it and says so; a search of the file itself is refused', async () => {
    const r = await nosh.call('search', { context: CTX, pattern: 'needle', path: '.' });
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(JSON.stringify(r.data)).not.toContain('needle big');
    expect(r.data).toMatchObject({ files_matched: 2, too_large_skipped: ['/big.txt'] });
    expect(r.message).toContain(`${LIMIT} bytes`);
    expect(code(await nosh.call('search', { context: CTX, pattern: 'needle', path: 'big.txt' }))).toBe('FILE_TOO_LARGE');
  });

  it('check_access says not readable and why', async () => {
    const r = await nosh.call('check_access', { context: CTX, path: 'big.txt', operation: 'read' });
    expect(r.success && r.data).toMatchObject({ allowed: false, code: 'FILE_TOO_LARGE' });
    expect(r.success && (r.data as { reason: string }).reason).toContain(`${LIMIT} bytes`);
    const small = await nosh.call('check_access', { context: CTX, path: 'a/small.txt', operation: 'read' });
    expect(small.success && small.data).toMatchObject({ allowed: true });
  });

  it('ls -l, stat, find -size and the stat tool still see it', async () => {
    expect((await sh(nosh, 'root', 'ls -l big.txt')).stdout).toContain(` ${BIG.length} `);
    expect((await sh(nosh, 'root', 'stat -c %s big.txt')).stdout).toBe(`${BIG.length}\n`);
    expect((await sh(nosh, 'root', 'find . -type f -size +1k')).stdout).toBe('./big.txt\n');
    const st = await nosh.call('stat', { context: CTX, path: 'big.txt' });
    expect(st.success && st.data).toMatchObject({ size: BIG.length, mime: 'text/plain', too_large: true, line_count: null });
  });
});

describe('over JSON-RPC (nosh serve --config): a mount with its own blockedPatterns keeps the defaults', () => {
  let rpc: RpcSession;
  const call = (method: string, params: Record<string, unknown>) => rpc.call(method, params);

  beforeAll(() => {
    const dir = folder('nosh-pol-rpc-', {});
    const course = folder('nosh-pol-rpc-course-', { '.env': 'needle env\n', 'id_rsa': 'needle key\n', 'api_token': 'needle tok\n',
      'x.log': 'needle log\n', 'main.py': 'needle main\n' });
    fs.writeFileSync(path.join(dir, 'nosh.json'), JSON.stringify({
      base: path.join(dir, 'ws'), mounts: [{ name: 'course', path: course, blockedPatterns: ['*.log'] }],
    }));
    rpc = startServe(['--config', path.join(dir, 'nosh.json'), '--user', 'alice']);
  });
  afterAll(async () => rpc?.close());

  it('ls, grep -r, cat, read and check_access', async () => {
    const ls = await call('exec', { zone: 'course', command: 'ls -a' });
    expect(ls.result.data.stdout).toBe('.\n..\nmain.py\n');
    const g = await call('exec', { zone: 'course', command: 'grep -r needle .' });
    expect(g.result.data.stdout).toBe('./main.py:needle main\n');
    for (const f of ['.env', 'id_rsa', 'api_token', 'x.log']) {
      const c = await call('exec', { zone: 'course', command: `cat ${f}` });
      expect(c.result.data.stdout, f).toBe('');
      expect(c.result.data.stderr, f).toMatch(/blocked by zone policy/);
      const r = await call('read', { zone: 'course', path: f });
      expect(r.result.error.code, f).toBe('BLOCKED_PATH');
      const a = await call('check_access', { zone: 'course', path: f });
      expect(a.result.data, f).toMatchObject({ allowed: false, code: 'BLOCKED_PATH' });
    }
  });
});
