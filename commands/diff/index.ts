import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import { OptionError } from '../../src/command/options/errors.js';
import { VfsError } from '../../src/vfs/index.js';
import { walk } from '../../src/vfs/walk.js';
import { fnmatch, type GlobMatcher } from '../../src/gnulib/fnmatch.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { quoteName } from '../../src/gnulib/quote.js';
import { DAYS_ABBR, MONTHS_ABBR } from '../../src/gnulib/strftime.js';
import { diffLines } from '../../src/gnulib/diffseq.js';
import { diffFiles, exactKeys, lineKeys, splitLines, type DiffOptions } from './lines.js';
import { formatContext, formatNormal, formatSide, hasChanges, type Style } from './output.js';

/**
 * GNU diff (diffutils 3.8) in the C locale: normal, unified, context and side-by-side
 * output with GNU's hunks (src/gnulib/diffseq.ts), -q -s -r -N -i -w -b -B -a
 * --strip-trailing-cr -x, --label, --from-file / --to-file. Every file is read through the
 * zone's Vfs; directories are listed with the zone's walker.
 */
const contextValue = (v: string): number => {
  if (!/^\d+$/.test(v)) throw new OptionError(`invalid context length ${gnuQuote(v)}`);
  return Math.min(Number(v), 2 ** 31);
};

const LONG_WITH_VALUE = new Set(['label', 'exclude', 'exclude-from', 'from-file', 'to-file', 'width', 'tabsize', 'starting-file', 'horizon-lines', 'ignore-matching-lines', 'show-function-line', 'ifdef', 'palette']);

export default defineCommand({
  name: 'diff',
  summary: 'Compare FILES line by line.',
  usage: 'FILES',
  mutates: false,
  reference: 'GNU diffutils 3.8',
  tryHelpNamed: true,
  flags: [
    { key: 'normal', long: 'normal', help: 'output a normal diff (the default)' },
    { key: 'q', short: 'q', long: 'brief', help: 'report only when files differ' },
    { key: 's', short: 's', long: 'report-identical-files', help: 'report when two files are the same' },
    { key: 'c', short: 'c', help: 'output 3 lines of copied context' },
    { key: 'C', short: 'C', kind: 'string', arg: 'NUM', help: 'output NUM lines of copied context', parse: contextValue },
    { key: 'context', long: 'context', kind: 'optional', arg: 'NUM', help: 'output NUM (default 3) lines of copied context', parse: contextValue },
    { key: 'u', short: 'u', help: 'output 3 lines of unified context' },
    { key: 'U', short: 'U', kind: 'string', arg: 'NUM', help: 'output NUM lines of unified context', parse: contextValue },
    { key: 'unified', long: 'unified', kind: 'optional', arg: 'NUM', help: 'output NUM (default 3) lines of unified context', parse: contextValue },
    { key: 'y', short: 'y', long: 'side-by-side', help: 'output in two columns' },
    { key: 'W', short: 'W', long: 'width', kind: 'string', arg: 'NUM', help: 'output at most NUM (default 130) print columns' },
    { key: 'left-column', long: 'left-column', help: 'output only the left column of common lines' },
    { key: 'suppress-common-lines', long: 'suppress-common-lines', help: 'do not output common lines' },
    { key: 'label', long: 'label', kind: 'string', arg: 'LABEL', repeat: true, help: 'use LABEL instead of file name and timestamp (can be repeated)' },
    { key: 'r', short: 'r', long: 'recursive', help: 'recursively compare any subdirectories found' },
    { key: 'N', short: 'N', long: 'new-file', help: 'treat absent files as empty' },
    { key: 'x', short: 'x', long: 'exclude', kind: 'string', arg: 'PAT', repeat: true, help: 'exclude files that match PAT' },
    { key: 'from-file', long: 'from-file', kind: 'string', arg: 'FILE1', help: 'compare FILE1 to all operands (in the zone)' },
    { key: 'to-file', long: 'to-file', kind: 'string', arg: 'FILE2', help: 'compare all operands to FILE2 (in the zone)' },
    { key: 'i', short: 'i', long: 'ignore-case', help: 'ignore case differences in file contents' },
    { key: 'Z', short: 'Z', long: 'ignore-trailing-space', help: 'ignore white space at line end' },
    { key: 'b', short: 'b', long: 'ignore-space-change', help: 'ignore changes in the amount of white space' },
    { key: 'w', short: 'w', long: 'ignore-all-space', help: 'ignore all white space' },
    { key: 'B', short: 'B', long: 'ignore-blank-lines', help: 'ignore changes where lines are all blank' },
    { key: 'a', short: 'a', long: 'text', help: 'treat all files as text' },
    { key: 'strip-trailing-cr', long: 'strip-trailing-cr', help: 'strip trailing carriage return on input' },
    { key: 'd', short: 'd', long: 'minimal', help: 'try hard to find a smaller set of changes' },
    { key: 'horizon-lines', long: 'horizon-lines', kind: 'string', arg: 'NUM', help: 'keep NUM lines of the common prefix and suffix' },
    { key: 'color', long: 'color', kind: 'optional', arg: 'WHEN', help: "WHEN is 'never' or 'auto' (nosh output is not a terminal: no color)" },
  ],
  async run(ctx) {
    const o = parseOptions(ctx);
    const ops = ctx.operands;
    const st: RunState = { ctx, o, out: '', status: 0 };
    const from = ctx.opts.get('from-file');
    const to = ctx.opts.get('to-file');
    if (from !== undefined && to !== undefined) {
      await ctx.warn('--from-file and --to-file both specified');
      return 2;
    }
    if (from !== undefined || to !== undefined) {
      for (const op of ops) {
        const s = await compareFiles(st, null, from ?? op, to ?? op, true);
        st.status = Math.max(st.status, s);
      }
    } else {
      if (ops.length < 2) throw new UsageError(`missing operand after ${gnuQuote(ops.length ? ops[ops.length - 1]! : 'diff')}`);
      if (ops.length > 2) throw new UsageError(`extra operand ${gnuQuote(ops[2]!)}`);
      st.status = await compareFiles(st, null, ops[0]!, ops[1]!, true);
    }
    await flush(st);
    return st.status;
  },
});

