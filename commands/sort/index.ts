import { defineCommand, parseArgs, toBytes, type CommandContext, type CommandDef, type Output } from '../../src/command/index.js';
import { openInput } from '../../src/gnulib/helpers.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { copyLines, sortLineIndexes, sortLines, splitLines } from '../../src/gnulib/line-sort.js';
import { Helper, helperOn } from '../../src/gnulib/helper-thread.js';
import { isDefaultKey, keyOpts, newKey, parseKey, parseObsoleteKey, setOrdering, type Key } from './keys.js';
import { compareKey, isTextKey, keyBegin, keyLimit, makeComparator, numericKeys, prefixKeys, translated, type Config } from './compare.js';
import { argmatch, FatalError, OutBuffer, recordBatches, records } from '../../src/gnulib/text-lines.js';
import { VfsError } from '../../src/vfs/index.js';
import { noteBytes, valueLimit } from '../../src/runtime/memory.js';
import { checkBatchSize, checkBufferSize, checkParallel, obsoleteKey, randomDigest, randomSalt, obsoleteKeyOperand } from './options.js';

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
      return parseArgs(def, args).opts.has('o');
    } catch {
      return false;
    }
  },
  // +POS1 [-POS2] operands are keys, read where getopt meets them (see options.ts).
  obsoleteOperand: obsoleteKeyOperand,
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

  const cfg: Config = { keys, tab, reverse: gkey.reverse, stable: ctx.values.s === true, unique: ctx.values.u === true };
  const eol = ctx.values.z ? 0 : 0x0a;
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
  // One big file in plain byte order: half of its lines on the worker's helper thread,
  // started now so that it is up by the time the file is read. It holds the input and the
  // whole output at once (the one-thread path about the input only): up to a quarter of the
  // memory budget, so that a file the one-thread path sorts is never refused.
  const size = files.length === 1 && files[0] !== '-' ? fileSize(ctx, files[0]!) : 0;
  const helper = !ctx.values.m && keys.length === 0 && !cfg.reverse && !cfg.unique && helperOn()
    && size >= TWO_THREADS_BYTES && size <= valueLimit() ? Helper.get() : null;

  if (ctx.values.m) {
    return withOutput(ctx, outfile, async (out) => mergeFiles(ctx, files, cfg, compare, eol, out));
  }

  // GNU opens -o FILE before reading the inputs (see withOutput).
  return withOutput(ctx, outfile, async (out) => {
    if (helper && await sortOnTwoThreads(ctx, helper, files[0]!, eol, out)) return 0;
    // Read everything into one buffer; every line gets its terminator.
    const parts: Buffer[] = [];
    let total = 0;
    for (const f of files) {
      let last = -1;
      try {
        if (files.length === 1 && f !== '-') {
          // One file: read at once into one buffer of its size (chunks joined afterwards
          // were a second copy of every byte, 100 MB of fresh pages: 10 s of 37 in a profile
          // of three runs on a busy machine).
          const b = ctx.fs.readFile(f, ctx.cwd);
          noteBytes(b.length);
          if (b.length > 0) {
            parts.push(b);
            total += b.length;
            last = b[b.length - 1]!;
          }
        } else for await (const chunk of openInput(ctx, f) as AsyncIterable<Uint8Array>) {
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

    // Lines are copied into blocks of BLOCK bytes (a subarray per line cost more than the copy,
    // and joining them again copied every byte once more).
    const BLOCK = 1 << 20;
    let block = Buffer.allocUnsafe(BLOCK);
    let at = 0;
    let prev = -1;
    for (let n = 0; n < count; n++) {
      const i = order[n]!;
      if (cfg.unique && prev >= 0 && compare(data, starts[prev]!, endOf(prev), data, starts[i]!, endOf(i)) === 0) continue;
      prev = i;
      const s = starts[i]!;
      const e = starts[i + 1]!;
      if (at + e - s > BLOCK) {
        if (at > 0 && out.add(block.subarray(0, at))) await out.flush();
        block = Buffer.allocUnsafe(BLOCK);
        at = 0;
        if (e - s > BLOCK) {
          if (out.add(data.subarray(s, e))) await out.flush();
          continue;
        }
      }
      // Buffer#copy makes a typed-array view per call (3.5 s of 15 for 1.7 million lines):
      // lines up to a few hundred bytes are copied byte by byte.
      if (e - s > 256) at += data.copy(block, at, s, e);
      else for (let k = s; k < e; k++) block[at++] = data[k]!;
    }
    if (at > 0) out.add(block.subarray(0, at));
    return 0;
  });
}

/** From this size on, a plain sort of one file uses the helper thread. */
const TWO_THREADS_BYTES = 4 << 20;
/** How long to wait for the helper's half before doing it here, ms (a dead helper answers at once). */
const HELPER_SORT_MS = 300_000;

function fileSize(ctx: CommandContext, f: string): number {
  try {
    return ctx.fs.stat(f, ctx.cwd).size;
  } catch {
    return 0;
  }
}

/**
 * `sort FILE` in byte order on two threads (GNU sorts on two here too): the file is read into
 * shared memory and its lines split by their first two bytes into two sets of about equal
 * counts, every line of the first before every line of the second (splitLines); this thread
 * sorts the first and copies its lines into the shared output, the helper does the second
 * into the rest of it, so no merge is needed (a helper not up yet leaves both halves to this
 * thread). False (nothing written) where the file does not open as a regular file or is
 * empty: the one-thread path then reports what is wrong.
 */
async function sortOnTwoThreads(ctx: CommandContext, helper: Helper, f: string, eol: number, out: OutBuffer): Promise<boolean> {
  let data: Buffer;
  try {
    const r = ctx.fs.openRandom(f, ctx.cwd);
    try {
      noteBytes(r.size);
      const buf = Buffer.from(new SharedArrayBuffer(r.size + 1));
      const n = r.readAt(buf, 0, r.size);
      if (n === 0) return false;
      // Every line gets its terminator.
      data = buf[n - 1] === eol ? buf.subarray(0, n) : buf.subarray(0, n + 1);
      data[data.length - 1] = eol;
    } finally {
      r.close();
    }
  } catch {
    return false;
  }
  let count = 0;
  for (let p = data.indexOf(eol); p >= 0; p = data.indexOf(eol, p + 1)) count++;
  const starts = new Uint32Array(new SharedArrayBuffer(4 * (count + 1)));
  for (let i = 0, p = 0; i < count; i++) {
    starts[i] = p;
    p = data.indexOf(eol, p) + 1;
  }
  starts[count] = data.length;
  const order = new Uint32Array(new SharedArrayBuffer(4 * count));
  const { split, bytes } = splitLines(data, starts, count, order);
  const sorted = new Uint8Array(new SharedArrayBuffer(data.length));
  // A helper started by this command has had the time of the read to come up.
  const run = helper.ready() ? helper.sort({ data, starts, order, from: split, to: count, out: sorted, at: bytes }) : -1;
  copyLines(data, starts, sortLines(data, starts, order.subarray(0, split)), 0, split, sorted, 0);
  if (run < 0 || !helper.sorted(run, HELPER_SORT_MS)) {
    // The helper is not up, failed or hangs: its half is done here, from a copy of its line numbers.
    if (run >= 0) helper.abandon();
    const rest = order.slice(split, count);
    copyLines(data, starts, sortLines(data, starts, rest), 0, rest.length, sorted, bytes);
  }
  // Out in blocks of their own (shared memory is not for every consumer of the output).
  const BLOCK = 1 << 20;
  for (let at = 0; at < sorted.length; at += BLOCK) {
    const end = Math.min(sorted.length, at + BLOCK);
    const block = Buffer.allocUnsafe(end - at);
    block.set(sorted.subarray(at, end));
    if (out.add(block)) await out.flush();
  }
  return true;
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
