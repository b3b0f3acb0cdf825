import type { Stats } from 'node:fs';
import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import { quoteAlways } from '../../src/gnulib/fileops.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import {
  devMajor, devMinor, fileTypeName, fullTime, lookupGroup, lookupUser, modeString, timeOf, timeOfNs, type TimeSpec,
} from '../../src/gnulib/format.js';
import { linkText } from '../../src/gnulib/listing.js';
import { argmatch } from '../../src/gnulib/text-lines.js';
import { VfsError } from '../../src/vfs/index.js';

const DEFAULT_FORMAT =
  '  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n' +
  'Device: %Hd,%Ld\tInode: %-10i  Links: %h\n' +
  'Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n' +
  'Access: %x\nModify: %y\nChange: %z\n Birth: %w\n';
const DEFAULT_DEVICE_FORMAT =
  '  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n' +
  'Device: %Hd,%Ld\tInode: %-10i  Links: %-5h Device type: %Hr,%Lr\n' +
  'Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n' +
  'Access: %x\nModify: %y\nChange: %z\n Birth: %w\n';
const TERSE_FORMAT = '%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n';

export default defineCommand({
  name: 'stat',
  summary: 'Display file status.',
  usage: 'FILE...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'L', short: 'L', long: 'dereference', help: 'follow links (only in zones whose policy follows symbolic links)' },
    { key: 'format', short: 'c', long: 'format', kind: 'string', parse: (v: string) => ({ format: v, escapes: false }), arg: 'FORMAT', help: 'use the specified FORMAT instead of the default; output a newline after each use of FORMAT' },
    { key: 'format', long: 'printf', kind: 'string', parse: (v: string) => ({ format: v, escapes: true }), arg: 'FORMAT', help: 'like --format, but interpret backslash escapes, and do not output a mandatory trailing newline' },
    { key: 't', short: 't', long: 'terse', help: 'print the information in terse form' },
    { key: 'cached', long: 'cached', kind: 'string', repeat: true, arg: 'MODE', help: 'specify how to use cached attributes: always, never or default (no effect here: attributes are read as the file system gives them)' },
  ],
  gnuLongOptions: ['dereference', 'file-system', 'format', 'printf', 'terse', 'cached', 'help', 'version'],
  notes:
    'Format sequences: %a %A %b %B %d %D %Hd %Ld %f %F %g %G %h %i %m %n %N %o %s %r %R %Hr %Lr %t %T %u %U %w %W %x %X %y %Y %z %Z ' +
    '(as GNU stat; %m is the zone root "/"; %C prints ? and fails, as GNU where files have no SELinux context).',
  async run(ctx) {
    // Checked as GNU's getopt loop does, before the operands.
    const o = ctx.values;
    for (const mode of o.cached ?? []) argmatch(mode, ['default', 'never', 'always'], '--cached');
    if (ctx.operands.length === 0) throw new UsageError('missing operand');
    const deref = o.L === true;
    if (deref && !ctx.fs.policy.followSymlinks) {
      await ctx.warn('cannot dereference (-L): this zone does not follow symbolic links (zone policy); run stat without -L');
      return 1;
    }
    // --format and --printf: the last one given wins.
    let format: string | null = o.format?.format ?? null;
    const escapes = o.format?.escapes === true;
    if (format === null && o.t) format = TERSE_FORMAT.slice(0, -1);
    const newline = !escapes && format !== null;
    let status = 0;
    let text = '';
    const flush = async () => {
      if (text) await ctx.stdout.write(Buffer.from(text, 'latin1'));
      text = '';
    };
    for (const name of ctx.operands) {
      let st: Stats;
      try {
        // ('file/' is ENOTDIR in the Vfs, as for the kernel.)
        st = deref ? ctx.fs.stat(name, ctx.cwd) : ctx.fs.lstat(name, ctx.cwd);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await flush();
        await ctx.warn(`cannot statx ${quoteAlways(name)}: ${e.reason}`);
        status = 1;
        continue;
      }
      const fmt = format ?? (st.isCharacterDevice() || st.isBlockDevice() ? DEFAULT_DEVICE_FORMAT : DEFAULT_FORMAT);
      let ns: Subject['ns'];
      try { ns = ctx.fs.timesNs(name, ctx.cwd, deref); } catch { ns = undefined; }
      const r = render(ctx, fmt, escapes, { name, st, ns, quoteN: format?.includes('%N') ?? false });
      text += r.text;
      if (newline && !r.invalid) text += '\n';
      if (r.diags.length) {
        await flush();
        // An escaped byte is printed as is (the format is handled as latin1 bytes).
        for (const w of r.diags) await ctx.stderr.write(Buffer.from(`stat: ${w}\n`, 'latin1'));
        if (r.diags.some((w) => !w.startsWith('warning: '))) status = 1;
      }
      if (r.invalid) {
        await flush();
        await ctx.warn(`${gnuQuote(r.invalid)}: invalid directive`);
        return 1;
      }
      if (text.length > 65536) await flush();
    }
    await flush();
    return status;
  },
});

