import { describe, expect, it } from 'vitest';
import { NoshError } from '../../src/errors.js';
import { parseCommandLine, type ParseOptions } from '../../src/parse/index.js';

/** The argument values after the command word `cmd`. */
function args(line: string): string[] {
  return parseCommandLine('cmd ' + line).stages[0].slice(1).map((w) => w.value);
}

function fail(line: string, opts?: ParseOptions): NoshError {
  try {
    parseCommandLine(line, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(NoshError);
    return e as NoshError;
  }
  throw new Error(`expected ${JSON.stringify(line)} to be rejected`);
}

// Expected values were produced by `LC_ALL=C bash -c 'set -f; for a in S <case>; do printf "%s\0" "$a"; done'`.
const BASH_QUOTING: [string, string[]][] = [
  ["a b   c", ["a", "b", "c"]],
  ["a\tb", ["a", "b"]],
  ["a'b c'\"d\"", ["ab cd"]],
  ["'a\"b'", ["a\"b"]],
  ["\"a'b\"", ["a'b"]],
  ["''", [""]],
  ["\"\"", [""]],
  ["a''b", ["ab"]],
  ["'' ''", ["", ""]],
  ["\"a\\\"b\"", ["a\"b"]],
  ["\"a\\\\b\"", ["a\\b"]],
  ["\"a\\$b\"", ["a$b"]],
  ["\"a\\`b\"", ["a`b"]],
  ["\"a\\b\"", ["a\\b"]],
  ["\"a\\nb\"", ["a\\nb"]],
  ["\\a\\b", ["ab"]],
  ["a\\ b", ["a b"]],
  ["\\'", ["'"]],
  ["\\\"", ["\""]],
  ["\\\\", ["\\"]],
  ["'a\\b'", ["a\\b"]],
  ["'$HOME'", ["$HOME"]],
  ["\"\\$HOME\"", ["$HOME"]],
  ["\\$HOME", ["$HOME"]],
  ["a$", ["a$"]],
  ["$", ["$"]],
  ["a$ b", ["a$", "b"]],
  ["\"$\"", ["$"]],
  ["\"a$\"", ["a$"]],
  ["$/x", ["$/x"]],
  ["$.", ["$."]],
  ["$%", ["$%"]],
  ["$=", ["$="]],
  ["$,", ["$,"]],
  ["$:", ["$:"]],
  ["$+", ["$+"]],
  ["$~", ["$~"]],
  ["$^", ["$^"]],
  ["$\\a", ["$a"]],
  ["\"$'\"", ["$'"]],
  ["\"$ x\"", ["$ x"]],
  ["a#b", ["a#b"]],
  ["a\\#b", ["a#b"]],
  ["'#'a", ["#a"]],
  ["a=b", ["a=b"]],
  ["!", ["!"]],
  ["x!y", ["x!y"]],
  ["-n", ["-n"]],
  ["'a b'\"c d\"e\\ f", ["a bc de f"]],
];

describe('quoting and escapes (as bash)', () => {
  it.each(BASH_QUOTING)('%s', (line, expected) => {
    expect(args(line)).toEqual(expected);
  });

  it('keeps newlines inside quotes', () => {
    expect(args("'a\nb' \"c\nd\"")).toEqual(['a\nb', 'c\nd']);
  });

  it('treats backslash-newline as a line continuation, as bash', () => {
    expect(args('a\\\nb')).toEqual(['ab']); // bash: ab
    expect(args('"a\\\nb"')).toEqual(['ab']); // bash: ab
    expect(args("'a\\\nb'")).toEqual(['a\\\nb']); // bash: a\<newline>b
    expect(args('a \\\n b')).toEqual(['a', 'b']);
  });

  it('returns one stage of words for a simple command', () => {
    expect(parseCommandLine('ls -la src')).toEqual({
      stages: [[{ value: 'ls' }, { value: '-la' }, { value: 'src' }]],
    });
  });
});

describe('comments', () => {
  it('ignores an unquoted # at the start of a word to the end of the line', () => {
    expect(args('a #comment')).toEqual(['a']); // bash: a
    expect(args('a b#c #d e')).toEqual(['a', 'b#c']); // bash: a b#c
    expect(parseCommandLine('ls # list | rm x;').stages).toEqual([[{ value: 'ls' }]]);
  });
  it('ends a comment at a newline, so a second command is still rejected', () => {
    expect(fail('ls # c\nrm x').code).toBe('METACHAR_REJECTED');
    expect(fail("ls # it's \\\nrm x").code).toBe('METACHAR_REJECTED');
    expect(args('a\\\n#b')).toEqual(['a#b']); // bash: a#b
    expect(args('a\\ #b\\\nc')).toEqual(['a #bc']); // bash: a #bc
  });
  it('keeps a quoted or mid-word #', () => {
    expect(args("'#a' \\#b \"#c\" d#")).toEqual(['#a', '#b', '#c', 'd#']);
  });
  it('rejects a line that is only a comment or blank', () => {
    expect(fail('# only a comment').code).toBe('INVALID_ARGUMENT');
    expect(fail('   \t ').code).toBe('INVALID_ARGUMENT');
    expect(fail('').code).toBe('INVALID_ARGUMENT');
  });
});

describe('deliberate differences from bash', () => {
  it('does not expand a tilde', () => {
    expect(args('~ ~/x a~')).toEqual(['~', '~/x', 'a~']); // bash: /root /root/x a~
  });
  it('rejects a backtick produced by a brace sequence (bash reads it inconsistently)', () => {
    expect(fail('echo {Z..a}').code).toBe('METACHAR_REJECTED');
  });
  it('rejects a $ that brace expansion puts before a name (bash would expand it)', () => {
    expect(fail('echo {$,a}b').code).toBe('METACHAR_REJECTED'); // bash: <value of $b> ab
    expect(args('{$,a}')).toEqual(['$', 'a']);
    expect(args("{$,a}'x'")).toEqual(['$x', 'ax']); // bash: $x ax
  });
  it('rejects a NUL character', () => {
    expect(fail('echo a\0b').code).toBe('INVALID_ARGUMENT');
  });
});

describe('malformed lines', () => {
  it.each([
    ["echo 'abc", 'single quote'],
    ['echo "abc', 'double quote'],
    ['echo "a\\"', 'double quote'],
    ['echo abc\\', 'backslash'],
  ])('%s is INVALID_ARGUMENT', (line, what) => {
    const e = fail(line);
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.message).toContain(what);
  });
});

