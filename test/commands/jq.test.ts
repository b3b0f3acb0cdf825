// jq runs jq 1.7.1 compiled to WebAssembly: it must see only the zone's files (placed in its
// in-memory file system through the Vfs), an empty environment, and stay inside the worker's
// memory and time limits. Byte-exact behaviour is in test/gnu (cases/jq.json).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { run, tempDir } from '../helpers.js';

let base: string;
let root: string;

beforeAll(() => {
  base = tempDir('nosh-jq-');
  root = path.join(base, 'zone');
  fs.mkdirSync(path.join(root, 'etc'), { recursive: true });
  fs.writeFileSync(path.join(root, 'etc', 'hostname'), 'zone-host\n');
  fs.writeFileSync(path.join(root, 'a.json'), '{"a":1}\n');
  fs.writeFileSync(path.join(base, 'secret.json'), '{"secret":"host"}\n');
  fs.symlinkSync(path.join(base, 'secret.json'), path.join(root, 'link.json'));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('jq sees the zone only', () => {
  it('an absolute path names the zone file, never the host one', async () => {
    const out = await run(root, "jq -R . /etc/hostname");
    expect(out.stdout.toString()).toBe('"zone-host"\n');
    const passwd = await run(root, 'jq . /etc/passwd');
    expect(passwd.exitCode).toBe(2);
    expect(passwd.stdout.toString()).toBe('');
    expect(passwd.stderr).toBe('jq: error: Could not open file /etc/passwd: No such file or directory\n');
  });

  it('no option reads a host file: --rawfile, --slurpfile, -f, operands out of the zone or through a symlink', async () => {
    for (const cmd of [
      "jq -n --rawfile x /etc/passwd '$x'",
      "jq -n --slurpfile x ../secret.json '$x'",
      'jq -f /etc/passwd a.json',
      'jq . ../secret.json',
      'jq . ../../../../../etc/passwd',
      'jq . link.json',
      "jq -n '[inputs]' link.json",
    ]) {
      const out = await run(root, cmd);
      expect(out.stdout.toString() + out.stderr, cmd).not.toMatch(/root:x|"host"|zone-host/);
      expect(out.exitCode, cmd).toBe(2);
    }
    const link = await run(root, 'jq . link.json');
    expect(link.stderr).toBe('jq: error: Could not open file link.json: Permission denied\n');
  });

  it('env and $ENV are empty: nothing of the host, not even Emscripten\'s fake USER/HOME', async () => {
    const out = await run(root, "jq -n -c '$ENV, env, ($ENV.HOME // \"none\"), ($ENV | length)'");
    expect(out.stdout.toString()).toBe('{}\n{}\n"none"\n0\n');
  });

  it('files given are read at their zone paths, relative to the cwd', async () => {
    const out = await run(root, "jq -c '[., input_filename]' ../a.json", { cwd: '/etc' });
    expect(out.stdout.toString()).toBe('[{"a":1},"../a.json"]\n');
  });

  it('modules (-L) and --run-tests are refused with a message', async () => {
    const lib = await run(root, "jq -L . -n 'import \"a\" as a; 1'");
    expect(lib.exitCode).toBe(2);
    expect(lib.stderr).toMatch(/-L .*not available in nosh/);
    const tests = await run(root, 'jq --run-tests a.json');
    expect(tests.exitCode).toBe(2);
  });

  it('output past the cap is cut as any command\'s', async () => {
    const out = await run(root, "jq -n 'range(1e9)'", { maxOutputBytes: 1000 });
    expect(out.truncated).toBe(true);
    expect(out.stdout.length).toBe(1000);
  });
});

describe('jq reads standard input within the buffer limit', () => {
  it('stdin past maxBufferBytes is refused with FILE_TOO_LARGE, as a file that size is; under it jq reads every value', async () => {
    const value = JSON.stringify({ k: 'x'.repeat(1000) }) + '\n';
    fs.writeFileSync(path.join(root, 'many.json'), value.repeat(3000)); // about 3 MB, 3000 top-level values
    const nosh = await createNosh({ root, threads: 1, limits: { maxBufferBytes: 1024 * 1024 } });
    try {
      const piped = await nosh.exec({ command: 'cat many.json | jq -c .k' });
      expect(piped.success ? piped.data : piped.error.code).toBe('FILE_TOO_LARGE');
      if (!piped.success) expect(piped.error.message).toMatch(/^jq: standard input is larger than the 1048576-byte buffer limit/);
      const file = await nosh.exec({ command: 'jq -c .k many.json' });
      expect(file.success ? file.data : file.error.code).toBe('FILE_TOO_LARGE');
      const small = await nosh.exec({ command: 'head -n 500 many.json | jq -c .k | wc -l' });
      expect(small).toMatchObject({ success: true, data: { stdout: '500\n', exit_code: 0 } });
    } finally {
      await nosh.close();
    }
  });
});

describe('jq within the worker limits (library)', () => {
  let nosh: Nosh;
  beforeAll(async () => {
    fs.writeFileSync(path.join(root, 'big.json'), '[' + Array.from({ length: 3_000_000 }, (_, i) => `{"k":${i}}`).join(',') + ']\n');
    nosh = await createNosh({ root, threads: 1, limits: { memoryMb: 64 } });
  });
  afterAll(async () => {
    await nosh.close();
  });

  async function worksAfter(): Promise<void> {
    const next = await nosh.exec({ command: "jq -c '.a' a.json" });
    expect(next).toMatchObject({ success: true, data: { stdout: '1\n', exit_code: 0 } });
  }

  it('a runaway program ends with TIMEOUT and the pool keeps working', async () => {
    const res = await nosh.exec({ cmd: 'jq', args: ['-n', 'def f: f; f'] }, { timeoutMs: 1500 });
    expect(res.success ? res.data : res.error.code).toBe('TIMEOUT');
    await worksAfter();
    const grow = await nosh.exec({ cmd: 'jq', args: ['-n', '[range(1e9)] | length'] }, { timeoutMs: 3000 });
    expect(grow.success ? grow.data : grow.error.code).toMatch(/^(TIMEOUT|MEMORY_LIMIT)$/);
    await worksAfter();
  });

  it('a program that eats memory, or an input too big for the heap, ends with MEMORY_LIMIT and the pool keeps working', async () => {
    const deep = await nosh.exec({ cmd: 'jq', args: ['-n', 'def f: 1 + f; f'] }, { timeoutMs: 60_000 });
    expect(deep.success ? deep.data : deep.error.code).toBe('MEMORY_LIMIT');
    if (!deep.success) expect(deep.error.message).toMatch(/jq: .*32 MB/);
    await worksAfter();
    const big = await nosh.exec({ command: 'jq length big.json' }, { timeoutMs: 60_000 });
    expect(big.success ? big.data : big.error.code).toBe('MEMORY_LIMIT');
    await worksAfter();
  });
});
