import { defineCommand, parseArgs, toBytes, type CommandContext, type CommandDef, type Output } from '../../src/command/index.js';
import { openInput } from '../../src/gnulib/helpers.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { filevercmp } from '../../src/gnulib/filevercmp.js';
import { sortLineIndexes } from './line-sort.js';
import { argmatch, FatalError, OutBuffer, recordBatches, records } from '../../src/gnulib/text-lines.js';
import { VfsError } from '../../src/vfs/index.js';
import { checkBatchSize, checkBufferSize, checkParallel, compareRandom, obsoleteKey, randomDigest, randomSalt, rewriteObsoleteKeys } from './options.js';

/**
 * GNU sort (coreutils 9.1) in the C locale. The input is buffered as one byte array with
 * line offsets in typed arrays (no object per line); keys of the first -k are precomputed.
 * Comparison follows sort.c: keycompare per key, then the whole line as a last resort
 * (unless -s or -u).
 */
/** The value of a bare --check (a real argument can never be this). */
const CHECK_DEFAULT = '\0default';

const def: CommandDef = defineCommand({
  name: 'sort',
  summary: 'Write sorted concatenation of all FILE(s) to standard output. With no FILE, or when FILE is -, read standard input.',
  usage: '[FILE]...',
  mutates: (args) => {
    try {
      return parseArgs(def, rewriteObsoleteKeys(args)).opts.has('o');
    } catch {
      return false;
    }
  },
  // +POS1 [-POS2] keys become --key words before getopt (see sort-options.ts).
  preprocess: rewriteObsoleteKeys,
  // GNU's whole table, in its order: `--version` is not an abbreviation of --version-sort,
  // and a prefix that also fits an option nosh lacks (`--r`: --random-sort) is ambiguous.
  gnuLongOptions: ['ignore-leading-blanks', 'check', 'compress-program', 'debug', 'dictionary-order', 'ignore-case', 'files0-from',
    'general-numeric-sort', 'ignore-nonprinting', 'key', 'merge', 'month-sort', 'numeric-sort', 'human-numeric-sort', 'version-sort',
    'random-sort', 'random-source', 'sort', 'output', 'reverse', 'stable', 'batch-size', 'buffer-size', 'field-separator',
    'temporary-directory', 'unique', 'zero-terminated', 'parallel', 'help', 'version'],
  flags: [
    { key: 'b', short: 'b', long: 'ignore-leading-blanks', help: 'ignore leading blanks' },
    { key: 'd', short: 'd', long: 'dictionary-order', help: 'consider only blanks and alphanumeric characters' },
    { key: 'f', short: 'f', long: 'ignore-case', help: 'fold lower case to upper case characters' },
    { key: 'g', short: 'g', long: 'general-numeric-sort', help: 'compare according to general numerical value' },
    { key: 'i', short: 'i', long: 'ignore-nonprinting', help: 'consider only printable characters' },
    { key: 'M', short: 'M', long: 'month-sort', help: "compare (unknown) < 'JAN' < ... < 'DEC'" },
    { key: 'h', short: 'h', long: 'human-numeric-sort', help: 'compare human readable numbers (e.g., 2K 1G)' },
    { key: 'n', short: 'n', long: 'numeric-sort', help: 'compare according to string numerical value' },
    { key: 'R', short: 'R', long: 'random-sort', help: 'shuffle, but group identical keys' },
    { key: 'random-source', long: 'random-source', kind: 'string', arg: 'FILE', help: 'get random bytes from FILE' },
    { key: 'r', short: 'r', long: 'reverse', help: 'reverse the result of comparisons' },
    { key: 'sort', long: 'sort', kind: 'string', arg: 'WORD', help: 'sort according to WORD: general-numeric -g, human-numeric -h, month -M, numeric -n, version -V' },
    { key: 'V', short: 'V', long: 'version-sort', help: 'natural sort of (version) numbers within text' },
    { key: 'c', short: 'c', value: 'c', help: 'check for sorted input; do not sort' },
    { key: 'c', long: 'check', kind: 'optional', arg: 'diagnose-first', value: CHECK_DEFAULT, help: 'check for sorted input; do not sort' },
    { key: 'c', short: 'C', value: 'C', help: 'like -c, but do not report first bad line' },
    { key: 'k', short: 'k', long: 'key', kind: 'string', arg: 'KEYDEF', help: 'sort via a key; KEYDEF gives location and type' },
    { key: 'm', short: 'm', long: 'merge', help: 'merge already sorted files; do not sort' },
    { key: 'o', short: 'o', long: 'output', kind: 'string', arg: 'FILE', help: 'write result to FILE instead of standard output' },
    { key: 's', short: 's', long: 'stable', help: 'stabilize sort by disabling last-resort comparison' },
    { key: 'S', short: 'S', long: 'buffer-size', kind: 'string', arg: 'SIZE', help: 'use SIZE for main memory buffer (checked, no effect in nosh)' },
    { key: 'T', short: 'T', long: 'temporary-directory', kind: 'string', arg: 'DIR', help: 'use DIR for temporaries (accepted, never used: nosh sorts in memory)' },
    { key: 'parallel', long: 'parallel', kind: 'string', arg: 'N', help: 'change the number of sorts run concurrently to N (checked, no effect)' },
    { key: 'batch-size', long: 'batch-size', kind: 'string', arg: 'NMERGE', help: 'merge at most NMERGE inputs at once (checked, no effect)' },
    { key: 't', short: 't', long: 'field-separator', kind: 'string', arg: 'SEP', help: 'use SEP instead of non-blank to blank transition' },
    { key: 'u', short: 'u', long: 'unique', help: 'with -c, check for strict ordering; without -c, output only the first of an equal run' },
    { key: 'z', short: 'z', long: 'zero-terminated', help: 'line delimiter is NUL, not newline' },
  ],
  notes: 'KEYDEF is F[.C][OPTS][,F[.C][OPTS]] for start and stop position, where F is a field number and C a character position in the field; both are origin 1, and the stop position defaults to the line\'s end. OPTS is one or more single-letter ordering options [bdfgiMhnRrV], which override global ordering options for that key.',
  async run(ctx) {
    try {
      return await sortMain(ctx);
    } catch (e) {
      if (e instanceof FatalError) {
        await ctx.warn(e.message);
        return 2;
      }
      if (e instanceof ArgmatchError) {
        // XARGMATCH failures end with usage (EXIT_FAILURE): status 1, unlike sort's other errors.
        await ctx.warn(`${e.message}\nTry 'sort --help' for more information.`);
        return 1;
      }
      throw e;
    }
  },
});

