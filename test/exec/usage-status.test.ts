// How a usage error leaves a command: the status each command declares (usageStatus), GNU's
// form of a value error found while getopt walks (no "Try" line where GNU die()s), and
// argmatch's status 1 whatever the command's usage status.
import { describe, expect, test } from 'vitest';
import { run } from '../helpers.js';
import { zone } from '../commands/fileops-fixture.js';

const TRY = (n: string) => `Try '${n} --help' for more information.\n`;

describe('usage errors as each command declares them', () => {
  test('the declared usageStatus: 1 for head, 2 (the default) for ls', async () => {
    const z = zone();
    const head = await run(z.root, 'head --bogus', { stdin: '' });
    expect([head.exitCode, head.stderr]).toEqual([1, `head: unrecognized option '--bogus'\n${TRY('head')}`]);
    const ls = await run(z.root, 'ls --bogus');
    expect([ls.exitCode, ls.stderr]).toEqual([2, `ls: unrecognized option '--bogus'\n${TRY('ls')}`]);
  });

  test('a bad value GNU die()s on: its message only, the first one in argv order', async () => {
    const z = zone();
    const r = await run(z.root, 'head -n x -c y --bogus', { stdin: '' });
    expect([r.exitCode, r.stderr]).toEqual([1, "head: invalid number of lines: 'x'\n"]);
    const w = await run(z.root, 'ls -w x --sort=nope');
    expect([w.exitCode, w.stderr]).toEqual([2, "ls: invalid line width: 'x'\n"]);
  });

  test("argmatch's usage error is status 1 with the valid arguments, even where usage errors are 2", async () => {
    const z = zone();
    const r = await run(z.root, 'ls --sort=nope -w x');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^ls: invalid argument 'nope' for '--sort'\nValid arguments are:\n {2}- 'none'\n/);
    expect(r.stderr.endsWith(TRY('ls'))).toBe(true);
  });

  test('conflicts, digit options and extra operands are reported where getopt meets them', async () => {
    const z = zone({ a: 'x\n' });
    const cut = await run(z.root, 'cut -f1 -b2 -d ab');
    expect([cut.exitCode, cut.stderr]).toEqual([1, `cut: only one list may be specified\n${TRY('cut')}`]);
    const tail = await run(z.root, 'tail -n 1 -5 a');
    expect([tail.exitCode, tail.stderr]).toEqual([1, 'tail: option used in invalid context -- 5\n']);
    const uniq = await run(z.root, 'uniq a b c -f x');
    expect([uniq.exitCode, uniq.stderr]).toEqual([1, `uniq: extra operand 'c'\n${TRY('uniq')}`]);
  });
});
