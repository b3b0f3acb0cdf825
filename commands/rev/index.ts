import { defineCommand } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { OutBuffer, recordSpans } from '../../src/gnulib/text-lines.js';

/**
 * util-linux rev 2.38.1 in the C locale: each line's characters reversed, streamed line by
 * line. Its quirks are kept: '-' is a file name like any other; a NUL ends what fgetws's
 * line holds (the rest of that line, newline included, is dropped, and the next line is
 * read onto it); a byte >= 0x80 is not a character in the C locale, so reading the line
 * that holds it fails: "rev: FILE: N: Invalid or incomplete multibyte or wide character"
 * (N: lines written from that file), exit 1, and rev goes on with the next file.
 */
export default defineCommand({
  name: 'rev',
  summary: 'Reverse lines characterwise.',
  usage: '[file ...]',
  mutates: false,
  usageStatus: 1,
  reference: 'util-linux 2.38.1',
  flags: [
    { key: 'help', short: 'h', help: 'display this help' },
    { key: 'version', short: 'V', help: 'display version' },
  ],
  async run(ctx) {
    const out = new OutBuffer(ctx.stdout);
    const nl = Buffer.from('\n');
    let status = 0;
    const names = ctx.operands.length ? ctx.operands : [null];
    for (const name of names) {
      let source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
      if (name === null) source = ctx.stdin;
      else {
        // (opened on the first read: an error before any chunk is fopen's, but a directory's is its read's)
        source = ctx.fs.readChunks(name, ctx.cwd);
      }
      let ended = false;
      let opened = false;
      let lastByte = -1;
      async function* watched(): AsyncGenerator<Uint8Array> {
        for await (const c of source as AsyncIterable<Uint8Array>) {
          opened = true;
          if (c.length) lastByte = c[c.length - 1]!;
          yield c;
        }
        ended = true;
      }
      let acc: Buffer[] = [];
      let lines = 0;
      let bad = false;
      const write = async (terminated: boolean) => {
        const line = Buffer.concat(acc);
        acc = [];
        line.reverse();
        if (out.add(line)) await out.flush();
        if (terminated && out.add(nl)) await out.flush();
        lines++;
      };
      try {
        outer: for await (const { buf, spans } of recordSpans(watched(), 0x0a)) {
          for (let k = 0; k < spans.length; k += 2) {
            const s = spans[k]!;
            const e = spans[k + 1]!;
            for (let i = s; i < e; i++) {
              if (buf[i]! >= 0x80) {
                if (acc.length) await write(false);
                bad = true;
                break outer;
              }
            }
            // The last record of the stream lacks its newline when the input does not end in one.
            const last = ended && k + 2 >= spans.length;
            let terminated = !(last && lastByte !== 0x0a);
            const nul = buf.indexOf(0, s);
            let end = e;
            if (nul >= 0 && nul < e) {
              end = nul;
              terminated = false;
            }
            acc.push(Buffer.from(buf.subarray(s, end)));
            if (terminated || last) await write(terminated);
          }
        }
        // A line cut at a NUL waits for the next one: at the end of input it is written as it is.
        if (!bad && acc.length) await write(false);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await out.flush();
        if (!opened && name !== null && e.errno !== 'EISDIR') await ctx.warn(`cannot open ${name}: ${e.reason}`);
        else await ctx.warn(`${name ?? 'stdin'}: ${lines}: ${e.reason}`);
        status = 1;
        continue;
      }
      if (bad) {
        await out.flush();
        await ctx.warn(`${name ?? 'stdin'}: ${lines}: Invalid or incomplete multibyte or wide character`);
        status = 1;
      }
    }
    await out.flush();
    return status;
  },
});
