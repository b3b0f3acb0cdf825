/**
 * GNU sort's options that never change the output (-S, --parallel, --batch-size, -T), the
 * obsolete +POS1 [-POS2] keys (rewritten before getopt runs), and -R's keyed hash.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as os from 'node:os';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { FatalError } from '../../src/gnulib/text-lines.js';
import type { CommandContext, ObsoleteMatch } from '../../src/command/types.js';
import { VfsError } from '../../src/vfs/index.js';

// ---- xstrtoumax (gnulib) -----------------------------------------------------------------

const OK = 0;
const OVERFLOW = 1;
const INVALID_SUFFIX = 2;
const INVALID = 4;
const UINTMAX = (1n << 64n) - 1n;
const SPACE = ' \t\n\v\f\r';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

interface Strtol { err: number; val: bigint; end: number }

/** gnulib xstrtoumax in base 10: `end` is where the suffix pointer stops. */
function xstrtoumax(s: string, valid: string): Strtol {
  let q = 0;
  while (q < s.length && SPACE.includes(s[q]!)) q++;
  if (s[q] === '-') return { err: INVALID, val: 0n, end: 0 };
  let p = q;
  if (s[p] === '+') p++;
  const d0 = p;
  while (isDigit(s[p])) p++;
  let err = OK;
  let val: bigint;
  if (p === d0) {
    // No number: a valid suffix alone stands for 1 ("K" is 1024).
    p = 0;
    if (s[0] !== undefined && valid.includes(s[0])) val = 1n;
    else return { err: INVALID, val: 0n, end: 0 };
  } else {
    val = BigInt(s.slice(d0, p));
    if (val > UINTMAX) {
      err = OVERFLOW;
      val = UINTMAX;
    }
  }
  if (p >= s.length) return { err, val, end: p };
  const c = s[p]!;
  if (!valid.includes(c)) return { err: err | INVALID_SUFFIX, val, end: p };
  const power = ({ k: 1, K: 1, M: 2, m: 2, G: 3, g: 3, T: 4, t: 4, P: 5, E: 6, Z: 7, Y: 8 } as Record<string, number>)[c];
  if (power === undefined) return { err: err | INVALID_SUFFIX, val, end: p };
  const scaled = val * 1024n ** BigInt(power);
  if (scaled > UINTMAX) {
    err |= OVERFLOW;
    val = UINTMAX;
  } else val = scaled;
  p++;
  if (p < s.length) err |= INVALID_SUFFIX;
  return { err, val, end: p };
}

/** xstrtol_fatal's message; `flag` is `-S` or the full long name (`--buffer-size`). */
function xstrtolFatal(err: number, flag: string, arg: string): never {
  const q = gnuQuote(arg);
  if (err & INVALID_SUFFIX) throw new FatalError(`invalid suffix in ${flag} argument ${q}`);
  if (err & INVALID) throw new FatalError(`invalid ${flag} argument ${q}`);
  throw new FatalError(`${flag} argument ${q} too large`);
}

/** specify_sort_size: a number of KiB, or with a suffix b (bytes), % (of memory), K M G T P E Z Y. */
export function checkBufferSize(flag: string, s: string): void {
  let { err, val, end } = xstrtoumax(s, 'EgGkKmMPtTYZ');
  const afterDigit = end > 0 && isDigit(s[end - 1]);
  if (err === OK && afterDigit) {
    if (val <= UINTMAX / 1024n) val *= 1024n;
    else err = OVERFLOW;
  }
  if (err === INVALID_SUFFIX && afterDigit && end + 1 === s.length) {
    if (s[end] === 'b') err = OK;
    else if (s[end] === '%') err = (os.totalmem() * Number(val)) / 100 < 2 ** 64 ? OK : OVERFLOW;
  }
  if (err !== OK) xstrtolFatal(err, flag, s);
}

/** specify_nthreads: any count but 0 (a huge one is taken as the most there can be). */
export function checkParallel(s: string): void {
  const { err, val } = xstrtoumax(s, '');
  if (err === OVERFLOW) return;
  if (err !== OK) xstrtolFatal(err, '--parallel', s);
  if (val === 0n) throw new FatalError('number in parallel must be nonzero');
}

