// diff, cmp and patch cannot reach outside the zone: --from-file / --to-file and operands
// naming host files or climbing with '..', and patches whose headers name ../.. or absolute
// paths or whose targets go through a symlink pointing out are refused WHOLE: no file of
// the patch changes, the outside is untouched. Through the command runner, the library
// (createNosh) and JSON-RPC (`nosh serve`).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { run, snapshotTree } from '../helpers.js';
import { zone } from './fileops-fixture.js';

const PATCH_OK = '--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-a\n+A\n';
const escapePatch = (name: string) => `${PATCH_OK}--- ${name}\n+++ ${name}\n@@ -1 +1 @@\n-outside\n+pwned\n`;

describe('diff and cmp stay in the zone', () => {
  it('--from-file=/etc/hostname reads the zone\'s /etc/hostname, never the host\'s', async () => {
    const z = zone({ 'a.txt': 'a\n' });
    const r = await run(z.root, 'diff --from-file=/etc/hostname a.txt');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('diff: /etc/hostname: No such file or directory\n');
    expect(r.stdout.toString()).toBe('');
  });

  it('../ escapes in operands, --to-file and cmp are refused, and nothing outside is shown', async () => {
    const z = zone({ 'a.txt': 'a\n' });
    for (const line of ['diff a.txt ../outside/keep.txt', 'diff --to-file=../outside/keep.txt a.txt', 'diff -r . ../outside', 'cmp a.txt ../outside/keep.txt', 'diff -u a.txt ../../../../../../etc/passwd']) {
      const r = await run(z.root, line);
      expect(r.exitCode, line).toBe(2);
      expect(r.stdout.toString(), line).not.toContain('outside');
      expect(r.stdout.toString(), line).not.toContain('root:');
    }
  });

  it('a symlink pointing out is not followed', async () => {
    const z = zone({ 'a.txt': 'a\n' });
    fs.symlinkSync(path.join(z.outside, 'keep.txt'), z.at('link'));
    const r = await run(z.root, 'diff a.txt link');
    expect(r.exitCode).toBe(2);
    expect(r.stdout.toString()).not.toContain('outside');
  });
});

describe('patch refuses a patch that would write outside the zone, whole', () => {
  for (const [what, name] of [['../ climbing', '../outside/keep.txt'], ['an absolute path', '/etc/passwd'], ['deep ../../', 'd/../../x']] as const) {
    it(`a header with ${what}: refused before the first file is patched`, async () => {
      const z = zone({ 'a.txt': 'a\n', 'd/x': 'x\n' });
      const before = snapshotTree(z.root);
      const r = await run(z.root, 'patch -p0', { stdin: escapePatch(name) });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('refused, no file was changed');
      expect(snapshotTree(z.root)).toEqual(before);
      expect(fs.readFileSync(path.join(z.outside, 'keep.txt'), 'utf8')).toBe('outside\n');
    });
  }

  it('a target reached through a symlink pointing out is refused, no file changed', async () => {
    const z = zone({ 'a.txt': 'a\n' });
    fs.symlinkSync(z.outside, z.at('out'));
    const before = snapshotTree(z.root);
    const r = await run(z.root, 'patch -p0', { stdin: escapePatch('out/keep.txt') });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('refused, no file was changed');
    expect(snapshotTree(z.root)).toEqual(before);
    expect(fs.readFileSync(path.join(z.outside, 'keep.txt'), 'utf8')).toBe('outside\n');
  });

  it('a symlinked file in the zone is not written through either (the link itself is the target)', async () => {
    const z = zone({ 'a.txt': 'a\n', 'real.txt': 'outside\n' });
    fs.symlinkSync('real.txt', z.at('ln.txt'));
    const r = await run(z.root, 'patch -p0', { stdin: escapePatch('ln.txt') });
    expect(r.exitCode).toBe(2);
    expect(fs.readFileSync(z.at('a.txt'), 'utf8')).toBe('a\n');
    expect(fs.readFileSync(z.at('real.txt'), 'utf8')).toBe('outside\n');
  });

  it('-o and the patch file itself cannot leave the zone (.. stops at the zone root)', async () => {
    const z = zone({ 'a.txt': 'a\n', 'p.diff': PATCH_OK });
    fs.symlinkSync(z.outside, z.at('out'));
    const r1 = await run(z.root, 'patch -o out/keep.txt -i p.diff');
    expect(r1.exitCode).toBe(2);
    expect(r1.stderr).toContain('refused, no file was changed');
    const r2 = await run(z.root, 'patch -i out/keep.txt');
    expect(r2.exitCode).toBe(2);
    const r3 = await run(z.root, 'patch -o ../../keep.txt -i p.diff');
    expect(r3.exitCode).toBe(0);
    expect(fs.readFileSync(z.at('keep.txt'), 'utf8')).toBe('A\n');
    expect(fs.readFileSync(path.join(z.outside, 'keep.txt'), 'utf8')).toBe('outside\n');
    expect(fs.readFileSync(z.at('a.txt'), 'utf8')).toBe('a\n');
  });

  it('the library refuses it the same way, and patch is refused in a read-only zone unless --dry-run', async () => {
    const z = zone({ 'a.txt': 'a\n' });
    const n = await createNosh({ root: z.root, threads: 1 });
    try {
      const r = await n.exec({ command: 'patch -p0' }, { stdin: escapePatch('../outside/keep.txt') });
      expect(r.success && r.data.exit_code).toBe(2);
      expect(fs.readFileSync(z.at('a.txt'), 'utf8')).toBe('a\n');
    } finally {
      await n.close();
    }
    const ro = await createNosh({ root: z.root, threads: 1, policy: { readonly: true } });
    try {
      const w = await ro.exec({ command: 'patch -p0' }, { stdin: PATCH_OK });
      expect(w.success).toBe(false);
      const d = await ro.exec({ command: 'patch --dry-run -p0' }, { stdin: PATCH_OK });
      expect(d.success && d.data.stdout).toBe('checking file a.txt\n');
      expect(fs.readFileSync(z.at('a.txt'), 'utf8')).toBe('a\n');
    } finally {
      await ro.close();
    }
  });

  it('over JSON-RPC (nosh serve): the escaping patch is refused, the zone and the outside unchanged', async () => {
    const z = zone({ 'a.txt': 'a\n' });
    const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
    const proc = spawn(process.execPath, [bin, 'serve', '--root', z.root], { stdio: 'pipe' });
    let buf = '';
    const reply = new Promise<any>((resolve) => {
      proc.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const i = buf.indexOf('\n');
        if (i >= 0) resolve(JSON.parse(buf.slice(0, i)));
      });
    });
    proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'exec', params: { command: 'patch -p0', stdin: escapePatch('/../outside/keep.txt') } }) + '\n');
    const msg = await reply;
    proc.kill();
    expect(msg.result.data.exit_code).toBe(2);
    expect(msg.result.data.stderr).toContain('refused');
    expect(fs.readFileSync(z.at('a.txt'), 'utf8')).toBe('a\n');
    expect(fs.readFileSync(path.join(z.outside, 'keep.txt'), 'utf8')).toBe('outside\n');
  });
});
