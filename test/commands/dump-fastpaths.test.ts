// The byte-level paths of `xxd -p` and `hexdump -C` / `hd` (full 16-byte lines made without the
// format units) print the real tools' bytes: inputs of several read chunks, runs of equal lines
// (hexdump's '*'), -s / -n / -v, xxd's -c / -u / -l / -s, standard input.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeTask } from '../../src/exec/index.js';
import { defaultPolicy } from '../../src/vfs/index.js';
import { setMemoryBudget } from '../../src/runtime/memory.js';
import { tempDir } from '../helpers.js';

setMemoryBudget(512);
const root = tempDir('nosh-dump-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function run(argv: string[], stdin?: Buffer): Promise<{ out: Buffer; code: number }> {
  const res = await executeTask({
    root, policy: defaultPolicy(), cwd: '/', stages: [{ argv }], ...(stdin ? { stdin } : {}),
    limits: { maxOutputBytes: 1 << 26, maxResults: 1000, maxBufferBytes: 1 << 26 },
  });
  if (!res.ok) throw new Error(JSON.stringify(res.error));
  return { out: Buffer.from(res.result!.stdout), code: res.result!.exitCode };
}

function real(argv: string[], stdin?: Buffer): Buffer {
  return execFileSync(argv[0]!, argv.slice(1), { cwd: root, input: stdin, env: { PATH: process.env.PATH, LC_ALL: 'C', TZ: 'UTC' }, maxBuffer: 1 << 27 });
}

// 700 KB: random bytes (every byte value), a run of zeros and a repeated 16-byte pattern (squeezed lines), text
let x = 17;
const data = Buffer.concat([
  Buffer.from(Array.from({ length: 300_000 }, () => ((x = (x * 1103515245 + 12345) >>> 0) >>> 16) & 255)),
  Buffer.alloc(50_003),
  Buffer.from('0123456789abcdef'.repeat(5000)),
  Buffer.from('k0000000000 3789 alpha\tbeta\n'.repeat(10_000)),
  Buffer.from([0, 1, 0x7f, 0x80, 0xff, 0x20, 0x7e]),
]);
fs.writeFileSync(path.join(root, 'in.bin'), data);

describe('dump fast paths equal the real tools', () => {
  const cases = [
    ['hexdump', '-C', 'in.bin'], ['hd', 'in.bin'], ['hexdump', '-C', '-v', 'in.bin'], ['hd', '-s', '7', '-n', '400000', 'in.bin'],
    ['hexdump', '-C', '-s', '350000', 'in.bin'], ['hd', '-n', '17', 'in.bin'], ['hd', '-C', 'in.bin'],
    ['xxd', '-p', 'in.bin'], ['xxd', '-p', '-c', '7', 'in.bin'], ['xxd', '-ps', '-u', '-c', '256', 'in.bin'], ['xxd', '-p', '-l', '300001', 'in.bin'],
    ['xxd', '-p', '-s', '99', '-l', '12345', 'in.bin'], ['xxd', '-p', '-c', '1', '-l', '1000', 'in.bin'],
  ];
  for (const argv of cases) {
    it(argv.join(' '), async () => {
      const r = await run(argv);
      expect(r.code).toBe(0);
      expect(r.out.equals(real(argv))).toBe(true);
    });
  }
  it('xxd -p and hd of standard input', async () => {
    for (const argv of [['xxd', '-p'], ['hd']]) {
      const r = await run(argv, data);
      expect(r.out.equals(real(argv, data))).toBe(true);
    }
  });
});
