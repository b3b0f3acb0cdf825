/**
 * find's command line, as GNU findutils 4.9 reads it: leading options (-H -L -P -O),
 * starting points (up to the first argument that looks like an expression), then the
 * expression with GNU's precedence ( ) > ! > -a (implicit) > -o > , and GNU's messages.
 */
import type { Stats } from 'node:fs';
import type { Vfs } from '../../src/vfs/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { compileMode, adjustMode } from '../../src/gnulib/fileops.js';
import { FNM_CASEFOLD, fnmatchBytes } from '../../src/gnulib/fnmatch.js';
import { linkTargetStat } from '../../src/gnulib/listing.js';
import { compileFindRegex, FindRegexError, REGEX_TYPES } from './regex.js';
import { compileFormat, FormatError, formatNeedsStat, renderFormat, MissingStat, bytesOf, baseNameOf, localeQuote, typeLetter } from './printf.js';
import { FindError, Quit, type Node, type PredFn } from './types.js';

export interface FindPlan {
  follow: 'P' | 'L' | 'H';
  paths: string[];
  expr: Node;
  maxdepth: number;
  mindepth: number;
  depthFirst: boolean;
  /** -delete is used: a directory's stat is taken before its children go (as fts does). */
  deletes?: boolean;
  /** Warnings printed while parsing (-printf escapes), without the "find: " prefix. */
  warnings: string[];
}

export interface ParseEnv {
  fs: Vfs;
  cwd: string;
  /** Start of the run in milliseconds since the epoch. */
  nowMs: number;
}

const DAY = 86400;

const REFUSED_RUN: Record<string, string> = {
  '-exec': 'run', '-execdir': 'run', '-ok': 'run', '-okdir': 'run',
};
const REFUSED_FILE = new Set(['-fprint', '-fprint0', '-fprintf', '-fls']);
const UNSUPPORTED = new Set([
  '-readable', '-writable', '-executable', '-user', '-group', '-nouser', '-nogroup', '-fstype',
  '-context', '-used', '-files0-from',
]);

export function refusalFor(name: string): FindError | null {
  if (REFUSED_RUN[name]) {
    return new FindError(
      `${name} is not supported: nosh runs no other program. Run find with -print (or -print0/-printf) ` +
      'to list the paths, then run the command on the listed paths in a second call.', 2);
  }
  if (REFUSED_FILE.has(name)) {
    const plain = name.replace('-f', '-');
    return new FindError(
      `${name} is not supported: nosh find writes no files. Use ${plain === '-ls' ? '-ls' : plain} and save standard output ` +
      '(for example with the stdout_file option of the call).', 2);
  }
  return null;
}

/** Does an argument start the expression? (findutils' looks_like_expression) */
function looksLikeExpression(arg: string, leading: boolean): boolean {
  switch (arg[0]) {
    case '-': return arg.length > 1;
    case ')': case ',': return arg.length > 1 ? false : !leading;
    case '(': case '!': return arg.length === 1;
    default: return false;
  }
}

const BINARY = new Set(['-a', '-and', '-o', '-or', ',']);

export function parseFind(args: string[], env: ParseEnv): FindPlan {
  const plan: FindPlan = { follow: 'P', paths: [], expr: { kind: 'pred', name: '-true', fn: () => true }, maxdepth: Infinity, mindepth: 0, depthFirst: false, warnings: [] };
  try {
    return parseInto(args, env, plan);
  } catch (e) {
    if (e instanceof FindError) e.warnings = plan.warnings;
    throw e;
  }
}

function parseInto(args: string[], env: ParseEnv, plan: FindPlan): FindPlan {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-H' || a === '-L' || a === '-P') plan.follow = a[1] as 'P' | 'L' | 'H';
    else if (a === '-D') {
      if (i + 1 >= args.length) throw new FindError("Missing argument after the -D option.\nTry 'find --help' for more information.");
      throw new FindError('-D (debug output) is not supported by nosh; run find without it.');
    } else if (a.startsWith('-O') && /^-O\d*$/.test(a)) {
      // The optimisation level changes no result.
    } else if (a === '--') {
      i++;
      break;
    } else break;
  }
  while (i < args.length && !looksLikeExpression(args[i]!, true)) plan.paths.push(args[i++]!);
  if (plan.paths.length === 0) plan.paths.push('.');

  const p = new ExprParser(args, i, env, plan);
  const expr = p.parse();
  if (!p.hasAction) plan.expr = expr ? { kind: 'and', left: expr, right: printNode() } : printNode();
  else plan.expr = expr!;
  if (p.usesDelete) {
    if (p.usesPrune && !p.explicitDepth) {
      throw new FindError('The -delete action automatically turns on -depth, but -prune does nothing when -depth is in effect.  If you want to carry on anyway, just explicitly use the -depth option.');
    }
    plan.depthFirst = true;
    plan.deletes = true;
  }
  return plan;
}

