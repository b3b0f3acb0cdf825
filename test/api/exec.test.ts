import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let nosh: Nosh;
let root: string;

beforeAll(async () => {
  root = tempDir();
  fs.writeFileSync(path.join(root, 'a b.txt'), 'one\ntwo\nthree\n');
  fs.writeFileSync(path.join(root, 'bin.dat'), Buffer.from([0xff, 0x00, 0xfe, 0x0a]));
  fs.mkdirSync(path.join(root, 'sub'));
  fs.writeFileSync(path.join(root, 'sub', 'x.txt'), 'x\n');
  nosh = await createNosh({ root, threads: 2 });
});
afterAll(async () => {
  await nosh.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('command line length', () => {
  it('takes a line of 2 MiB and refuses a longer one before parsing it; the argv form has no such limit', async () => {
    const word = 'x'.repeat(2 * 1024 * 1024 - 'echo '.length);
    const ok = await nosh.exec({ command: `echo ${word}` }, { maxOutputBytes: 5_000_000 });
    expect(ok.success && ok.data.stdout).toBe(word + '\n');
    const long = await nosh.exec({ command: `echo ${word}é` });
    expect(long.success).toBe(false);
    if (long.success) return;
    expect(long.error.code).toBe('INVALID_ARGUMENT');
    expect(long.error.message).toBe('the command line is 2097154 bytes; the limit is 2097152 (2 MiB, as the kernel\'s ARG_MAX)');
    expect(long.error.hint).toContain('stdin');
    const argv = await nosh.exec({ cmd: 'echo', args: [word + 'yy'] }, { maxOutputBytes: 5_000_000 });
    expect(argv.success && argv.data.stdout.length).toBe(word.length + 3);
  });
});

describe('exec envelope', () => {
  it('returns stdout and exit code 0 for a command line', async () => {
    const res = await nosh.exec({ command: 'cat "a b.txt"' });
    expect(res).toEqual({ success: true, message: 'ok', data: { exit_code: 0, stdout: 'one\ntwo\nthree\n', stderr: '', truncated: false, stdout_bytes: 14 } });
  });

  it('a failing command is a success envelope with its exit code and stderr', async () => {
    const res = await nosh.exec({ command: 'cat missing.txt' });
    expect(res.success).toBe(true);
    if (!res.success) return;
    expect(res.data.exit_code).toBe(1);
    expect(res.data.stderr).toBe('cat: missing.txt: No such file or directory\n');
    expect(res.message).toBe('exited with status 1');
  });

  it('an unknown command exits 127 like bash', async () => {
    const res = await nosh.exec({ command: 'frobnicate x' });
    expect(res.success && res.data.exit_code).toBe(127);
    expect(res.success && res.data.stderr).toBe('nosh: frobnicate: command not found\n');
  });

  it('the argv form takes args literally (no globbing, no metacharacter checks)', async () => {
    const res = await nosh.exec({ cmd: 'cat', args: ['a b.txt'] });
    expect(res.success && res.data.stdout).toBe('one\ntwo\nthree\n');
    const semi = await nosh.exec({ cmd: 'cat', args: ['x; rm y', '*.txt'] });
    expect(semi.success && semi.data.stderr).toBe("cat: 'x; rm y': No such file or directory\ncat: '*.txt': No such file or directory\n");
  });

  it('globs expand inside the zone, sorted', async () => {
    const res = await nosh.exec({ command: 'cat sub/*.txt' });
    expect(res.success && res.data.stdout).toBe('x\n');
  });

  it('a pipeline streams stdout into the next stdin', async () => {
    const res = await nosh.exec({ command: 'cat "a b.txt" | cat -n' });
    expect(res.success && res.data.stdout).toBe('     1\tone\n     2\ttwo\n     3\tthree\n');
  });

  it('stdin is passed to the first command', async () => {
    const res = await nosh.exec({ command: 'cat -E' }, { stdin: 'hi\n' });
    expect(res.success && res.data.stdout).toBe('hi$\n');
  });

  it('binary stdout comes with stdout_base64', async () => {
    const res = await nosh.exec({ command: 'cat bin.dat' });
    expect(res.success).toBe(true);
    if (!res.success) return;
    expect(Buffer.from(res.data.stdout_base64!, 'base64')).toEqual(Buffer.from([0xff, 0x00, 0xfe, 0x0a]));
    const text = await nosh.exec({ command: 'cat "a b.txt"' });
    expect(text.success && text.data.stdout_base64).toBeUndefined();
  });

  it('output over the limit is cut, flagged and hinted', async () => {
    fs.writeFileSync(path.join(root, 'big.txt'), 'y\n'.repeat(100_000));
    const res = await nosh.exec({ command: 'cat big.txt' }, { maxOutputBytes: 1000 });
    expect(res.success).toBe(true);
    if (!res.success) return;
    expect(res.data.truncated).toBe(true);
    expect(res.data.stdout).toBe('y\n'.repeat(500));
    expect(res.message).toMatch(/output cut at 1000 bytes/);
    expect(res.message).toMatch(/stdout_file/);
  });

  it('cwd is a virtual path; a missing or non-directory cwd is an error envelope', async () => {
    const ok = await nosh.exec({ command: 'cat x.txt', cwd: '/sub' });
    expect(ok.success && ok.data.stdout).toBe('x\n');
    const pwd = await nosh.exec({ command: 'pwd', cwd: 'sub/../sub' });
    expect(pwd.success && pwd.data.stdout).toBe('/sub\n');
    const missing = await nosh.exec({ command: 'pwd', cwd: '/nope' });
    expect(!missing.success && missing.error.code).toBe('FILE_NOT_FOUND');
    const file = await nosh.exec({ command: 'pwd', cwd: '/a b.txt' });
    expect(!file.success && file.error.code).toBe('NOT_A_DIRECTORY');
  });

  it('stdout_file writes the output into the zone atomically', async () => {
    const res = await nosh.exec({ command: 'cat "a b.txt"' }, { stdoutFile: 'out/copy.txt' });
    expect(!res.success && res.error.code).toBe('FILE_NOT_FOUND');
    const res2 = await nosh.exec({ command: 'cat "a b.txt"' }, { stdoutFile: 'copy.txt' });
    expect(res2.success && res2.data).toMatchObject({ stdout: '', stdout_bytes: 14, stdout_file: 'copy.txt' });
    expect(fs.readFileSync(path.join(root, 'copy.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
  });
});

describe('bad requests become error envelopes', () => {
  it.each([
    ['cat x; rm y', ';'],
    ['`id`', '`'],
    ['$(id)', '$('],
    ['cat a > b', '>'],
    ['cat a && cat b', '&'],
    ['cat $HOME', '$'],
  ])('%s is METACHAR_REJECTED and nothing changed', async (line) => {
    const before = fs.readdirSync(root).sort();
    const res = await nosh.exec({ command: line });
    expect(res.success).toBe(false);
    if (res.success) return;
    expect(res.error.code).toBe('METACHAR_REJECTED');
    expect(res.error.hint.length).toBeGreaterThan(0);
    expect(fs.readdirSync(root).sort()).toEqual(before);
  });

  it('missing command is MISSING_PARAMETER; wrong types are INVALID_ARGUMENT', async () => {
    const a = await nosh.exec({});
    expect(!a.success && a.error.code).toBe('MISSING_PARAMETER');
    const b = await nosh.exec({ command: 42 } as never);
    expect(!b.success && b.error.code).toBe('INVALID_ARGUMENT');
    const c = await nosh.exec({ command: 'true', bogus: 1 } as never);
    expect(!c.success && c.error.code).toBe('INVALID_ARGUMENT');
  });

  it('an unknown flag is a usage error naming it, exit 1 as GNU cat', async () => {
    const res = await nosh.exec({ command: 'cat --frob a' });
    expect(res.success && res.data.exit_code).toBe(1);
    expect(res.success && res.data.stderr).toBe("cat: unrecognized option '--frob'\nTry 'cat --help' for more information.\n");
    const short = await nosh.exec({ command: 'cat -Z a' });
    expect(short.success && short.data.stderr).toBe("cat: invalid option -- 'Z'\nTry 'cat --help' for more information.\n");
  });

  it('--help is generated from the declared flags', async () => {
    const res = await nosh.exec({ command: 'cat --help' });
    expect(res.success && res.data.exit_code).toBe(0);
    const out = res.success ? res.data.stdout : '';
    expect(out).toMatch(/^Usage: cat \[OPTION\]\.\.\. \[FILE\]\.\.\./);
    expect(out).toMatch(/-n, --number\s+number all output lines/);
    expect(out).toMatch(/--help\s+display this help and exit/);
  });

  it('no host path appears in errors', async () => {
    const calls = [
      nosh.exec({ command: 'cat ../../../etc/passwd' }),
      nosh.exec({ command: 'cat /sub/../../x' }),
      nosh.exec({ command: 'pwd', cwd: '/nope/deeper' }),
      nosh.exec({ cmd: 'cat', args: ['a\0b'] }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(JSON.stringify(res)).not.toContain(root);
    }
  });
});

describe('close', () => {
  it('calls after close are error envelopes, not exceptions', async () => {
    const n = await createNosh({ root, threads: 1 });
    await n.close();
    const res = await n.exec({ command: 'true' });
    expect(res.success).toBe(false);
  });
});

describe('roles on an explicit root', () => {
  it('a critic cannot write through { root } either', async () => {
    const res = await nosh.exec({ root, context: { role: 'critic' }, command: 'touch critic.txt' });
    expect(res.success).toBe(false);
    if (!res.success) {
      expect(res.error.code).toBe('ZONE_READONLY');
      expect(res.error.message).toBe('touch: the critic role is read-only');
    }
    expect(fs.existsSync(path.join(root, 'critic.txt'))).toBe(false);
    const read = await nosh.exec({ root, context: { role: 'critic' }, command: 'cat "a b.txt"' });
    expect(read.success && read.data.stdout).toBe('one\ntwo\nthree\n');
  });
});