// Every construct below would make bash do something other than run a simple command.
const REJECTED: [string, string][] = [
  ['ls; rm -rf x', "';'"],
  ['ls;', "';'"],
  ['ls && rm x', "'&&'"],
  ['ls & rm x', "'&'"],
  ['ls &', "'&'"],
  ['ls &> out', "'&>'"],
  ['ls || rm x', "'||'"],
  ['ls |& wc', "'|&'"],
  ['ls > out', "'>'"],
  ['ls >out', "'>'"],
  ['ls 2>/dev/null', "'>'"],
  ['ls >> out', "'>>'"],
  ['wc < in', "'<'"],
  ['cat << EOF', "'<<'"],
  ['cat <<< word', "'<<'"],
  ['diff <(ls) x', "'<'"],
  ['(ls)', "'('"],
  ['ls )', "')'"],
  ['echo $(ls)', "'$('"],
  ['echo a$(ls)b', "'$('"],
  ['echo $((1+2))', "'$('"],
  ['echo ${HOME}', "'${'"],
  ['echo $HOME', "'$HOME'"],
  ['echo x$PATH', "'$PATH'"],
  ['echo $_', "'$_'"],
  ['echo $1', "'$1'"],
  ['echo $0', "'$0'"],
  ['echo $?', "'$?'"],
  ['echo $$', "'$$'"],
  ['echo $#', "'$#'"],
  ['echo $@', "'$@'"],
  ['echo $*', "'$*'"],
  ['echo $!', "'$!'"],
  ['echo $-', "'$-'"],
  ['echo $[1+2]', "'$['"],
  ["echo $'a\\nb'", "$'"],
  ['echo $"msg"', '$"'],
  ['echo `ls`', "'`'"],
  ['echo a\nrm x', 'newline'],
  ['echo a\rrm x', 'carriage return'],
  ['echo "$HOME"', "'$HOME'"],
  ['echo "${x}"', "'${'"],
  ['echo "$(ls)"', "'$('"],
  ['echo "`ls`"', "'`'"],
  ['echo "$1"', "'$1'"],
  ['echo "$?"', "'$?'"],
  ['echo "a$[1]"', "'$['"],
  ['grep x f;', "';'"],
];

