import { describe, expect, it } from 'vitest';
import { defineCommand, OptionError, parseArgs, UsageError, type CommandDef } from '../../src/command/index.js';

const base = { summary: 's', usage: '[FILE]...', mutates: false, run: () => 0 } as const;

function cmd(extra: Partial<CommandDef>): CommandDef {
  return defineCommand({
    ...base,
    name: 't',
    flags: [
      { key: 'lines', short: 'n', long: 'lines', kind: 'string', parse: (v: string) => {
        if (!/^[0-9]+$/.test(v)) throw new OptionError(`invalid number of lines: '${v}'`, false);
        return Number(v);
      } },
      { key: 'quiet', short: 'q', long: 'quiet' },
      { key: 'verbose', long: 'verbose' },
      { key: 'verify', long: 'verify' },
      { key: 'sort', long: 'sort', kind: 'string', choices: { words: ['none', 'size', 'time'] } },
      { key: 'order', short: 't', value: 'time' },
      { key: 'order', short: 'S', value: 'size' },
      { key: 'e', short: 'e', kind: 'string', repeat: true },
      { key: 'a', short: 'a' }, { key: 'b', short: 'b' },
    ],
    ...extra,
  } as CommandDef);
}

function error(def: CommandDef, args: string[]): UsageError {
  try {
    parseArgs(def, args);
  } catch (e) {
    if (e instanceof UsageError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('the option model', () => {
  it('runs value parsers during the walk: the first bad value in argv order is reported, typed', () => {
    const def = cmd({});
    expect(parseArgs(def, ['-n', '5', 'f']).opts.values()).toMatchObject({ lines: 5 });
    expect(error(def, ['-n', 'x', '--bogus', '-n', 'y']).message).toBe("invalid number of lines: 'x'");
    expect((error(def, ['-n', 'x']) as OptionError).tryHelp).toBe(false);
    // A getopt error before the bad value wins.
    expect(error(def, ['--bogus', '-n', 'x']).message).toBe("unrecognized option '--bogus'");
    // After --help values are no longer checked (GNU has printed its help and exited).
    expect(parseArgs(def, ['--help', '-n', 'x']).opts.has('help')).toBe(true);
  });

  it('argmatch choices: prefixes, and GNU\'s "Valid arguments are" list with exit status 1', () => {
    const def = cmd({ usageStatus: 2 });
    expect(parseArgs(def, ['--sort=si']).opts.values()).toMatchObject({ sort: 'size' });
    const e = error(def, ['--sort=x']) as OptionError;
    expect(e.message).toBe("invalid argument 'x' for '--sort'\nValid arguments are:\n  - 'none'\n  - 'size'\n  - 'time'");
    expect([e.tryHelp, e.status]).toEqual([true, 1]);
    expect(error(def, ['--sort=']).message).toMatch(/^ambiguous argument '' for '--sort'/);
  });

  it('digit options: accumulated per word (grep -NUM), per run until the flag (uniq), or rejected (head)', () => {
    const word = cmd({ digits: { key: 'lines', accumulate: 'word' } });
    expect(parseArgs(word, ['-1q2']).opts.values()).toMatchObject({ lines: 12, quiet: true });
    expect(parseArgs(word, ['-1', '-2']).opts.values()).toMatchObject({ lines: 2 });
    const run = cmd({ digits: { key: 'lines', accumulate: 'run' } });
    expect(parseArgs(run, ['-1', '-q', '-2']).opts.values()).toMatchObject({ lines: 12 });
    expect(parseArgs(run, ['-1', '-n', '7', '-2']).opts.values()).toMatchObject({ lines: 2 });
    const reject = cmd({ digits: { reject: (d) => new UsageError(`invalid trailing option -- ${d}`) } });
    expect(error(reject, ['-q5']).message).toBe('invalid trailing option -- 5');
    expect(error(cmd({}), ['-5']).message).toBe("invalid option -- '5'");
  });

  it('obsolete forms: a leading one (head -5) and operands (uniq +N), which stop where GNU dies', () => {
    const def = cmd({
      obsoleteLeading: (args) => (/^-[0-9]+$/.test(args[0] ?? '') ? { items: [{ flag: '-n', value: args[0]!.slice(1) }], words: 1 } : null),
      obsoleteOperand: (args, at) => (args[at]!.startsWith('+') ? { items: [{ flag: '-n', value: args[at]!.slice(1) }], words: 1, stop: args[at] === '+9' } : null),
    });
    expect(parseArgs(def, ['-5', 'f']).opts.values()).toMatchObject({ lines: 5 });
    expect(parseArgs(def, ['f', '+3', 'g'])).toMatchObject({ operands: ['f', 'g'] });
    expect(parseArgs(def, ['f', '+3']).opts.values()).toMatchObject({ lines: 3 });
    expect(parseArgs(def, ['--', '+3']).operands).toEqual(['+3']);
    expect(parseArgs(def, ['+9', '--bogus']).operands).toEqual([]);
    expect(error(def, ['-x5']).message).toBe("invalid option -- 'x'");
  });

  it('options end at the first operand when declared (basename, tr)', () => {
    expect(parseArgs(cmd({}), ['a', '-q']).operands).toEqual(['a']);
    const def = cmd({ optionsEnd: 'first-operand' });
    expect(parseArgs(def, ['-q', 'a', '-q', '--x'])).toMatchObject({ operands: ['a', '-q', '--x'] });
    expect(parseArgs(def, ['-n', '3', 'a', '-n']).operands).toEqual(['a', '-n']);
  });

  it('conflicts and extra operands are usage errors where they are met', () => {
    const def = cmd({ conflicts: [{ keys: ['a', 'b'], message: 'only one list may be specified' }], maxOperands: 2 });
    expect(error(def, ['-a', '-b', '-n', 'x']).message).toBe('only one list may be specified');
    expect(error(def, ['-a', '-a']).message).toBe('only one list may be specified');
    expect(error(def, ['f', 'g', 'h', '-n', 'x']).message).toBe("extra operand 'h'");
    expect(error(def, ['-n', 'x', 'f', 'g', 'h']).message).toBe("invalid number of lines: 'x'");
  });

  it('overrides and repeats: the last of a shared key wins; a repeat flag keeps every value', () => {
    const p = parseArgs(cmd({}), ['-t', '-S', '-e', 'x', '-ey']).opts;
    expect(p.values()).toMatchObject({ order: 'size', e: ['x', 'y'] });
    expect(parseArgs(cmd({}), ['-S', '-t']).opts.values()).toMatchObject({ order: 'time' });
  });

  it('long options: ambiguous and unrecognized as getopt_long says them', () => {
    const def = cmd({});
    expect(error(def, ['--ver']).message).toBe("option '--ver' is ambiguous; possibilities: '--verbose' '--verify' '--version'");
    expect(error(def, ['--nope=1']).message).toBe("unrecognized option '--nope=1'");
    expect(parseArgs(def, ['--li=4']).opts.values()).toMatchObject({ lines: 4 });
    expect(error(def, ['--quiet=1']).message).toBe("option '--quiet' doesn't allow an argument");
  });

  it('types the values from the declaration', () => {
    const def = defineCommand({
      ...base, name: 'typed',
      flags: [{ key: 'lines', short: 'n', kind: 'string', parse: (v: string) => Number(v) }, { key: 'q', short: 'q', value: 'never' }],
      run(ctx) {
        const n: number | undefined = ctx.values.lines;
        const q: 'never' | undefined = ctx.values.q;
        return n ?? (q ? 1 : 0);
      },
    });
    expect(def.name).toBe('typed');
  });
});
