// Generators for the fuzz suite (test/fuzz/*.fuzz.test.ts): a seeded PRNG, value pools and
// argv / command-line builders driven by each command's flag declaration.
import type { CommandDef, FlagSpec } from '../../src/command/index.js';

/** mulberry32: small, fast, deterministic. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
}

export function hashSeed(s: string, seed: number): number {
  let h = 2166136261 ^ seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Marker strings: the .env content and the file outside the zone. Never in any pool. */
export const ENV_SECRET = 'ENV-SECRET-7f3a91';
export const OUTSIDE_SECRET = 'OUTSIDE-SECRET-c0ffee';

/** The zone fixture (relative to the zone root). `outside` is a sibling of the root. */
export function fixtureTree(outside: string): Record<string, unknown> {
  return {
    'a.txt': 'hello world\nfoo bar baz\n\nHELLO again\ntab\there\nfoo\n',
    'b.md': '# title\n\nsome *markdown* text\nfoo(bar)\n[x]\n',
    'noeol.txt': 'no newline at end',
    'empty.txt': '',
    'bin.dat': { base64: Buffer.from([0, 1, 2, 255, 10, 0x66, 0x6f, 0x6f, 10, 0, 0xc3, 0x28, 10]).toString('base64') },
    'sub/c.txt': 'one\ntwo\nthree\nfoo\n',
    'sub/deep/d.log': 'x=1\ny=2\n',
    'sub/.hidden': 'hidden\n',
    'emptydir': null,
    'sp ace.txt': 'space in name\n',
    '.env': `${ENV_SECRET}\n`,
    'sub/.env': `${ENV_SECRET}\n`,
    'out-link': { symlink: `${outside}/secret.txt` },
    'out-dir': { symlink: '../outside' },
    'in-link': { symlink: 'a.txt' },
    'env-link': { symlink: '.env' },
    'dangling': { symlink: 'nowhere' },
  };
}

/** Operands that name things in (or around) the zone. */
export const PATHS = [
  'a.txt', 'b.md', 'noeol.txt', 'empty.txt', 'bin.dat', 'sub', 'sub/c.txt', 'sub/deep', 'sub/deep/d.log', 'sub/.hidden',
  'emptydir', 'sp ace.txt', '.env', 'sub/.env', 'out-link', 'out-dir', 'out-dir/secret.txt', 'in-link', 'env-link', 'dangling',
  'missing', 'missing/x', 'a.txt/x', '.', '..', '/', '/a.txt', '/sub/', 'sub/../a.txt', '../../../../etc/passwd', '/../..',
  '../outside/secret.txt', '/etc/passwd', '/proc/self/environ', '/dev/zero', 'sub//c.txt', './a.txt', 'new.txt', 'newdir/',
  'sub/new', '~', '~/x', '.nosh-tmp-x', 'A.TXT', '.ENV',
];

const LONG = 'x'.repeat(5000);
const ODD = ['\x01\x02\x7f', 'é', '\uFFFD', '\u202e', 'a\tb', 'a\nb', ' ', '\\', '\\\\', "'", '"', '$HOME', '`id`', '%s%n%x', '{a,b}', '!'];
export const NUMBERS = ['0', '1', '2', '5', '-1', '-5', '+5', '+0', '1K', '1k', '2M', '1G', '1KB', '1KiB', '1e3', '0x10', '010',
  '99999999999999999999', '-99999999999999999999', '9007199254740993', '1.5', 'abc', '', ' 3', '3 ', '-0'];
export const REGEXISH = ['[', ']', '\\(', '\\)', '(', ')', 'a\\{1,2', 'a\\{2,1\\}', 'a{1,2', '*', '**', '+', '?', '^', '$', '^*', '\\',
  'a\\|b', 'a|b', '[[:alpha:]]', '[[:bogus:]]', '[a-', '[z-a]', '\\1', '\\(a\\)\\2', '.*', 'foo', 'hello', 'o\\+', '\\<foo\\>',
  '\\w\\+', '(a*)*b', '\\(a*\\)*b', 'x{99999}', 'a{,3}', '[^\\n]', '\\bx', '(?=x)', '(?<n>a)', '\\p{L}', '\\u0041', '[[.a.]]', '[[=a=]]'];
