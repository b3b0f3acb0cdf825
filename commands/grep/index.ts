/**
 * grep / egrep / fgrep, GNU grep 3.8 under LC_ALL=C.
 * Modules: index.ts (options), matcher.ts (patterns -> one search), scan.ts (one input),
 * recurse.ts (the run over operands and the recursion), include.ts (--include/--exclude).
 *
 * Search: each chunk of whole lines is decoded as latin1 (one char = one byte) and searched
 * with ONE global regex (the patterns joined as an alternation, ^/$ anchored at line ends);
 * line boundaries are located only around matches. Lines are counted only when -n needs it.
 * Memory is one chunk plus the partial last line. Slow paths, per line: -z (records end in
 * NUL), several patterns of which one has back-references (JS group numbers are per regex).
 *
 * Recursion (-r/-R) walks the zone through open directory handles (blocked entries never
 * appear) in C-locale name order (GNU uses readdir order; see the fixtures, recorded through
 * `sort`). Listed files are opened relative to their directory without a location check
 * each (Vfs.openListedFileAt): the directory's location is checked once its files were read
 * and before any output leaves (GrepRun.settle). Small files are read whole into one reused
 * buffer. Symlinks met while recursing are skipped; -R follows them only where the zone
 * policy follows symlinks (and only inside the zone).
 */
import { defineCommand, UsageError, type CommandContext, type FlagSpec, type Values } from '../../src/command/index.js';
import { argmatch } from '../../src/gnulib/text-lines.js';
import { RegexSyntaxError, type RegexDialect } from '../../src/regex/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { type GlobMatcher } from '../../src/gnulib/fnmatch.js';
import { FilterRule, globMatcher } from './include.js';
import { Fatal, buildMatcher, bytesOf, parseContext } from './matcher.js';
import { GrepRun } from './recurse.js';
import { Opts } from './scan.js';