describe('unquoted metacharacters are METACHAR_REJECTED', () => {
  it.each(REJECTED)('%s', (line, what) => {
    const e = fail(line);
    expect(e.code).toBe('METACHAR_REJECTED');
    expect(e.message).toContain(what);
    expect(e.message).toMatch(/position \d+/);
    expect(e.hint.length).toBeGreaterThan(10);
    expect(e.details.position).toBeTypeOf('number');
  });

  it('names the position of the metacharacter', () => {
    const e = fail('ls -l; rm x');
    expect(e.message).toContain('position 6');
    expect(e.details).toMatchObject({ position: 6 });
  });

  it('gives a hint that says what to do instead', () => {
    expect(fail('ls > f').hint).toContain('stdout_file');
    expect(fail('ls >> f').hint).toContain('stdout_file');
    expect(fail('ls; ls').hint).toContain('one command per call');
    expect(fail('ls && ls').hint).toContain('one command per call');
    expect(fail('echo $(ls)').hint).toContain('command substitution is not supported');
    expect(fail('echo `ls`').hint).toContain('command substitution is not supported');
    expect(fail('echo $HOME').hint).toContain('there are no variables');
    expect(fail('ls | wc', { pipes: false }).hint).toBe('pipes are disabled in this zone');
  });

  it('reports the first metacharacter of the line', () => {
    expect(fail('a > b; c').message).toContain("'>'");
  });
});

describe('the same characters quoted or escaped are arguments', () => {
  it.each([
    ["awk '{print $1}' f", ['awk', '{print $1}', 'f']],
    ["sed 's/a|b/c/' f", ['sed', 's/a|b/c/', 'f']],
    ["grep ';' f", ['grep', ';', 'f']],
    ['grep "a;b" f', ['grep', 'a;b', 'f']],
    ['grep \\; f', ['grep', ';', 'f']],
    ["grep '&&' f", ['grep', '&&', 'f']],
    ['grep "a || b"', ['grep', 'a || b']],
    ["echo '>' \">>\" \\< '<<'", ['echo', '>', '>>', '<', '<<']],
    ["find . '(' -name a -o -name b ')'", ['find', '.', '(', '-name', 'a', '-o', '-name', 'b', ')']],
    ['find . \\( -name a \\)', ['find', '.', '(', '-name', 'a', ')']],
    ['find . -exec echo {} \\;', ['find', '.', '-exec', 'echo', '{}', ';']],
    ["find . -exec echo {} ';'", ['find', '.', '-exec', 'echo', '{}', ';']],
    ["echo '$HOME' \\$HOME \"\\$HOME\"", ['echo', '$HOME', '$HOME', '$HOME']],
    ["echo '$(ls)' '`ls`' \"\\`ls\\`\"", ['echo', '$(ls)', '`ls`', '`ls`']],
    ["echo \"$'a'\" '$\"b\"'", ['echo', "$'a'", '$"b"']],
    ['echo "a b" "$" "$ " "a$" "$/"', ['echo', 'a b', '$', '$ ', 'a$', '$/']],
    ['echo $ a$ $/ $. $% $=', ['echo', '$', 'a$', '$/', '$.', '$%', '$=']],
    ["sed -n '/^a$/p' f", ['sed', '-n', '/^a$/p', 'f']],
    ['grep -E "^(a|b)+$" f', ['grep', '-E', '^(a|b)+$', 'f']],
    ["awk -F: '$3 > 100 { print $1; exit }' f", ['awk', '-F:', '$3 > 100 { print $1; exit }', 'f']],
  ])('%s', (line, expected) => {
    expect(parseCommandLine(line).stages[0].map((w) => w.value)).toEqual(expected);
  });
});

describe('pipelines', () => {
  const stages = (line: string, opts?: ParseOptions): string[][] =>
    parseCommandLine(line, opts).stages.map((s) => s.map((w) => w.value));

  it('splits stages on unquoted |', () => {
    expect(stages('ls -l | grep a | wc -l')).toEqual([['ls', '-l'], ['grep', 'a'], ['wc', '-l']]);
    expect(stages('ls|wc')).toEqual([['ls'], ['wc']]);
    expect(stages("grep 'a|b' f | sort")).toEqual([['grep', 'a|b', 'f'], ['sort']]);
    expect(stages('grep a\\|b f')).toEqual([['grep', 'a|b', 'f']]);
  });

  it('rejects empty stages', () => {
    for (const line of ['| wc', 'ls |', 'ls | | wc', 'ls |  ', '|', 'ls | # c']) {
      const e = fail(line);
      expect(e.code, line).toBe('INVALID_ARGUMENT');
      expect(e.message, line).toContain('empty pipeline stage');
    }
    expect(fail('ls || wc').code).toBe('METACHAR_REJECTED');
  });

  it('rejects every unquoted | when pipes are disabled', () => {
    const e = fail('ls | wc', { pipes: false });
    expect(e.code).toBe('METACHAR_REJECTED');
    expect(e.hint).toBe('pipes are disabled in this zone');
    expect(stages("grep 'a|b' f", { pipes: false })).toEqual([['grep', 'a|b', 'f']]);
  });

  it('rejects a stage that brace expansion leaves empty', () => {
    expect(fail('{,} | wc').code).toBe('INVALID_ARGUMENT');
  });
});