interface Subject {
  name: string;
  st: Stats;
  /** Exact times, when the entry could be read again with nanoseconds. */
  ns?: { atime: bigint; mtime: bigint; ctime: bigint; birthtime: bigint };
  /** %N quotes names when a user format contains "%N" itself (GNU's strstr); else they are literal. */
  quoteN: boolean;
}

interface Spec {
  flags: string;
  width: number | null;
  precision: number | null;
  /** A '.' without digits (epoch times then show nanoseconds). */
  dotOnly: boolean;
}

/**
 * Expand a format for one file. Text is handled as latin1 (one char per byte) so that
 * escapes like \351 produce single bytes; file names are converted to their UTF-8 bytes.
 */
function render(ctx: CommandContext, fmt: string, escapes: boolean, s: Subject): { text: string; diags: string[]; invalid?: string } {
  const f = Buffer.from(fmt, 'utf8').toString('latin1');
  let out = '';
  const diags: string[] = [];
  for (let i = 0; i < f.length; i++) {
    const c = f[i]!;
    if (c === '\\' && escapes) {
      const r = escape(f, i + 1);
      if (r.bad !== undefined) diags.push(r.bad);
      out += r.text;
      i = r.next - 1;
      continue;
    }
    if (c !== '%') {
      out += c;
      continue;
    }
    // %[flags][width][.precision]conv
    let j = i + 1;
    let flags = '';
    while (j < f.length && "'-+ #0I".includes(f[j]!)) flags += f[j++];
    let w = '';
    while (j < f.length && /[0-9]/.test(f[j]!)) w += f[j++];
    let p: string | null = null;
    if (f[j] === '.') {
      j++;
      p = '';
      while (j < f.length && /[0-9]/.test(f[j]!)) p += f[j++];
    }
    const directive = f.slice(i, j + 1);
    const conv = f[j];
    if (conv === undefined) {
      // A lone '%' at the end is printed as is (if it carried no modifiers).
      if (j === i + 1) out += '%';
      else return { text: out, diags, invalid: directive };
      i = j;
      continue;
    }
    if (conv === '%') {
      if (j !== i + 1) return { text: out, diags, invalid: directive };
      out += '%';
      i = j;
      continue;
    }
    const spec: Spec = { flags, width: w === '' ? null : Number(w), precision: p === null ? null : p === '' ? 0 : Number(p), dotOnly: p === '' };
    let key = conv;
    if ((conv === 'H' || conv === 'L') && (f[j + 1] === 'd' || f[j + 1] === 'r')) {
      key = conv + f[j + 1];
      j++;
    }
    if (key === 'C') {
      // No security contexts here: GNU on a host without SELinux labels says so, and fails.
      out += str(spec, '?');
      diags.push(`failed to get security context of ${latin1(quoteAlways(s.name))}: No data available`);
    } else out += directiveValue(ctx, key, spec, s);
    i = j;
  }
  return { text: out, diags };
}

