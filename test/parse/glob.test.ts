import { describe, expect, it } from 'vitest';
import { NoshError } from '../../src/errors.js';
import { expandGlob, expandWords, parseCommandLine, type DirEntryLite } from '../../src/parse/index.js';

/** An in-memory tree: paths ending in '/' are directories. */
function memTree(paths: string[]): { listDir: (dir: string) => DirEntryLite[] | null; listed: string[] } {
  const dirs = new Map<string, DirEntryLite[]>([['/', []]]);
  const seen = new Set<string>();
  for (const p of paths) {
    const isDir = p.endsWith('/');
    const parts = p.replace(/\/$/, '').split('/').filter(Boolean);
    let dir = '/';
    parts.forEach((name, i) => {
      const path = (dir === '/' ? '' : dir) + '/' + name;
      const d = i < parts.length - 1 || isDir;
      const key = dir + '\0' + name;
      if (!seen.has(key)) { seen.add(key); dirs.get(dir)!.push({ name, isDirectory: d }); }
      if (d && !dirs.has(path)) dirs.set(path, []);
      dir = path;
    });
  }
  const listed: string[] = [];
  return { listed, listDir: (dir) => { listed.push(dir); return dirs.get(dir) ?? null; } };
}

// The tree bash was run in (as /tmp/.../w, renamed /w here).
const TREE = memTree([
  '/w/!', '/w/.h', '/w/.hid/q', '/w/A', '/w/[a]', '/w/]', '/w/^', '/w/_x', '/w/a', '/w/a b', '/w/a-b',
  '/w/a]', '/w/ab', '/w/b', '/w/d b/a', '/w/docs/README.md', '/w/docs/b.md', '/w/src/.dot/h.ts',
  '/w/src/top.ts', '/w/src/x/m.ts', '/w/src/y/n.ts', '/w/x*', '/w/x\\y',
]);

function globArgs(line: string, cwd = '/w'): string[] {
  return expandWords(parseCommandLine('cmd ' + line).stages[0].slice(1), cwd, TREE.listDir);
}