export default def;

class ArgmatchError extends Error {}

function argmatchSort(value: string, choices: string[], option: string, values?: string[]): string {
  try {
    return argmatch(value, choices, option, values);
  } catch (e) {
    throw new ArgmatchError((e as Error).message);
  }
}

// ---- keys -------------------------------------------------------------------------------

const SIZE_MAX = Number.MAX_SAFE_INTEGER;

interface Key {
  sword: number;
  schar: number;
  eword: number;
  echar: number;
  skipsblanks: boolean;
  skipeblanks: boolean;
  ignore: Uint8Array | null;
  translate: Uint8Array | null;
  numeric: boolean;
  general: boolean;
  human: boolean;
  month: boolean;
  version: boolean;
  random: boolean;
  reverse: boolean;
  /** -R: the salt of the keyed hash (set once the options are read). */
  salt: Buffer | null;
}

const BLANKS = new Uint8Array(256);
const NONPRINTING = new Uint8Array(256);
const NONDICTIONARY = new Uint8Array(256);
const FOLD = new Uint8Array(256);
for (let i = 0; i < 256; i++) {
  const alnum = (i >= 48 && i <= 57) || (i >= 65 && i <= 90) || (i >= 97 && i <= 122);
  BLANKS[i] = i === 32 || i === 9 || i === 10 ? 1 : 0;
  NONPRINTING[i] = i >= 32 && i < 127 ? 0 : 1;
  NONDICTIONARY[i] = !alnum && !BLANKS[i] ? 1 : 0;
  FOLD[i] = i >= 97 && i <= 122 ? i - 32 : i;
}

function newKey(): Key {
  return {
    sword: SIZE_MAX, schar: 0, eword: SIZE_MAX, echar: 0, skipsblanks: false, skipeblanks: false,
    ignore: null, translate: null, numeric: false, general: false, human: false, month: false,
    version: false, random: false, reverse: false, salt: null,
  };
}

function isDefaultKey(k: Key): boolean {
  return !(k.ignore || k.translate || k.skipsblanks || k.skipeblanks || k.numeric || k.general || k.human || k.month || k.version || k.random);
}

/** sort.c set_ordering: returns the index of the first character that is not an option. */
function setOrdering(s: string, i: number, key: Key, blank: 'start' | 'end' | 'both'): number {
  for (; i < s.length; i++) {
    switch (s[i]) {
      case 'b':
        if (blank !== 'end') key.skipsblanks = true;
        if (blank !== 'start') key.skipeblanks = true;
        break;
      case 'd': key.ignore = NONDICTIONARY; break;
      case 'f': key.translate = FOLD; break;
      case 'g': key.general = true; break;
      case 'h': key.human = true; break;
      case 'i': if (!key.ignore) key.ignore = NONPRINTING; break;
      case 'M': key.month = true; break;
      case 'n': key.numeric = true; break;
      case 'R': key.random = true; break;
      case 'r': key.reverse = true; break;
      case 'V': key.version = true; break;
      default: return i;
    }
  }
  return i;
}

/** parse_field_count: a decimal at s[i]; huge values become SIZE_MAX. */
function fieldCount(s: string, i: number, msg: string): { value: number; next: number } {
  const m = /^[ \t\n\v\f\r]*\+?([0-9]+)/.exec(s.slice(i));
  if (!m) throw new FatalError(`${msg}: invalid count at start of ${gnuQuote(s.slice(i))}`);
  const n = Number(m[1]);
  return { value: n >= SIZE_MAX ? SIZE_MAX : n, next: i + m[0].length };
}

function parseKey(spec: string): Key {
  const bad = (msg: string): never => {
    throw new FatalError(`${msg}: invalid field specification ${gnuQuote(spec)}`);
  };
  const key = newKey();
  let r = fieldCount(spec, 0, 'invalid number at field start');
  if (r.value === 0) bad('field number is zero');
  key.sword = r.value === SIZE_MAX ? SIZE_MAX : r.value - 1;
  let i = r.next;
  key.schar = 0;
  if (spec[i] === '.') {
    r = fieldCount(spec, i + 1, "invalid number after '.'");
    if (r.value === 0) bad('character offset is zero');
    key.schar = r.value === SIZE_MAX ? SIZE_MAX : r.value - 1;
    i = r.next;
  }
  if (!(key.sword || key.schar)) key.sword = SIZE_MAX;
  i = setOrdering(spec, i, key, 'start');
  if (spec[i] !== ',') {
    key.eword = SIZE_MAX;
    key.echar = 0;
  } else {
    r = fieldCount(spec, i + 1, "invalid number after ','");
    if (r.value === 0) bad('field number is zero');
    key.eword = r.value === SIZE_MAX ? SIZE_MAX : r.value - 1;
    i = r.next;
    if (spec[i] === '.') {
      r = fieldCount(spec, i + 1, "invalid number after '.'");
      key.echar = r.value;
      i = r.next;
    }
    i = setOrdering(spec, i, key, 'end');
  }
  if (i < spec.length) bad('stray character in field spec');
  return key;
}

