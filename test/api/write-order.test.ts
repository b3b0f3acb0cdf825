import { describe, expect, it } from 'vitest';
import { WriteOrder, mayMutate } from '../../src/api/write-order.js';
import { loadCommand, loadedCommand } from '../../commands/index.js';
import { parseCommandLine } from '../../src/parse/index.js';

/** A call that runs until released, recording when it starts and ends. */
function gate(log: string[], name: string) {
  let release!: () => void;
  let fail!: (e: Error) => void;
  const done = new Promise<string>((res, rej) => { release = () => res(name); fail = rej; });
  const run = () => {
    log.push(`start ${name}`);
    return done.finally(() => log.push(`end ${name}`));
  };
  return { run, release: () => release(), fail: (e: Error) => fail(e) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('WriteOrder', () => {
  it('zone-wide calls run one at a time, in the order they came', async () => {
    const o = new WriteOrder();
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((n) => gate(log, n));
    const ps = [o.whole('z', a!.run), o.whole('z', b!.run), o.whole('z', c!.run)];
    await tick();
    expect(log).toEqual(['start a']);
    c!.release();
    b!.release();
    await tick();
    expect(log).toEqual(['start a']);
    a!.release();
    expect(await Promise.all(ps)).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    await tick();
    expect(o.pending('z')).toBe(0);
  });

  it('one-file calls: the same file in turn, other files beside it', async () => {
    const o = new WriteOrder();
    const log: string[] = [];
    const [f1, g1, f2] = ['f1', 'g1', 'f2'].map((n) => gate(log, n));
    const ps = [o.file('z', '/f', f1!.run), o.file('z', '/g', g1!.run), o.file('z', '/f', f2!.run)];
    await tick();
    expect(log).toEqual(['start f1', 'start g1']);
    expect(o.pending('z')).toBe(3);
    f1!.release();
    await tick();
    expect(log).toEqual(['start f1', 'start g1', 'end f1', 'start f2']);
    g1!.release();
    f2!.release();
    await Promise.all(ps);
    await tick();
    expect(o.pending('z')).toBe(0);
  });

  it('a zone-wide call waits for the one-file calls before it, and the ones after it wait for it', async () => {
    const o = new WriteOrder();
    const log: string[] = [];
    const [f, w, g] = ['f', 'w', 'g'].map((n) => gate(log, n));
    const ps = [o.file('z', '/f', f!.run), o.whole('z', w!.run), o.file('z', '/g', g!.run)];
    await tick();
    expect(log).toEqual(['start f']);
    f!.release();
    await tick();
    expect(log).toEqual(['start f', 'end f', 'start w']);
    w!.release();
    g!.release();
    await Promise.all(ps);
    expect(log).toEqual(['start f', 'end f', 'start w', 'end w', 'start g', 'end g']);
  });

  it('zones do not wait for each other', async () => {
    const o = new WriteOrder();
    const log: string[] = [];
    const [a, b] = ['a', 'b'].map((n) => gate(log, n));
    const ps = [o.whole('z1', a!.run), o.whole('z2', b!.run)];
    await tick();
    expect(log).toEqual(['start a', 'start b']);
    a!.release();
    b!.release();
    await Promise.all(ps);
  });

  it('a call over two zones waits for both and holds both', async () => {
    const o = new WriteOrder();
    const log: string[] = [];
    const [a, f, t, b, c] = ['a', 'f', 't', 'b', 'c'].map((n) => gate(log, n));
    const ps = [o.whole('z1', a!.run), o.file('z2', '/f', f!.run), o.whole(['z1', 'z2'], t!.run), o.file('z2', '/g', b!.run), o.whole('z1', c!.run)];
    await tick();
    expect(log).toEqual(['start a', 'start f']);
    a!.release();
    await tick();
    expect(log).toEqual(['start a', 'start f', 'end a']);
    f!.release();
    await tick();
    expect(log).toEqual(['start a', 'start f', 'end a', 'end f', 'start t']);
    t!.release();
    await tick();
    expect(log.slice(5)).toEqual(['end t', 'start b', 'start c']);
    b!.release();
    c!.release();
    await Promise.all(ps);
    await tick();
    expect(o.pending('z1') + o.pending('z2')).toBe(0);
  });

  it('two calls over the same zones in opposite order run one after the other, not into a deadlock', async () => {
    const o = new WriteOrder();
    const log: string[] = [];
    const [ab, ba] = ['ab', 'ba'].map((n) => gate(log, n));
    const ps = [o.whole(['z1', 'z2'], ab!.run), o.whole(['z2', 'z1'], ba!.run)];
    await tick();
    expect(log).toEqual(['start ab']);
    ab!.release();
    await tick();
    expect(log).toEqual(['start ab', 'end ab', 'start ba']);
    ba!.release();
    expect(await Promise.all(ps)).toEqual(['ab', 'ba']);
  });

  it('a failed call reaches its caller and the next call runs', async () => {
    const o = new WriteOrder();
    const log: string[] = [];
    const [a, b] = ['a', 'b'].map((n) => gate(log, n));
    const pa = o.whole('z', a!.run);
    const pb = o.file('z', '/f', b!.run);
    a!.fail(new Error('boom'));
    await expect(pa).rejects.toThrow('boom');
    await tick();
    expect(log).toEqual(['start a', 'end a', 'start b']);
    b!.release();
    expect(await pb).toBe('b');
    await tick();
    expect(o.pending('z')).toBe(0);
  });
});

describe('mayMutate: which command lines are writers', () => {
  const line = (command: string, stdoutFile?: string) => ({ stages: parseCommandLine(command).stages.map((words) => ({ words })), stdoutFile });

  it('from the commands\' declarations once they are loaded', async () => {
    for (const name of ['cat', 'sed', 'find', 'sort', 'uniq', 'rm', 'tee', 'grep', 'xargs', 'echo']) await loadCommand(name);
    const cases: [string, boolean][] = [
      ['cat a.txt', false],
      ['grep -rn x .', false],
      ['sed -n 1,5p a.txt', false],
      ['sed -i s/a/b/ a.txt', true],
      ['sed --in-place=.bak s/a/b/ a.txt', true],
      ['find . -name x', false],
      ['find . -name x -delete', true],
      ['sort a.txt', false],
      ['sort -o out.txt a.txt', true],
      ['uniq a.txt', false],
      ['uniq a.txt out.txt', true],
      ['rm -f x', true],
      ['cat a.txt | tee b.txt', true],
      ['cat a.txt | grep x', false],
      ['nosuchcommand x', false],
      // xargs writes as the command it runs does; a conditional one may get its flag from stdin
      ['xargs grep x', false],
      ['xargs -0 rm', true],
      ['xargs sed s/a/b/', true],
      ['find . -print0 | xargs -0 cat', false],
      ['xargs', false],
    ];
    for (const [command, writes] of cases) expect([command, mayMutate(line(command))]).toEqual([command, writes]);
  });

  it('a word still to be expanded counts: it could become a flag, or the command', () => {
    expect(mayMutate(line('sed s/a/b/ *.txt'))).toBe(true); // a file named -i would be a flag
    expect(mayMutate(line('cat *.txt'))).toBe(false); // cat never writes
    expect(mayMutate(line('c?t a.txt'))).toBe(true);
  });

  it('stdout_file makes any command line a writer', () => {
    expect(mayMutate(line('cat a.txt', 'out.txt'))).toBe(true);
  });

  it('a command whose declaration is not loaded yet is a writer until it is, unless it is a known reader', async () => {
    expect(loadedCommand('shuf')).toBeUndefined();
    expect(mayMutate(line('shuf a.txt'))).toBe(true);
    await expect.poll(() => loadedCommand('shuf')).toBeDefined();
    expect(mayMutate(line('shuf a.txt'))).toBe(false);
    // a reading command is known without its module (the one-shot CLI imports none)
    expect(loadedCommand('wc')).toBeUndefined();
    expect(mayMutate(line('wc -l a.txt'))).toBe(false);
  });

  it('the argv form is literal: nothing expands', async () => {
    await loadCommand('sed');
    expect(mayMutate({ stages: [{ argv: ['sed', 's/a/b/', '*.txt'] }] })).toBe(false);
    expect(mayMutate({ stages: [{ argv: ['sed', '-i', 's/a/b/', 'a.txt'] }] })).toBe(true);
  });
});
