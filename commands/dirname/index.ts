import { defineCommand } from '../../src/command/index.js';

export default defineCommand({
  name: 'dirname',
  summary: "Output each NAME with its last non-slash component and trailing slashes removed; if NAME contains no /'s, output '.' (meaning the current directory). (Text only: the file system is not consulted.)",
  usage: 'NAME...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'z', short: 'z', long: 'zero', help: 'end each output line with NUL, not newline' },
  ],
  async run(ctx) {
    if (ctx.operands.length === 0) {
      await ctx.stderr.write(`${ctx.name}: missing operand\nTry '${ctx.name} --help' for more information.\n`);
      return 1;
    }
    const end = ctx.values.z ? '\0' : '\n';
    let out = '';
    for (const n of ctx.operands) out += dirName(Buffer.from(n, 'utf8').toString('latin1')) + end;
    await ctx.stdout.write(Buffer.from(out, 'latin1'));
    return 0;
  },
});

/** gnulib dir_len: drop the last component and the slashes before it; keep a leading '/'. */
export function dirName(name: string): string {
  let start = 0;
  while (name[start] === '/') start++;
  // Start of the last component (trailing slashes ignored).
  let last = start;
  let sawSlash = false;
  for (let i = start; i < name.length; i++) {
    if (name[i] === '/') sawSlash = true;
    else if (sawSlash) {
      last = i;
      sawSlash = false;
    }
  }
  const prefix = name.startsWith('/') ? 1 : 0;
  let len = last;
  while (len > prefix && name[len - 1] === '/') len--;
  return len === 0 ? '.' : name.slice(0, len);
}
