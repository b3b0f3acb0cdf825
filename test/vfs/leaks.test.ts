// Defence 8: no host path appears in any output or error. Every Vfs method is driven with
// hostile paths in both symlink policies; every error must be a VfsError (a raw Node error
// would carry the host path in its message) and no text may contain the host path or /tmp/.
// Then whole tasks (executeTask) are run and their error bodies, details included, checked.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import { executeTask } from '../../src/exec/index.js';
import { VfsError, defaultPolicy, type ZonePolicy } from '../../src/vfs/index.js';
import { assertNoHostPaths, guardLeaks, makeZone, record, type Zone } from './fixture.js';

guardLeaks();

let z: Zone;
beforeEach(() => {
  z = makeZone();
  const out = path.join(z.base, 'outside');
  fs.mkdirSync(z.at('d/e'), { recursive: true });
  fs.writeFileSync(z.at('f.txt'), 'f\n');
  fs.writeFileSync(z.at('.env'), 'SECRET\n');
  fs.symlinkSync(path.join(out, 'secret.txt'), z.at('abs-link'));
  fs.symlinkSync(out, z.at('abs-dir'));
  fs.symlinkSync('../outside', z.at('rel-dir'));
  fs.symlinkSync(`${z.root}/../outside`, z.at('reenter'));
  fs.symlinkSync('self', z.at('self'));
  fs.symlinkSync(z.at('f.txt'), z.at('in-abs'));
  fs.linkSync(path.join(out, 'secret.txt'), z.at('hard'));
  execFileSync('mkfifo', [z.at('fifo')]);
});

const HOSTILE = [
  '../../outside/secret.txt', '/../outside', 'abs-link', 'abs-dir/secret.txt', 'abs-dir', 'rel-dir/secret.txt', 'reenter/secret.txt',
  'reenter', 'self', 'self/x', 'in-abs', 'hard', 'fifo', '.env', 'a\0b', 'n'.repeat(300), 'a/'.repeat(2100), 'f.txt/x', 'd', '/',
  'missing/x', 'd/e/../../..', '', '.nosh-tmp-x',
];

type Op = [string, (v: ReturnType<Zone['vfs']>, p: string) => unknown];
const OPS: Op[] = [
  ['resolve', (v, p) => v.resolve(p)],
  ['stat', (v, p) => v.stat(p)],
  ['lstat', (v, p) => v.lstat(p)],
  ['readFile', (v, p) => v.readFile(p)],
  ['readChunks', (v, p) => [...v.readChunks(p)]],
  ['readdir', (v, p) => v.readdir(p)],
  ['readlink', (v, p) => v.readlink(p)],
  ['writeFile', (v, p) => v.writeFile(p, 'x')],
  ['append', (v, p) => v.writeFile(p, 'x', '/', { append: true })],
  ['mkdir', (v, p) => v.mkdir(p)],
  ['chmod', (v, p) => v.chmod(p, 0o600)],
  ['utimes', (v, p) => v.utimes(p, 1, 1)],
  ['rename-from', (v, p) => v.rename(p, 'renamed')],
  ['rename-to', (v, p) => v.rename('d/e', p)],
  ['unlink', (v, p) => v.unlink(p)],
  ['rmdir', (v, p) => v.rmdir(p)],
];