/**
 * An obsolete +POS1 [-POS2] key (both origin 0): +A.x -B.y is -k A+1.x+1,B.y when y is 0
 * and -k A+1.x+1,B+1.y otherwise. rewriteObsoleteKeys only passes a POS1 that reads as one.
 */
function parseObsoleteKey(pos: string, end: string | null): Key {
  const key = newKey();
  let r = fieldCount(pos, 1, '');
  key.sword = r.value;
  let i = r.next;
  if (pos[i] === '.') {
    r = fieldCount(pos, i + 1, '');
    key.schar = r.value;
    i = r.next;
  }
  if (!(key.sword || key.schar)) key.sword = SIZE_MAX;
  setOrdering(pos, i, key, 'start');
  if (end !== null) {
    r = fieldCount(end, 1, "invalid number after '-'");
    key.eword = r.value;
    i = r.next;
    if (end[i] === '.') {
      r = fieldCount(end, i + 1, "invalid number after '.'");
      key.echar = r.value;
      i = r.next;
    }
    if (!key.echar && key.eword && key.eword !== SIZE_MAX) key.eword--;
    if (setOrdering(end, i, key, 'end') < end.length) {
      throw new FatalError(`stray character in field spec: invalid field specification ${gnuQuote(end)}`);
    }
  }
  return key;
}

function keyOpts(k: Key): string {
  let o = '';
  if (k.skipsblanks || k.skipeblanks) o += 'b';
  if (k.ignore === NONDICTIONARY) o += 'd';
  if (k.translate) o += 'f';
  if (k.general) o += 'g';
  if (k.human) o += 'h';
  if (k.ignore === NONPRINTING) o += 'i';
  if (k.month) o += 'M';
  if (k.numeric) o += 'n';
  if (k.random) o += 'R';
  if (k.reverse) o += 'r';
  if (k.version) o += 'V';
  return o;
}

// ---- comparison -------------------------------------------------------------------------

interface Config {
  keys: Key[];
  tab: number; // -1: blank-to-nonblank transitions
  reverse: boolean;
  stable: boolean;
  unique: boolean;
}

function begfield(buf: Uint8Array, start: number, lim: number, key: Key, tab: number): number {
  let ptr = start;
  let sword = key.sword;
  if (tab >= 0) {
    while (ptr < lim && sword-- > 0) {
      while (ptr < lim && buf[ptr] !== tab) ++ptr;
      if (ptr < lim) ++ptr;
    }
  } else {
    while (ptr < lim && sword-- > 0) {
      while (ptr < lim && BLANKS[buf[ptr]!]) ++ptr;
      while (ptr < lim && !BLANKS[buf[ptr]!]) ++ptr;
    }
  }
  if (key.skipsblanks) while (ptr < lim && BLANKS[buf[ptr]!]) ++ptr;
  return Math.min(lim, ptr + key.schar);
}

function limfield(buf: Uint8Array, start: number, lim: number, key: Key, tab: number): number {
  let ptr = start;
  let eword = key.eword;
  const echar = key.echar;
  if (echar === 0) eword++;
  if (tab >= 0) {
    while (ptr < lim && eword-- > 0) {
      while (ptr < lim && buf[ptr] !== tab) ++ptr;
      if (ptr < lim && (eword || echar)) ++ptr;
    }
  } else {
    while (ptr < lim && eword-- > 0) {
      while (ptr < lim && BLANKS[buf[ptr]!]) ++ptr;
      while (ptr < lim && !BLANKS[buf[ptr]!]) ++ptr;
    }
  }
  if (echar !== 0) {
    if (key.skipeblanks) while (ptr < lim && BLANKS[buf[ptr]!]) ++ptr;
    ptr = Math.min(lim, ptr + echar);
  }
  return ptr;
}

function keyBegin(buf: Uint8Array, start: number, lim: number, key: Key, tab: number): number {
  if (key.sword !== SIZE_MAX) return begfield(buf, start, lim, key, tab);
  let p = start;
  if (key.skipsblanks) while (p < lim && BLANKS[buf[p]!]) ++p;
  return p;
}