function printNode(): Node {
  return { kind: 'pred', name: '-print', fn: (e, c) => { c.out(e.bytes + '\n'); return true; } };
}

type Cmp = 'lt' | 'gt' | 'eq';

function compType(s: string): [Cmp, string] {
  if (s.startsWith('+')) return ['gt', s.slice(1)];
  if (s.startsWith('-')) return ['lt', s.slice(1)];
  return ['eq', s];
}

const cmpNum = (cmp: Cmp, v: number, n: number) => (cmp === 'gt' ? v > n : cmp === 'lt' ? v < n : v === n);

class ExprParser {
  pos: number;
  hasAction = false;
  /** The last predicate, option or operator read (GNU's last_pred), for the unquoted-pattern hint. */
  lastName = '(';
  usesDelete = false;
  usesPrune = false;
  explicitDepth = false;
  regexType = 'findutils-default';
  /** Start of "today" for -daystart, or now - 1 day (findutils' cur_day_start), in seconds. */
  dayStart: number;
  daystartSet = false;

  constructor(readonly args: string[], start: number, readonly env: ParseEnv, readonly plan: FindPlan) {
    this.pos = start;
    this.dayStart = env.nowMs / 1000 - DAY;
  }

  /**
   * The next token. -daystart is consumed here: GNU inserts no predicate for it, so the
   * operators around it see their neighbours ('-daystart -o -true' has nothing before -o),
   * but it is the last name read for the messages.
   */
  peek(): string | undefined {
    while (this.args[this.pos] === '-daystart') {
      if (!this.daystartSet) {
        this.dayStart = Math.floor(this.env.nowMs / 1000 / DAY) * DAY;
        this.daystartSet = true;
      }
      this.lastName = '-daystart';
      this.pos++;
    }
    return this.args[this.pos];
  }

  parse(): Node | null {
    const first = this.peek();
    if (first === undefined) return null;
    if (first === ')' && this.lastName === '-daystart') {
      throw new FindError("invalid expression: expected expression before closing parentheses ')'.");
    }
    const e = this.parseComma();
    if (this.pos < this.args.length) {
      const t = this.args[this.pos]!;
      if (t === ')') throw new FindError("you have too many ')'");
      throw new FindError(`paths must precede expression: \`${t}'`);
    }
    return e;
  }

  private expectAfter(op: string): void {
    const t = this.peek();
    // GNU names the operator only when its artificial ') -print' follows (no action given).
    if (t === undefined) throw new FindError(this.hasAction ? 'invalid expression' : `expected an expression after '${this.lastName}'`);
    if (t === ')') throw new FindError(`expected an expression between '${this.lastName}' and ')'`);
  }

  parseComma(): Node {
    let left = this.parseOr();
    while (this.peek() === ',') {
      this.pos++;
      this.lastName = ',';
      this.expectAfter(',');
      left = { kind: 'comma', left, right: this.parseOr() };
    }
    return left;
  }

  parseOr(): Node {
    let left = this.parseAnd();
    while (this.peek() === '-o' || this.peek() === '-or') {
      const op = this.args[this.pos++]!;
      this.lastName = op;
      this.expectAfter(op);
      left = { kind: 'or', left, right: this.parseAnd() };
    }
    return left;
  }

  parseAnd(): Node {
    let left = this.parseUnary();
    for (;;) {
      const t = this.peek();
      if (t === undefined || t === ')' || t === '-o' || t === '-or' || t === ',') return left;
      if (t === '-a' || t === '-and') {
        this.pos++;
        this.lastName = t;
        this.expectAfter(t);
      }
      left = { kind: 'and', left, right: this.parseUnary() };
    }
  }