describe('no host path in any error', () => {
  test('every Vfs method on every hostile path fails with a VfsError free of host paths', () => {
    const texts: string[] = [];
    const raw: string[] = [];
    const outputs: string[] = [];
    const policies: Partial<ZonePolicy>[] = [
      { blockedPatterns: ['.env'] },
      { blockedPatterns: ['.env'], followSymlinks: true },
      { readonly: true, allowDelete: false, allowedExtensions: ['.txt'] },
    ];
    for (const policy of policies) {
      for (const [name, op] of OPS) {
        for (const p of HOSTILE) {
          const vfs = z.vfs(policy);
          try {
            const out = op(vfs, p);
            outputs.push(JSON.stringify(out ?? null, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
          } catch (e) {
            record(e);
            if (e instanceof VfsError) texts.push(e.message, JSON.stringify(e.details));
            else raw.push(`${name}(${JSON.stringify(p.slice(0, 30))}): ${String(e)}`);
          }
          // keep the tree stable for the next op
          if (!fs.existsSync(z.at('d/e'))) fs.mkdirSync(z.at('d/e'), { recursive: true });
        }
      }
    }
    expect(raw).toEqual([]);
    assertNoHostPaths(texts);
    // successful outputs carry no host path either (Resolved.host is internal: drop it)
    assertNoHostPaths(outputs.map((o) => o.replace(/"host":"[^"]*"/g, '')));
    expect(fs.readFileSync(path.join(z.base, 'outside/secret.txt'), 'utf8')).toContain('SECRET');
  });

  test('readlink output never contains the host root, for any kind of target', () => {
    const vfs = z.vfs();
    for (const l of ['abs-link', 'abs-dir', 'rel-dir', 'reenter', 'self', 'in-abs']) {
      const t = vfs.readlink(l);
      assertNoHostPaths([t]);
    }
  });
});

async function task(over: Partial<Parameters<typeof executeTask>[0]>) {
  return executeTask({
    root: z.root, policy: defaultPolicy({ blockedPatterns: ['.env'] }), cwd: '/',
    stages: [{ argv: ['true'] }],
    limits: { maxOutputBytes: 100_000, maxResults: 1000, maxBufferBytes: 1 << 20 },
    ...over,
  });
}

describe('task error bodies', () => {
  test('failing tasks: error message, hint and details carry virtual paths only', async () => {
    const bodies: string[] = [];
    const cases: Partial<Parameters<typeof executeTask>[0]>[] = [
      { cwd: '/nope' },
      { cwd: '/abs-dir' },
      { cwd: '/f.txt' },
      { cwd: '/../../outside' },
      { cwd: '/reenter', policy: defaultPolicy({ followSymlinks: true }) },
      { cwd: 'a\0b' },
      { stdoutFile: '/abs-link' },
      { stdoutFile: '/abs-dir/x' },
      { stdoutFile: '/.env' },
      { stdoutFile: '/hard' },
      { stdoutFile: '/fifo' },
      { stdoutFile: '/missing/x' },
      { stdoutFile: '/f.txt', policy: defaultPolicy({ readonly: true }) },
      { stdoutFile: '/reenter/x', policy: defaultPolicy({ followSymlinks: true }) },
      { stages: [{ argv: ['no-such-command'] }] },
      // ('hard' is left out: reading through a host-made hard link is allowed by design)
      { stages: [{ argv: ['cat', '/abs-link', 'abs-dir/secret.txt', 'reenter/secret.txt', '.env', 'fifo', 'self'] }], policy: defaultPolicy({ followSymlinks: true, blockedPatterns: ['.env'] }) },
      { root: path.join(z.base, 'no-such-root') },
      { root: path.join(z.base, 'canary.txt') },
    ];
    for (const c of cases) {
      const res = await task(c);
      // Buffers are turned into {type:'Buffer',data} by toJSON before a replacer sees them
      const text = JSON.stringify(res, (_k, v) => (v && v.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString('utf8') : v));
      bodies.push(text);
      record(new Error(text));
      if (!res.ok) {
        expect(res.error.code).toMatch(/^[A-Z_]+$/);
        expect(typeof res.error.hint).toBe('string');
      }
    }
    assertNoHostPaths(bodies);
    // the cat run read nothing secret, and its stderr is really in the checked text
    expect(bodies.join('\n')).not.toContain('TOP SECRET');
    expect(bodies.join('\n')).toContain('cat: /abs-link:');
    expect(bodies.join('\n')).toContain('command not found');
  });
});