function keyLimit(buf: Uint8Array, start: number, lim: number, key: Key, tab: number): number {
  return key.eword === SIZE_MAX ? lim : limfield(buf, start, lim, key, tab);
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * GNU sort's thousands separator in the C locale. The locale has none, so sort stores its
 * "no character" value, CHAR_MAX + 1: 128 where char is signed (x86), and strnumcmp, which
 * reads unsigned bytes, then skips byte 0x80 in the integer part of -n and -h numbers
 * ('1\x80000' is 1000). (find_unit_order compares signed chars and never matches it.)
 */
const TSEP = 0x80;

/** fraccompare: '.' as decimal point (no separator in fractions); bytes past `lim` read as NUL. */
function fraccompare(a: Uint8Array, pa: number, la: number, b: Uint8Array, pb: number, lb: number): number {
  const A = (p: number) => (p < la ? a[p]! : 0);
  const B = (p: number) => (p < lb ? b[p]! : 0);
  if (A(pa) === 0x2e && B(pb) === 0x2e) {
    for (;;) {
      const ca = A(++pa);
      const cb = B(++pb);
      if (ca !== cb) break;
      if (!isDigit(ca)) return 0;
    }
    const ca = A(pa);
    const cb = B(pb);
    if (isDigit(ca) && isDigit(cb)) return ca - cb;
    if (isDigit(ca)) {
      while (A(pa) === 0x30) pa++;
      return isDigit(A(pa)) ? 1 : 0;
    }
    if (isDigit(cb)) {
      while (B(pb) === 0x30) pb++;
      return isDigit(B(pb)) ? -1 : 0;
    }
    return 0;
  }
  if (A(pa++) === 0x2e) {
    while (A(pa) === 0x30) pa++;
    return isDigit(A(pa)) ? 1 : 0;
  }
  if (B(pb++) === 0x2e) {
    while (B(pb) === 0x30) pb++;
    return isDigit(B(pb)) ? -1 : 0;
  }
  return 0;
}

function strnumcmp(a: Uint8Array, pa: number, la: number, b: Uint8Array, pb: number, lb: number): number {
  const A = (p: number) => (p < la ? a[p]! : 0);
  const B = (p: number) => (p < lb ? b[p]! : 0);
  let ta = A(pa);
  let tb = B(pb);
  if (ta === 0x2d) {
    do ta = A(++pa); while (ta === 0x30 || ta === TSEP);
    if (tb !== 0x2d) {
      if (ta === 0x2e) do ta = A(++pa); while (ta === 0x30);
      if (isDigit(ta)) return -1;
      while (tb === 0x30 || tb === TSEP) tb = B(++pb);
      if (tb === 0x2e) do tb = B(++pb); while (tb === 0x30);
      return isDigit(tb) ? -1 : 0;
    }
    do tb = B(++pb); while (tb === 0x30 || tb === TSEP);
    while (ta === tb && isDigit(ta)) {
      do ta = A(++pa); while (ta === TSEP);
      do tb = B(++pb); while (tb === TSEP);
    }
    if ((ta === 0x2e && !isDigit(tb)) || (tb === 0x2e && !isDigit(ta))) return fraccompare(b, pb, lb, a, pa, la);
    const tmp = tb - ta;
    let loga = 0;
    let logb = 0;
    while (isDigit(ta)) { loga++; do ta = A(++pa); while (ta === TSEP); }
    while (isDigit(tb)) { logb++; do tb = B(++pb); while (tb === TSEP); }
    if (loga !== logb) return loga < logb ? 1 : -1;
    if (!loga) return 0;
    return tmp;
  }
  if (tb === 0x2d) {
    do tb = B(++pb); while (tb === 0x30 || tb === TSEP);
    if (tb === 0x2e) do tb = B(++pb); while (tb === 0x30);
    if (isDigit(tb)) return 1;
    while (ta === 0x30 || ta === TSEP) ta = A(++pa);
    if (ta === 0x2e) do ta = A(++pa); while (ta === 0x30);
    return isDigit(ta) ? 1 : 0;
  }
  while (ta === 0x30 || ta === TSEP) ta = A(++pa);
  while (tb === 0x30 || tb === TSEP) tb = B(++pb);
  while (ta === tb && isDigit(ta)) {
    do ta = A(++pa); while (ta === TSEP);
    do tb = B(++pb); while (tb === TSEP);
  }
  if ((ta === 0x2e && !isDigit(tb)) || (tb === 0x2e && !isDigit(ta))) return fraccompare(a, pa, la, b, pb, lb);
  const tmp = ta - tb;
  let loga = 0;
  let logb = 0;
  while (isDigit(ta)) { loga++; do ta = A(++pa); while (ta === TSEP); }
  while (isDigit(tb)) { logb++; do tb = B(++pb); while (tb === TSEP); }
  if (loga !== logb) return loga < logb ? -1 : 1;
  if (!loga) return 0;
  return tmp;
}

function skipBlanks(buf: Uint8Array, p: number, lim: number): number {
  while (p < lim && BLANKS[buf[p]!]) p++;
  return p;
}

function numcompare(a: Uint8Array, pa: number, la: number, b: Uint8Array, pb: number, lb: number): number {
  return strnumcmp(a, skipBlanks(a, pa, la), la, b, skipBlanks(b, pb, lb), lb);
}

/** A key compared as plain bytes (no -n -g -h -M -V, no -d -i -f). */
function isTextKey(k: Key): boolean {
  return !k.numeric && !k.general && !k.human && !k.month && !k.version && !k.ignore && !k.translate;
}

/**
 * Each line's key [kb, max(kb, ke)) by its first 6 bytes, packed big-endian into a double (a
 * key that ends sooner is padded with 0): a key before another in byte order never packs
 * larger.
 */
function prefixKeys(data: Buffer, kb: Uint32Array, ke: Uint32Array, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const s = kb[i]!;
    const e = Math.max(s, ke[i]!);
    let v = 0;
    for (let k = 0; k < 6; k++) v = v * 256 + (s + k < e ? data[s + k]! : 0);
    out[i] = v;
  }
  return out;
}

/**
 * The number strnumcmp reads in each line's key [kb, max(kb, ke)), as a double: blanks, an
 * optional '-', digits (TSEP bytes among them skipped), an optional '.' and digits; anything
 * else ends it, and no digits is 0.
 */
function numericKeys(data: Buffer, kb: Uint32Array, ke: Uint32Array, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const lim = Math.max(kb[i]!, ke[i]!);
    let p = skipBlanks(data, kb[i]!, lim);
    const neg = p < lim && data[p] === 0x2d;
    if (neg) p++;
    const start = p;
    let seps = false;
    for (; p < lim && (isDigit(data[p]!) || data[p] === TSEP); p++) if (data[p] === TSEP) seps = true;
    if (p < lim && data[p] === 0x2e) {
      p++;
      while (p < lim && isDigit(data[p]!)) p++;
    }
    let text = data.toString('latin1', start, p);
    if (seps) text = text.replaceAll('\x80', '');
    const v = text === '' || text === '.' ? 0 : Number(text);
    out[i] = neg ? -v : v;
  }
  return out;
}

const UNIT_ORDER: Record<number, number> = { 0x4b: 1, 0x6b: 1, 0x4d: 2, 0x47: 3, 0x54: 4, 0x50: 5, 0x45: 6, 0x5a: 7, 0x59: 8 };