interface Opts {
  diff: DiffOptions;
  style: Style;
  brief: boolean;
  reportSame: boolean;
  recursive: boolean;
  newFile: boolean;
  text: boolean;
  minimal: boolean;
  horizon: number;
  labels: string[];
  exclude: GlobMatcher[];
  switches: string;
}

interface RunState {
  ctx: CommandContext;
  o: Opts;
  out: string;
  status: number;
}

function parseOptions(ctx: CommandContext): Opts {
  const v = ctx.opts;
  let kind: Style['kind'] | undefined;
  let context = -1;
  for (const item of v.order) {
    let k: Style['kind'] | undefined;
    if (item.key === 'c' || item.key === 'C' || item.key === 'context') k = 'context';
    else if (item.key === 'u' || item.key === 'U' || item.key === 'unified') k = 'unified';
    else if (item.key === 'y') k = 'side';
    else if (item.key === 'normal') k = 'normal';
    if (!k) continue;
    if (kind !== undefined && kind !== k) throw new UsageError('conflicting output style options');
    kind = k;
    if (['C', 'U', 'context', 'unified'].includes(item.key) && item.value !== 'true' && typeof item.parsed === 'number') context = Math.max(context, item.parsed as number);
    else if (k === 'context' || k === 'unified') context = Math.max(context, 3);
  }
  const color = v.get('color');
  if (color !== undefined && color !== 'true' && !['never', 'auto', 'always'].includes(color)) throw new UsageError(`invalid color ${gnuQuote(color)}`);
  let width = 130;
  const wv = v.get('W');
  if (wv !== undefined) {
    if (!/^\d+$/.test(wv) || Number(wv) === 0) throw new UsageError(`invalid width ${gnuQuote(wv)}`);
    width = Number(wv);
  }
  const white = v.has('w') ? 'w' : v.has('b') ? 'b' : v.has('Z') ? 'Z' : '';
  let horizon = 0;
  const hv = v.get('horizon-lines');
  if (hv !== undefined) {
    if (!/^\d+$/.test(hv)) throw new UsageError(`invalid horizon length ${gnuQuote(hv)}`);
    horizon = Number(hv);
  }
  if (context < 0) context = 0;
  return {
    diff: { ignoreCase: v.has('i'), white, ignoreBlank: v.has('B'), stripCr: v.has('strip-trailing-cr') },
    style: { kind: kind ?? 'normal', context, width, leftColumn: v.has('left-column'), suppressCommon: v.has('suppress-common-lines') },
    brief: v.has('q'),
    reportSame: v.has('s'),
    recursive: v.has('r'),
    newFile: v.has('N'),
    text: v.has('a'),
    minimal: v.has('d'),
    horizon: Math.max(horizon, context),
    labels: v.all('label'),
    exclude: v.all('x').map((p) => fnmatch(p)),
    switches: switchString(ctx.args, ctx.operands),
  };
}