const MISC = ['-', '--', '-x', '---', '=', 'never', 'always', 'auto', 'binary', 'text', 'without-match', 'atime', 'mtime', 'access',
  '755', '0644', 'u+x', 'a=rwx,g-w', '9999', 'zzz', '-w', '202001010000', '1', '2020-01-01', '2020-01-01 00:00', 'yesterday', '@0', '@-1',
  '@99999999999999', 'now', '%n %s', '%', '%Z%', '%N', '%y %x %w', '\\n\\t', '%A %a %F', 'none', '.bak', '*.txt', 'sub*', '*/'];
export const VALUES = [...NUMBERS, ...PATHS, ...REGEXISH, ...MISC, ...ODD, LONG, 'y'.repeat(70000), LONG.slice(0, 300) + '/', '../'.repeat(50)];

export const SED_SCRIPTS = ['p', 'd', '1d', '$d', '$!N', 'n', 'N;P;D', 's/o/0/g', 's/\\(o\\)/\\1\\1/2', 's/x*/-/g', 's/^/> /', 's/$/ </',
  'y/abc/xyz/', 'y/ab/x/', '/foo/,/bar/d', '2,4p', '0~2d', '1~0p', '2,+1d', '/[/p', 's/a/b', 's/a/b/q', 's/a/b/e', 'e ls', 'e', 'r .env',
  'r out-link', 'R a.txt', 'w out.txt', 'w /dev/stdout', 'W /dev/stderr', 's/a/b/w sub/w.txt', 'a\\\ntext', 'i hi', 'c bye', 'l', 'l 5',
  '=', 'q', 'q5', 'Q', 'h;G', 'x;p;x', ':a;N;$!ba;s/\\n/,/g', 'b end', 't', 'T', 'z', 'F', '{p', '}', '{p;}', 'v', 'v 9.9', '#n', 's/[[:upper:]]/\\L&/g',
  's/\\w\\+/\\U&/', 's/.*/\\E/', 's,/,|,g', 's/(a|b)+/X/g', 'k', '1,$!{p}', 'L', 'H;$!d;x'];

export const FIND_ARGS = ['.', '/', 'sub', 'missing', 'out-link', 'out-dir', '.env', '..', '-name', '*.txt', '-iname', 'A*', '-path', '*/c*',
  '-regex', '.*\\.txt', '-regextype', 'posix-extended', 'bogus', '-type', 'f', 'd', 'l', 'x', 'f,d', '-xtype', '-size', '+0', '-1k', '1M',
  '-empty', '-mtime', '-1', '+3', '-mmin', '-newer', 'a.txt', '-perm', '-644', '/u+x', 'u=rw', '-maxdepth', '1', '-mindepth', '0', '-999',
  '-depth', '-prune', '-print', '-print0', '-printf', '%p %s %m %y %l\\n', '%', '%{', '\\c', '%TY', '-ls', '-quit', '-delete', '-exec',
  'cat', '{}', ';', '-ok', '-fprint', 'x', '-L', '-H', '-P', '-follow', '-O3', '-D', '-not', '!', '(', ')', '-a', '-o', ',', '-and',
  '-or', '-true', '-false', '-inum', '-links', '-uid', '-gid', '-samefile', '-lname', '*', '-user', '-daystart', '-help', '-version',
  '-anewer', 'missing', '-used', '-readable'];

export const ECHO_ARGS = ['-n', '-e', '-E', '-neE', '-en', '-x', '--', '--help', '-', 'a\\nb', '\\c', 'x\\cy', '\\0101', '\\x41\\x', '\\',
  '\\e[1m', '%s', 'hello', '', ' ', ...ODD];

export interface Stdin {
  label: string;
  data?: Buffer;
}

