// sed behaviour the GNU fixtures cannot show: refused commands, zone clamping and policy,
// regex safety, streaming across chunk boundaries.
import * as v8 from 'node:v8';
v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, runArgv, tempDir } from '../helpers.js';

const scratch = tempDir('nosh-sed-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let n = 0;
function zone(files: Record<string, string | Buffer>): string {
  const root = path.join(scratch, `z${n++}`, 'root');
  fs.mkdirSync(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    const p = path.join(root, name);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
  return root;
}

describe('sed: e is refused, nothing runs', () => {
  it('sed 1e', async () => {
    const root = zone({ 'a.txt': 'touch pwned\n' });
    const out = await run(root, 'sed 1e a.txt');
    expect(out.exitCode).toBe(1);
    expect(out.stdout.length).toBe(0);
    expect(out.stderr).toBe('sed: -e expression #1, char 2: e command is not supported in nosh (no shell)\n');
    expect(fs.existsSync(path.join(root, 'pwned'))).toBe(false);
  });
  it("sed 's/x/y/e'", async () => {
    const root = zone({ 'a.txt': 'x\n' });
    const out = await run(root, "sed 's/x/touch pwned/e' a.txt");
    expect(out.exitCode).toBe(1);
    expect(out.stdout.length).toBe(0);
    expect(out.stderr).toMatch(/^sed: -e expression #1, char \d+: e flag of the s command is not supported in nosh \(no shell\)\n$/);
    expect(fs.existsSync(path.join(root, 'pwned'))).toBe(false);
  });
  it('e inside a -f script is refused too', async () => {
    const root = zone({ 's.sed': 'p\ne ls\n', 'a.txt': 'x\n' });
    const out = await run(root, 'sed -f s.sed a.txt');
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toBe('sed: file s.sed line 2: e command is not supported in nosh (no shell)\n');
  });
});

describe('sed: GNU options nosh does not offer', () => {
  it('--posix, --debug and --follow-symlinks are usage errors that say why', async () => {
    const root = zone({ 'a.txt': 'a\n' });
    for (const [flag, why] of [
      ['--posix', '--posix is not supported: nosh keeps the GNU extensions on; run the script without it'],
      ['--debug', '--debug is not supported: nosh prints no execution trace; run the script without it'],
      ['--follow-symlinks', '--follow-symlinks is not supported: sed -i never edits through a symbolic link; name the file it points to'],
    ]) {
      const out = await runArgv(root, ['sed', '-n', flag!, 'p', 'a.txt']);
      expect([out.exitCode, out.stdout.toString(), out.stderr]).toEqual([1, '', `sed: ${why}\nTry 'sed --help' for more information.\n`]);
    }
  });
});

describe('sed: files go through the virtual root', () => {
  it("w /../../x stays inside the zone", async () => {
    const root = zone({ 'a.txt': 'hello\n' });
    const parent = path.dirname(root);
    const out = await run(root, "sed 'w /../../x' a.txt");
    expect(out.exitCode).toBe(0);
    expect(out.stdout.toString()).toBe('hello\n');
    expect(fs.readFileSync(path.join(root, 'x'), 'utf8')).toBe('hello\n');
    expect(fs.existsSync(path.join(parent, 'x'))).toBe(false);
    expect(fs.existsSync(path.join(path.dirname(parent), 'x'))).toBe(false);
  });
  it('r /../../etc/passwd reads inside the zone only', async () => {
    const root = zone({ 'a.txt': 'hello\n', 'etc/passwd': 'zone file\n' });
    const out = await run(root, "sed 'r /../../etc/passwd' a.txt");
    expect(out.stdout.toString()).toBe('hello\nzone file\n');
  });
  it('read-only zone refuses sed -i', async () => {
    const root = zone({ 'a.txt': 'a\n' });
    const out = await run(root, 'sed -i s/a/b/ a.txt', { policy: { readonly: true } });
    expect(out.error?.code).toBe('ZONE_READONLY');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });
  it('read-only zone refuses w, --in-place=SUF and s///w', async () => {
    const root = zone({ 'a.txt': 'a\n' });
    for (const line of ["sed 'w out' a.txt", 'sed --in-place=.bak p a.txt', "sed -n 's/a/b/w out' a.txt", 'sed -ni.b p a.txt']) {
      const out = await run(root, line, { policy: { readonly: true } });
      expect(out.error?.code, line).toBe('ZONE_READONLY');
    }
    expect(fs.existsSync(path.join(root, 'out'))).toBe(false);
  });
  it('read-only zone refuses w hidden in a -f script at run time', async () => {
    const root = zone({ 'a.txt': 'a\n', 's.sed': 'w out\n' });
    const out = await run(root, 'sed -f s.sed a.txt', { policy: { readonly: true } });
    expect(out.error?.code).toBe('ZONE_READONLY');
    expect(fs.existsSync(path.join(root, 'out'))).toBe(false);
  });
  it('read-only zone still allows reading scripts and w /dev/stdout', async () => {
    const root = zone({ 'a.txt': 'a\n' });
    const out = await run(root, "sed -n 'p;w /dev/stdout' a.txt", { policy: { readonly: true } });
    expect(out.error).toBeUndefined();
    expect(out.stdout.toString()).toBe('a\na\n');
  });
  it('-i reports the change and leaves no temp file', async () => {
    const root = zone({ 'a.txt': 'a\nb\n' });
    const out = await run(root, 'sed -i.bak s/a/X/ a.txt');
    expect(out.exitCode).toBe(0);
    expect(fs.readdirSync(root).sort()).toEqual(['a.txt', 'a.txt.bak']);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('X\nb\n');
    expect(fs.readFileSync(path.join(root, 'a.txt.bak'), 'utf8')).toBe('a\nb\n');
  });
});

describe('sed: regex safety', () => {
  it("sed -E 's/(a|aa)*c/x/' on a long line finishes", async () => {
    const root = zone({ 'a.txt': 'a'.repeat(50_000) + '\n' });
    const t = Date.now();
    const out = await run(root, "sed -E 's/(a|aa)*c/x/' a.txt");
    expect(out.exitCode).toBe(0);
    expect(out.stdout.length).toBe(50_001);
    expect(Date.now() - t).toBeLessThan(10_000);
  });
});

describe('sed: streaming', () => {
  it('lines split across chunk boundaries, long lines, last line without newline', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 40_000; i++) lines.push(`line ${i} ${'ab'.repeat(i % 50)}`);
    lines.push('x'.repeat(700_000));
    const text = lines.join('\n');
    const root = zone({ 'big.txt': text });
    const out = await run(root, 'sed s/a/A/g big.txt');
    expect(out.stdout.toString('latin1')).toBe(text.replace(/a/g, 'A'));
    const cnt = await run(root, "sed -n '$=' big.txt");
    expect(cnt.stdout.toString()).toBe('40001\n');
  });
  it('binary bytes survive unchanged', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const root = zone({ 'b.bin': bytes });
    const out = await runArgv(root, ['sed', '', 'b.bin']);
    expect(out.stdout.equals(bytes)).toBe(true);
  });
  it('case conversion is ASCII-only', async () => {
    const root = zone({ 'l.txt': Buffer.from([0x61, 0xe9, 0x0a]) });
    const out = await runArgv(root, ['sed', 's/.*/\\U&/', 'l.txt']);
    expect([...out.stdout]).toEqual([0x41, 0xe9, 0x0a]);
  });
  // Its speed is measured in bench/ (bigfile/sed), not asserted here.
  it('sed s/a/b/g over a 20 MB file reaches the last line', async () => {
    const line = 'banana alpha gamma delta epsilon zeta eta theta\n';
    const root = zone({ 'm.txt': line.repeat(Math.ceil(20e6 / line.length)) });
    const res = await run(root, "sed -n 's/a/b/g;$p' m.txt");
    expect(res.stdout.toString()).toBe(line.replace(/a/g, 'b'));
  }, 60_000);
});