// Expected values were produced by `cd w && LC_ALL=C bash -c 'for a in S <case>; do printf "%s\0" "$a"; done'`.
const BASH_GLOBS: [string, string[]][] = [
  ["*", ["!", "A", "[a]", "]", "^", "_x", "a", "a b", "a-b", "a]", "ab", "b", "d b", "docs", "src", "x*", "x\\y"]],
  ["a*", ["a", "a b", "a-b", "a]", "ab"]],
  ["\"a\"*", ["a", "a b", "a-b", "a]", "ab"]],
  ["'a b'*", ["a b"]],
  ["a?", ["a]", "ab"]],
  ["??", ["_x", "a]", "ab", "x*"]],
  ["?", ["!", "A", "]", "^", "a", "b"]],
  ["[ab]", ["a", "b"]],
  ["[!a]*", ["!", "A", "[a]", "]", "^", "_x", "b", "d b", "docs", "src", "x*", "x\\y"]],
  ["[^a]*", ["!", "A", "[a]", "]", "^", "_x", "b", "d b", "docs", "src", "x*", "x\\y"]],
  ["[a-c]*", ["a", "a b", "a-b", "a]", "ab", "b"]],
  ["[[:upper:]]*", ["A"]],
  ["[[:alpha:]_]*", ["A", "_x", "a", "a b", "a-b", "a]", "ab", "b", "d b", "docs", "src", "x*", "x\\y"]],
  ["[]a]*", ["]", "a", "a b", "a-b", "a]", "ab"]],
  ["[!]a]*", ["!", "A", "[a]", "^", "_x", "b", "d b", "docs", "src", "x*", "x\\y"]],
  ["[\"^\"a]", ["^", "a"]],
  ["[\\^a]", ["^", "a"]],
  ["[a\"-\"c]*", ["a", "a b", "a-b", "a]", "ab"]],
  ["[a\\-]*", ["a", "a b", "a-b", "a]", "ab"]],
  ["\\**", ["**"]],
  ["x\\**", ["x*"]],
  ["\"x*\"", ["x*"]],
  ["x[*]", ["x*"]],
  ["\\[*", ["[a]"]],
  ["[[]*", ["[a]"]],
  ["*]", ["[a]", "]", "a]"]],
  [".*", [".h", ".hid"]],
  ["\\.*", [".h", ".hid"]],
  ["[.]*", ["[.]*"]],
  [".h*", [".h", ".hid"]],
  ["src/*", ["src/top.ts", "src/x", "src/y"]],
  ["src/*.ts", ["src/top.ts"]],
  ["*/*.ts", ["src/top.ts"]],
  ["*/*/*.ts", ["src/x/m.ts", "src/y/n.ts"]],
  ["src/*/*.ts", ["src/x/m.ts", "src/y/n.ts"]],
  ["src/.*/*.ts", ["src/.dot/h.ts"]],
  ["src/*/", ["src/x/", "src/y/"]],
  ["*/", ["d b/", "docs/", "src/"]],
  ["d*/", ["d b/", "docs/"]],
  ["*/a", ["d b/a"]],
  ["*/nonexist", ["*/nonexist"]],
  ["nomatch*", ["nomatch*"]],
  ["\"x y\"*", ["x y*"]],
  ["src//*.ts", ["src//top.ts"]],
  ["src/*//*.ts", ["src/x/m.ts", "src/y/n.ts"]],
  ["./*.md", ["./*.md"]],
  ["./a*", ["./a", "./a b", "./a-b", "./a]", "./ab"]],
  ["docs/*.md", ["docs/README.md", "docs/b.md"]],
  ["docs/[A-Z]*", ["docs/README.md"]],
  ["*/..", ["d b/..", "docs/..", "src/.."]],
  ["src/x/../*.ts", ["src/x/../top.ts"]],
  ["**", ["!", "A", "[a]", "]", "^", "_x", "a", "a b", "a-b", "a]", "ab", "b", "d b", "docs", "src", "x*", "x\\y"]],
  ["**/*.ts", ["src/top.ts"]],
  ["src/**", ["src/top.ts", "src/x", "src/y"]],
  ["a/*", ["a/*"]],
  ["a/*/", ["a/*/"]],
  ["*/x/", ["src/x/"]],
  ["src/x/*", ["src/x/m.ts"]],
  ["/w/a*", ["/w/a", "/w/a b", "/w/a-b", "/w/a]", "/w/ab"]],
  ["/w/*/*.md", ["/w/docs/README.md", "/w/docs/b.md"]],
  ["/w/src/*/", ["/w/src/x/", "/w/src/y/"]],
  ["*a b*", ["a", "b"]],
  ["d\\ b/*", ["d b/a"]],
  ["\"d b\"/*", ["d b/a"]],
  ["x\\\\*", ["x\\y"]],
  ["*.{ts,md}", ["*.ts", "*.md"]],
  ["src/{x,y}/*.ts", ["src/x/m.ts", "src/y/n.ts"]],
];

describe('glob expansion (as bash)', () => {
  it.each(BASH_GLOBS)('%s', (line, expected) => {
    expect(globArgs(line)).toEqual(expected);
  });

  it('sorts in C locale byte order over the whole result', () => {
    const t = memTree(['/a/z', '/a-b/y', '/B', '/\u00e9', '/\u{1F600}', '/\uff21', '/_']);
    // bash LC_ALL=C: B _ a-b a (byte order: '-' < '/'), then UTF-8 bytes
    expect(expandGlob({ value: '*', glob: '*' }, '/', t.listDir)).toEqual(['B', '_', 'a', 'a-b', '\u00e9', '\uff21', '\u{1F600}']);
    expect(expandGlob({ value: '*/*', glob: '*/*' }, '/', t.listDir)).toEqual(['a-b/y', 'a/z']);
  });

  it('resolves relative patterns against cwd and keeps them relative', () => {
    expect(globArgs('*.ts', '/w/src')).toEqual(['top.ts']);
    expect(globArgs('../docs/*', '/w/src')).toEqual(['../docs/README.md', '../docs/b.md']);
    expect(globArgs('*', '/nonexistent')).toEqual(['*']);
  });

  it('never produces . or .. from a wildcard', () => {
    const t = memTree(['/d/.x', '/d/y']);
    const withDots = (dir: string): DirEntryLite[] | null => {
      const e = t.listDir(dir);
      return e && [{ name: '.', isDirectory: true }, { name: '..', isDirectory: true }, ...e];
    };
    expect(expandGlob({ value: '.*', glob: '.*' }, '/d', withDots)).toEqual(['.x']);
    expect(expandGlob({ value: '*', glob: '*' }, '/d', withDots)).toEqual(['y']);
  });

  it('passes words without a glob through', () => {
    expect(expandGlob({ value: 'a*' }, '/w', TREE.listDir)).toEqual(['a*']);
    expect(expandWords([{ value: 'x' }, { value: 'a?', glob: 'a?' }], '/w', TREE.listDir)).toEqual(['x', 'a]', 'ab']);
  });
});

