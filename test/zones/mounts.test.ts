/**
 * Issue 4 mounts: a host folder as a read-only zone whose allowed extensions and blocked
 * patterns hold for cat, grep -r, find, ls, tree and the typed tools.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let nosh: Nosh;
let base: string;
let course: string;
const CTX = { user: 'alice' };

beforeAll(async () => {
  base = tempDir('nosh-mount-base-');
  course = tempDir('nosh-mount-course-');
  const files: Record<string, string> = {
    'main.py': 'print("needle main")\n',
    'notes.txt': 'needle in a text file\n',
    'secret.py': 'needle secret\n',
    'sub/util.py': 'needle util\n',
    'sub/SECRET_KEYS.PY': 'needle upper secret\n',
    'sub/data.TXT': 'needle upper txt\n',
    'sub/.env': 'needle env\n',
    'secrets/inner.py': 'needle in a blocked folder\n',
    'pkg/ok.py': 'fine\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(course, rel)), { recursive: true });
    fs.writeFileSync(path.join(course, rel), text);
  }
  nosh = await createNosh({
    base, threads: 2,
    mounts: [{ name: 'course', path: course, readonly: true, allowedExtensions: ['.py'], blockedPatterns: ['secret*'] }],
  });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(base, { recursive: true, force: true });
  fs.rmSync(course, { recursive: true, force: true });
});

async function run(command: string, cwd = '/') {
  const r = await nosh.exec({ zone: 'course', context: CTX, cwd, command });
  if (!r.success) throw new Error(`${command}: ${r.error.code} ${r.error.message}`);
  return r.data;
}

const HIDDEN = /notes|\.txt|\.TXT|secret|SECRET|\.env|inner/;

describe('listings and searches never show filtered files', () => {
  it('ls', async () => {
    expect((await run('ls')).stdout).toBe('main.py\npkg\nsub\n');
    expect((await run('ls -a sub')).stdout).toBe('.\n..\nutil.py\n');
    const r = await run('ls -laR /');
    expect(r.stdout).not.toMatch(HIDDEN);
    expect(r.stdout).toContain('util.py');
  });

  it('find', async () => {
    expect((await run('find . -type f')).stdout).toBe('./main.py\n./pkg/ok.py\n./sub/util.py\n');
    expect((await run('find / -name "*.txt"')).stdout).toBe('');
    expect((await run('find . -iname "secret*"')).stdout).toBe('');
    expect((await run('find . -name ".env"')).stdout).toBe('');
  });

  it('grep -r', async () => {
    const r = await run('grep -rn needle .');
    expect(r.stdout).toBe('./main.py:1:print("needle main")\n./sub/util.py:1:needle util\n');
    expect((await run('grep -ril needle /')).stdout).toBe('/main.py\n/sub/util.py\n');
    expect((await run('grep -r "needle in" .')).stdout).toBe('');
  });

  it('tree', async () => {
    const r = await run('tree');
    // tree 2.x counts the starting folder: ., pkg, sub (the blocked secrets/ is not counted).
    expect(r.stdout).toBe('.\n|-- main.py\n|-- pkg\n|   `-- ok.py\n`-- sub\n    `-- util.py\n\n3 directories, 3 files\n');
    expect((await run('tree -a')).stdout).not.toMatch(HIDDEN);
  });

  it('glob expansion does not produce filtered names', async () => {
    const r = await run('cat sub/*');
    expect(r.stdout).toBe('needle util\n');
    expect(r.stderr).toBe('');
    expect((await run('ls *')).stdout).not.toMatch(HIDDEN);
    const s = await run('cat */*.py');
    expect(s.stdout).toBe('fine\nneedle util\n');
  });

  it('the typed tools filter the same way', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['list', { path: '/' }], ['list', { path: '/sub' }], ['find', { path: '/' }], ['tree', { path: '/' }],
      ['search', { pattern: 'needle', path: '/' }],
    ];
    for (const [m, p] of calls) {
      const r = await nosh.call(m, { zone: 'course', context: CTX, ...p });
      expect(r.success, m).toBe(true);
      expect(JSON.stringify(r.success && r.data), m).not.toMatch(HIDDEN);
    }
  });
});

describe('reading a filtered file directly fails with the policy reason', () => {
  const cases: [string, RegExp][] = [
    ['notes.txt', /extension not allowed/],
    ['sub/data.TXT', /extension not allowed/],
    ['secret.py', /blocked by zone policy/],
    ['sub/SECRET_KEYS.PY', /blocked by zone policy/],
    ['secrets/inner.py', /blocked by zone policy/],
    ['sub/.env', /blocked|not allowed/],
  ];
  for (const [file, reason] of cases) {
    it(`${file}`, async () => {
      for (const cmd of [`cat ${file}`, `head -n 1 ${file}`, `wc -l ${file}`, `grep needle ${file}`, `ls ${file}`, `stat ${file}`, `find ${file}`]) {
        const r = await run(cmd);
        expect(r.exit_code, cmd).not.toBe(0);
        expect(r.stdout, cmd).not.toContain('needle');
        expect(r.stderr, cmd).toMatch(reason);
        expect(r.stderr, cmd).not.toContain(course);
      }
      // Reached by a path that walks around it.
      const round = await run(`cat sub/../${file}`);
      expect(round.stdout).not.toContain('needle');
      for (const m of ['read', 'stat']) {
        const t = await nosh.call(m, { zone: 'course', context: CTX, path: file });
        expect(!t.success && t.error.code, `${m} ${file}`).toBe('BLOCKED_PATH');
      }
    });
  }

  it('check_access explains the refusal', async () => {
    const r = await nosh.call('check_access', { zone: 'course', context: CTX, path: 'notes.txt' });
    expect(JSON.stringify(r)).toMatch(/extension|BLOCKED/);
  });
});

describe('a readonly mount refuses writes', () => {
  for (const cmd of ['touch new.py', 'cp main.py copy.py', 'mkdir d', 'rm main.py', 'mv main.py x.py', 'sed -i s/a/b/ main.py']) {
    it(cmd, async () => {
      const r = await nosh.exec({ zone: 'course', context: CTX, command: cmd });
      expect(!r.success && r.error.code).toBe('ZONE_READONLY');
    });
  }

  it('the write tools and stdout_file are refused, the folder is unchanged', async () => {
    for (const [m, p] of [['write', { path: 'w.py', content: 'x' }], ['mkdir', { path: 'd' }], ['delete', { path: 'main.py' }]] as const) {
      const r = await nosh.call(m, { zone: 'course', context: CTX, ...p });
      expect(!r.success && r.error.code, m).toBe('ZONE_READONLY');
    }
    const so = await nosh.exec({ zone: 'course', context: CTX, command: 'cat main.py' }, { stdoutFile: 'out.py' });
    expect(so.success && so.data.exit_code === 0).toBe(false);
    expect(fs.readdirSync(course).sort()).toEqual(['main.py', 'notes.txt', 'pkg', 'secret.py', 'secrets', 'sub']);
  });

  it('a mount is not a transfer source or destination', async () => {
    const r = await nosh.call('transfer', { context: CTX, from: 'course', to: 'storage', path: 'main.py' });
    expect(r.success).toBe(false);
  });

  it('parameters show the mount without its host path', async () => {
    const r = await nosh.call('parameters', {});
    expect(JSON.stringify(r)).toContain('"course"');
    expect(JSON.stringify(r)).not.toContain(course);
  });
});