const FLAGS = [
  { key: 'matcher', short: 'E', long: 'extended-regexp', value: 'E', help: 'PATTERNS are extended regular expressions' },
  { key: 'matcher', short: 'F', long: 'fixed-strings', value: 'F', help: 'PATTERNS are strings' },
  { key: 'matcher', short: 'G', long: 'basic-regexp', value: 'G', help: 'PATTERNS are basic regular expressions' },
  { key: 'matcher', short: 'P', long: 'perl-regexp', value: 'P', help: 'PATTERNS are Perl regular expressions (a subset of PCRE; nosh refuses the rest)' },
  { key: 'e', short: 'e', long: 'regexp', kind: 'string', arg: 'PATTERNS', help: 'use PATTERNS for matching' },
  { key: 'f', short: 'f', long: 'file', kind: 'string', arg: 'FILE', help: 'take PATTERNS from FILE' },
  { key: 'case', short: 'i', long: 'ignore-case', value: 'i', help: 'ignore case distinctions in patterns and data' },
  { key: 'case', short: 'y', value: 'i', help: 'obsolete synonym for -i' },
  { key: 'case', long: 'no-ignore-case', value: 'n', help: 'do not ignore case distinctions (default)' },
  { key: 'w', short: 'w', long: 'word-regexp', help: 'match only whole words' },
  { key: 'x', short: 'x', long: 'line-regexp', help: 'match only whole lines' },
  { key: 'z', short: 'z', long: 'null-data', help: 'a data line ends in 0 byte, not newline' },
  { key: 's', short: 's', long: 'no-messages', help: 'suppress error messages' },
  { key: 'v', short: 'v', long: 'invert-match', help: 'select non-matching lines' },
  { key: 'm', short: 'm', long: 'max-count', kind: 'string', arg: 'NUM', help: 'stop after NUM selected lines' },
  { key: 'b', short: 'b', long: 'byte-offset', help: 'print the byte offset with output lines' },
  { key: 'n', short: 'n', long: 'line-number', help: 'print line number with output lines' },
  { key: 'lb', long: 'line-buffered', help: 'flush output on every line' },
  { key: 'fname', short: 'H', long: 'with-filename', value: 'H', help: 'print file name with output lines' },
  { key: 'fname', short: 'h', long: 'no-filename', value: 'h', help: 'suppress the file name prefix on output' },
  { key: 'label', long: 'label', kind: 'string', arg: 'LABEL', help: 'use LABEL as the standard input file name prefix' },
  { key: 'o', short: 'o', long: 'only-matching', help: 'show only nonempty parts of lines that match' },
  { key: 'q', short: 'q', long: 'quiet', help: 'suppress all normal output' },
  { key: 'q', long: 'silent', help: 'same as --quiet' },
  { key: 'binary', long: 'binary-files', kind: 'string', arg: 'TYPE', help: "assume that binary files are TYPE; TYPE is 'binary', 'text', or 'without-match'" },
  { key: 'binary', short: 'a', long: 'text', value: 'text', help: 'equivalent to --binary-files=text' },
  { key: 'binary', short: 'I', value: 'without-match', help: 'equivalent to --binary-files=without-match' },
  { key: 'recurse', short: 'r', long: 'recursive', value: 'r', help: 'search directories recursively' },
  { key: 'recurse', short: 'R', long: 'dereference-recursive', value: 'R', help: 'likewise, but follow symlinks (where the zone allows)' },
  { key: 'directories', short: 'd', long: 'directories', kind: 'string', arg: 'ACTION', help: "how to handle directories; ACTION is 'read', 'recurse', or 'skip'" },
  { key: 'include', long: 'include', kind: 'string', arg: 'GLOB', help: 'search only files that match GLOB (a file pattern)' },
  { key: 'exclude', long: 'exclude', kind: 'string', arg: 'GLOB', help: 'skip files that match GLOB' },
  { key: 'exclude-from', long: 'exclude-from', kind: 'string', arg: 'FILE', help: 'skip files that match any file pattern from FILE' },
  { key: 'exclude-dir', long: 'exclude-dir', kind: 'string', arg: 'GLOB', help: 'skip directories that match GLOB' },
  { key: 'devices', short: 'D', long: 'devices', kind: 'string', arg: 'ACTION', help: "how to handle devices, FIFOs and sockets; ACTION is 'read' or 'skip' (nosh never opens them: 'read' reports them as errors)" },
  { key: 'list', short: 'L', long: 'files-without-match', value: 'L', help: 'print only names of FILEs with no selected lines' },
  { key: 'list', short: 'l', long: 'files-with-matches', value: 'l', help: 'print only names of FILEs with selected lines' },
  { key: 'c', short: 'c', long: 'count', help: 'print only a count of selected lines per FILE' },
  { key: 'T', short: 'T', long: 'initial-tab', help: 'make tabs line up (if needed)' },
  { key: 'Z', short: 'Z', long: 'null', help: 'print 0 byte after FILE name' },
  { key: 'A', short: 'A', long: 'after-context', kind: 'string', arg: 'NUM', help: 'print NUM lines of trailing context' },
  { key: 'B', short: 'B', long: 'before-context', kind: 'string', arg: 'NUM', help: 'print NUM lines of leading context' },
  { key: 'C', short: 'C', long: 'context', kind: 'string', arg: 'NUM', help: 'print NUM lines of output context (-NUM is the same)' },
  { key: 'sep', long: 'group-separator', kind: 'string', arg: 'SEP', help: 'print SEP on line between matches with context' },
  { key: 'sep', long: 'no-group-separator', value: '\0none', help: 'do not print separator for matches with context' },
  { key: 'color', long: 'color', kind: 'optional', arg: 'WHEN', help: "WHEN is 'always', 'never' or 'auto' (auto: never, nosh output is not a terminal); GNU's default GREP_COLORS" },
  { key: 'color', long: 'colour', kind: 'optional', arg: 'WHEN', help: 'same as --color' },
  { key: 'U', short: 'U', long: 'binary', help: 'do not strip CR characters at EOL (no effect, as on GNU/Linux)' },
  { key: 'u', short: 'u', long: 'unix-byte-offsets', help: 'obsolete: no effect but a warning (as GNU grep 3.8)' },
] as const satisfies readonly FlagSpec[];

/** An error that ends grep: its message (if any), then the usage lines if `usage`. */
const USAGE = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n";

/** Byte string (latin1) of an argv string (UTF-8 text). */
async function readOptionFile(ctx: CommandContext, file: string): Promise<Buffer> {
  try {
    return file === '-' ? await ctx.stdin.readAll() : ctx.fs.readFile(file, ctx.cwd);
  } catch (e) {
    if (e instanceof VfsError) throw new Fatal(`${file}: ${e.reason}`);
    throw e;
  }
}