describe('glob marking by parseCommandLine', () => {
  const words = (line: string) => parseCommandLine('cmd ' + line).stages[0].slice(1);

  it('marks only words with an unquoted glob char', () => {
    expect(words('a* b? [ab] x')).toEqual([
      { value: 'a*', glob: 'a*' }, { value: 'b?', glob: 'b?' }, { value: '[ab]', glob: '[ab]' }, { value: 'x' },
    ]);
    expect(words("'a*' \"b?\" \\[ab] [a a] ]")).toEqual([
      { value: 'a*' }, { value: 'b?' }, { value: '[ab]' }, { value: '[a' }, { value: 'a]' }, { value: ']' },
    ]);
  });

  it('escapes quoted glob specials in the pattern', () => {
    expect(words('"a*"* \'[x]\'? \\\\*')).toEqual([
      { value: 'a**', glob: 'a\\**' }, { value: '[x]?', glob: '\\[x\\]?' }, { value: '\\*', glob: '\\\\*' },
    ]);
    expect(words('[a"-"c]*')).toEqual([{ value: '[a-c]*', glob: '[a\\-c]*' }]);
  });
});

describe('glob bounds', () => {
  it('throws INVALID_ARGUMENT beyond 10000 results', () => {
    const t = memTree(Array.from({ length: 10_001 }, (_, i) => `/big/f${i}`));
    const e = (() => { try { expandGlob({ value: 'f*', glob: 'f*' }, '/big', t.listDir); } catch (err) { return err; } })();
    expect(e).toBeInstanceOf(NoshError);
    expect((e as NoshError).code).toBe('INVALID_ARGUMENT');
    expect((e as NoshError).hint).toMatch(/narrower pattern/);
    expect(expandGlob({ value: 'f1*', glob: 'f1*' }, '/big', t.listDir)).toHaveLength(1 + 10 + 100 + 1000 + 1);
  });

  it('bounds the number of directories read', () => {
    const paths: string[] = [];
    for (let i = 0; i < 100; i++) for (let j = 0; j < 99; j++) paths.push(`/t/d${i}/e${j}/`);
    const t = memTree(paths);
    expect(() => expandGlob({ value: '*/*/*', glob: '*/*/*' }, '/t', t.listDir)).toThrow(/more than 10000 directories/);
    expect(t.listed.length).toBeLessThanOrEqual(10_000);
  });

  it('reads each directory once per pattern', () => {
    const t = memTree(['/r/a/x', '/r/b/x', '/r/c/y']);
    expect(expandGlob({ value: '*/x', glob: '*/x' }, '/r', t.listDir)).toEqual(['a/x', 'b/x']);
    expect(new Set(t.listed).size).toBe(t.listed.length);
  });

  it('bounds the total over several words', () => {
    const t = memTree(Array.from({ length: 6000 }, (_, i) => `/big/f${i}`));
    const w = { value: 'f*', glob: 'f*' };
    expect(expandWords([w], '/big', t.listDir)).toHaveLength(6000);
    expect(() => expandWords([w, w], '/big', t.listDir)).toThrow(NoshError);
  });
});