/** One backslash escape of --printf; `bad`: the warning GNU prints for it. */
function escape(f: string, at: number): { text: string; next: number; bad?: string } {
  const c = f[at];
  if (c === undefined) return { text: '\\', next: at, bad: 'warning: backslash at end of format' };
  const simple: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '"': '"', '\\': '\\' };
  if (c in simple) return { text: simple[c]!, next: at + 1 };
  if (/[0-7]/.test(c)) {
    let j = at;
    let v = 0;
    while (j < f.length && j < at + 3 && /[0-7]/.test(f[j]!)) v = v * 8 + Number(f[j++]);
    return { text: String.fromCharCode(v & 0xff), next: j };
  }
  if (c === 'x' && /[0-9a-fA-F]/.test(f[at + 1] ?? '')) {
    let j = at + 1;
    let v = 0;
    while (j < f.length && j < at + 3 && /[0-9a-fA-F]/.test(f[j]!)) v = v * 16 + parseInt(f[j++]!, 16);
    return { text: String.fromCharCode(v), next: j };
  }
  return { text: c, next: at + 1, bad: `warning: unrecognized escape '\\${c}'` };
}

function latin1(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1');
}

function directiveValue(ctx: CommandContext, key: string, spec: Spec, s: Subject): string {
  const { st } = s;
  switch (key) {
    case 'n': return str(spec, latin1(s.name));
    // The zone is its own file system: its mount point is its root.
    case 'm': return str(spec, '/');
    case 'N': {
      // The name and a link's target are printed with the directive's width and precision each.
      const q = (t: string) => latin1(s.quoteN ? quoteAlways(t) : t);
      let v = str(spec, q(s.name));
      if (st.isSymbolicLink()) {
        // GNU reuses the format it rewrote for the name: when exactly one flag other than '-'
        // was dropped from it, the target's printf format ends in "ss" (a stray 's').
        const dropped = spec.flags.replace(/-/g, '').length;
        v += ' -> ' + str(spec, q(linkText(ctx.fs, s.name, ctx.cwd) ?? '')) + (dropped === 1 && !tooBig(spec) ? 's' : '');
      }
      return v;
    }
    case 's': return int(spec, st.size, true);
    case 'b': return int(spec, st.blocks, false);
    case 'B': return int(spec, 512, false);
    case 'o': return int(spec, st.blksize, false);
    case 'f': return int(spec, st.mode, false, 16);
    case 'F': return str(spec, fileTypeName(st));
    case 'a': return int(spec, st.mode & 0o7777, false, 8);
    case 'A': return str(spec, modeString(st.mode));
    case 'u': return int(spec, st.uid, false);
    case 'U': return str(spec, lookupUser(st.uid) ?? 'UNKNOWN');
    case 'g': return int(spec, st.gid, false);
    case 'G': return str(spec, lookupGroup(st.gid) ?? 'UNKNOWN');
    case 'h': return int(spec, st.nlink, false);
    case 'i': return int(spec, st.ino, false);
    case 'd': return int(spec, st.dev, false);
    case 'D': return int(spec, st.dev, false, 16);
    case 'Hd': return int(spec, devMajor(st.dev), false);
    case 'Ld': return int(spec, devMinor(st.dev), false);
    case 'r': return int(spec, st.rdev, false);
    case 'R': return int(spec, st.rdev, false, 16);
    case 'Hr': return int(spec, devMajor(st.rdev), false);
    case 'Lr': return int(spec, devMinor(st.rdev), false);
    case 't': return int(spec, devMajor(st.rdev), false, 16);
    case 'T': return int(spec, devMinor(st.rdev), false, 16);
    case 'x': return str(spec, fullTime(tOf(s, 'atime')));
    case 'y': return str(spec, fullTime(tOf(s, 'mtime')));
    case 'z': return str(spec, fullTime(tOf(s, 'ctime')));
    case 'w': return str(spec, hasBirth(st) ? fullTime(tOf(s, 'birthtime')) : '-');
    case 'X': return epoch(spec, tOf(s, 'atime'));
    case 'Y': return epoch(spec, tOf(s, 'mtime'));
    case 'Z': return epoch(spec, tOf(s, 'ctime'));
    case 'W': return epoch(spec, hasBirth(st) ? tOf(s, 'birthtime') : { sec: 0, nsec: 0 });
    default: return '?';
  }
}