  parseUnary(): Node {
    const t = this.peek()!;
    if (t === '!' || t === '-not') {
      this.pos++;
      this.lastName = t;
      this.expectAfter(t);
      return { kind: 'not', expr: this.parseUnary() };
    }
    if (t === '(') {
      this.pos++;
      this.lastName = t;
      if (this.peek() === ')') throw new FindError('invalid expression; empty parentheses are not allowed.');
      if (this.peek() === undefined) throw new FindError(`invalid expression; expected to find a ')' but didn't see one. Perhaps you need an extra predicate after '${this.lastName}'`);
      const e = this.parseComma();
      if (this.peek() !== ')') throw new FindError("invalid expression; I was expecting to find a ')' somewhere but did not see one.");
      this.pos++;
      this.lastName = ')';
      return e;
    }
    if (BINARY.has(t)) throw new FindError(`invalid expression; you have used a binary operator '${t}' with nothing before it.`);
    if (t === ')') throw new FindError("you have too many ')'");
    this.pos++;
    const node = this.primary(t);
    this.lastName = t;
    return node;
  }

  /** GNU's error for a word where a predicate belongs, with its hint when a file of that name exists. */
  private pathsMustPrecede(t: string): FindError {
    let exists = false;
    try {
      // access(F_OK) follows symlinks (a dangling one does not exist); 'file/' fails with ENOTDIR.
      const st = linkTargetStat(this.env.fs, t.length > 1 ? t.replace(/\/+$/, '') || '/' : t, this.env.cwd);
      exists = st !== null && (!t.endsWith('/') || st.isDirectory());
    } catch { /* no hint */ }
    return new FindError(`paths must precede expression: \`${t}'` + (exists ? `\nfind: possible unquoted pattern after predicate \`${this.lastName}'?` : ''));
  }

  private arg(name: string): string {
    const v = this.args[this.pos];
    if (v === undefined) throw new FindError(`missing argument to \`${name}'`);
    this.pos++;
    return v;
  }

  private pred(name: string, fn: PredFn): Node {
    return { kind: 'pred', name, fn };
  }

  private action(name: string, fn: PredFn): Node {
    this.hasAction = true;
    return { kind: 'pred', name, fn };
  }

  private depthArg(name: string): number {
    const v = this.arg(name);
    if (!/^\d+$/.test(v)) throw new FindError(`Expected a positive decimal integer argument to ${name}, but got ${localeQuote(v)}`);
    return Math.min(Number(v), Number.MAX_SAFE_INTEGER);
  }

  private numArg(name: string): [Cmp, number] {
    const v = this.arg(name);
    const [cmp, rest] = compType(v);
    if (!/^\d+$/.test(rest)) throw new FindError(`invalid argument \`${v}' to \`${name}'`);
    return [cmp, Number(rest)];
  }