export function randomStdin(r: Rng): Stdin {
  switch (r.int(9)) {
    case 0: return { label: 'none' };
    case 1: return { label: 'empty', data: Buffer.alloc(0) };
    case 2: return { label: 'text', data: Buffer.from('hello world\nfoo\nbar baz\n\nfoo bar\n') };
    case 3: return { label: 'noeol', data: Buffer.from('a\nb\nc') };
    case 4: { const n = r.int(64); const seed = r.int(1e9); return { label: `random-bytes(${n}, ${seed})`, data: new Rng(seed).bytes(n) }; }
    case 5: return { label: 'big-lines(20000)', data: Buffer.from('line of text foo\n'.repeat(20000)) };
    case 6: return { label: 'nuls', data: Buffer.from('a\0b\0c\0') };
    case 7: return { label: 'long-line(200000)', data: Buffer.from('y'.repeat(200000)) };
    default: return { label: 'crlf', data: Buffer.from('a\r\nb\r\n') };
  }
}

/** Rebuild a stdin from its label (for reproducing a failure). */
export function stdinFromLabel(label: string): Buffer | undefined {
  const m = /^random-bytes\((\d+), (\d+)\)$/.exec(label);
  if (m) return new Rng(Number(m[2])).bytes(Number(m[1]));
  return undefined;
}

/** Plausible values by the flag's declared argument name (clean cases get past option parsing). */
const EXISTING = ['a.txt', 'b.md', 'noeol.txt', 'empty.txt', 'bin.dat', 'sub', 'sub/c.txt', 'sub/deep', 'emptydir', 'sp ace.txt', 'in-link', '.'];
const TYPED: [RegExp, string[]][] = [
  [/NUM|^N$|level/, ['0', '1', '2', '3', '10', '-1', '+2', '-2', '1K', '100000']],
  [/FILE|DIRECTORY/, ['a.txt', 'sub', 'emptydir', 'sub/c.txt', 'missing', '.env', 'out-link', 'newdir']],
  [/PATTERNS|pattern/, ['foo', 'o', 'a.*', '^$', 'hello|foo', '[[:digit:]]', 'x\\|y', '*.txt', 'sub']],
  [/GLOB/, ['*.txt', '*.md', 'sub', '.*', '[a-c]*', '*']],
  [/FORMAT/, ['%n %s', '%F %a %U', '%N\\n', '%y %x', '%s']],
  [/LIST/, ['1', '1-3', '2-', '-2', '1,3', '3,1', '1-2,4-']],
  [/DELIM|SEP/, [',', ' ', ':', '\t', '--']],
  [/WHEN/, ['never', 'always', 'auto']],
  [/TYPE/, ['binary', 'text', 'without-match']],
  [/MODE/, ['755', '0700', 'u+x', 'a=rw', 'go-w']],
  [/STAMP/, ['202001010000', '2001011200.30', '01010000']],
  [/WORD/, ['atime', 'mtime', 'access', 'modify', 'use']],
  [/STRING/, ['2020-01-01', '2020-01-01 12:00:00', '@0', 'now', 'yesterday']],
  [/SUFFIX/, ['.bak', '~', '.orig']],
  [/METHOD/, ['none', 'all', 'prepend', 'separate', 'append', 'both', 'never']],
  [/script/, ['p', 's/o/0/g', '1d', '$!d', 'y/ab/ba/']],
];

let clean = false;

function valueFor(r: Rng, f?: FlagSpec): string {
  if (clean && f) {
    const arg = f.arg ?? '';
    const typed = TYPED.find(([re]) => re.test(arg));
    if (typed) return r.pick(typed[1]);
  }
  return r.pick(VALUES);
}

/** A long-option spelling: exact, or an abbreviation (unique or not). */
function longName(r: Rng, f: FlagSpec): string {
  const l = f.long!;
  if (l.length > 2 && r.chance(0.2)) return l.slice(0, 1 + r.int(l.length - 1));
  return l;
}

