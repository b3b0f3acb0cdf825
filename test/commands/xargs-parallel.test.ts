// xargs -P N runs up to N commands at once, in the task's worker, as async commands; their
// output is written as it comes (as GNU's children write theirs). No clock: the overlap shows in
// the output (the small file's bytes arrive while the big file is still being written), and
// several commands writing into one pipe past its high-water mark all get through.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNosh, type Nosh } from '../../src/index.js';
import { tempDir } from '../helpers.js';

let root: string;
let nosh: Nosh;
const BIG = 'a'.repeat(99) + '\n';

beforeAll(async () => {
  root = tempDir('nosh-xargs-p-');
  fs.writeFileSync(path.join(root, 'big.txt'), BIG.repeat(30_000)); // 3 MB
  fs.writeFileSync(path.join(root, 'big2.txt'), BIG.repeat(30_000));
  fs.writeFileSync(path.join(root, 'small.txt'), 'SMALL\n');
  fs.writeFileSync(path.join(root, 'x.txt'), 'x\n');
  fs.writeFileSync(path.join(root, 'y.txt'), 'y\n');
  nosh = await createNosh({ root, threads: 1 });
});
afterAll(async () => {
  await nosh?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function run(command: string, stdin: string) {
  const r = await nosh.exec({ command }, { stdin });
  if (!r.success) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.data;
}

describe('xargs -P', () => {
  it('-P 2 runs the second command while the first is still writing; -P 1 runs them one after another', async () => {
    // where SMALL lands in the joined output: its byte offset (the output itself is past the return cap)
    const serial = await run('xargs -P 1 -n 1 cat | grep -b -o SMALL', 'big.txt small.txt');
    expect(serial).toMatchObject({ exit_code: 0, stdout: `${BIG.length * 30_000}:SMALL\n` });

    const both = await run('xargs -P 2 -n 1 cat | grep -b -o SMALL', 'big.txt small.txt');
    expect(both.exit_code).toBe(0);
    const at = Number(/^(\d+):SMALL\n$/.exec(both.stdout)?.[1]);
    expect(at).toBeLessThan(BIG.length * 30_000); // inside the big file's output: they ran at once
    // nothing lost or doubled (SMALL\n lands between two of cat's writes, so inside a line of a's)
    const count = await run('xargs -P 2 -n 1 cat | tr -d a | wc -c', 'big.txt small.txt');
    expect(count.stdout).toBe(`${30_000 + 6}\n`);
  });

  it('commands writing into one pipe past its high-water mark all get through (| wc -c)', async () => {
    const r = await run('xargs -P 3 -n 1 cat | wc -c', 'big.txt big2.txt big.txt');
    expect(r).toMatchObject({ exit_code: 0, stdout: `${3 * BIG.length * 30_000}\n` });
    const h = await run('xargs -P 2 -n 1 cat | head -c 5', 'big.txt big2.txt');
    expect(h).toMatchObject({ exit_code: 0, stdout: 'aaaaa' });
  });

  it('exit statuses as GNU: 123 when a command failed, 127 for a missing one; -P 0 runs them all', async () => {
    const miss = await run('xargs -P 2 -n 1 grep -q x', 'x.txt y.txt x.txt y.txt');
    expect(miss.exit_code).toBe(123);
    const all = await run('xargs -P 0 -n 1 cat', 'x.txt x.txt x.txt x.txt');
    expect(all).toMatchObject({ exit_code: 0, stdout: 'x\n'.repeat(4) });
    const none = await run('xargs -P 4 -n 1 nosuchcommand', 'a b c');
    expect(none.exit_code).toBe(127);
    const sorted = await run('xargs -P 4 -n 1 echo | sort', '3 1 2 5 4');
    expect(sorted.stdout).toBe('1\n2\n3\n4\n5\n');
  });
});
