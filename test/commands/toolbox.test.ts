// Toolbox commands whose behaviour cannot be recorded from the real tools: date never sets the
// clock (GNU as root would: recording it changed the machine's time once), shuf without a
// random source.
import { afterAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import { run, tempDir } from '../helpers.js';

const root = tempDir('nosh-toolbox-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('date refuses to set the clock', () => {
  it('-s STRING and an MMDDhhmm operand are refused with exit 1', async () => {
    for (const line of ["date -s '2024-01-01'", 'date 01010000', 'date 0101000024.30']) {
      const r = await run(root, line);
      expect(r.exitCode, line).toBe(1);
      expect(r.stdout.length).toBe(0);
      expect(r.stderr).toMatch(/^date: cannot set date: Operation not permitted/);
    }
  });
  it('an operand that is no date is an invalid date, as GNU says', async () => {
    const r = await run(root, 'date 0101');
    expect(r.stderr).toBe("date: invalid date '0101'\n");
  });
});

describe('shuf without --random-source', () => {
  it('prints a permutation of its input', async () => {
    const r = await run(root, 'shuf -i 1-50');
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString().trim().split('\n').map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
  it('-r without -n stops at the output cap', async () => {
    const r = await run(root, 'shuf -r -e a b', { maxOutputBytes: 1000 });
    expect(r.truncated).toBe(true);
  });
});

describe('whoami and id: the context user, never the host account', () => {
  it('through the library, the user of the call context', async () => {
    const { createNosh } = await import('../../src/index.js');
    const nosh = await createNosh({ root, threads: 1 });
    try {
      const out = async (command: string, user?: string) => {
        const r = await nosh.exec({ command, ...(user ? { context: { user } } : {}) });
        return r.success ? [r.data.exit_code, r.data.stdout, r.data.stderr] : r.error.code;
      };
      expect(await out('whoami', 'alice')).toEqual([0, 'alice\n', '']);
      expect(await out('id', 'alice')).toEqual([0, 'uid=1000(alice) gid=1000(alice) groups=1000(alice)\n', '']);
      expect(await out('id -un', 'alice')).toEqual([0, 'alice\n', '']);
      expect(await out('id -u', 'alice')).toEqual([0, '1000\n', '']);
      expect(await out('id root', 'alice')).toEqual([1, '', "id: 'root': no such user\n"]);
      expect(await out('id -un')).toEqual([0, 'default\n', '']);
      const me = await out('whoami');
      expect(me).not.toEqual([0, `${process.env.USER ?? 'root'}\n`, '']);
    } finally {
      await nosh.close();
    }
  }, 30_000);
});

describe('which and type know nosh commands, and what the zone allows', () => {
  it('finds commands, misses others with exit 1', async () => {
    expect((await run(root, 'which ls grep')).stdout.toString()).toBe('ls\ngrep\n');
    const miss = await run(root, 'which ls python3');
    expect([miss.exitCode, miss.stdout.toString()]).toEqual([1, 'ls\n']);
    expect((await run(root, 'type cat')).stdout.toString()).toBe('cat is a nosh command\n');
    const t = await run(root, 'type nope');
    expect([t.exitCode, t.stderr]).toEqual([1, 'nosh: type: nope: not found\n']);
    expect((await run(root, 'type -t cat')).stdout.toString()).toBe('file\n');
  });
  it('a command the zone does not allow is not found', async () => {
    const r = await run(root, 'which ls sed', { policy: { allowedCommands: ['which', 'ls'] } });
    expect([r.exitCode, r.stdout.toString()]).toEqual([1, 'ls\n']);
  });
});

describe('tools nosh does not build are refused by name with what to do instead', () => {
  for (const name of ['less', 'more', 'iconv']) {
    it(name, async () => {
      const r = await run(root, `${name} f`);
      expect(r.exitCode).toBe(127);
      expect(r.stderr).toMatch(new RegExp(`^nosh: ${name}: not available in nosh: .+`));
    });
  }
});

describe('df shows the zone quota as the file system, never the host disks', () => {
  it('a 1 MiB user quota: size, used after a write, avail, use%', async () => {
    const { createNosh } = await import('../../src/index.js');
    const base = tempDir('nosh-df-');
    const nosh = await createNosh({ base, threads: 1, quotas: { userMb: 1 } });
    try {
      const ctx = { context: { user: 'alice' } };
      const w = await nosh.exec({ command: 'truncate -s 100K big', ...ctx });
      expect(w.success).toBe(true);
      const r = await nosh.exec({ command: 'df', ...ctx });
      if (!r.success) throw new Error(r.error.message);
      const lines = r.data.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^Filesystem +1K-blocks +Used +Available +Use% +Mounted on$/);
      const cols = lines[1]!.split(/ +/);
      expect(cols[0]).toBe('user:alice');
      expect(Number(cols[1])).toBe(1024);
      expect(Number(cols[2])).toBeGreaterThanOrEqual(100);
      expect(Number(cols[3])).toBe(1024 - Number(cols[2]));
      expect(cols[5]).toBe('/');
      const h = await nosh.exec({ command: 'df -h', ...ctx });
      if (!h.success) throw new Error(h.error.message);
      expect(h.data.stdout).toMatch(/user:alice +1\.0M +\d+K +\d+K +\d+% \/\n$/);
      expect(JSON.stringify(h)).not.toContain(base);
    } finally {
      await nosh.close();
      fs.rmSync(base, { recursive: true, force: true });
    }
  }, 30_000);
  it('a zone without a quota shows what it does not know as -', async () => {
    const r = await run(root, 'df');
    expect(r.stdout.toString()).toMatch(/^Filesystem +1K-blocks Used Available Use% Mounted on\nnosh +- +- +- +- \/\n$/);
  });
});

describe('ln makes no links', () => {
  it('-s and hard links are refused, nothing is created', async () => {
    fs.writeFileSync(`${root}/src.txt`, 'x');
    for (const line of ['ln -s src.txt link', 'ln src.txt hard', 'ln -sf /etc/passwd pw']) {
      const r = await run(root, line);
      expect(r.exitCode, line).toBe(1);
      expect(r.stderr).toMatch(/^ln: failed to create (symbolic|hard) link '.+': Operation not permitted \(nosh creates no links/);
    }
    expect(fs.readdirSync(root).filter((n) => ['link', 'hard', 'pw'].includes(n))).toEqual([]);
  });
});