/** One flag occurrence as one or two argv words. */
function flagWords(r: Rng, f: FlagSpec): string[] {
  const kind = f.kind ?? 'boolean';
  const useLong = f.long !== undefined && (f.short === undefined || r.chance(0.5));
  if (kind === 'boolean') {
    if (!clean && useLong && r.chance(0.05)) return [`--${longName(r, f)}=${valueFor(r)}`]; // doesn't allow an argument
    return [useLong ? `--${longName(r, f)}` : `-${f.short}`];
  }
  if (kind === 'optional') {
    if (r.chance(0.4)) return [useLong ? `--${longName(r, f)}` : `-${f.short}`];
    return [useLong ? `--${longName(r, f)}=${valueFor(r, f)}` : `-${f.short}${valueFor(r, f)}`];
  }
  const v = valueFor(r, f);
  if (!clean && r.chance(0.05)) return [useLong ? `--${longName(r, f)}` : `-${f.short}`]; // maybe missing argument (last word)
  if (useLong) return r.chance(0.5) ? [`--${longName(r, f)}=${v}`] : [`--${longName(r, f)}`, v];
  return r.chance(0.5) && v !== '' ? [`-${f.short}${v}`] : [`-${f.short}`, v];
}

/** A bundle: several short booleans, maybe ending with a short value flag. */
function bundle(r: Rng, flags: FlagSpec[]): string[] {
  const bools = flags.filter((f) => f.short && (f.kind ?? 'boolean') === 'boolean');
  const valued = flags.filter((f) => f.short && f.kind && f.kind !== 'boolean');
  let s = '-';
  const n = 1 + r.int(4);
  for (let i = 0; i < n && bools.length; i++) s += r.pick(bools).short;
  if (valued.length && r.chance(0.5)) {
    const f = r.pick(valued);
    s += f.short;
    if (r.chance(0.5) || f.kind === 'optional') return [s + (r.chance(0.5) ? valueFor(r, f) : '')];
    return [s, valueFor(r, f)];
  }
  return [s];
}

const TR_SETS = ['a-z', 'A-Z', 'abc', 'x', '[:upper:]', '[:lower:]', '[:alpha:]', '[:digit:]', '[:space:]', '\\n', '\\0', '[a*]', '[a*3]',
  'a-', 'z-a', '[=a=]', '\\', '[:bogus:]', '', '\\377', '[', 'a-z0-9'];

function commandOperand(r: Rng, name: string): string[] {
  if (name === 'sed') return [r.pick(SED_SCRIPTS)];
  if (name === 'grep' || name === 'egrep' || name === 'fgrep') return [r.pick([...REGEXISH, 'foo', 'o', '', 'hello'])];
  if (name === 'cut' && clean) return r.pick([['-f', r.pick(['1', '2', '1-3', '2-'])], ['-c', '1-3'], ['-b', '2,4'], ['-d', ' ', '-f', '2']]);
  if (name === 'tr') return r.chance(0.8) ? [r.pick(TR_SETS), r.pick(TR_SETS)] : [r.pick(TR_SETS)];
  return [];
}

/** Argv (without the command name) for a getopt-parsed command. */
export function genArgs(r: Rng, name: string, def: CommandDef): string[] {
  if (name === 'find') return genFind(r);
  if (name === 'echo' || def.parse === 'raw') return genRaw(r, name);
  // Half the cases are clean: typed flag values, existing operands, no unknown flags.
  clean = r.chance(0.5);
  const flags = def.flags;
  const words: string[][] = [];
  const nflags = r.int(clean ? 3 : 5);
  for (let i = 0; i < nflags && flags.length; i++) {
    const x = r.next();
    if (x < 0.6) words.push(flagWords(r, r.pick(flags)));
    else if (x < 0.85) words.push(bundle(r, flags));
    else if (x < 0.9 && !clean) words.push([r.pick(['-@', '--bogus', '--', '-', '--=x', '--help', '--hel', '-Z9', '--no'])]);
    else words.push(flagWords(r, r.pick(flags)));
  }
  const ops: string[][] = [];
  if (clean || r.chance(0.8)) ops.push(commandOperand(r, name));
  const nops = clean ? 1 + r.int(2) : r.int(4);
  for (let i = 0; i < nops; i++) ops.push([clean ? r.pick(EXISTING) : r.chance(0.75) ? r.pick(PATHS) : valueFor(r)]);
  // Permute: GNU getopt accepts options after operands; keep the script/pattern first among operands.
  const out: string[] = [];
  const all = [...words.map((w) => ({ w, op: false })), ...ops.map((w) => ({ w, op: true }))];
  const opsQueue = all.filter((a) => a.op);
  const flagQueue = all.filter((a) => !a.op);
  while (opsQueue.length || flagQueue.length) {
    const takeFlag = flagQueue.length && (!opsQueue.length || r.chance(0.6));
    out.push(...(takeFlag ? flagQueue.shift()! : opsQueue.shift()!).w);
  }
  return out;
}