describe('sed: N gathers many lines (the pattern space kept in joined pieces)', () => {
  // Expected bytes: GNU sed 4.9 over `seq 10000` (sha256 of its output).
  const root = zone({ 'n.txt': Array.from({ length: 10000 }, (_, i) => `${i + 1}\n`).join('') });
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  it.each([
    [":a;N;$!ba;s/\\n/,/g", '36eae3b013b10495380b22f98d0b157561041bba57416c19654f5eba8d9289df'],
    ['$!{H;d};H;x;s/\\n/,/g;p', '9cac0c530a3872a7f039a39bc140b70cbd448981124af645b15f6c1426923275'],
  ])('%s', async (script, want) => {
    const r = await runArgv(root, ['sed', '-n', ...(script.startsWith(':') ? ['-e', script, '-e', 'p'] : [script]), 'n.txt']);
    expect(r.exitCode).toBe(0);
    expect(sha(r.stdout)).toBe(want);
  });
  it('N;N;P over 10 000 lines ends as GNU', async () => {
    const r = await runArgv(root, ['sed', '-n', 'N;N;s/\\n/+/g;P', 'n.txt']);
    expect(r.stdout.toString().split('\n').slice(-3)).toEqual(['9994+9995+9996', '9997+9998+9999', '']);
  });
});