  private primary(t: string): Node {
    const refused = refusalFor(t);
    if (refused) throw refused;
    switch (t) {
      // ---- options (true wherever they stand) ----
      case '-maxdepth': this.plan.maxdepth = this.depthArg(t); return TRUE;
      case '-mindepth': this.plan.mindepth = this.depthArg(t); return TRUE;
      case '-depth': case '-d': this.plan.depthFirst = true; this.explicitDepth = true; return TRUE;
      case '-noleaf': case '-xdev': case '-mount': case '-warn': case '-nowarn':
      case '-ignore_readdir_race': case '-noignore_readdir_race':
        return TRUE;
      case '-follow': this.plan.follow = 'L'; return TRUE;
      case '-regextype': {
        const v = this.arg(t);
        if (!REGEX_TYPES.includes(v)) {
          throw new FindError(`Unknown regular expression type ${localeQuote(v)}; valid types are ${REGEX_TYPES.map((x) => `'${x}'`).join(', ')}.`);
        }
        this.regexType = v;
        return TRUE;
      }
      case '-help': case '--help': throw new HelpRequest();
      case '-version': case '--version': throw new VersionRequest();
      // ---- tests ----
      case '-true': return TRUE;
      case '-false': return this.pred(t, () => false);
      case '-name': case '-iname': {
        const g = fnmatchBytes(bytesOf(this.arg(t)), t === '-iname' ? FNM_CASEFOLD : 0);
        return this.pred(t, (e) => g.test(e.nameBytes ?? nameForMatch(e.bytes)));
      }
      case '-path': case '-ipath': case '-wholename': case '-iwholename': {
        const g = fnmatchBytes(bytesOf(this.arg(t)), t.startsWith('-i') ? FNM_CASEFOLD : 0);
        return this.pred(t, (e) => g.test(e.bytes));
      }
      case '-lname': case '-ilname': {
        const g = fnmatchBytes(bytesOf(this.arg(t)), t === '-ilname' ? FNM_CASEFOLD : 0);
        return this.pred(t, (e, c) => {
          if (c.typeOf(e) !== 'symlink') return false;
          const target = c.linkTarget(e);
          return target !== null && g.test(target);
        });
      }
      case '-regex': case '-iregex': {
        const v = this.arg(t);
        let re: RegExp;
        try {
          re = compileFindRegex(bytesOf(v), this.regexType, t === '-iregex');
        } catch (e) {
          if (e instanceof FindRegexError) throw new FindError(`failed to compile regular expression '${v}': ${e.message}`);
          throw e;
        }
        return this.pred(t, (e) => re.test(e.bytes));
      }
      case '-type': case '-xtype': return this.typePred(t);
      case '-size': return this.sizePred();
      case '-empty': return this.pred(t, (e, c) => c.isEmpty(e));
      case '-mtime': case '-atime': case '-ctime': return this.timePred(t, DAY);
      case '-mmin': case '-amin': case '-cmin': return this.timePred(t, 60);
      case '-newer': case '-anewer': case '-cnewer':
        return this.newerPred(t, t === '-newer' ? 'm' : t === '-anewer' ? 'a' : 'c', 'm');
      case '-perm': return this.permPred();
      case '-inum': case '-links': case '-uid': case '-gid': {
        const [cmp, n] = this.numArg(t);
        const field = t === '-inum' ? 'ino' : t === '-links' ? 'nlink' : t === '-uid' ? 'uid' : 'gid';
        return this.pred(t, (e, c) => {
          const s = c.stat(e);
          return s !== null && cmpNum(cmp, s[field], n);
        });
      }
      case '-samefile': {
        const ref = this.arg(t);
        let st: Stats;
        try {
          st = this.env.fs.lstat(ref, this.env.cwd);
        } catch (e) {
          if (e instanceof VfsError) throw new FindError(`${localeQuote(ref)}: ${e.reason}`);
          throw e;
        }
        return this.pred(t, (e, c) => {
          const s = c.stat(e);
          return s !== null && s.ino === st.ino && s.dev === st.dev;
        });
      }
      // ---- actions ----
      case '-print': return this.action(t, (e, c) => { c.out(e.bytes + '\n'); return true; });
      case '-print0': return this.action(t, (e, c) => { c.out(e.bytes + '\0'); return true; });
      case '-printf': {
        const segs = (() => {
          try {
            return compileFormat(this.arg(t), (m) => this.plan.warnings.push(m));
          } catch (e) {
            if (e instanceof FormatError) throw new FindError(e.message);
            throw e;
          }
        })();
        const needsStat = formatNeedsStat(segs);
        return this.action(t, (e, c) => {
          if (needsStat && c.stat(e) === null) return true;
          try {
            c.out(renderFormat(segs, {
              path: e.bytes, root: e.root, depth: e.depth,
              stat: () => c.stat(e),
              times: () => c.times(e),
              linkTarget: () => (c.typeOf(e) === 'symlink' ? c.linkTarget(e) ?? '' : ''),
              followedType: () => {
                if (c.typeOf(e) !== 'symlink') {
                  const s = c.stat(e);
                  return s ? typeLetter(s) : '?';
                }
                const s = c.followStat(e);
                return s === 'ELOOP' ? 'L' : s ? typeLetter(s) : 'N';
              },
            }));
          } catch (err) {
            if (!(err instanceof MissingStat)) throw err;
          }
          return true;
        });
      }
      case '-ls': return this.action(t, (e, c) => {
        const line = c.lsLine(e);
        if (line !== null) c.out(line);
        return true;
      });
      case '-delete':
        this.usesDelete = true;
        return this.action(t, (e, c) => c.remove(e));
      // GNU: -quit does not suppress the implicit -print (no_default_print is false).
      case '-quit': return this.pred(t, () => { throw new Quit(); });
      case '-prune':
        this.usesPrune = true;
        return this.pred(t, (_e, c) => { c.prune(); return true; });
      default:
        if (/^-newer..$/.test(t)) {
          const [x, y] = [t[6]!, t[7]!];
          if (!'aBcm'.includes(x) || !'aBcmt'.includes(y)) throw new FindError(`invalid predicate \`${t}'`);
          if (x === 'B' || y === 'B') {
            // As GNU 4.9 built without birth times (as on the reference system).
            throw new FindError(`This system does not provide a way to find the birth time of a file.\nfind: invalid predicate \`${t}'`);
          }
          if (this.pos >= this.args.length) throw new FindError(`The '${t}' test needs an argument`);
          if (y !== 't') return this.newerPred(t, x, y);
        }
        if (UNSUPPORTED.has(t) || /^-newer..$/.test(t)) {
          throw new FindError(`${t} is not supported by nosh; list candidates with other tests (-name, -type, -perm, -uid, -newer...) instead.`);
        }
        if (t.startsWith('-') && t.length > 1) throw new FindError(`unknown predicate \`${t}'`);
        throw this.pathsMustPrecede(t);
    }
  }