function genFind(r: Rng): string[] {
  const n = r.int(8);
  const out: string[] = [];
  if (r.chance(0.6)) out.push(r.pick(['.', 'sub', '/', 'missing', 'out-dir', 'emptydir', '..', '.env', 'in-link']));
  for (let i = 0; i < n; i++) out.push(r.chance(0.85) ? r.pick(FIND_ARGS) : valueFor(r));
  return out;
}

function genRaw(r: Rng, name: string): string[] {
  const n = r.int(6);
  const out: string[] = [];
  const pool = name === 'echo' ? ECHO_ARGS : [...ECHO_ARGS, ...VALUES];
  for (let i = 0; i < n; i++) out.push(r.chance(0.7) ? r.pick(pool) : valueFor(r));
  return out;
}

// ---- random command lines for the parser + runner path ----

const LINE_CMDS = ['ls', 'cat', 'grep', 'head', 'tail', 'wc', 'echo', 'find', 'sed', 'stat', 'tree', 'basename', 'dirname', 'pwd', 'true',
  'false', 'egrep', 'fgrep', 'nosuchcmd', 'touch', 'mkdir', 'cp', 'mv', 'rm', 'rmdir', 'bash', 'sh', '../bin/ls', 'LS', ''];
const LINE_WORDS = ['a.txt', '*.txt', '*', '.*', 'sub/*', '**', '?.txt', '[ab]*', '[!a]*', '[', '{a,b}.txt', '{1..5}', '{a..z}', '{1..100000}',
  '{,}', '{x}', '\\*', "'*'", '"*"', "'a b'", '"a $x"', '"a \\" b"', "'", '"', '\\', '$x', '${x}', '$(id)', '`id`', '$((1+1))', '~', '~root',
  '-n', '-r', '-l', '-la', '--help', 'foo', '-e', 's/a/b/', "'s/a/b/'", '.env', 'out-link', 'out-dir/*', '../*', '/*', '/etc/*', 'sub/**/c*',
  '"\\$HOME"', "'$HOME'", '$\'x\'', '$"x"', '#comment', 'a#b', '=', 'a=b', 'x=1', '!', '!!', '^', '%', '@', '{', '}', '[[', ']]',
  '{a,{b,c}}', '{a,b}{c,d}{e,f}', '\'\'', '""', 'é*', '\t', 'sp\\ ace.txt', '"sp ace.txt"'];
const LINE_META = ['|', '|', '||', '&&', ';', '&', '>', '>>', '<', '<<', '2>&1', '(', ')', '\n', '|&', '>|', '<(', '&>'];

export function genLine(r: Rng): string {
  const parts: string[] = [];
  const stages = 1 + (r.chance(0.3) ? r.int(3) : 0);
  for (let s = 0; s < stages; s++) {
    if (s > 0) parts.push(r.chance(0.9) ? '|' : r.pick(LINE_META));
    parts.push(r.chance(0.9) ? r.pick(LINE_CMDS) : r.pick(LINE_WORDS));
    const n = r.int(5);
    for (let i = 0; i < n; i++) {
      const x = r.next();
      if (x < 0.7) parts.push(r.pick(LINE_WORDS));
      else if (x < 0.8) parts.push(r.pick(LINE_META));
      else if (x < 0.9) parts.push(r.pick(VALUES).slice(0, 50));
      else parts.push(r.pick(LINE_WORDS) + r.pick(LINE_WORDS));
    }
  }
  const sep = () => (r.chance(0.9) ? ' ' : r.pick(['', '  ', '\t']));
  return parts.map((p, i) => (i === 0 ? p : sep() + p)).join('');
}