/** -f FILE: a pattern a line (an empty file: no pattern at all). */
async function readPatternFile(ctx: CommandContext, file: string): Promise<string[]> {
  let text = (await readOptionFile(ctx, file)).toString('latin1');
  if (text === '') return [];
  if (text.endsWith('\n')) text = text.slice(0, -1);
  return text.split('\n');
}

/** --exclude-from FILE: a glob a line, as gnulib's add_exclude_file reads it: trailing white space dropped, blank lines skipped. */
async function readGlobFile(ctx: CommandContext, file: string): Promise<string[]> {
  const text = (await readOptionFile(ctx, file)).toString('utf8');
  return text.split('\n').map((l) => l.replace(/[ \t\n\v\f\r]+$/, '')).filter((l) => l !== '');
}

export default defineCommand({
  name: 'grep',
  reference: 'GNU grep 3.8',
  aliases: ['egrep', 'fgrep'],
  summary: 'Search for PATTERNS in each FILE.',
  usage: 'PATTERNS [FILE]...',
  mutates: false,
  flags: FLAGS,
  // -NUM is --context=NUM; the digits of one argv word make one number (grep.c digit_args_val).
  digits: { key: 'C', accumulate: 'word' },
  troubleStatus: 2,
  notes: "When FILE is '-', read standard input.  With no FILE, read '.' if\nrecursive, '-' otherwise.  With fewer than two FILEs, assume -h.\nExit status is 0 if any line is selected, 1 otherwise;\nif any error occurs and -q is not given, the exit status is 2.",
  async run(ctx) {
    try {
      return await grep(ctx);
    } catch (e) {
      if (e instanceof Fatal) {
        await ctx.stderr.write((e.message ? `grep: ${e.message}\n` : '') + (e.usage ? USAGE : ''));
        return e.status;
      }
      if (e instanceof RegexSyntaxError) {
        await ctx.stderr.write(`grep: ${e.message}\n`);
        return 2;
      }
      throw e;
    }
  },
});

