/**
 * md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum, b2sum and cksum: one module
 * (coreutils builds them all from digest.c). Digests come from node:crypto, fed chunk by
 * chunk (a file is never held whole); -c reads the checksum file line by line through the
 * Vfs. Names are handled as byte strings (latin1) so the output has the name's exact bytes.
 */
import { createHash, type Hash } from 'node:crypto';
import { VfsError } from '../vfs/index.js';
import { quoteNameColon, quoteAlways } from './quote.js';
import { UsageError } from '../command/options.js';
import { bsdSum, crcSum, formatOldSum, sysvSum, type OldSum } from './sums.js';
import type { CommandContext, CommandDef, FlagSpec } from '../command/types.js';

export type Algo = 'bsd' | 'sysv' | 'crc' | 'md5' | 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512' | 'blake2b' | 'sm3';

const ALGOS: Algo[] = ['bsd', 'sysv', 'crc', 'md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'blake2b', 'sm3'];
const TAGS: Record<Algo, string> = {
  bsd: 'BSD', sysv: 'SYSV', crc: 'CRC', md5: 'MD5', sha1: 'SHA1', sha224: 'SHA224', sha256: 'SHA256',
  sha384: 'SHA384', sha512: 'SHA512', blake2b: 'BLAKE2b', sm3: 'SM3',
};
const BITS: Record<Algo, number> = {
  bsd: 16, sysv: 16, crc: 32, md5: 128, sha1: 160, sha224: 224, sha256: 256, sha384: 384, sha512: 512, blake2b: 512, sm3: 256,
};
const NODE_HASH: Partial<Record<Algo, string>> = {
  md5: 'md5', sha1: 'sha1', sha224: 'sha224', sha256: 'sha256', sha384: 'sha384', sha512: 'sha512', blake2b: 'blake2b512', sm3: 'sm3',
};
const REFERENCE: Partial<Record<Algo, string>> = {
  md5: 'RFC 1321', sha1: 'FIPS-180-1', sha224: 'RFC 3874', sha256: 'FIPS-180-2', sha384: 'FIPS-180-2', sha512: 'FIPS-180-2', blake2b: 'RFC 7693',
};

/** The byte string (one char per byte) of a JS string, and back. */
export const bytesOf = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');
const nameOf = (b: string): string => Buffer.from(b, 'latin1').toString('utf8');
const out = (s: string): Buffer => Buffer.from(s, 'latin1');

const problematic = (name: string): boolean => /[\\\n\r]/.test(name);
const escapeName = (name: string): string => name.replace(/[\\\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : '\\r'));

function checkFlags(cksum: boolean): FlagSpec[] {
  return [
    { key: 'c', short: 'c', long: 'check', help: 'read checksums from the FILEs and check them' },
    { key: 'ignore-missing', long: 'ignore-missing', help: "don't fail or report status for missing files" },
    { key: 'mode', long: 'quiet', value: 'quiet', help: "don't print OK for each successfully verified file" },
    { key: 'mode', long: 'status', value: 'status', help: "don't output anything, status code shows success" },
    { key: 'mode', short: 'w', long: 'warn', value: 'warn', help: 'warn about improperly formatted checksum lines' },
    { key: 'strict', long: 'strict', help: 'exit non-zero for improperly formatted checksum lines' },
    { key: 'tag', long: 'tag', value: 'tag', help: cksum ? 'create a BSD-style checksum (the default)' : 'create a BSD-style checksum' },
    { key: 'z', short: 'z', long: 'zero', help: 'end each output line with NUL, not newline, and disable file name escaping' },
  ];
}

/** The declaration of one of the digest commands: `algo` fixed, or 'cksum' (-a, default CRC). */
export function digestCommand(name: string, fixed: Algo | 'cksum'): CommandDef {
  const cksum = fixed === 'cksum';
  const b2 = fixed === 'blake2b';
  const flags: FlagSpec[] = [];
  if (b2 || cksum) flags.push({ key: 'l', short: 'l', long: 'length', kind: 'string', arg: 'BITS', help: 'digest length in bits; must not exceed the max for the blake2 algorithm and must be a multiple of 8 (nosh: 512 only)' });
  flags.push(...checkFlags(cksum));
  if (cksum) {
    flags.push(
      { key: 'a', short: 'a', long: 'algorithm', kind: 'string', arg: 'TYPE', help: `select the digest type to use: ${ALGOS.join(', ')}` },
      // GNU cksum 9.1's getopt knows -b and -t and then prints only the "Try" line; nosh
      // names the invalid option instead (same exit status).
      { key: 'tag', long: 'untagged', value: 'untagged', help: 'create a reversed style checksum, without digest type' },
    );
  } else {
    flags.push(
      { key: 'mode-bin', short: 'b', long: 'binary', value: 'b', help: 'read in binary mode' },
      { key: 'mode-bin', short: 't', long: 'text', value: 't', help: 'read in text mode (default)' },
    );
  }
  const summary = cksum
    ? 'Print or verify checksums. By default use the 32 bit CRC algorithm. With no FILE, or when FILE is -, read standard input.'
    : `Print or check ${TAGS[fixed]} (${BITS[fixed]}-bit) checksums. With no FILE, or when FILE is -, read standard input. The sums are computed as described in ${REFERENCE[fixed]}.`;
  return {
    name,
    summary,
    usage: '[FILE]...',
    mutates: false,
    usageStatus: 1,
    flags,
    run: (ctx) => runDigest(ctx, fixed),
  };
}

interface State {
  ctx: CommandContext;
  algo: Algo;
  cksum: boolean;
  /** Digest length in bits (blake2b's -l; the algorithm's size otherwise). */
  bits: number;
  algoGiven: boolean;
  mode: 'normal' | 'quiet' | 'status' | 'warn';
  strict: boolean;
  ignoreMissing: boolean;
  /** The "bsd reversed" format seen in -c input: -1 unknown, 0 no, 1 yes (kept across files, as GNU's static). */
  bsdReversed: number;
}

async function runDigest(ctx: CommandContext, fixed: Algo | 'cksum'): Promise<number> {
  const cksum = fixed === 'cksum';
  const o = ctx.opts;
  let algo: Algo = cksum ? 'crc' : fixed;
  const a = o.get('a');
  if (a !== undefined) {
    if (!ALGOS.includes(a as Algo)) {
      throw new UsageError(`invalid argument ${quoteAlways(a)} for '--algorithm'\nValid arguments are:\n${ALGOS.map((x) => `  - '${x}'`).join('\n')}`);
    }
    algo = a as Algo;
  }
  let bits = 0;
  const lText = o.get('l');
  if (lText !== undefined) {
    const n = /^\s*\+?\d+$/.test(lText) ? Number(lText.trim()) : NaN;
    if (!Number.isSafeInteger(n)) {
      await ctx.warn(`invalid length: ${quoteAlways(lText)}`);
      return 1;
    }
    bits = n;
    if (cksum && bits !== 0 && algo !== 'blake2b') {
      await ctx.warn('--length is only supported with --algorithm=blake2b');
      return 1;
    }
    if (bits > 512) {
      await ctx.warn(`invalid length: ${quoteAlways(lText)}\n${ctx.name}: maximum digest length for 'BLAKE2b' is 512 bits`);
      return 1;
    }
    if (bits % 8 !== 0) {
      await ctx.warn(`invalid length: ${quoteAlways(lText)}\n${ctx.name}: length is not a multiple of 8`);
      return 1;
    }
  }
  if (bits === 0) bits = BITS[algo];
  if (bits !== 512 && algo === 'blake2b') refuseLength(bits);
  const check = o.has('c');
  if (cksum && check && a !== undefined && (algo === 'bsd' || algo === 'sysv' || algo === 'crc')) {
    await ctx.warn('--check is not supported with --algorithm={bsd,sysv,crc}');
    return 1;
  }
  // --tag sets binary mode, --untagged (cksum) undoes that; -b/-t after them win.
  let binary = -1;
  let tag = -1;
  for (const x of o.order) {
    if (x.key === 'tag') {
      if (x.value === 'tag') {
        tag = 1;
        binary = 1;
      } else {
        if (tag === 1) binary = -1;
        tag = 0;
      }
    } else if (x.key === 'mode-bin') binary = x.value === 'b' ? 1 : 0;
  }
  if (tag === -1) tag = cksum ? 1 : 0;
  if (tag && !binary) throw new UsageError('--tag does not support --text mode');
  const zero = o.has('z');
  if (zero && check) throw new UsageError('the --zero option is not supported when verifying checksums');
  if (!cksum && tag && check) throw new UsageError('the --tag option is meaningless when verifying checksums');
  if (binary >= 0 && check) throw new UsageError('the --binary and --text options are meaningless when verifying checksums');
  const mode = (o.get('mode') ?? 'normal') as State['mode'];
  if (o.has('ignore-missing') && !check) throw new UsageError('the --ignore-missing option is meaningful only when verifying checksums');
  if (mode === 'status' && !check) throw new UsageError('the --status option is meaningful only when verifying checksums');
  if (mode === 'warn' && !check) throw new UsageError('the --warn option is meaningful only when verifying checksums');
  if (mode === 'quiet' && !check) throw new UsageError('the --quiet option is meaningful only when verifying checksums');
  if (o.has('strict') && !check) throw new UsageError('the --strict option is meaningful only when verifying checksums');
  if (binary < 0) binary = 0;

  const st: State = { ctx, algo, cksum, bits, algoGiven: a !== undefined, mode, strict: o.has('strict'), ignoreMissing: o.has('ignore-missing'), bsdReversed: -1 };
  const operands = ctx.operands.length > 0 ? ctx.operands : ['-'];
  const named = ctx.operands.length > 0;
  const delim = zero ? '\0' : '\n';
  let ok = true;
  for (const operand of operands) {
    if (check) {
      ok = (await checkFile(st, operand)) && ok;
      continue;
    }
    const r = await digestFile(st, algo, bits, operand);
    if (r === undefined || r === 'missing') {
      ok = false;
      continue;
    }
    const name = bytesOf(operand);
    let line: string;
    if (typeof r === 'object' && 'value' in r) {
      line = formatOldSum(algo as 'crc' | 'bsd' | 'sysv', r, named ? name : undefined);
    } else {
      const escape = !zero && problematic(name);
      const shown = escape ? escapeName(name) : name;
      const hex = r.toString('hex');
      if (tag) line = `${escape ? '\\' : ''}${TAGS[algo]}${algo === 'blake2b' && bits < 512 ? `-${bits}` : ''} (${shown}) = ${hex}`;
      else line = `${escape ? '\\' : ''}${hex} ${binary ? '*' : ' '}${shown}`;
    }
    await ctx.stdout.write(out(line + delim));
  }
  return ok ? 0 : 1;
}

function refuseLength(bits: number): never {
  throw new UsageError(`invalid length: '${bits}': nosh computes BLAKE2b with node:crypto, which gives the 512-bit digest only\n(use -l 512 or leave -l out)`);
}

/** The digest (or the old sum) of one input; undefined after reporting an error; 'missing' with --ignore-missing. */
async function digestFile(st: State, algo: Algo, bits: number, operand: string): Promise<Buffer | { value: number; length: number } | 'missing' | undefined> {
  const { ctx } = st;
  let hash: Hash | undefined;
  let old: OldSum | undefined;
  if (algo === 'crc') old = crcSum();
  else if (algo === 'bsd') old = bsdSum();
  else if (algo === 'sysv') old = sysvSum();
  else {
    if (bits !== 512 && algo === 'blake2b') refuseLength(bits);
    hash = createHash(NODE_HASH[algo]!);
  }
  try {
    const update = (chunk: Uint8Array) => (hash ? hash.update(chunk) : old!.update(chunk));
    if (operand === '-') for await (const chunk of ctx.stdin as AsyncIterable<Uint8Array>) update(chunk);
    // a file: 1 MiB reads into one buffer, hashed before the next read (no new memory per read)
    else for (const chunk of ctx.fs.readChunks(operand, ctx.cwd, 1024 * 1024, true)) update(chunk);
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    if (st.ignoreMissing && e.errno === 'ENOENT') return 'missing';
    // cksum 9.1's CRC reader stops at the read error of a directory unnoticed: the CRC of nothing.
    if (algo === 'crc' && e.errno === 'EISDIR') return crcSum().finish();
    await ctx.warn(`${quoteNameColon(operand)}: ${e.reason}`);
    return undefined;
  }
  return hash ? hash.digest() : old!.finish();
}

/** Lines of an input, split at '\n' (kept), as byte strings; the last may lack it. */
async function* lines(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<string> {
  let carry = '';
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    const text = carry + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      yield text.slice(start, nl + 1);
      start = nl + 1;
    }
    carry = text.slice(start);
  }
  if (carry !== '') yield carry;
}