function unitOrder(buf: Uint8Array, p: number, lim: number): number {
  const at = (i: number) => (i < lim ? buf[i]! : 0);
  const minus = at(p) === 0x2d;
  if (minus) p++;
  let nonzero = 0;
  let ch = at(p++);
  while (isDigit(ch)) {
    nonzero |= ch - 0x30;
    ch = at(p++);
  }
  if (ch === 0x2e) {
    ch = at(p++);
    while (isDigit(ch)) {
      nonzero |= ch - 0x30;
      ch = at(p++);
    }
  }
  if (nonzero) {
    const order = UNIT_ORDER[ch] ?? 0;
    return minus ? -order : order;
  }
  return 0;
}

function humancompare(a: Uint8Array, pa: number, la: number, b: Uint8Array, pb: number, lb: number): number {
  pa = skipBlanks(a, pa, la);
  pb = skipBlanks(b, pb, lb);
  const diff = unitOrder(a, pa, la) - unitOrder(b, pb, lb);
  return diff || strnumcmp(a, pa, la, b, pb, lb);
}

/** strtold's accepted prefix: null when no conversion. Values are doubles (long double in GNU). */
function strtold(buf: Uint8Array, p: number, lim: number): number | null {
  let s = '';
  for (let i = p; i < lim && buf[i] !== 0; i++) s += String.fromCharCode(buf[i]!);
  const m = /^[ \t\n\v\f\r]*([+-]?)(?:(inf(?:inity)?)|(nan(?:\([0-9A-Za-z_]*\))?)|0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)|((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?))/i.exec(s);
  if (!m) return null;
  const neg = m[1] === '-';
  let v: number;
  if (m[2]) v = Infinity;
  else if (m[3]) v = NaN;
  else if (m[4] !== undefined) v = parseHexFloat(m[4]);
  else v = Number(m[5]);
  return neg ? -v : v;
}

function parseHexFloat(s: string): number {
  const m = /^([0-9a-fA-F]*)\.?([0-9a-fA-F]*)(?:[pP]([+-]?[0-9]+))?$/.exec(s)!;
  let v = 0;
  for (const d of m[1]!) v = v * 16 + parseInt(d, 16);
  let scale = 1 / 16;
  for (const d of m[2]!) {
    v += parseInt(d, 16) * scale;
    scale /= 16;
  }
  return v * Math.pow(2, Number(m[3] ?? 0));
}

function generalcompare(a: Uint8Array, pa: number, la: number, b: Uint8Array, pb: number, lb: number): number {
  const x = strtold(a, pa, la);
  const y = strtold(b, pb, lb);
  if (x === null) return y === null ? 0 : -1;
  if (y === null) return 1;
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) return 0;
  if (y === y) return -1;
  if (x === x) return 1;
  // Two NaNs: GNU compares the long doubles' bytes, where the sign byte puts 'nan' before
  // '-nan'; the rest (padding) is whatever was on the stack, taken here as equal.
  return nanSign(a, pa, la) - nanSign(b, pb, lb);
}

