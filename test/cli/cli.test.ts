import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

// The CLI as users run it: the compiled bin (npm test builds before vitest runs).
const bin = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
let root: string;
let home: string;

function nosh(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [bin, ...args], { input: input ?? '', env: { ...process.env, NOSH_HOME: home, LC_ALL: 'C' }, encoding: 'utf8' });
  // A spawn that failed or a process killed by a signal says so, not just "expected null".
  if (r.error || r.signal) throw new Error(`nosh ${args.join(' ')}: ${r.error?.message ?? `killed by ${r.signal}`}\n${r.stderr}`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  root = tempDir();
  home = tempDir();
  fs.writeFileSync(path.join(root, 'a b.txt'), 'one\ntwo\n');
  fs.writeFileSync(path.join(root, 'c.txt'), 'c\n');
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

describe('nosh exec', () => {
  it('runs a command line and exits with its status', () => {
    const r = nosh(['exec', '--root', root, 'cat "a b.txt"']);
    expect(r).toEqual({ code: 0, stdout: 'one\ntwo\n', stderr: '' });
    const missing = nosh(['exec', '--root', root, 'cat nope']);
    expect(missing).toEqual({ code: 1, stdout: '', stderr: 'cat: nope: No such file or directory\n' });
  });

  it('takes the argv form after --', () => {
    const r = nosh(['exec', '--root', root, '--', 'cat', 'a b.txt', 'c.txt']);
    expect(r.stdout).toBe('one\ntwo\nc\n');
  });

  it('--json prints the envelope as one JSON line', () => {
    const r = nosh(['exec', '--root', root, '--json', 'cat c.txt']);
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stdout)).toEqual({ success: true, message: 'ok', data: { exit_code: 0, stdout: 'c\n', stderr: '', truncated: false, stdout_bytes: 2 } });
  });

  it('reports rejected lines in plain words with exit 2', () => {
    const r = nosh(['exec', '--root', root, 'cat c.txt; rm c.txt']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^nosh: METACHAR_REJECTED: /);
    expect(r.stderr).toMatch(/\nhint: /);
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(true);
  });

  it('passes piped stdin and --stdin-file', () => {
    expect(nosh(['exec', '--root', root, 'cat -n'], 'x\n').stdout).toBe('     1\tx\n');
    expect(nosh(['exec', '--root', root, '--stdin-file', path.join(root, 'c.txt'), 'cat -E']).stdout).toBe('c$\n');
  });

  it('--cwd and --timeout are honoured; bad values are refused', () => {
    fs.mkdirSync(path.join(root, 'd'), { recursive: true });
    expect(nosh(['exec', '--root', root, '--cwd', '/d', 'pwd']).stdout).toBe('/d\n');
    const bad = nosh(['exec', '--root', root, '--timeout', 'soon', 'pwd']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--timeout/);
  });

  it('works with no configuration on the embedded default workspace', () => {
    const r = nosh(['exec', 'cat README.txt']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/nosh workspace/);
  });

  it('unknown options and subcommands are usage errors', () => {
    expect(nosh(['exec', '--frob', 'x']).code).toBe(2);
    expect(nosh(['frob']).code).toBe(2);
    expect(nosh(['help']).stdout).toMatch(/Usage:/);
  });
});

describe('workspace flags', () => {
  it('--user picks the personal storage; users cannot see each other', () => {
    expect(nosh(['exec', '--user', 'alice', '--', 'touch', 'mine.txt']).code).toBe(0);
    expect(nosh(['exec', '--user', 'alice', 'ls']).stdout).toBe('README.txt\nmine.txt\n');
    const bob = nosh(['exec', '--user', 'bob', 'ls ../../alice /../alice']);
    expect(bob.code).toBe(2);
    expect(bob.stdout).toBe('');
  });

  it('--role critic cannot write; --zone group needs membership; bad ids are refused', () => {
    const critic = nosh(['exec', '--role', 'critic', 'touch x']);
    expect(critic.code).toBe(2);
    expect(critic.stderr).toMatch(/ZONE_READONLY/);
    expect(nosh(['exec', '--zone', 'group:team', 'ls']).stderr).toMatch(/GROUP_ACCESS_DENIED/);
    expect(nosh(['exec', '--user', '../x', 'ls']).stderr).toMatch(/INVALID_ID/);
    expect(nosh(['exec', '--role', 'boss', 'ls']).stderr).toMatch(/--role: unknown role 'boss'/);
  });

  it('--config reads JSON and names the bad key', () => {
    const cfg = path.join(home, 'c.json');
    fs.writeFileSync(cfg, JSON.stringify({ groups: { team: ['alice'] }, bogus: 1 }));
    expect(nosh(['exec', '--config', cfg, 'ls']).stderr).toBe('nosh: --config: bogus: Unrecognized key: "bogus"\n');
    fs.writeFileSync(cfg, JSON.stringify({ groups: { team: ['alice'] } }));
    const r = nosh(['exec', '--config', cfg, '--user', 'alice', '--zone', 'group:team', 'pwd']);
    expect(r).toEqual({ code: 0, stdout: '/\n', stderr: '' });
  });
});

describe('nosh repl', () => {
  it('runs lines, keeps cd inside the zone, and exits', () => {
    const script = ['pwd', 'cd d', 'pwd', 'cd ../../..', 'pwd', 'cd nope', 'cat ../c.txt', 'help', 'exit', ''].join('\n');
    const r = nosh(['repl', '--root', root], script);
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toContain('/\n');
    expect(out).toContain('/d\n');
    expect(out).toMatch(/cd: nope: .*No such file or directory/);
    expect(out).toContain('c\n');
    expect(out).toMatch(/Commands: .*cat/);
  });
});