/** GNU's option_list: the option words of argv (after getopt's permutation), each after a space. */
function switchString(args: readonly string[], operands: readonly string[]): string {
  const words: string[] = [];
  const takesValue = new Set(['C', 'U', 'W', 'x', 'X', 'I', 'F', 'S', 'D', 'L']);
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (a.length < 2 || a[0] !== '-') continue;
    words.push(a);
    if (a.startsWith('--')) {
      const name = a.slice(2);
      if (!name.includes('=') && [...LONG_WITH_VALUE].some((l) => l.startsWith(name)) && i + 1 < args.length) words.push(args[++i]!);
      continue;
    }
    for (let k = 1; k < a.length; k++) {
      if (takesValue.has(a[k]!)) {
        if (k === a.length - 1 && i + 1 < args.length) words.push(args[++i]!);
        break;
      }
    }
  }
  void operands;
  return words.map((w) => ' ' + quoteName(w)).join('');
}

async function flush(st: RunState): Promise<void> {
  if (st.out) {
    await st.ctx.stdout.write(Buffer.from(st.out, 'latin1'));
    st.out = '';
  }
}

type Kind = 'file' | 'dir' | 'missing' | 'other';

function kindOf(ctx: CommandContext, p: string): { kind: Kind; error?: VfsError } {
  if (p === '-') return { kind: 'file' };
  try {
    const s = ctx.fs.stat(p, ctx.cwd);
    return { kind: s.isDirectory() ? 'dir' : s.isFile() ? 'file' : 'other' };
  } catch (e) {
    if (e instanceof VfsError) return e.errno === 'ENOENT' ? { kind: 'missing', error: e } : { kind: 'other', error: e };
    throw e;
  }
}