function nanSign(buf: Uint8Array, p: number, lim: number): number {
  while (p < lim && (BLANKS[buf[p]!] || (buf[p]! >= 0x0b && buf[p]! <= 0x0d))) p++;
  return p < lim && buf[p] === 0x2d ? 1 : 0;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

function getmonth(buf: Uint8Array, p: number, lim: number): number {
  const at = (i: number) => (i < lim ? buf[i]! : 0);
  while (BLANKS[at(p)] && p < lim) p++;
  for (let m = 0; m < 12; m++) {
    const name = MONTHS[m]!;
    let k = 0;
    while (k < 3 && FOLD[at(p + k)] === name.charCodeAt(k)) k++;
    if (k === 3) return m + 1;
  }
  return 0;
}

function translated(buf: Uint8Array, p: number, lim: number, key: Key): Uint8Array {
  const out = new Uint8Array(lim - p);
  let n = 0;
  for (let i = p; i < lim; i++) {
    const c = buf[i]!;
    if (key.ignore && key.ignore[c]) continue;
    out[n++] = key.translate ? key.translate[c]! : c;
  }
  return out.subarray(0, n);
}

function compareKey(key: Key, a: Uint8Array, ta: number, la: number, b: Uint8Array, tb: number, lb: number): number {
  la = Math.max(ta, la);
  lb = Math.max(tb, lb);
  const ignore = key.ignore;
  const translate = key.translate;
  if (key.numeric || key.general || key.human || key.month || key.version || key.random) {
    if (ignore || translate) {
      a = translated(a, ta, la, key);
      b = translated(b, tb, lb, key);
      ta = 0;
      la = a.length;
      tb = 0;
      lb = b.length;
    }
    if (key.numeric) return numcompare(a, ta, la, b, tb, lb);
    if (key.general) return generalcompare(a, ta, la, b, tb, lb);
    if (key.human) return humancompare(a, ta, la, b, tb, lb);
    if (key.month) return getmonth(a, ta, la) - getmonth(b, tb, lb);
    if (key.random) return compareRandom(key.salt!, a.subarray(ta, la), b.subarray(tb, lb));
    return filevercmp(a.subarray(ta, la), b.subarray(tb, lb));
  }
  if (ignore) {
    for (;;) {
      while (ta < la && ignore[a[ta]!]) ++ta;
      while (tb < lb && ignore[b[tb]!]) ++tb;
      if (!(ta < la && tb < lb)) break;
      const diff = translate ? translate[a[ta]!]! - translate[b[tb]!]! : a[ta]! - b[tb]!;
      if (diff) return diff;
      ++ta;
      ++tb;
    }
    return (ta < la ? 1 : 0) - (tb < lb ? 1 : 0);
  }
  const lena = la - ta;
  const lenb = lb - tb;
  if (lena === 0) return lenb ? -1 : 0;
  if (lenb === 0) return 1;
  const n = Math.min(lena, lenb);
  if (translate) {
    for (let i = 0; i < n; i++) {
      const diff = translate[a[ta + i]!]! - translate[b[tb + i]!]!;
      if (diff) return diff;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const diff = a[ta + i]! - b[tb + i]!;
      if (diff) return diff;
    }
  }
  return lena < lenb ? -1 : lena !== lenb ? 1 : 0;
}

function makeComparator(cfg: Config) {
  const { keys, tab, reverse, stable, unique } = cfg;
  const keycompare = (a: Uint8Array, sa: number, ea: number, b: Uint8Array, sb: number, eb: number, first?: [number, number, number, number], from = 0): number => {
    for (let k = from; k < keys.length; k++) {
      const key = keys[k]!;
      let ta: number, la: number, tb: number, lb: number;
      if (k === 0 && first) [ta, la, tb, lb] = first;
      else {
        la = keyLimit(a, sa, ea, key, tab);
        lb = keyLimit(b, sb, eb, key, tab);
        if (key.sword !== SIZE_MAX) {
          ta = begfield(a, sa, ea, key, tab);
          tb = begfield(b, sb, eb, key, tab);
        } else {
          ta = sa;
          tb = sb;
          if (key.skipsblanks) {
            while (ta < la && BLANKS[a[ta]!]) ++ta;
            while (tb < lb && BLANKS[b[tb]!]) ++tb;
          }
        }
      }
      const diff = compareKey(key, a, ta, la, b, tb, lb);
      if (diff) return key.reverse ? -diff : diff;
    }
    return 0;
  };
  /** `from`: the keys before it are known equal (the sort compared them already). */
  const compare = (a: Uint8Array, sa: number, ea: number, b: Uint8Array, sb: number, eb: number, first?: [number, number, number, number], from = 0): number => {
    if (keys.length) {
      const d = keycompare(a, sa, ea, b, sb, eb, first, from);
      if (d || unique || stable) return d;
    }
    const alen = ea - sa;
    const blen = eb - sb;
    let diff: number;
    if (alen === 0) diff = blen ? -1 : 0;
    else if (blen === 0) diff = 1;
    else {
      diff = 0;
      const n = Math.min(alen, blen);
      for (let i = 0; i < n; i++) {
        diff = a[sa + i]! - b[sb + i]!;
        if (diff) break;
      }
      if (!diff) diff = alen < blen ? -1 : alen !== blen ? 1 : 0;
    }
    return reverse ? -diff : diff;
  };
  return { compare, keycompare };
}

// ---- main -------------------------------------------------------------------------------

async function sortMain(ctx: CommandContext): Promise<number> {
  const gkey = newKey();
  const keys: Key[] = [];
  let tab = -1;
  let check: string | null = null;
  let outfile: string | null = null;
  let randomSource: string | null = null;
  for (const o of ctx.opts.order) {
    switch (o.key) {
      case 'b': case 'd': case 'f': case 'g': case 'i': case 'M': case 'h': case 'n': case 'r': case 'R': case 'V':
        setOrdering(o.key, 0, gkey, 'both');
        break;
      case 'sort': {
        const word = argmatchSort(o.value, ['general-numeric', 'human-numeric', 'month', 'numeric', 'random', 'version'], '--sort');
        setOrdering({ 'general-numeric': 'g', 'human-numeric': 'h', month: 'M', numeric: 'n', random: 'R', version: 'V' }[word]!, 0, gkey, 'both');
        break;
      }
      case 'c': {
        const c = o.flag === '--check' && o.value !== CHECK_DEFAULT
          ? argmatchSort(o.value, ['quiet', 'silent', 'diagnose-first'], '--check', ['C', 'C', 'c'])
          : o.value === CHECK_DEFAULT ? 'c' : o.value;
        if (check && check !== c) throw new FatalError("options '-cC' are incompatible");
        check = c;
        break;
      }
      case 'k': {
        const obs = obsoleteKey(o.value);
        keys.push(obs ? parseObsoleteKey(obs[0], obs[1]) : parseKey(o.value));
        break;
      }
      case 'S': checkBufferSize(o.flag, o.value); break;
      case 'parallel': checkParallel(o.value); break;
      case 'batch-size': checkBatchSize(o.value); break;
      case 'random-source':
        if (randomSource !== null && randomSource !== o.value) throw new FatalError('multiple random sources specified');
        randomSource = o.value;
        break;
      case 'o':
        if (outfile !== null && outfile !== o.value) throw new FatalError('multiple output files specified');
        outfile = o.value;
        break;
      case 't': {
        const b = Buffer.from(o.value, 'utf8');
        if (b.length === 0) throw new FatalError('empty tab');
        let newtab = b[0]!;
        if (b.length > 1) {
          if (o.value === '\\0') newtab = 0;
          else throw new FatalError(`multi-character tab ${gnuQuote(o.value)}`);
        }
        if (tab !== -1 && tab !== newtab) throw new FatalError('incompatible tabs');
        tab = newtab;
        break;
      }
    }
  }
  for (const key of keys) {
    if (isDefaultKey(key) && !key.reverse) {
      Object.assign(key, {
        ignore: gkey.ignore, translate: gkey.translate, skipsblanks: gkey.skipsblanks, skipeblanks: gkey.skipeblanks,
        month: gkey.month, numeric: gkey.numeric, general: gkey.general, human: gkey.human, version: gkey.version,
        random: gkey.random, reverse: gkey.reverse,
      });
    }
  }
  if (keys.length === 0 && !isDefaultKey(gkey)) keys.push(gkey);
  for (const key of keys) {
    const n = Number(key.numeric) + Number(key.general) + Number(key.human) + Number(key.month) + Number(key.version || key.random || !!key.ignore);
    if (n > 1) throw new FatalError(`options '-${keyOpts({ ...key, skipsblanks: false, skipeblanks: false, reverse: false })}' are incompatible`);
  }
  if (keys.some((k) => k.random)) {
    const salt = randomSalt(ctx, randomSource);
    for (const k of keys) k.salt = salt;
  }

  const cfg: Config = { keys, tab, reverse: gkey.reverse, stable: ctx.opts.has('s'), unique: ctx.opts.has('u') };
  const eol = ctx.opts.has('z') ? 0 : 0x0a;
  const files = ctx.operands.length ? ctx.operands : ['-'];

  if (check) {
    if (files.length > 1) throw new FatalError(`extra operand ${gnuQuote(files[1]!)} not allowed with -${check}`);
    if (outfile !== null) throw new FatalError(`options '-${check}o' are incompatible`);
  }
  // Every input must be readable before anything is done (-c opens its one file: "open failed").
  for (const f of files) {
    if (f === '-') continue;
    try {
      ctx.fs.stat(f, ctx.cwd);
    } catch (e) {
      if (e instanceof VfsError) throw new FatalError(`${check ? 'open failed' : 'cannot read'}: ${quoteNameColon(f)}: ${e.reason}`);
      throw e;
    }
  }
  const { compare } = makeComparator(cfg);
  if (check) return checkSorted(ctx, files[0]!, cfg, compare, eol, check === 'c');

  if (ctx.opts.has('m')) {
    return withOutput(ctx, outfile, async (out) => mergeFiles(ctx, files, cfg, compare, eol, out));
  }

  // GNU opens -o FILE before reading the inputs (see withOutput).
  return withOutput(ctx, outfile, async (out) => {
    // Read everything into one buffer; every line gets its terminator.
    const parts: Buffer[] = [];
    let total = 0;
    for (const f of files) {
      let last = -1;
      try {
        for await (const chunk of openInput(ctx, f) as AsyncIterable<Uint8Array>) {
          if (chunk.length === 0) continue;
          const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
          parts.push(b);
          total += b.length;
          last = b[b.length - 1]!;
        }
      } catch (e) {
        if (e instanceof VfsError) throw new FatalError(`read failed: ${quoteNameColon(f)}: ${e.reason}`);
        throw e;
      }
      if (last !== -1 && last !== eol) {
        parts.push(Buffer.from([eol]));
        total++;
      }
    }
    const data = parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
    parts.length = 0;
    let count = 0;
    for (let p = data.indexOf(eol); p >= 0; p = data.indexOf(eol, p + 1)) count++;
    const starts = new Uint32Array(count + 1);
    {
      let i = 0;
      let p = 0;
      while (i < count) {
        starts[i++] = p;
        p = data.indexOf(eol, p) + 1;
      }
      starts[count] = data.length;
    }
    const endOf = (i: number) => starts[i + 1]! - 1;
    let order: ArrayLike<number>;

    if (keys.length === 0) {
      // Whole-line byte order by radix; -r is that order backwards (equal lines are equal bytes).
      const sorted = sortLineIndexes(data, starts, count);
      if (cfg.reverse) sorted.reverse();
      order = sorted;
    } else {
      const byKey = new Uint32Array(count);
      for (let i = 0; i < count; i++) byKey[i] = i;
      const k0 = keys[0]!;
      const kb = new Uint32Array(count);
      const ke = new Uint32Array(count);
      for (let i = 0; i < count; i++) {
        const s = starts[i]!;
        const e = endOf(i);
        ke[i] = keyLimit(data, s, e, k0, tab);
        kb[i] = keyBegin(data, s, e, k0, tab);
      }
      const first: [number, number, number, number] = [0, 0, 0, 0];
      // The first key as a double, compared before the exact comparison: for -n the number
      // (decimal to double is monotonic), for a plain text key its first 6 bytes packed
      // (byte order). Different doubles order as the exact comparison would; equal ones (equal
      // keys, or keys alike in what the double holds) fall through to it.
      const num = k0.numeric && !k0.ignore && !k0.translate ? numericKeys(data, kb, ke, count)
        : isTextKey(k0) ? prefixKeys(data, kb, ke, count) : null;
      const sign = k0.reverse ? -1 : 1;
      // -R: each line's first-key digest once (compare_random hashes on every comparison).
      const digests = k0.random ? randomDigests(data, kb, ke, count, k0) : null;
      order = mergeSort(byKey, (x, y) => {
        if (digests) {
          const d = digests.compare(digests, y * 16, y * 16 + 16, x * 16, x * 16 + 16)
            || compareKey({ ...k0, random: false }, data, kb[x]!, ke[x]!, data, kb[y]!, ke[y]!);
          if (d) return d < 0 ? -sign : sign;
          return compare(data, starts[x]!, endOf(x), data, starts[y]!, endOf(y), undefined, 1);
        }
        if (num) {
          const d = num[x]! - num[y]!;
          if (d < 0) return -sign;
          if (d > 0) return sign;
        }
        first[0] = kb[x]!;
        first[1] = ke[x]!;
        first[2] = kb[y]!;
        first[3] = ke[y]!;
        return compare(data, starts[x]!, endOf(x), data, starts[y]!, endOf(y), first);
      });
    }

    let prev = -1;
    for (let n = 0; n < count; n++) {
      const i = order[n]!;
      if (cfg.unique && prev >= 0 && compare(data, starts[prev]!, endOf(prev), data, starts[i]!, endOf(i)) === 0) continue;
      prev = i;
      if (out.add(data.subarray(starts[i]!, starts[i + 1]!))) await out.flush();
    }
    return 0;
  });
}

/** The -R digest of each line's key [kb, max(kb, ke)), with -f/-d/-i applied, 16 bytes each. */
function randomDigests(data: Buffer, kb: Uint32Array, ke: Uint32Array, count: number, key: Key): Buffer {
  const out = Buffer.alloc(count * 16);
  for (let i = 0; i < count; i++) {
    const s = kb[i]!;
    const e = Math.max(s, ke[i]!);
    const text = key.ignore || key.translate ? translated(data, s, e, key) : data.subarray(s, e);
    randomDigest(key.salt!, text).copy(out, i * 16);
  }
  return out;
}

/**
 * A stable merge sort of line numbers. Array.prototype.sort (and a typed array's sort with a
 * comparator) copies the elements into V8 heap work arrays, 8 to 16 bytes each: a few million
 * lines filled a 64 MB worker heap, and V8's out-of-memory aborts the whole process. Typed
 * arrays keep their elements outside the heap, like sort's other per-line arrays.
 */
function mergeSort(a: Uint32Array, cmp: (x: number, y: number) => number): Uint32Array {
  const n = a.length;
  let src: Uint32Array = a;
  let dst: Uint32Array = new Uint32Array(n);
  const RUN = 16;
  for (let lo = 0; lo < n; lo += RUN) {
    const hi = Math.min(lo + RUN, n);
    for (let i = lo + 1; i < hi; i++) {
      const v = src[i]!;
      let j = i - 1;
      while (j >= lo && cmp(src[j]!, v) > 0) {
        src[j + 1] = src[j]!;
        j--;
      }
      src[j + 1] = v;
    }
  }
  for (let w = RUN; w < n; w *= 2) {
    for (let lo = 0; lo < n; lo += 2 * w) {
      const mid = Math.min(lo + w, n);
      const hi = Math.min(lo + 2 * w, n);
      if (mid >= hi || cmp(src[mid - 1]!, src[mid]!) <= 0) {
        dst.set(src.subarray(lo, hi), lo);
        continue;
      }
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) dst[k++] = cmp(src[i]!, src[j]!) <= 0 ? src[i++]! : src[j++]!;
      while (i < mid) dst[k++] = src[i++]!;
      while (j < hi) dst[k++] = src[j++]!;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  return src;
}

/**
 * Run `body` with the output: stdout, or FILE through an atomic Vfs writer (committed at the
 * end). As GNU's check_output, FILE is opened (created, not truncated) before `body` reads any
 * input: one that cannot be opened is the first error, and a failed read leaves FILE as it
 * was, or empty if it was new.
 */
async function withOutput(ctx: CommandContext, outfile: string | null, body: (out: OutBuffer) => Promise<number>): Promise<number> {
  if (outfile === null) {
    const out = new OutBuffer(ctx.stdout);
    const status = await body(out);
    await out.flush();
    return status;
  }
  const existed = ctx.fs.exists(outfile, ctx.cwd);
  let writer;
  try {
    writer = ctx.fs.createWriter(outfile, ctx.cwd);
  } catch (e) {
    if (e instanceof VfsError) throw new FatalError(`open failed: ${quoteNameColon(outfile)}: ${e.reason}`);
    throw e;
  }
  const w = writer;
  const sink: Output = { write: (d) => w.write(toBytes(d)), get bytes() { return w.bytesWritten; } };
  try {
    const out = new OutBuffer(sink, 256 * 1024);
    const status = await body(out);
    await out.flush();
    w.commit();
    return status;
  } catch (e) {
    if (e instanceof FatalError && !existed && w.bytesWritten === 0) w.commit();
    else w.abort();
    if (e instanceof VfsError) throw new FatalError(`write failed: ${quoteNameColon(outfile)}: ${e.reason}`);
    throw e;
  }
}

type Compare = ReturnType<typeof makeComparator>['compare'];

async function checkSorted(ctx: CommandContext, file: string, cfg: Config, compare: Compare, eol: number, diagnose: boolean): Promise<number> {
  let prev: Buffer | null = null;
  let n = 0;
  const nonunique = cfg.unique ? 0 : 1;
  try {
    for await (const batch of recordBatches(openInput(ctx, file), eol)) for (const line of batch) {
      n++;
      if (prev && nonunique <= compare(prev, 0, prev.length, line, 0, line.length)) {
        if (diagnose) {
          await ctx.stderr.write(Buffer.concat([Buffer.from(`sort: ${file}:${n}: disorder: `), line, Buffer.from([eol])]));
        }
        return 1;
      }
      prev = line;
    }
  } catch (e) {
    if (e instanceof VfsError) throw new FatalError(`read failed: ${quoteNameColon(file)}: ${e.reason}`);
    throw e;
  }
  return 0;
}

/** sort -m: a streaming k-way merge; equal lines come from the earlier file first. */
async function mergeFiles(ctx: CommandContext, files: string[], cfg: Config, compare: Compare, eol: number, out: OutBuffer): Promise<number> {
  interface Src { name: string; it: AsyncIterator<Buffer>; line: Buffer | null }
  const srcs: Src[] = [];
  const advance = async (s: Src) => {
    try {
      const r = await s.it.next();
      s.line = r.done ? null : r.value;
    } catch (e) {
      if (e instanceof VfsError) throw new FatalError(`read failed: ${quoteNameColon(s.name)}: ${e.reason}`);
      throw e;
    }
  };
  for (const f of files) {
    const s: Src = { name: f, it: records(openInput(ctx, f), eol)[Symbol.asyncIterator](), line: null };
    await advance(s);
    if (s.line) srcs.push(s);
  }
  const nl = Buffer.from([eol]);
  let saved: Buffer | null = null;
  while (srcs.length) {
    let best = 0;
    for (let i = 1; i < srcs.length; i++) {
      const a = srcs[i]!.line!;
      const b = srcs[best]!.line!;
      if (compare(a, 0, a.length, b, 0, b.length) < 0) best = i;
    }
    const s = srcs[best]!;
    const line = s.line!;
    if (!cfg.unique || !saved || compare(saved, 0, saved.length, line, 0, line.length) !== 0) {
      if (out.add(line)) await out.flush();
      if (out.add(nl)) await out.flush();
      saved = line;
    }
    await advance(s);
    if (!s.line) srcs.splice(best, 1);
  }
  return 0;
}
