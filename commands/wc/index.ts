import { defineCommand, UsageError, type CommandContext } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { quoteNameColon } from '../../src/gnulib/quote.js';
import { fileChunks, quoteAlways } from '../../src/gnulib/head-tail.js';
import { countByte, countByteRead } from '../../src/gnulib/count-byte.js';

interface Counts {
  lines: number;
  words: number;
  bytes: number;
  maxLine: number;
}

type Field = 'l' | 'w' | 'm' | 'c' | 'L';

export default defineCommand({
  name: 'wc',
  summary: 'Print newline, word, and byte counts for each FILE, and a total line if more than one FILE is specified. A word is a non-zero-length sequence of printable characters delimited by white space. With no FILE, or when FILE is -, read standard input. Counts are printed in the order: newline, word, character, byte, maximum line length.',
  usage: '[FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'c', short: 'c', long: 'bytes', help: 'print the byte counts' },
    { key: 'm', short: 'm', long: 'chars', help: 'print the character counts (bytes: nosh works in the C locale)' },
    { key: 'l', short: 'l', long: 'lines', help: 'print the newline counts' },
    { key: 'L', short: 'L', long: 'max-line-length', help: 'print the maximum display width' },
    { key: 'w', short: 'w', long: 'words', help: 'print the word counts' },
    { key: 'files0-from', long: 'files0-from', kind: 'string', arg: 'F', help: 'read input from the files specified by NUL-terminated names in file F; If F is - then read names from standard input' },
  ],
  async run(ctx) {
    let fields = (['l', 'w', 'm', 'c', 'L'] as Field[]).filter((f) => ctx.values[f] === true);
    if (fields.length === 0) fields = ['l', 'w', 'c'];
    const from = ctx.values['files0-from'];
    let operands: string[];
    let width: number;
    if (from !== undefined) {
      if (ctx.operands.length > 0) {
        throw new UsageError(`extra operand ${quoteAlways(ctx.operands[0]!)}\nfile operands cannot be combined with --files0-from`);
      }
      const names = await readNames(ctx, from);
      if (typeof names === 'string') {
        await ctx.warn(names);
        return 1;
      }
      operands = names.names;
      // GNU sizes the columns from the names only when it could read them all first.
      width = names.listed ? numberWidth(ctx, operands, fields.length) : 1;
    } else {
      operands = ctx.operands.length > 0 ? ctx.operands : ['-'];
      width = numberWidth(ctx, operands, fields.length);
    }
    const named = from !== undefined || ctx.operands.length > 0;
    const needScan = fields.includes('w') || fields.includes('L');
    const total: Counts = { lines: 0, words: 0, bytes: 0, maxLine: 0 };
    let status = 0;
    for (let k = 0; k < operands.length; k++) {
      const operand = operands[k]!;
      if (from === '-' && operand === '-') {
        await ctx.warn("when reading file names from stdin, no file name of '-' allowed");
        status = 1;
        continue;
      }
      if (operand === '') {
        await ctx.warn(from !== undefined ? `${quoteNameColon(from)}:${k + 1}: invalid zero-length file name` : 'invalid zero-length file name');
        status = 1;
        continue;
      }
      let counts: Counts;
      try {
        counts = await countOperand(ctx, operand, needScan, fields);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await ctx.warn(`${quoteNameColon(operand)}: ${e.reason}`);
        status = 1;
        // GNU opens a directory, fails to read it, and still prints its (zero) counts.
        if (e.errno !== 'EISDIR') continue;
        counts = { lines: 0, words: 0, bytes: 0, maxLine: 0 };
      }
      total.lines += counts.lines;
      total.words += counts.words;
      total.bytes += counts.bytes;
      total.maxLine = Math.max(total.maxLine, counts.maxLine);
      await ctx.stdout.write(formatLine(counts, fields, width, named ? operand : undefined));
    }
    if (operands.length > 1) await ctx.stdout.write(formatLine(total, fields, width, 'total'));
    return status;
  },
});

/**
 * The NUL-terminated names of --files0-from (the last one may be unterminated), or GNU's
 * fatal message. `listed`: F is a regular file GNU reads whole before counting (<= 10 MiB).
 */
async function readNames(ctx: CommandContext, from: string): Promise<{ names: string[]; listed: boolean } | string> {
  const parts: Buffer[] = [];
  let listed = false;
  try {
    if (from === '-') {
      for await (const c of ctx.stdin) parts.push(Buffer.from(c));
    } else {
      const reader = ctx.fs.openRandom(from, ctx.cwd);
      try {
        listed = reader.size <= 10 * 1024 * 1024;
        for (const c of fileChunks(reader, 0)) parts.push(Buffer.from(c));
      } finally {
        reader.close();
      }
    }
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    if (e.errno === 'EISDIR') return `${quoteNameColon(from)}: read error: ${e.reason}`;
    return `cannot open ${quoteAlways(from)} for reading: ${e.reason}`;
  }
  const names = Buffer.concat(parts).toString('utf8').split('\0');
  if (names[names.length - 1] === '') names.pop();
  return { names, listed };
}