function joinName(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

function baseName(p: string): string {
  const t = p.replace(/\/+$/, '');
  const i = t.lastIndexOf('/');
  return i < 0 ? t : t.slice(i + 1);
}

/** compare_files: two names (parent: the directories they were listed in, null at the top). */
async function compareFiles(st: RunState, parent: [string, string] | null, n0: string, n1: string, top: boolean): Promise<number> {
  const { ctx, o } = st;
  let k0 = kindOf(ctx, n0);
  let k1 = kindOf(ctx, n1);
  // At the top, a directory against a file compares the file of the same name inside it.
  if (top && k0.kind === 'dir' && k1.kind !== 'dir' && k1.kind !== 'missing' && n1 !== '-') {
    n0 = joinName(n0, baseName(n1));
    k0 = kindOf(ctx, n0);
  } else if (top && k1.kind === 'dir' && k0.kind !== 'dir' && k0.kind !== 'missing' && n0 !== '-') {
    n1 = joinName(n1, baseName(n0));
    k1 = kindOf(ctx, n1);
  }
  for (const [k, n] of [[k0, n0], [k1, n1]] as const) {
    if (k.error && (k.kind !== 'missing' || (top && !o.newFile))) {
      await flush(st);
      await ctx.warn(`${n}: ${k.error.reason}`);
      return 2;
    }
  }
  const missing0 = k0.kind === 'missing';
  const missing1 = k1.kind === 'missing';
  if (missing0 && missing1) return 0;
  if ((k0.kind === 'dir' && k1.kind === 'dir') || (o.recursive && o.newFile && ((missing0 && k1.kind === 'dir') || (missing1 && k0.kind === 'dir')))) {
    if (o.recursive || top) return diffDirs(st, n0, n1, missing0, missing1);
    st.out += `Common subdirectories: ${n0} and ${n1}\n`;
    return 0;
  }
  if ((missing0 || missing1) && !o.newFile) {
    const dir = parent![missing0 ? 1 : 0];
    st.out += `Only in ${dir}: ${baseName(missing0 ? n1 : n0)}\n`;
    return 1;
  }
  if (k0.kind === 'dir' || k1.kind === 'dir') {
    const t = (k: Kind) => (k === 'dir' ? 'directory' : k === 'missing' ? 'regular empty file' : 'regular file');
    st.out += `File ${n0} is a ${t(k0.kind)} while file ${n1} is a ${t(k1.kind)}\n`;
    return 1;
  }
  return diffTwo(st, parent, n0, n1, missing0, missing1);
}

async function readSide(st: RunState, name: string, missing: boolean): Promise<Buffer> {
  if (missing) return Buffer.alloc(0);
  if (name === '-') return st.ctx.stdin.readAll();
  return st.ctx.fs.readFile(name, st.ctx.cwd);
}

function stamp(ctx: CommandContext, name: string, missing: boolean, context: boolean): string {
  let ns = 0n;
  if (name === '-' ) ns = BigInt(Date.now()) * 1_000_000n;
  else if (!missing) ns = ctx.fs.timesNs(name, ctx.cwd, true).mtime;
  const sec = Number(ns / 1_000_000_000n);
  const frac = String(ns % 1_000_000_000n).padStart(9, '0');
  const d = new Date(sec * 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  if (context) {
    return `${DAYS_ABBR[d.getUTCDay()]} ${MONTHS_ABBR[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
  }
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${frac} +0000`;
}

/** A file name in a -u / -c header: C-quoted when it holds white space, quotes, backslashes or unprintable bytes. */
function headerName(n: string): string {
  if (!/[\s"\\\x00-\x1f\x7f-\uffff]/.test(n)) return n;
  const esc: Record<string, string> = { '\n': '\\n', '\t': '\\t', '"': '\\"', '\\': '\\\\', '\r': '\\r', '\v': '\\v', '\f': '\\f', '\b': '\\b', '\x07': '\\a' };
  let out = '"';
  for (const b of Buffer.from(n, 'utf8')) {
    const c = String.fromCharCode(b);
    if (esc[c]) out += esc[c];
    else if (b < 0x20 || b >= 0x7f) out += '\\' + b.toString(8).padStart(3, '0');
    else out += c;
  }
  return out + '"';
}

async function diffTwo(st: RunState, parent: [string, string] | null, n0: string, n1: string, missing0: boolean, missing1: boolean): Promise<number> {
  const { ctx, o } = st;
  let d0: Buffer;
  let d1: Buffer;
  try {
    d0 = await readSide(st, n0, missing0);
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    await flush(st);
    await ctx.warn(`${n0}: ${e.reason}`);
    return 2;
  }
  try {
    d1 = n1 === '-' && n0 === '-' ? d0 : await readSide(st, n1, missing1);
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    await flush(st);
    await ctx.warn(`${n1}: ${e.reason}`);
    return 2;
  }
  const label0 = o.labels[0] ?? n0;
  const label1 = o.labels[1] ?? n1;
  const binary = !o.text && (d0.subarray(0, 4096).includes(0) || d1.subarray(0, 4096).includes(0));
  const plainBrief = o.brief && !o.diff.ignoreBlank && !o.diff.ignoreCase && !o.diff.stripCr && o.diff.white === '';
  if (binary || plainBrief) {
    const differ = !d0.equals(d1);
    if (differ) st.out += o.brief ? `Files ${label0} and ${label1} differ\n` : `Binary files ${label0} and ${label1} differ\n`;
    else if (o.reportSame) st.out += `Files ${label0} and ${label1} are identical\n`;
    return differ ? 1 : 0;
  }
  const f0 = splitLines(d0, o.diff.stripCr);
  const f1 = splitLines(d1, o.diff.stripCr);
  const script = !o.diff.ignoreCase && o.diff.white === ''
    ? diffFiles(f0, f1, { horizon: o.horizon, minimal: o.minimal })
    : diffLines(exactKeys(f0), exactKeys(f1), lineKeys(f0, o.diff), lineKeys(f1, o.diff), { horizon: o.horizon, minimal: o.minimal });
  const changes = hasChanges(script, f0, f1, o.diff);
  if (o.brief) {
    if (changes) st.out += `Files ${label0} and ${label1} differ\n`;
  } else if (changes || (o.style.kind === 'side' && !o.style.suppressCommon)) {
    const head = parent ? `diff${o.switches} ${label0} ${label1}\n` : '';
    let body: string;
    if (o.style.kind === 'normal') body = formatNormal(script, f0, f1, o.diff);
    else if (o.style.kind === 'side') body = formatSide(script, f0, f1, o.diff, o.style);
    else {
      const h0 = o.labels[0] ?? `${headerName(n0)}\t${stamp(ctx, n0, missing0, o.style.kind === 'context')}`;
      const h1 = o.labels[1] ?? `${headerName(n1)}\t${stamp(ctx, n1, missing1, o.style.kind === 'context')}`;
      body = formatContext(script, f0, f1, o.diff, o.style, [h0, h1]);
    }
    st.out += head + body;
  }
  if (!changes && o.reportSame) st.out += `Files ${label0} and ${label1} are identical\n`;
  if (st.out.length > 1 << 16) await flush(st);
  return changes ? 1 : 0;
}

/** The names in a directory (through the zone's walker), each with its type; excluded names left out. */
function listDir(st: RunState, dir: string): { names: string[]; error?: VfsError } {
  const names: string[] = [];
  try {
    for (const ev of walk(st.ctx.fs, dir, st.ctx.cwd, { maxDepth: 1, includeStart: false, symlinks: 'command-line' })) {
      if (ev.kind === 'error') throw ev.error;
      if (ev.depth !== 1 || (ev.kind !== 'file' && ev.kind !== 'pre')) continue;
      if (st.o.exclude.some((m) => m.test(ev.name))) continue;
      names.push(ev.name);
    }
  } catch (e) {
    if (e instanceof VfsError) return { names, error: e };
    throw e;
  }
  return { names };
}

async function diffDirs(st: RunState, d0: string, d1: string, missing0: boolean, missing1: boolean): Promise<number> {
  const l0 = missing0 ? { names: [] } : listDir(st, d0);
  const l1 = missing1 ? { names: [] } : listDir(st, d1);
  for (const [l, d] of [[l0, d0], [l1, d1]] as const) {
    if (l.error) {
      await flush(st);
      await st.ctx.warn(`${d}: ${l.error.reason}`);
      return 2;
    }
  }
  const all = [...new Set([...l0.names, ...l1.names])].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  let status = 0;
  for (const name of all) {
    const s = await compareFiles(st, [d0, d1], joinName(d0, name), joinName(d1, name), false);
    status = Math.max(status, s);
  }
  return status;
}