  /** -newer -anewer -cnewer -newerXY: the file's time X is after the reference's time Y. */
  private newerPred(t: string, x: string, y: string): Node {
    const ref = this.arg(t);
    let st: Stats;
    try {
      st = this.plan.follow === 'P' ? this.env.fs.lstat(ref, this.env.cwd) : this.env.fs.stat(ref, this.env.cwd);
    } catch (e) {
      if (e instanceof VfsError) throw new FindError(`${localeQuote(ref)}: ${e.reason}`);
      throw e;
    }
    const names: Record<string, 'mtime' | 'atime' | 'ctime'> = { m: 'mtime', a: 'atime', c: 'ctime' };
    const nsField = names[x]!;
    const refNsField = names[y]!;
    const field = `${nsField}Ms` as const;
    const refMs = st[`${refNsField}Ms`];
    let refNs: bigint | null | undefined;
    return this.pred(t, (e, c) => {
      const s = c.stat(e);
      if (s === null) return false;
      // The float milliseconds hold about 0.24 µs at today's epoch: close calls use nanoseconds.
      if (Math.abs(s[field] - refMs) >= 0.01) return s[field] > refMs;
      if (refNs === undefined) {
        try {
          refNs = this.env.fs.timesNs(ref, this.env.cwd, this.plan.follow !== 'P')[refNsField];
        } catch {
          refNs = null;
        }
      }
      const ns = c.times(e);
      if (refNs === null || ns === null) return s[field] > refMs;
      return ns[nsField] > refNs;
    });
  }

  private typePred(t: string): Node {
    const v = this.arg(t);
    if (v === '') throw new FindError('Arguments to -type should contain at least one letter');
    const want = new Set<string>();
    for (let i = 0; i < v.length; i += 2) {
      const c = v[i]!;
      if (c === 'D') throw new FindError(`${t} D is not supported because Solaris doors are not supported on the platform find was compiled on.`);
      if (!'bcdpfls'.includes(c)) throw new FindError(`Unknown argument to ${t}: ${c}`);
      if (want.has(c)) throw new FindError(`Duplicate file type '${c}' in the argument list to ${t}.`);
      want.add(c);
      const sep = v[i + 1];
      if (sep === undefined) break;
      if (sep !== ',') throw new FindError(`Must separate multiple arguments to ${t} using: ','`);
      if (i + 2 >= v.length) throw new FindError(`Last file type in list argument to ${t} is missing, i.e., list is ending on: ','`);
    }
    const simple: Record<string, string> = { file: 'f', dir: 'd', symlink: 'l' };
    if (t === '-xtype') {
      return this.pred(t, (e, c) => {
        const ty = c.typeOf(e);
        if (ty === null) return false;
        if (ty === 'symlink') {
          const s = c.followStat(e);
          if (s === 'ELOOP') {
            c.warn(`${localeQuote(e.path)}: Too many levels of symbolic links`);
            return false;
          }
          return want.has(s ? typeLetter(s) : 'l');
        }
        const s = c.stat(e);
        return s !== null && want.has(typeLetter(s));
      });
    }
    return this.pred(t, (e, c) => {
      const ty = c.typeOf(e);
      if (ty === null) return false;
      const letter = simple[ty];
      if (letter !== undefined) return want.has(letter);
      const s = c.stat(e);
      return s !== null && want.has(typeLetter(s));
    });
  }

