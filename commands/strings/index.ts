// strings (GNU binutils 2.40): the runs of printable characters in files, streamed.
import { defineCommand, helpText, versionText, type CommandContext } from '../../src/command/index.js';
import { VfsError, type RandomReader } from '../../src/vfs/index.js';
import { Fatal, USAGE, Usage, parseStrings, type StringsOptions } from './options.js';

const CHUNK = 256 * 1024;
const FLUSH_AT = 64 * 1024;

const def = defineCommand({
  name: 'strings',
  summary: 'Display printable strings in FILEs (standard input when none is given): runs of at least 4 (-n) printable characters, each on its own line.',
  usage: '[FILE]...',
  mutates: false,
  parse: 'raw',
  usageStatus: 1,
  reference: 'GNU strings (GNU Binutils for Debian) 2.40',
  flags: [
    { key: 'a', short: 'a', long: 'all', help: 'scan the entire file (the default; so does `-` alone)' },
    { key: 'n', long: 'bytes', kind: 'string', arg: 'NUMBER', help: 'same as -n' },
    { key: 'd', short: 'd', long: 'data', help: 'only the data sections of object files: nosh scans the whole file' },
    { key: 'e', short: 'e', long: 'encoding', kind: 'string', arg: '{s,S,b,l,B,L}', help: 'character size and endianness: s = 7-bit, S = 8-bit, b/l = 16-bit, B/L = 32-bit big/little endian' },
    { key: 'help', short: 'h', long: 'help', help: 'display this help and exit' },
    { key: 'help', short: 'H', help: 'same as -h' },
    { key: 'w', short: 'w', long: 'include-all-whitespace', help: 'include all whitespace as valid string characters' },
    { key: 's', short: 's', long: 'output-separator', kind: 'string', arg: 'STRING', help: 'string used to separate strings in output (default: a newline)' },
    { key: 'f', short: 'f', long: 'print-file-name', help: 'print the name of the file before each string' },
    { key: 't', short: 't', long: 'radix', kind: 'string', arg: '{o,d,x}', help: 'print the offset of each string in base 8, 10 or 16' },
    { key: 'T', short: 'T', long: 'target', kind: 'string', arg: 'BFDNAME', help: 'binary file format (ignored: only used with -d)' },
    { key: 'U', short: 'U', long: 'unicode', kind: 'string', arg: 'default', help: 'how to treat UTF-8 characters: only the default is offered' },
    { key: 'version', short: 'v', long: 'version', help: 'output version information and exit' },
    { key: 'version', short: 'V', help: 'same as -v' },
    { key: 'n', short: 'n', kind: 'string', arg: 'NUMBER', help: 'print sequences of at least NUMBER characters (default 4); -NUMBER is the same' },
    { key: 'o', short: 'o', help: 'same as --radix=o' },
  ],
  notes: '`-` alone selects -a; it never means standard input. Response files (@FILE) are not read.',
  async run(ctx) {
    let o: StringsOptions;
    try {
      o = parseStrings(def, ctx.name, ctx.args);
    } catch (e) {
      if (e instanceof Usage) {
        await ctx.stderr.write((e.message ? `strings: ${e.message}\n` : '') + USAGE);
        return 1;
      }
      if (e instanceof Fatal) {
        await ctx.stderr.write(`strings: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
    if (o.info) {
      await ctx.stdout.write(o.info === 'help' ? helpText(def) : versionText(def));
      return 0;
    }
    if (o.operands.length === 0) {
      await scan(ctx, o, '{standard input}', stdinChunks(ctx));
      return 0;
    }
    let status = 0;
    let given = false;
    for (const name of o.operands) {
      if (name === '-') continue;
      given = true;
      if (!(await stringsFile(ctx, o, name))) status = 1;
    }
    if (!given) {
      await ctx.stderr.write(USAGE);
      return 1;
    }
    return status;
  },
});
export default def;

async function* stdinChunks(ctx: CommandContext): AsyncGenerator<Uint8Array> {
  for await (const c of ctx.stdin) yield c;
}

function* fileChunks(r: RandomReader): Generator<Uint8Array> {
  let pos = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(CHUNK);
    const got = r.readAt(buf, pos);
    if (got === 0) return;
    pos += got;
    yield buf.subarray(0, got);
  }
}

/** strings_file(): stat first (its messages), then the whole file. */
async function stringsFile(ctx: CommandContext, o: StringsOptions, name: string): Promise<boolean> {
  let isDir: boolean;
  try {
    isDir = ctx.fs.stat(name, ctx.cwd).isDirectory();
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    await ctx.stderr.write(e.errno === 'ENOENT' ? `strings: '${name}': No such file\n` : `strings: Warning: could not locate '${name}'.  reason: ${e.reason}\n`);
    return false;
  }
  if (isDir) {
    await ctx.stderr.write(`strings: Warning: '${name}' is a directory\n`);
    return false;
  }
  let r: RandomReader;
  try {
    r = ctx.fs.openRandom(name, ctx.cwd);
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    await ctx.stderr.write(`strings: ${name}: ${e.reason}\n`);
    return false;
  }
  try {
    await scan(ctx, o, name, fileChunks(r));
  } catch (e) {
    if (!(e instanceof VfsError)) throw e;
    await ctx.stderr.write(`strings: ${name}: ${e.reason}\n`);
    return false;
  } finally {
    r.close();
  }
  return true;
}

/** STRING_ISGRAPHIC for a character value (a byte, or a 16/32-bit unit). */
function graphicTable(o: StringsOptions): Uint8Array {
  const t = new Uint8Array(256);
  for (let c = 0; c < 256; c++) {
    const space = c === 32 || (c >= 9 && c <= 13);
    t[c] = c === 9 || (c >= 32 && c < 127) || (o.encoding === 'S' && c > 127) || (o.whitespace && space) ? 1 : 0;
  }
  return t;
}

/**
 * print_strings(): a run of at least `min` graphic characters is printed (with the file name
 * and offset asked for) then the separator. Characters are bytes, or 2/4-byte units read big
 * or little endian whose value must be below 256 (the low byte is printed).
 */
async function scan(ctx: CommandContext, o: StringsOptions, name: string, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
  const graphic = graphicTable(o);
  const width = o.encoding === 'b' || o.encoding === 'l' ? 2 : o.encoding === 'B' || o.encoding === 'L' ? 4 : 1;
  const little = o.encoding === 'l' || o.encoding === 'L';
  const sep = Buffer.from(o.separator ?? '\n', 'latin1');
  const prefixName = o.fileNames ? Buffer.from(`${name}: `, 'latin1') : null;
  const min = o.min;

  let out: Uint8Array[] = [];
  let outLen = 0;
  const put = (b: Uint8Array) => {
    out.push(b);
    outLen += b.length;
  };
  const flush = async () => {
    if (outLen === 0) return;
    const b = out.length === 1 ? out[0]! : Buffer.concat(out, outLen);
    out = [];
    outLen = 0;
    await ctx.stdout.write(b);
  };
  // State: `run` characters seen in the current graphic run, starting at offset `start`;
  // below `min` they wait in `pending`; at `min` the header and them are printed.
  let address = 0;
  let start = 0;
  let run = 0;
  let pending: Uint8Array[] = [];
  const header = () => {
    if (prefixName) put(prefixName);
    if (o.radix) put(Buffer.from(start.toString(o.radix).padStart(7) + ' ', 'latin1'));
    for (const p of pending) put(p);
    pending = [];
  };
  const endRun = () => {
    if (run >= min) put(sep);
    else pending = [];
    run = 0;
  };

  if (width === 1) {
    for await (const chunk of chunks) {
      let i = 0;
      const n = chunk.length;
      while (i < n) {
        if (run === 0) {
          while (i < n && !graphic[chunk[i]!]) i++;
          start = address + i;
          if (i === n) break;
        }
        let j = i;
        while (j < n && graphic[chunk[j]!]) j++;
        const seg = chunk.subarray(i, j);
        if (run >= min) put(seg);
        else pending.push(seg);
        const before = run;
        run += seg.length;
        if (before < min && run >= min) header();
        if (j < n) {
          endRun();
          j++;
        }
        i = j;
      }
      address += n;
      if (outLen >= FLUSH_AT) await flush();
    }
    if (run >= min) put(sep);
  } else {
    // A non-graphic unit is put back but for its first byte (binutils' unget_part_char):
    // the next unit is tried one byte further on, so runs are found at any alignment.
    let carry: Uint8Array = new Uint8Array(0);
    let line: number[] = [];
    for await (const chunk of chunks) {
      const buf = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
      const base = address - carry.length;
      let p = 0;
      for (; p + width <= buf.length;) {
        let c: number;
        if (width === 2) c = little ? buf[p]! | (buf[p + 1]! << 8) : (buf[p]! << 8) | buf[p + 1]!;
        else c = little ? (buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24)) >>> 0 : ((buf[p]! << 24) | (buf[p + 1]! << 16) | (buf[p + 2]! << 8) | buf[p + 3]!) >>> 0;
        if (c < 256 && graphic[c]) {
          if (run === 0) start = base + p;
          run++;
          line.push(c);
          if (run === min) {
            pending = [Uint8Array.from(line)];
            header();
            line = [];
          } else if (run > min && line.length >= 4096) {
            put(Uint8Array.from(line));
            line = [];
          }
          p += width;
        } else {
          if (run >= min) put(Uint8Array.from(line));
          line = [];
          endRun();
          p += 1;
        }
      }
      carry = buf.slice(p);
      address += chunk.length;
      if (outLen >= FLUSH_AT) await flush();
    }
    if (run >= min) {
      put(Uint8Array.from(line));
      put(sep);
    }
  }
  await flush();
}