function formatLine(c: Counts, fields: Field[], width: number, name: string | undefined): string {
  const value = (f: Field) => (f === 'l' ? c.lines : f === 'w' ? c.words : f === 'L' ? c.maxLine : c.bytes);
  let line = fields.map((f) => String(value(f)).padStart(width)).join(' ');
  if (name !== undefined) line += ' ' + (name.includes('\n') ? quoteNameColon(name) : name);
  return line + '\n';
}

/**
 * GNU's column width: one count of one input is unpadded; otherwise the digits of the sum
 * of the regular files' sizes, at least 7 when an input is not a regular file (stdin, a
 * directory). Inputs that cannot be stat'ed do not count.
 */
function numberWidth(ctx: CommandContext, operands: string[], nfields: number): number {
  if (operands.length === 1 && nfields === 1) return 1;
  let total = 0n;
  let minimum = 1;
  for (const op of operands) {
    if (op === '-') {
      minimum = 7;
      continue;
    }
    try {
      const st = ctx.fs.stat(op, ctx.cwd);
      if (st.isFile()) total += BigInt(st.size);
      else minimum = 7;
    } catch {
      /* not counted, as a failed stat in GNU */
    }
  }
  return Math.max(total.toString().length, minimum);
}

async function countOperand(ctx: CommandContext, operand: string, needScan: boolean, fields: Field[]): Promise<Counts> {
  if (operand === '-') return countStream(ctx.stdin, needScan);
  const reader = ctx.fs.openRandom(operand, ctx.cwd);
  try {
    if (fields.every((f) => f === 'c' || f === 'm')) {
      // Bytes only (characters are bytes in the C locale): the size, without reading.
      return { lines: 0, words: 0, bytes: reader.size, maxLine: 0 };
    }
    if (!needScan) {
      // Lines and bytes only: read straight into the newline counter's memory.
      let pos = 0;
      const { count, bytes } = countByteRead((into) => {
        const n = reader.readAt(into, pos, into.length);
        pos += n;
        return n;
      }, 0x0a);
      return { lines: count, words: 0, bytes, maxLine: 0 };
    }
    return await countStream(fileChunks(reader, 0), needScan);
  } finally {
    reader.close();
  }
}

async function countStream(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, needScan: boolean): Promise<Counts> {
  const c: Counts = { lines: 0, words: 0, bytes: 0, maxLine: 0 };
  if (!needScan) {
    // The fast path: newlines counted 16 bytes at a time.
    for await (const chunk of source as AsyncIterable<Uint8Array>) {
      c.bytes += chunk.length;
      c.lines += countByte(chunk, 0x0a);
    }
    return c;
  }
  const st = { inWord: false, linePos: 0 };
  for await (const chunk of source as AsyncIterable<Uint8Array>) scan(chunk, c, st);
  if (st.inWord) c.words++;
  if (st.linePos > c.maxLine) c.maxLine = st.linePos;
  return c;
}

// Byte classes in the C locale, as GNU wc's single-byte loop sees them.
const OTHER = 0, PRINT = 1, SPACE = 2, NEWLINE = 3, LINEBREAK = 4, TAB = 5, VTAB = 6;
const CLASS = new Uint8Array(256);
for (let b = 0x21; b < 0x7f; b++) CLASS[b] = PRINT;
CLASS[0x20] = SPACE;
CLASS[0x0a] = NEWLINE;
CLASS[0x0d] = LINEBREAK;
CLASS[0x0c] = LINEBREAK;
CLASS[0x09] = TAB;
CLASS[0x0b] = VTAB;

/** Words (printable runs between white space; other bytes neither start nor end a word) and display width. */
function scan(chunk: Uint8Array, c: Counts, st: { inWord: boolean; linePos: number }): void {
  let { inWord, linePos } = st;
  let { lines, words, maxLine } = c;
  for (let i = 0; i < chunk.length; i++) {
    switch (CLASS[chunk[i]!]) {
      case PRINT:
        linePos++;
        inWord = true;
        break;
      case OTHER:
        break;
      case SPACE:
        linePos++;
        if (inWord) words++;
        inWord = false;
        break;
      case NEWLINE:
        lines++;
        if (linePos > maxLine) maxLine = linePos;
        linePos = 0;
        if (inWord) words++;
        inWord = false;
        break;
      case LINEBREAK:
        if (linePos > maxLine) maxLine = linePos;
        linePos = 0;
        if (inWord) words++;
        inWord = false;
        break;
      case TAB:
        linePos += 8 - (linePos % 8);
        if (inWord) words++;
        inWord = false;
        break;
      case VTAB:
        if (inWord) words++;
        inWord = false;
        break;
    }
  }
  c.lines = lines;
  c.words = words;
  c.maxLine = maxLine;
  c.bytes += chunk.length;
  st.inWord = inWord;
  st.linePos = linePos;
}
