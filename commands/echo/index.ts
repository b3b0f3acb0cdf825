import { defineCommand, helpText } from '../../src/command/index.js';

const def = defineCommand({
  name: 'echo',
  summary: 'Echo the STRING(s) to standard output. Options are recognised only before the first STRING and only when made of the letters n, e, E (so `echo -x` prints -x). With -e: \\\\ backslash, \\a alert, \\b backspace, \\c produce no further output, \\e escape, \\f form feed, \\n new line, \\r carriage return, \\t tab, \\v vertical tab, \\0NNN byte with octal value NNN (1 to 3 digits), \\xHH byte with hexadecimal value HH (1 to 2 digits).',
  usage: '[STRING]...',
  mutates: false,
  // GNU echo takes no getopt options: -n, -e, -E (bundled as -neE) only in leading
  // arguments made entirely of those letters; anything else is text.
  parse: 'raw',
  flags: [
    { key: 'n', short: 'n', help: 'do not output the trailing newline' },
    { key: 'e', short: 'e', help: 'enable interpretation of backslash escapes' },
    { key: 'E', short: 'E', help: 'disable interpretation of backslash escapes (default)' },
  ],
  async run(ctx) {
    const args = ctx.args;
    if (args.length === 1 && args[0] === '--help') {
      await ctx.stdout.write(helpText(def));
      return 0;
    }
    let newline = true;
    let escapes = false;
    let i = 0;
    for (; i < args.length; i++) {
      const a = args[i]!;
      if (!/^-[neE]+$/.test(a)) break;
      for (const ch of a.slice(1)) {
        if (ch === 'n') newline = false;
        else escapes = ch === 'e';
      }
    }
    const words = args.slice(i).map((w) => Buffer.from(w, 'utf8'));
    const out: number[] = [];
    let stopped = false;
    for (let w = 0; w < words.length && !stopped; w++) {
      if (w > 0) out.push(0x20);
      if (!escapes) {
        for (const b of words[w]!) out.push(b);
        continue;
      }
      stopped = interpret(words[w]!, out);
    }
    if (newline && !stopped) out.push(0x0a);
    await ctx.stdout.write(Buffer.from(out));
    return 0;
  },
});
export default def;

const isOct = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x37;
function hexVal(b: number | undefined): number {
  if (b === undefined) return -1;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x61 + 10;
  if (b >= 0x41 && b <= 0x46) return b - 0x41 + 10;
  return -1;
}

const SIMPLE: Record<string, number> = { a: 7, b: 8, e: 0x1b, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 0x5c };

/** Append one argument with escapes interpreted; true when \c stopped all output. */
function interpret(s: Buffer, out: number[]): boolean {
  let i = 0;
  while (i < s.length) {
    const b = s[i++]!;
    if (b !== 0x5c || i >= s.length) {
      out.push(b);
      continue;
    }
    const e = String.fromCharCode(s[i++]!);
    if (e === 'c') return true;
    if (e in SIMPLE) {
      out.push(SIMPLE[e]!);
    } else if (e === 'x') {
      const h1 = hexVal(s[i]);
      if (h1 < 0) {
        out.push(0x5c, 0x78);
        continue;
      }
      i++;
      let c = h1;
      const h2 = hexVal(s[i]);
      if (h2 >= 0) {
        i++;
        c = c * 16 + h2;
      }
      out.push(c);
    } else if (e >= '0' && e <= '7') {
      let c: number;
      if (e === '0') {
        if (!isOct(s[i])) {
          out.push(0);
          continue;
        }
        c = s[i++]! - 0x30;
      } else c = e.charCodeAt(0) - 0x30;
      if (isOct(s[i])) c = c * 8 + (s[i++]! - 0x30);
      if (isOct(s[i])) c = c * 8 + (s[i++]! - 0x30);
      out.push(c & 0xff);
    } else {
      out.push(0x5c, e.charCodeAt(0));
    }
  }
  return false;
}
