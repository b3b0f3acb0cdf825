// awk behaviour the GNU fixtures cannot show: everything that would leave the zone or run
// another program is refused by name (whatever the program text looks like), output files are
// Vfs writes, ENVIRON shows nothing of the host.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, runArgv, tempDir } from '../helpers.js';

const scratch = tempDir('nosh-awk-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let n = 0;
function zone(files: Record<string, string> = {}): string {
  const root = path.join(scratch, `z${n++}`, 'root');
  fs.mkdirSync(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    const p = path.join(root, name);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
  return root;
}

const NO_PROGRAM = /is not supported in nosh: nosh runs no other program/;

describe('awk: running a command is refused, nothing runs', () => {
  const programs: [string, RegExp][] = [
    ['BEGIN { system("touch pwned") }', /system\(\) is not supported/],
    ['BEGIN { x = system("touch pwned"); print x }', /system\(\) is not supported/],
    ['BEGIN { "touch pwned" | getline }', /"command" \| getline \(input from a command\) is not supported/],
    ['BEGIN { "touch pwned" | getline line; print line }', /\| getline/],
    ['BEGIN { print "x" | "sh" }', /print \| "command"/],
    ['BEGIN { cmd = "sh"; print "touch pwned" | cmd }', /print \| "command"/],
    ['{ print $0 | ("s" "h") }', /print \| "command"/],
    ['BEGIN { printf "touch pwned\\n" | "sh" }', /print \| "command"/],
    ['BEGIN { print "x" |& "sh" }', /\|& \(a coprocess\)/],
    ['BEGIN { "sh" |& getline }', /\|& \(a coprocess\)/],
    ['END { close("x"); system("") }', /system\(\)/],
  ];
  for (const [prog, msg] of programs) {
    it(prog, async () => {
      const root = zone({ 'in.txt': 'touch pwned\n' });
      const out = await runArgv(root, ['awk', prog, 'in.txt']);
      expect(out.exitCode).toBe(2);
      expect(out.stdout.length).toBe(0);
      expect(out.stderr).toMatch(msg);
      expect(out.stderr).toMatch(NO_PROGRAM);
      expect(fs.existsSync(path.join(root, 'pwned'))).toBe(false);
    });
  }

  it('in a -f program file too, and through the gawk name', async () => {
    const root = zone({ 'p.awk': 'BEGIN {\n  cmd = "sh"\n  print "touch pwned" | cmd\n}\n' });
    for (const name of ['awk', 'gawk']) {
      const out = await runArgv(root, [name, '-f', 'p.awk']);
      expect(out.exitCode).toBe(2);
      expect(out.stderr).toMatch(new RegExp(`^${name}: .*print \\| "command"`));
    }
    expect(fs.existsSync(path.join(root, 'pwned'))).toBe(false);
  });

  it('the words inside strings and regexes are only text', async () => {
    const root = zone();
    const out = await runArgv(root, ['awk', 'BEGIN { s = "system(\\"sh\\") | getline"; if (s ~ /system|getline/) print s; print "a|b" }']);
    expect(out.exitCode).toBe(0);
    expect(out.stdout.toString()).toBe('system("sh") | getline\na|b\n');
  });

  it('a variable named like a command is fine; system used as a variable is a syntax error', async () => {
    const root = zone();
    let out = await runArgv(root, ['awk', 'BEGIN { sh = 1; print sh + 1 }']);
    expect(out.stdout.toString()).toBe('2\n');
    out = await runArgv(root, ['awk', 'BEGIN { system = 1 }']);
    expect(out.exitCode).toBe(2);
    expect(fs.readdirSync(root)).toEqual([]);
  });
});

describe('awk: extensions and network files are refused', () => {
  it('@load', async () => {
    const out = await runArgv(zone(), ['awk', '@load "filefuncs"\nBEGIN { print 1 }']);
    expect(out.exitCode).not.toBe(0);
    expect(out.stdout.length).toBe(0);
    expect(out.stderr).toMatch(/@load is not supported in nosh/);
  });
  it('-l / --load', async () => {
    for (const args of [['-l', 'filefuncs'], ['--load=filefuncs']]) {
      const out = await runArgv(zone(), ['awk', ...args, 'BEGIN { print 1 }']);
      expect(out.exitCode).toBe(2);
      expect(out.stderr).toMatch(/--load is not supported in nosh/);
    }
  });
  it('print to /inet/... and getline from it, dynamic names included', async () => {
    const root = zone();
    for (const prog of [
      'BEGIN { print "GET /" > "/inet/tcp/0/example.com/80" }',
      'BEGIN { f = "/inet" "/tcp/0/example.com/80"; print "x" >> f }',
      'BEGIN { getline line < "/inet/tcp/0/example.com/80" }',
    ]) {
      const out = await runArgv(root, ['awk', prog]);
      expect(out.exitCode).toBe(2);
      expect(out.stderr).toMatch(/network files \(\/inet\) are not supported in nosh/);
    }
    expect(fs.readdirSync(root)).toEqual([]);
  });
  it('--posix is refused with a message', async () => {
    const out = await runArgv(zone(), ['awk', '--posix', 'BEGIN { print 1 }']);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(/--posix is not supported in nosh/);
  });
});

describe('awk: files are zone files', () => {
  it('-f, @include, getline < and print > never reach the host', async () => {
    const root = zone({ 'lib.awk': 'function twice(x) { return 2 * x }\n' });
    let out = await runArgv(root, ['awk', '-f', '/etc/passwd']);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(/cannot open source file `\/etc\/passwd'/);
    out = await runArgv(root, ['awk', '@include "lib.awk"\nBEGIN { print twice(21) }']);
    expect(out.stdout.toString()).toBe('42\n');
    out = await runArgv(root, ['awk', '@include "../../../../../../etc/passwd"\nBEGIN { print 1 }']);
    expect(out.exitCode).toBe(2);
    expect(out.stdout.length).toBe(0);
    out = await runArgv(root, ['awk', 'BEGIN { while ((getline l < "../../../../../../../etc/passwd") > 0) print l; print "end" }']);
    expect(out.stdout.toString()).toBe('end\n');
    out = await runArgv(root, ['awk', '{ print }', '../../../../../../../etc/passwd']);
    expect(out.exitCode).toBe(2);
    expect(out.stdout.toString()).not.toMatch(/root:/);
    // `..` stops at the zone's root, as for every command: the file lands inside the zone
    out = await runArgv(root, ['awk', 'BEGIN { print "x" > "../../escape.txt" }']);
    expect(fs.existsSync(path.join(root, '..', '..', 'escape.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, '..', 'escape.txt'))).toBe(false);
    if (out.exitCode === 0) expect(fs.readFileSync(path.join(root, 'escape.txt'), 'utf8')).toBe('x\n');
  });

  it('print > writes a zone file, >> appends, close() commits it', async () => {
    const root = zone({ 'old.txt': 'old\n' });
    const out = await runArgv(root, ['awk', 'BEGIN { print "a" > "new.txt"; print "b" > "new.txt"; print "c" >> "old.txt"; close("new.txt"); while ((getline l < "new.txt") > 0) print "read", l }']);
    expect(out.exitCode).toBe(0);
    expect(out.stdout.toString()).toBe('read a\nread b\n');
    expect(fs.readFileSync(path.join(root, 'new.txt'), 'utf8')).toBe('a\nb\n');
    expect(fs.readFileSync(path.join(root, 'old.txt'), 'utf8')).toBe('old\nc\n');
  });

  it('a read-only zone refuses a program that redirects, before it runs', async () => {
    const root = zone({ 'a.txt': 'x\n' });
    const out = await run(root, `awk '{ print > "copy.txt" }' a.txt`, { policy: { readonly: true } });
    expect(out.error?.code).toBe('ZONE_READONLY');
    expect(fs.existsSync(path.join(root, 'copy.txt'))).toBe(false);
    // reading and printing to standard output is fine there
    const ok = await run(root, `awk '{ print NR": "$0 }' a.txt`, { policy: { readonly: true } });
    expect(ok.stdout.toString()).toBe('1: x\n');
  });

  it('a read-only zone refuses a redirect found only when the program file runs', async () => {
    const root = zone({ 'a.txt': 'x\n', 'p.awk': '{ print > "copy.txt" }\n' });
    const out = await run(root, 'awk -f p.awk a.txt', { policy: { readonly: true } });
    expect(out.error?.code).toBe('ZONE_READONLY');
    expect(fs.existsSync(path.join(root, 'copy.txt'))).toBe(false);
  });

  it('ENVIRON shows nothing of the host', async () => {
    process.env.NOSH_AWK_SECRET = 'hunter2';
    const out = await runArgv(zone(), ['awk', 'BEGIN { for (k in ENVIRON) n++; print n + 0, ENVIRON["NOSH_AWK_SECRET"] "|" ENVIRON["PATH"] "|" }']);
    delete process.env.NOSH_AWK_SECRET;
    expect(out.stdout.toString()).toBe('0 ||\n');
  });
});
