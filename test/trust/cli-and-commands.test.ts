// allowed_commands names commands as exec takes them; nosh exec --json answers in JSON whatever
// happens; --root with --base is a usage error.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { MAIN } from './transports.js';

let root: string;
let base: string;
beforeAll(() => {
  root = tempDir('nosh-cli-trust-');
  base = tempDir('nosh-cli-base-');
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(base, { recursive: true, force: true });
});

function nosh(args: string[]) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { input: '', encoding: 'utf8', env: { ...process.env, NOSH_HOME: base } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('allowed_commands', () => {
  it('lists egrep and fgrep by their own names, once each', async () => {
    const n = await createNosh({ root });
    try {
      const r = await n.call('allowed_commands', {});
      const names = (r as any).data.commands.map((c: { name: string }) => c.name) as string[];
      for (const c of ['grep', 'egrep', 'fgrep']) expect(names.filter((x) => x === c)).toHaveLength(1);
      expect(new Set(names).size).toBe(names.length);
    } finally {
      await n.close();
    }
  });

  it('does not list egrep or fgrep where allowedCommands forbids them, as exec refuses them', async () => {
    const n = await createNosh({ root, policy: { allowedCommands: ['grep', 'cat'] } });
    try {
      const r = await n.call('allowed_commands', {});
      expect((r as any).data.commands.map((c: { name: string }) => c.name).sort()).toEqual(['cat', 'grep']);
      const e = await n.exec({ command: 'egrep x f' });
      expect(!e.success && e.error.code).toBe('COMMAND_FORBIDDEN');
    } finally {
      await n.close();
    }
  });
});

describe('nosh exec --json', () => {
  it('a usage error is one JSON envelope', () => {
    const r = nosh(['exec', '--json', '--root', root, '--role', 'root', '--', 'ls']);
    expect(r.code).toBe(2);
    const env = JSON.parse(r.stdout);
    expect(env).toMatchObject({ success: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(env.error.message).toMatch(/--role/);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('an unknown option and a missing command are envelopes too', () => {
    for (const args of [['exec', '--json', '--nope', 'ls'], ['exec', '--json', '--root', root]]) {
      const r = nosh(args);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout).success).toBe(false);
    }
  });

  it('a command that ran is the success envelope', () => {
    const r = nosh(['exec', '--json', '--root', root, '--', 'echo', 'hi']);
    expect(JSON.parse(r.stdout)).toMatchObject({ success: true, data: { stdout: 'hi\n', exit_code: 0 } });
  });
});

describe('--root with --base', () => {
  it('is a usage error, not a silent choice', () => {
    const r = nosh(['exec', '--root', root, '--base', base, 'ls']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--root.*--base|not both/);
  });
});