  private sizePred(): Node {
    const v = this.arg('-size');
    if (v === '') throw new FindError('invalid null argument to -size');
    const units: Record<string, number> = { b: 512, c: 1, w: 2, k: 1024, M: 1048576, G: 1073741824 };
    const last = v[v.length - 1]!;
    let unit = 512;
    let num = v;
    if (units[last] !== undefined) {
      unit = units[last]!;
      num = v.slice(0, -1);
    } else if (!(last >= '0' && last <= '9')) throw new FindError(`invalid -size type \`${last}'`);
    const [cmp, digits] = compType(num);
    if (!/^\d+$/.test(digits)) throw new FindError(`Invalid argument \`${v}' to -size`);
    const n = Number(digits);
    return this.pred('-size', (e, c) => {
      const s = c.stat(e);
      if (s === null) return false;
      const blocks = Math.floor(s.size / unit) + (s.size % unit !== 0 ? 1 : 0);
      return cmpNum(cmp, blocks, n);
    });
  }

  private timePred(t: string, unit: number): Node {
    const v = this.arg(t);
    const [raw, rest] = compType(v);
    if (!/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(rest)) throw new FindError(`invalid argument \`${v}' to \`${t}'`);
    const offset = Number(rest.trim());
    let origin = this.dayStart;
    if (unit === DAY) {
      if (raw === 'lt') origin += DAY - 1;
    } else origin += DAY;
    const ref = origin - offset * unit;
    const field = t[1] === 'm' ? 'mtimeMs' : t[1] === 'a' ? 'atimeMs' : 'ctimeMs';
    return this.pred(t, (e, c) => {
      const s = c.stat(e);
      if (s === null) return false;
      const ts = s[field] / 1000;
      // The comparison sense is inverted: "-N" (newer than N units) is "after the reference".
      if (raw === 'lt') return ts > ref;
      if (raw === 'gt') return ts < ref;
      const delta = ts - ref;
      return delta > 0 && delta <= unit;
    });
  }

  private permPred(): Node {
    const v = this.arg('-perm');
    let kind: 'exact' | 'all' | 'any' = 'exact';
    let spec = v;
    if (v.startsWith('-')) {
      kind = 'all';
      spec = v.slice(1);
    } else if (v.startsWith('/')) {
      kind = 'any';
      spec = v.slice(1);
    }
    // GNU refuses the old '-perm +MODE' with an octal MODE (its meaning changed to /MODE).
    const changes = /^\+[0-9]/.test(v) ? null : compileMode(spec);
    if (changes === null) throw new FindError(`invalid mode ${localeQuote(v)}`);
    const forFile = adjustMode(0, false, 0, changes).mode;
    const forDir = adjustMode(0, true, 0, changes).mode;
    if (kind === 'any' && forFile === 0 && forDir === 0) {
      this.plan.warnings.push(`warning: you have specified a mode pattern ${v} (which is equivalent to /000). The meaning of -perm /000 has now been changed to be consistent with -perm -000; that is, while it used to match no files, it now matches all files.`);
    }
    return this.pred('-perm', (e, c) => {
      const s = c.stat(e);
      if (s === null) return false;
      const want = s.isDirectory() ? forDir : forFile;
      const mode = s.mode & 0o7777;
      if (kind === 'all') return (mode & want) === want;
      if (kind === 'any') return want === 0 || (mode & want) !== 0;
      return mode === want;
    });
  }
}

const TRUE: Node = { kind: 'pred', name: '-true', fn: () => true };

/** -name matches the base name with trailing slashes removed ('/' stays '/'). */
function nameForMatch(path: string): string {
  const b = baseNameOf(path);
  if (b.length > 1 && b.endsWith('/')) return b.replace(/\/+$/, '') || '/';
  return b;
}

export class HelpRequest extends Error {}
export class VersionRequest extends Error {}

/** Does this argv delete files? (the command's `mutates`) */
export function findMutates(args: string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-delete') return true;
    if (TAKES_ARG.has(args[i]!) || /^-newer..$/.test(args[i]!)) i++;
  }
  return false;
}

/** Predicates whose next argument is theirs (so `-name -delete` deletes nothing). */
const TAKES_ARG = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-lname', '-ilname', '-regex', '-iregex',
  '-regextype', '-type', '-xtype', '-size', '-mtime', '-atime', '-ctime', '-mmin', '-amin', '-cmin', '-newer',
  '-anewer', '-cnewer', '-perm', '-inum', '-links', '-uid', '-gid', '-samefile', '-printf', '-maxdepth',
  '-mindepth', '-D', '-fprint', '-fprint0', '-fls', '-user', '-group', '-used', '-fstype', '-context',
]);