function tOf(s: Subject, field: 'atime' | 'mtime' | 'ctime' | 'birthtime'): TimeSpec {
  return s.ns ? timeOfNs(s.ns[field]) : timeOf(s.st[`${field}Ms`]);
}

function hasBirth(st: Stats): boolean {
  return st.birthtimeMs !== 0;
}

/**
 * A width or precision past INT_MAX makes glibc's printf fail (EOVERFLOW) before it prints
 * anything, and GNU stat does not check: the directive prints nothing.
 */
function tooBig(spec: Spec): boolean {
  return (spec.width ?? 0) > 0x7fffffff || (spec.precision ?? 0) > 0x7fffffff;
}

/** printf %s with '-', width and precision. */
function str(spec: Spec, v: string): string {
  if (tooBig(spec)) return '';
  if (spec.precision !== null) v = v.slice(0, spec.precision);
  return pad(v, spec);
}

function pad(v: string, spec: Spec, zeroOk = false): string {
  const width = spec.width ?? 0;
  if (v.length >= width) return v;
  if (spec.flags.includes('-')) return v.padEnd(width);
  if (zeroOk && spec.flags.includes('0')) {
    const sign = /^[-+ ]/.test(v) ? v[0]! : '';
    const prefix = v.startsWith(sign + '0x') ? '0x' : '';
    const body = v.slice(sign.length + prefix.length);
    return sign + prefix + body.padStart(width - sign.length - prefix.length, '0');
  }
  return v.padStart(width);
}

/** printf %jd / %ju / %jo / %jx with flags, width and precision. */
function int(spec: Spec, n: number, signed: boolean, radix: 10 | 8 | 16 = 10): string {
  if (tooBig(spec)) return '';
  const neg = n < 0;
  let digits = Math.abs(n).toString(radix);
  if (spec.precision !== null) digits = spec.precision === 0 && n === 0 ? '' : digits.padStart(spec.precision, '0');
  if (spec.flags.includes('#')) {
    if (radix === 8 && !digits.startsWith('0')) digits = '0' + digits;
    if (radix === 16 && n !== 0) digits = '0x' + digits;
  }
  let sign = '';
  if (signed && radix === 10) sign = neg ? '-' : spec.flags.includes('+') ? '+' : spec.flags.includes(' ') ? ' ' : '';
  return pad(sign + digits, spec, spec.precision === null);
}

/** %X %Y %Z %W: seconds, with a fraction when a precision is given (GNU out_epoch_sec). */
function epoch(spec: Spec, t: TimeSpec): string {
  const plain: Spec = { ...spec, precision: null, dotOnly: false };
  if (spec.precision === null) return int(plain, t.sec, true);
  const precision = spec.dotOnly ? 9 : spec.precision;
  if (precision === 0) return int(plain, t.sec, true);
  const width = spec.width ?? 0;
  let secSpec: Spec = { flags: spec.flags, width: null, precision: null, dotOnly: false };
  if (width > 1 && width - 1 > 1 && width - 1 - precision > 1) {
    const left = spec.flags.includes('-');
    secSpec = { flags: spec.flags.replace(/-/g, ''), width: left ? null : width - 1 - precision, precision: null, dotOnly: false };
  }
  const secText = int(secSpec, t.sec, true);
  const prec = Math.min(9, precision);
  const ilen = secText.length;
  const trailingWidth = ilen < width && 1 < width - ilen ? width - ilen - 1 - prec : 0;
  const frac = String(t.nsec).padStart(9, '0').slice(0, prec);
  const trailing = '0'.repeat(precision - prec).padEnd(Math.abs(trailingWidth));
  return `${secText}.${frac}${trailing}`;
}