const isWhite = (c: string | undefined) => c === ' ' || c === '\t';
const HEX = /^[0-9a-fA-F]*$/;

/** 's/\\n/\n/g; s/\\r/\r/g; s/\\\\/\\/g', or undefined when another escape or a trailing backslash is in it. */
function unescapeName(s: string): string | undefined {
  let r = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\0') return undefined;
    if (c !== '\\') {
      r += c;
      continue;
    }
    const d = s[++i];
    if (d === 'n') r += '\n';
    else if (d === 'r') r += '\r';
    else if (d === '\\') r += '\\';
    else return undefined;
  }
  return r;
}

/** Base-0 strtoumax as xstrtoumax without suffixes: the value and where the digits end. */
function parseLength(s: string, at: number): { value: number; end: number } | undefined {
  const m = /^[ \t\n\v\f\r]*(\+?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(s.slice(at));
  if (!m) return undefined;
  const digits = m[2]!;
  const value = /^0[xX]/.test(digits) ? parseInt(digits.slice(2), 16) : digits.length > 1 && digits[0] === '0' ? parseInt(digits, 8) : Number(digits);
  return { value, end: at + m[0].length };
}

interface Parsed { digest: string; binary: boolean; name: string; bits: number; algo: Algo }

/** GNU's split_3: one checksum line (no newline) in the tagged, untagged or "bsd reversed" form. */
function splitLine(st: State, s: string): Parsed | undefined {
  let i = 0;
  while (isWhite(s[i])) i++;
  let escaped = false;
  if (s[i] === '\\') {
    i++;
    escaped = true;
  }
  let algo = st.algo;
  let bits = st.bits;
  const b2ish = st.cksum || algo === 'blake2b';
  if (st.cksum && !st.algoGiven) {
    // Without -a only the tagged format is read, and its tag picks the algorithm.
    let j = i;
    while (j - i <= 7 && s[j] !== undefined && !isWhite(s[j]) && s[j] !== '-' && s[j] !== '(') j++;
    if (j - i > 7) return undefined;
    const found = ALGOS.find((x) => TAGS[x] === s.slice(i, j));
    if (found === undefined || found === 'bsd' || found === 'sysv' || found === 'crc') return undefined;
    algo = found;
    st.algo = found;
  }
  const tag = TAGS[algo];
  if (s.startsWith(tag, i)) {
    i += tag.length;
    if (b2ish) {
      const lengthGiven = s[i] === '-';
      const openssl = s[i] === '(';
      i++;
      if (openssl) i--;
      bits = BITS[algo];
      if (lengthGiven) {
        const p = parseLength(s, i);
        if (!p || !(p.value > 0 && p.value <= bits && p.value % 8 === 0)) return undefined;
        i = p.end;
        bits = p.value;
      }
    }
    if (s[i] === ' ') i++;
    if (s[i] !== '(') return undefined;
    return splitTagged(s.slice(i + 1), escaped, bits, algo);
  }
  const minLength = b2ish ? 3 : BITS[algo] / 4 + 2;
  if (s.length - i < minLength + (s[i] === '\\' ? 1 : 0)) return undefined;
  const start = i;
  if (algo === 'blake2b') {
    let n = 0;
    while (/[0-9a-fA-F]/.test(s[i + n] ?? '')) n++;
    if (n < 2 || n % 2 || n > 128) return undefined;
    bits = n * 4;
  }
  while (i < s.length && s[i] !== '\0' && !isWhite(s[i])) i++;
  if (i === s.length) return undefined;
  const digest = s.slice(start, i);
  i++;
  if (digest.length !== bits / 4 || !HEX.test(digest)) return undefined;
  let binary = false;
  if (s.length - i === 1 || (s[i] !== ' ' && s[i] !== '*')) {
    if (st.bsdReversed === 0) return undefined;
    st.bsdReversed = 1;
  } else if (st.bsdReversed !== 1) {
    st.bsdReversed = 0;
    binary = s[i++] === '*';
  }
  let name: string | undefined = s.slice(i);
  if (escaped) name = unescapeName(name);
  if (name === undefined) return undefined;
  return { digest, binary, name, bits, algo };
}

/** GNU's bsd_split_3: "NAME) = DIGEST" after "TAG (". */
function splitTagged(s: string, escaped: boolean, bits: number, algo: Algo): Parsed | undefined {
  if (s.length === 0) return undefined;
  let i = s.length - 1;
  while (i && s[i] !== ')') i--;
  if (s[i] !== ')') return undefined;
  let name: string | undefined = s.slice(0, i);
  if (escaped) name = unescapeName(name);
  if (name === undefined) return undefined;
  i++;
  while (isWhite(s[i])) i++;
  if (s[i] !== '=') return undefined;
  i++;
  while (isWhite(s[i])) i++;
  const digest = s.slice(i);
  if (digest.length !== bits / 4 || !HEX.test(digest)) return undefined;
  return { digest, binary: false, name, bits, algo };
}

/** -c on one checksum file: GNU's digest_check, its messages and its result. */
async function checkFile(st: State, operand: string): Promise<boolean> {
  const { ctx } = st;
  const isStdin = operand === '-';
  const shownName = isStdin ? 'standard input' : operand;
  let misformatted = 0;
  let mismatched = 0;
  let unreadable = 0;
  let properlyFormatted = false;
  let matched = false;
  let lineNo = 0;
  const status = st.mode === 'status';
  try {
    const source = isStdin ? ctx.stdin : ctx.fs.readChunks(operand, ctx.cwd);
    for await (const raw of lines(source)) {
      lineNo++;
      if (raw[0] === '#') continue;
      let line = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') continue;
      // C strings: the line ends at its first NUL.
      const nul = line.indexOf('\0');
      const p = splitLine(st, nul >= 0 ? line.slice(0, nul) : line);
      if (!p || (isStdin && p.name === '-')) {
        misformatted++;
        if (st.mode === 'warn') {
          await ctx.warn(`${quoteNameColon(shownName)}: ${lineNo}: improperly formatted ${TAGS[st.algo]} checksum line`);
        }
        continue;
      }
      properlyFormatted = true;
      // 9.1 escapes a name here only when it holds a newline (the sums themselves: \\, \n, \r).
      const escape = !status && p.name.includes('\n');
      const shown = (escape ? '\\' + escapeName(p.name) : p.name);
      const r = await digestFile(st, p.algo, p.bits, p.name === '-' ? '-' : nameOf(p.name));
      if (r === undefined) {
        unreadable++;
        if (!status) await ctx.stdout.write(out(`${shown}: FAILED open or read\n`));
        continue;
      }
      if (r === 'missing') continue;
      const match = Buffer.isBuffer(r) && r.toString('hex') === p.digest.toLowerCase();
      if (match) matched = true;
      else mismatched++;
      if (!status) {
        if (!match) await ctx.stdout.write(out(`${shown}: FAILED\n`));
        else if (st.mode !== 'quiet') await ctx.stdout.write(out(`${shown}: OK\n`));
      }
    }
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    if (lineNo === 0 && e.errno !== 'EISDIR') await ctx.warn(`${quoteNameColon(operand)}: ${e.reason}`);
    else await ctx.warn(`${quoteNameColon(shownName)}: read error`);
    return false;
  }
  if (!properlyFormatted) {
    await ctx.warn(`${quoteNameColon(shownName)}: no properly formatted checksum lines found`);
  } else if (!status) {
    const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);
    if (misformatted) await ctx.warn(`WARNING: ${misformatted} ${plural(misformatted, 'line is', 'lines are')} improperly formatted`);
    if (unreadable) await ctx.warn(`WARNING: ${unreadable} listed ${plural(unreadable, 'file', 'files')} could not be read`);
    if (mismatched) await ctx.warn(`WARNING: ${mismatched} computed ${plural(mismatched, 'checksum', 'checksums')} did NOT match`);
    if (st.ignoreMissing && !matched) await ctx.warn(`${quoteNameColon(shownName)}: no file was verified`);
  }
  return properlyFormatted && matched && mismatched === 0 && unreadable === 0 && (!st.strict || misformatted === 0);
}
