// realpath/readlink stay inside the zone; the fixed answers of uname, nproc, env and printenv.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { run, tempDir } from '../helpers.js';

describe('realpath and readlink never print a host path', () => {
  let base: string;
  let root: string;
  const noshes: Nosh[] = [];
  beforeAll(() => {
    base = tempDir('nosh-sysutils-');
    root = path.join(base, 'zone');
    fs.mkdirSync(path.join(root, 'd'), { recursive: true });
    fs.writeFileSync(path.join(base, 'secret-outside.txt'), 'x');
    fs.symlinkSync(path.join(base, 'secret-outside.txt'), path.join(root, 'abs-out'));
    fs.symlinkSync('../outside-dir', path.join(root, 'rel-out'));
    fs.symlinkSync('../../..', path.join(root, 'd', 'up'));
    fs.symlinkSync(path.join(root, 'd'), path.join(root, 'abs-in'));
  });
  afterAll(async () => {
    for (const n of noshes) await n.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  for (const followSymlinks of [false, true]) {
    it(`followSymlinks ${followSymlinks}: links out of the zone are refused, links inside resolve to virtual paths`, async () => {
      const nosh = await createNosh({ root, threads: 1, policy: { followSymlinks } });
      noshes.push(nosh);
      const lines = [
        'realpath abs-out', 'realpath rel-out', 'realpath d/up', 'realpath -m abs-out/x', 'realpath -s abs-out',
        'readlink -f abs-out', 'readlink -e rel-out', 'readlink -m d/up/x', 'readlink -v abs-out', 'readlink abs-out',
        'realpath --relative-to=abs-out d', 'readlink -fv d/up/x',
      ];
      for (const command of lines) {
        const res = await nosh.exec({ command });
        expect(res.success, command).toBe(true);
        const text = JSON.stringify(res);
        expect(text, command).not.toContain(base);
        expect(text, command).not.toContain('outside-dir');
      }
      const out = async (command: string) => {
        const r = await nosh.exec({ command });
        return r.success ? [r.data.exit_code, r.data.stdout, r.data.stderr] : r.error.code;
      };
      expect(await out('realpath abs-out')).toEqual([1, '', 'realpath: abs-out: Permission denied (path leaves the zone)\n']);
      expect(await out('readlink -f d/up')).toEqual([1, '', '']);
      expect(await out('readlink abs-out')).toEqual([0, '(outside the zone)\n', '']);
      // -s does not expand the link: the name itself is inside.
      expect(await out('realpath -s abs-out')).toEqual([0, '/abs-out\n', '']);
      // An absolute target inside the zone is shown and resolved as a virtual path.
      expect(await out('readlink abs-in')).toEqual([0, '/d\n', '']);
      expect(await out('realpath abs-in/up')).toEqual([1, '', 'realpath: abs-in/up: Permission denied (path leaves the zone)\n']);
      expect(await out('readlink -f abs-in')).toEqual([0, '/d\n', '']);
    }, 30_000);
  }
});

describe('fixed, documented answers', () => {
  let root: string;
  beforeAll(() => {
    root = tempDir('nosh-sysutils-');
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const out = async (line: string) => {
    const r = await run(root, line);
    return [r.exitCode, r.stdout.toString(), r.stderr];
  };

  it('uname answers Linux nosh ..., never the host', async () => {
    expect(await out('uname')).toEqual([0, 'Linux\n', '']);
    expect(await out('uname -a')).toEqual([0, 'Linux nosh nosh nosh virtual workspace (no shell) unknown GNU/Linux\n', '']);
    expect(await out('uname -snrvmpio')).toEqual([0, 'Linux nosh nosh nosh virtual workspace (no shell) unknown unknown unknown GNU/Linux\n', '']);
    expect(await out('uname -m -o')).toEqual([0, 'unknown GNU/Linux\n', '']);
    expect((await out('uname x'))[0]).toBe(1);
  });

  it('nproc is 1', async () => {
    expect(await out('nproc')).toEqual([0, '1\n', '']);
    expect(await out('nproc --all --ignore=3')).toEqual([0, '1\n', '']);
  });

  it('env and printenv see an empty environment', async () => {
    expect(await out('env')).toEqual([0, '', '']);
    expect(await out('printenv')).toEqual([0, '', '']);
    expect(await out('printenv HOME')).toEqual([1, '', '']);
    expect(await out('env -i A=1 B=x=y')).toEqual([0, 'A=1\nB=x=y\n', '']);
    const [code, , err] = await out('env A=1 ls');
    expect(code).toBe(125);
    expect(err).toMatch(/not supported/);
  });

  it('yes stops at the output cap, the result says truncated', async () => {
    const r = await run(root, 'yes hello', { maxOutputBytes: 100_000 });
    expect(r.truncated).toBe(true);
    expect(r.stdout.length).toBe(100_000);
    expect(r.stdout.toString().startsWith('hello\nhello\n')).toBe(true);
    const piped = await run(root, 'yes | head -2');
    expect([piped.exitCode, piped.stdout.toString()]).toEqual([0, 'y\ny\n']);
  }, 30_000);

  it('sleep sums its operands and is bounded by the call timeout', async () => {
    const nosh = await createNosh({ root, threads: 1 });
    try {
      const r = await nosh.exec({ command: 'sleep 1d', timeout_ms: 300 } as never);
      expect(r.success ? r.data.exit_code : r.error.code).toMatch(/TIMEOUT/);
    } finally {
      await nosh.close();
    }
  }, 30_000);
});