/**
 * The most files GNU merges at once is the open-file limit less 3; nosh opens no descriptors
 * per input, so it takes the usual soft limit of 1024 (documented in the README).
 */
export const MAX_NMERGE = 1021;

/** specify_nmerge: 2 to MAX_NMERGE. */
export function checkBatchSize(s: string): void {
  let { err, val } = xstrtoumax(s, '');
  if (err === OK) {
    if (val < 2n) {
      throw new FatalError(`invalid --batch-size argument ${gnuQuote(s)}\nsort: minimum --batch-size argument is ${gnuQuote('2')}`);
    }
    if (val > BigInt(MAX_NMERGE)) err = OVERFLOW;
    else return;
  }
  if (err === OVERFLOW) {
    throw new FatalError(`--batch-size argument ${gnuQuote(s)} too large\nsort: maximum --batch-size argument with current rlimit is ${MAX_NMERGE}`);
  }
  xstrtolFatal(err, '--batch-size', s);
}

// ---- obsolete keys ------------------------------------------------------------------------

/** A +POS1 [-POS2] pair rewritten for parseArgs: `--key=` MARK JSON [pos1, pos2 | null]. */
const MARK = '\0obsolete-key\0';
const POS1 = /^\+[ \t\n\v\f\r]*\+?[0-9]+(?:\.[ \t\n\v\f\r]*\+?[0-9]+)?[bdfgiMhnRrV]*$/;
const POS2 = /^-[0-9]+(?:\.[ \t\n\v\f\r]*\+?[0-9]+)?[bdfgiMhnRrV]*$/;

/**
 * GNU sort walks argv in order (getopt with a leading '-'): an operand +POS1 that reads as a
 * key (field[.char][opts]) is one, taking the next argument as its end when that is -DIGIT...;
 * any other +word is a file. Both become one -k item carrying the words (see obsoleteKey).
 */
export function obsoleteKeyOperand(args: readonly string[], at: number): ObsoleteMatch | null {
  const a = args[at]!;
  if (!POS1.test(a)) return null;
  const next = args[at + 1];
  const end = next !== undefined && next[0] === '-' && isDigit(next[1]) ? next : null;
  // GNU dies on a bad POS2 while walking argv: nothing after it is looked at.
  return { items: [{ flag: '-k', value: MARK + JSON.stringify([a, end]) }], words: end === null ? 1 : 2, stop: end !== null && !POS2.test(end) };
}

/** The words of an obsolete key, or null for a real -k value. */
export function obsoleteKey(value: string): [string, string | null] | null {
  return value.startsWith(MARK) ? (JSON.parse(value.slice(MARK.length)) as [string, string | null]) : null;
}

// ---- -R -----------------------------------------------------------------------------------

/**
 * random_md5_state_init: the salt is 16 bytes from --random-source FILE (read through the
 * Vfs; a shorter file is "end of file"), or from the system's random bytes.
 */
export function randomSalt(ctx: CommandContext, source: string | null): Buffer {
  const salt = Buffer.alloc(16);
  if (source === null) return randomBytes(16);
  let reader;
  try {
    reader = ctx.fs.openRandom(source, ctx.cwd);
  } catch (e) {
    if (e instanceof VfsError) {
      if (e.errno === 'EISDIR') throw new FatalError(`${gnuQuote(source)}: read error: ${e.reason}`);
      throw new FatalError(`open failed: ${quoteNameColon(source)}: ${e.reason}`);
    }
    throw e;
  }
  try {
    if (reader.readAt(salt, 0, 16) < 16) throw new FatalError(`${gnuQuote(source)}: end of file`);
  } finally {
    reader.close();
  }
  return salt;
}

/** MD5(salt || key): keys compare by these digests, then by their bytes (compare_random). */
export function randomDigest(salt: Buffer, key: Uint8Array): Buffer {
  return createHash('md5').update(salt).update(key).digest();
}

export function compareRandom(salt: Buffer, a: Uint8Array, b: Uint8Array): number {
  const diff = Buffer.compare(randomDigest(salt, a), randomDigest(salt, b));
  return diff || Buffer.compare(a, b);
}