async function grep(ctx: CommandContext<Values<typeof FLAGS>>): Promise<number> {
  const opts = ctx.opts;
  const v = ctx.values;
  // Options in command-line order, as GNU checks them while parsing.
  let matcher = ctx.name === 'egrep' ? 'E' : ctx.name === 'fgrep' ? 'F' : '';
  let before = -1;
  let after = -1;
  let context = -1;
  let maxCount = Number.MAX_SAFE_INTEGER;
  let binary: Opts['binary'] = 'binary';
  const patterns: string[] = [];
  let patternGiven = false;
  const fileRules: FilterRule[] = [];
  const dirRules: GlobMatcher[] = [];
  // -d ACTION, -r and -R set one setting: the last one wins (-R's link following stays).
  let directories = 'read';
  let skipDevices = false;
  let color = false;
  for (const { key, value } of opts.order) {
    switch (key) {
      case 'recurse':
        directories = 'recurse';
        break;
      case 'directories':
        try {
          directories = argmatch(value, ['read', 'recurse', 'skip'], '--directories');
        } catch (e) {
          // GNU's argmatch_die: usage (EXIT_FAILURE), so 1 where grep's other errors give 2.
          if (e instanceof UsageError) throw new Fatal(e.message, true, 1);
          throw e;
        }
        break;
      case 'matcher':
        if (matcher !== '' && matcher !== value) throw new Fatal('conflicting matchers specified');
        matcher = value;
        break;
      case 'A':
        after = parseContext(value);
        break;
      case 'B':
        before = parseContext(value);
        break;
      case 'C':
        context = parseContext(value);
        break;
      case 'm': {
        if (!/^[ \t]*[+-]?[0-9]+$/.test(value)) throw new Fatal('invalid max count');
        const n = Number(value.trim());
        // GNU 3.8 keeps a negative count: no limit, but -v's prtext selects no line at all.
        maxCount = n < 0 ? -1 : n;
        break;
      }
      case 'binary':
        if (value !== 'binary' && value !== 'text' && value !== 'without-match') throw new Fatal('unknown binary-files type');
        binary = value;
        break;
      case 'e':
        patterns.push(...bytesOf(value).split('\n'));
        patternGiven = true;
        break;
      case 'f':
        patterns.push(...(await readPatternFile(ctx, value)));
        patternGiven = true;
        break;
      case 'include':
        fileRules.push({ include: true, re: globMatcher(value) });
        break;
      case 'exclude':
        fileRules.push({ include: false, re: globMatcher(value) });
        break;
      case 'exclude-from':
        for (const glob of await readGlobFile(ctx, value)) fileRules.push({ include: false, re: globMatcher(glob) });
        break;
      case 'devices':
        // Exact words only (GNU compares with STREQ, not argmatch).
        if (value !== 'read' && value !== 'skip') throw new Fatal('unknown devices method');
        skipDevices = value === 'skip';
        break;
      case 'u':
        await ctx.stderr.write('grep: warning: --unix-byte-offsets (-u) is obsolete\n');
        break;
      case 'exclude-dir':
        dirRules.push(globMatcher(value));
        break;
      case 'color':
        // 'auto' (and --color alone) colours a terminal only: nosh's output never is one.
        if (['always', 'yes', 'force'].includes(value.toLowerCase())) color = true;
        else if (['', 'never', 'no', 'none', 'auto', 'tty', 'if-tty'].includes(value.toLowerCase())) color = false;
        else throw new Fatal('', true);
        break;
    }
  }
  const operands = [...ctx.operands];
  if (!patternGiven) {
    if (operands.length === 0) throw new Fatal('', true);
    patterns.push(...bytesOf(operands.shift()!).split('\n'));
  }
  if (after < 0) after = context;
  if (before < 0) before = context;
  const listV = v.list;
  const quiet = v.q === true;
  const o: Opts = {
    invert: v.v === true,
    count: v.c === true,
    list: quiet ? '' : listV === 'l' ? 'l' : listV === 'L' ? 'L' : '',
    quiet,
    only: v.o === true,
    lineNo: v.n === true,
    byteOff: v.b === true,
    tab: v.T === true,
    nullName: v.Z === true,
    color,
    z: v.z === true,
    before,
    after,
    // (no pattern at all is GNU's empty pattern inverted: -v then selects every line)
    maxCount: maxCount < 0 ? ((v.v === true) !== (patterns.length === 0) ? 0 : Number.MAX_SAFE_INTEGER) : maxCount,
    binary,
    noMessages: v.s === true,
    // A later -r or -d recurse does not undo -R's following of links (GNU keeps FTS_LOGICAL).
    recurse: directories !== 'recurse' ? '' : opts.order.some((e) => e.key === 'recurse' && e.value === 'R') ? 'R' : 'r',
    skipDirs: directories === 'skip',
    skipDevices,
    groupSep: v.sep === '\0none' ? null : (v.sep ?? '--'),
    label: v.label ?? '(standard input)',
    fileRules,
    dirRules,
  };
  // GNU gives up before compiling when nothing can be selected: -m 0, or -v with only the
  // empty pattern (no -x/-w), or no pattern at all (-f /dev/null: the empty pattern inverted);
  // not with -L, which lists the files.
  const emptyKeys = patterns.every((p) => p === '');
  const invertKeys = patterns.length === 0 ? !o.invert : o.invert;
  const plainKeys = patterns.length === 0 || (v.x === undefined && v.w === undefined);
  if ((maxCount === 0 || (emptyKeys && invertKeys && plainKeys)) && o.list !== 'L') return 1;
  // GNU 3.8's pcresearch.c refuses a newline in the (joined) patterns
  if (matcher === 'P' && patterns.length > 1) throw new Fatal('the -P option only supports a single pattern');
  const dialect: RegexDialect = matcher === 'E' ? 'extended' : matcher === 'F' ? 'fixed' : matcher === 'P' ? 'perl' : 'basic';
  const warnings: string[] = [];
  const flags = { i: v.case === 'i', w: v.w === true, x: v.x === true, z: o.z };
  const m = buildMatcher(patterns, dialect, flags, (w) => warnings.push(w));
  for (const w of warnings) await ctx.stderr.write(`grep: ${w}\n`);
  const run = new GrepRun(ctx, o, m, operands.length, { patterns, dialect, flags });
  const omitDotSlash = operands.length === 0 && o.recurse !== '';
  const list = operands.length > 0 ? operands : [o.recurse ? '.' : '-'];
  for (const op of list) {
    await run.operand(op, omitDotSlash);
    if (run.exitNow) break;
  }
  await run.flush(true);
  if (run.exitNow) return run.escaped ? 2 : 0;
  if (run.errorSeen) return 2;
  return run.anySelected ? 0 : 1;
}
